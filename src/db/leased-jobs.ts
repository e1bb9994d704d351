import type { Kysely, Selectable } from 'kysely';
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
export async function claimLeasedJobs<T extends LeasedTable>(db: Db, dialect: DialectName, table: T, now: string, leaseUntil: string, limit: number): Promise<Selectable<Database[T]>[]> {
  // Typed as one table with the shared columns; the real table name goes into the SQL.
  const jobs = db as unknown as Kysely<{ job: LeasedColumns }>;
  const name = table as unknown as 'job';
  const due = jobs
    .selectFrom(name)
    .select('id')
    .where((eb) => eb.or([eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', now)]), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .orderBy('run_at')
    .limit(limit);
  const lockedDue = dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
  const claimed = await jobs
    .updateTable(name)
    .set((eb) => ({ state: 'running', lease_until: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', 'in', lockedDue)
    .where((eb) => eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<=', now)])]))
    .returningAll()
    .execute();
  return claimed as unknown as Selectable<Database[T]>[];
}
