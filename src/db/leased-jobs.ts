import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DialectName } from './dialect.ts';

/**
 * The columns every outbox table worked by a leasing worker has: what the claim reads and writes.
 * The module that owns the table names it and its row type; this file knows no table.
 */
export interface LeasedColumns {
  id: string;
  state: string;
  run_at: string;
  lease_until: string | null;
  attempts: number;
  updated_at: string;
}

/** The due jobs of an outbox table, oldest first: the claim's inner select, also what its query-plan test reads. */
export function dueJobs<DB>(db: Kysely<DB>, table: string, now: string, limit: number): SelectQueryBuilder<{ job: LeasedColumns }, 'job', { id: string }> {
  // Typed as one table with the shared columns; the real table name goes into the SQL.
  const jobs = db as unknown as Kysely<{ job: LeasedColumns }>;
  return jobs
    .selectFrom(table as unknown as 'job')
    .select('id')
    .where((eb) => eb.or([eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', now)]), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .orderBy('run_at')
    .limit(limit);
}

/**
 * Takes up to `limit` due jobs of an outbox table: pending ones whose time has come, and running ones
 * whose lease ran out (their worker died), marking them running until `leaseUntil`. On PostgreSQL
 * `SKIP LOCKED` lets any number of nodes share the table; the outer state check makes a job claimed
 * by two statements go to one of them. `Row` is the table's row type, which its owner knows.
 */
export async function claimLeasedJobs<Row extends LeasedColumns, DB = unknown>(
  db: Kysely<DB>,
  dialect: DialectName,
  table: string,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<Row[]> {
  const jobs = db as unknown as Kysely<{ job: LeasedColumns }>;
  const due = dueJobs(db, table, now, limit);
  // A SQLite UPDATE takes the write lock even when it matches nothing, and better-sqlite3 waits for
  // it on the calling thread: an idle worker's claim stalled every request while another connection
  // (the receipt insert worker, the log sequencer) was writing. Reading first takes no lock.
  if (dialect === 'sqlite' && (await due.executeTakeFirst()) === undefined) return [];
  const lockedDue = dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
  const claimed = await jobs
    .updateTable(table as unknown as 'job')
    .set((eb) => ({ state: 'running', lease_until: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', 'in', lockedDue)
    .where((eb) => eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .returningAll()
    .execute();
  return claimed as unknown as Row[];
}
