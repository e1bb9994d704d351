import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * A task a long poll hands out is leased to the polling agent until `poll_lease_until`: a poll answer
 * lost with its node (or an agent that died) would otherwise leave the task in progress, its token
 * held by nobody, until it expires. The expiry pass puts tasks whose lease ran out back in the queue.
 * `poll_handouts` counts how many times polls have handed the task out. The partial index holds only
 * the tasks in progress under a lease, so the pass reads no others.
 */
export const pollLease: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE tasks ADD COLUMN poll_lease_until text`.execute(db);
    await sql`ALTER TABLE tasks ADD COLUMN poll_handouts integer NOT NULL DEFAULT 0`.execute(db);
    await sql`CREATE INDEX tasks_poll_lease ON tasks (poll_lease_until) WHERE status = 'in_progress' AND poll_lease_until IS NOT NULL`.execute(db);
  },
};
