import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * When a poll agent last asked for tasks. Availability tells polls from heartbeats: a poll agent is
 * `available` only while it polls (docs/registry.md), so a process that heartbeats but can no longer
 * take its tasks shows `away` and is not preferred by routing.
 */
export const agentLastPoll: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw('ALTER TABLE agents ADD COLUMN last_polled_at TEXT').execute(db);
  },
};
