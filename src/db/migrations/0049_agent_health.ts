import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Health the registry measures (docs/registry.md, "Health"):
 *
 *  - `agent_health_hours`: per agent and UTC hour, the checks that succeeded and failed (probes and
 *    real deliveries alike), the sum of the successful ones' response times, and what the last
 *    failure said. A node folds the outcomes it saw into one upsert a second, adding to the row
 *    other nodes wrote: every figure of an agent's health is computed from these rows. No foreign
 *    key: one batch carries many agents, and an agent deleted meanwhile must not fail the others
 *    (its rows age out with the rest after eight days).
 *  - `agent_health_probes`: one row per probed agent, worked like an outbox (src/db/leased-jobs.ts):
 *    `run_at` is its next probe, and a node probing it holds `lease_until`, so each agent is probed
 *    by one node at a time and a node that dies hands its agents on when their leases end.
 */
export const agentHealth: Migration = {
  async up(db: Kysely<unknown>, _dialect: DialectName) {
    const statements = [
      `CREATE TABLE agent_health_hours (
         agent_id TEXT NOT NULL,
         hour TEXT NOT NULL,
         ok INTEGER NOT NULL,
         failed INTEGER NOT NULL,
         ok_ms_total BIGINT NOT NULL,
         failures_since_ok INTEGER NOT NULL,
         last_at TEXT NOT NULL,
         last_ok_at TEXT,
         last_failure_at TEXT,
         last_failure TEXT,
         updated_at TEXT NOT NULL,
         PRIMARY KEY (agent_id, hour))`,
      'CREATE INDEX agent_health_hours_updated ON agent_health_hours (updated_at)',
      'CREATE INDEX agent_health_hours_hour ON agent_health_hours (hour)',
      `CREATE TABLE agent_health_probes (
         id TEXT PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
         state TEXT NOT NULL,
         run_at TEXT NOT NULL,
         lease_until TEXT,
         attempts INTEGER NOT NULL,
         updated_at TEXT NOT NULL)`,
      'CREATE INDEX agent_health_probes_due ON agent_health_probes (run_at)',
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
