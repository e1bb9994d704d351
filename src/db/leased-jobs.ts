import type { Kysely, SelectQueryBuilder, Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

/** Outbox tables worked by a leasing worker: the columns the claim reads and writes. */
type LeasedTable = 'task_deliveries' | 'payment_transfers';
interface LeasedColumns {
  id: string;
  state: string;
  run_at: string;
  lease_until: string | null;
  attempts: number;
  updated_at: string;
}

/**
 * Takes up to `limit` due jobs of an outbox table: pending ones whose time has come, and running ones
 * whose lease ran out (their worker died), marking them running until `leaseUntil`. On PostgreSQL
 * `SKIP LOCKED` lets any number of nodes share the table; the outer state check makes a job claimed
 * by two statements go to one of them.
 */
/** The due jobs of an outbox table, oldest first: the claim's inner select, also what its query-plan test reads. */
export function dueJobs(db: Db, table: LeasedTable, now: string, limit: number): SelectQueryBuilder<{ job: LeasedColumns }, 'job', { id: string }> {
  // Typed as one table with the shared columns; the real table name goes into the SQL.
  const jobs = db as unknown as Kysely<{ job: LeasedColumns }>;
  return jobs
    .selectFrom(table as unknown as 'job')
    .select('id')
    .where((eb) => eb.or([eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', now)]), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .orderBy('run_at')
    .limit(limit);
}

export async function claimLeasedJobs<T extends LeasedTable>(db: Db, dialect: DialectName, table: T, now: string, leaseUntil: string, limit: number): Promise<Selectable<Database[T]>[]> {
  const jobs = db as unknown as Kysely<{ job: LeasedColumns }>;
  const due = dueJobs(db, table, now, limit);
  const lockedDue = dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
  const claimed = await jobs
    .updateTable(table as unknown as 'job')
    .set((eb) => ({ state: 'running', lease_until: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', 'in', lockedDue)
    .where((eb) => eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .returningAll()
    .execute();
  return claimed as unknown as Selectable<Database[T]>[];
}
