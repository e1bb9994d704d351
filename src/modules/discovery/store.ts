import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { AgentsTable } from '../../db/schema.ts';
import { createLexicalSearch } from './lexical.ts';

export type AgentRow = Selectable<AgentsTable>;

export function createDiscoveryStore(db: Db, dialect: DialectName) {
  return {
    lexical: createLexicalSearch(db, dialect),

    /** The change log's end; BIGSERIAL comes back from pg as text. */
    lastChange: async (): Promise<number> => {
      const row = await db.selectFrom('discovery_changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /** Changes after `after`, plus any of `gaps` (sequence numbers skipped earlier that may have committed since). */
    changesSince: async (after: number, gaps: number[]): Promise<{ seq: number; agentId: string }[]> => {
      const rows = await db
        .selectFrom('discovery_changes')
        .select(['seq', 'agent_id'])
        .where((eb) => (gaps.length > 0 ? eb.or([eb('seq', '>', after), eb('seq', 'in', gaps)]) : eb('seq', '>', after)))
        .orderBy('seq')
        .execute();
      return rows.map((r) => ({ seq: Number(r.seq), agentId: r.agent_id }));
    },

    allAgents: (): Promise<AgentRow[]> => db.selectFrom('agents').selectAll().execute(),
    agentsByIds: async (ids: string[]): Promise<AgentRow[]> => {
      const rows: AgentRow[] = [];
      // Chunked: both engines cap the number of bound parameters.
      for (let start = 0; start < ids.length; start += 500) {
        rows.push(...(await db.selectFrom('agents').selectAll().where('id', 'in', ids.slice(start, start + 500)).execute()));
      }
      return rows;
    },
    agentBySlug: (slug: string) => db.selectFrom('agents').selectAll().where('slug', '=', slug).executeTakeFirst(),

    /** Heartbeats after `since` (indexed on last_seen_at). */
    seenSince: (since: string) =>
      db.selectFrom('agents').select(['id', 'last_seen_at', 'reported_status', 'reported_load']).where('last_seen_at', '>', since).execute(),
  };
}

export type DiscoveryStore = ReturnType<typeof createDiscoveryStore>;
