import type { Kysely } from 'kysely';
import { isoNow, type Clock } from '../lib/clock.ts';
import type { DialectName } from './dialect.ts';

/**
 * The background work whose scheduled passes run on one node of all those sharing a database. Each
 * node keeps its own timer for each job; at every tick it asks here whether the pass is its to run.
 */
export type BackgroundJob = 'task_expiry' | 'trust_evidence_sweep' | 'event_prune' | 'stripe_transfers' | 'domain_recheck' | 'health_enrol';

export const BACKGROUND_JOBS: readonly BackgroundJob[] = [
  'task_expiry',
  'trust_evidence_sweep',
  'event_prune',
  'stripe_transfers',
  'domain_recheck',
  'health_enrol',
];

/** Whether this node runs the job's scheduled pass now. */
export type ScheduledPass = () => Promise<boolean>;

interface BackgroundPassesTable {
  job: string;
  pass: number;
  next_at: string;
  updated_at: string;
}

export interface BackgroundPassesOptions<DB> {
  /** The database, of whatever table types: this file names its one table itself. */
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  /** Told of each pass this node takes (the metrics). */
  onPass?: (job: BackgroundJob) => void;
  /** A failed check (the database unreachable): the pass is skipped, the next tick asks again. */
  onError?: (error: unknown) => void;
}

/**
 * A pass falls due again an interval after the last one began, less a margin, so that a node whose
 * timer fires a few milliseconds early by the shared record still runs it: a job's passes are at
 * least three quarters of its interval apart (and never more than a second less), whichever node
 * runs them.
 */
const margin = (intervalMs: number) => Math.min(intervalMs / 4, 1_000);

/**
 * On PostgreSQL each job has a row in `background_passes`; a node takes a pass by moving the row's
 * `next_at` on with a conditional update, which one node wins whenever several tick together (the
 * row lock makes the others read the winner's `next_at`). A node that dies holds nothing: the next
 * tick of any other node takes the job over. SQLite has one node per database file, which takes
 * every pass without a write.
 */
export function createBackgroundPasses<DB>({ db, dialect, clock, onPass = () => {}, onError = () => {} }: BackgroundPassesOptions<DB>) {
  const table = db as unknown as Kysely<{ background_passes: BackgroundPassesTable }>;
  const known = new Set<BackgroundJob>();

  async function take(job: BackgroundJob, intervalMs: number): Promise<boolean> {
    if (dialect === 'sqlite') return true;
    const now = isoNow(clock);
    if (!known.has(job)) {
      await table
        .insertInto('background_passes')
        .values({ job, pass: 0, next_at: new Date(0).toISOString(), updated_at: now })
        .onConflict((conflict) => conflict.column('job').doNothing())
        .execute();
      known.add(job);
    }
    const nextAt = new Date(clock.now().getTime() + intervalMs - margin(intervalMs)).toISOString();
    const taken = await table
      .updateTable('background_passes')
      .set((eb) => ({ pass: eb('pass', '+', 1), next_at: nextAt, updated_at: now }))
      .where('job', '=', job)
      .where('next_at', '<=', now)
      .returning('pass')
      .executeTakeFirst();
    return taken !== undefined;
  }

  return {
    /** The question one job's timer asks at each tick, every `intervalMs`. */
    scheduled(job: BackgroundJob, intervalMs: number): ScheduledPass {
      return async () => {
        const mine = await take(job, intervalMs).catch((error: unknown) => (onError(error), false));
        if (mine) onPass(job);
        return mine;
      };
    },
  };
}

export type BackgroundPasses = ReturnType<typeof createBackgroundPasses>;
