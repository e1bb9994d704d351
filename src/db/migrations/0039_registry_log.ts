import { sql, type Kysely } from 'kysely';
import { registeredEvent, queueRegistryEvents, type LoggedAgent } from '../../modules/registry/lifecycle-log.ts';
import type { RegistryTables } from '../../modules/registry/tables.ts';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * The registry log's queue of agent lifecycle events (modules/registry/lifecycle-log.ts), and every
 * existing agent's current state queued once as a `registered` event (at its registration time;
 * oldest first), which the registry sequencer logs on the first start.
 */
export const registryLog: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const seq = dialect === 'postgres' ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
    const bigint = dialect === 'postgres' ? 'BIGINT' : 'INTEGER';
    await sql
      .raw(
        `CREATE TABLE registry_log_events (seq ${seq}, agent_id TEXT NOT NULL, event TEXT NOT NULL, entry TEXT NOT NULL,
        public INTEGER NOT NULL, created_at TEXT NOT NULL, log_index ${bigint})`,
      )
      .execute(db);
    await sql`CREATE INDEX registry_log_events_agent ON registry_log_events (agent_id, seq)`.execute(db);
    await sql`CREATE INDEX registry_log_events_pending ON registry_log_events (seq) WHERE log_index IS NULL`.execute(db);
    await sql`CREATE UNIQUE INDEX registry_log_events_index ON registry_log_events (log_index) WHERE log_index IS NOT NULL`.execute(db);
    const own = db as unknown as Kysely<RegistryTables>;
    const agents: (LoggedAgent & { created_at: string })[] = await own
      .selectFrom('agents')
      .select(['id', 'name', 'slug', 'status', 'owner_id', 'registration_pubkey', 'endpoint', 'delivery_mode', 'visibility', 'created_at'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (let at = 0; at < agents.length; at += 500)
      await queueRegistryEvents(
        own,
        agents.slice(at, at + 500).map((agent) => registeredEvent(agent, agent.created_at)),
      );
  },
};
