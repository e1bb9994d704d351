import type { Clock } from '../../lib/clock.ts';
import type { ReceiptsStore } from './store.ts';

export interface EvidenceSweepOptions {
  store: Pick<ReceiptsStore, 'sweepExpiredEvidence'>;
  clock: Clock;
  intervalMs?: number;
  /** Receipts at most per transaction: bounds how long one pass holds the write lock. */
  batch?: number;
  /**
   * Asked at each tick of the timer whether this node runs the pass (one node of those sharing the
   * database does: src/db/background-passes.ts); without it every tick runs one.
   */
  scheduledPass?: () => Promise<boolean>;
  onError(error: unknown): void;
}

/**
 * Takes expired receipts out of the maintained trust sums (migration 0011). Trust is exact without
 * it, since a read subtracts what expired after the watermark; the sweep keeps that part small.
 * Any number of nodes may sweep (passes serialise on the watermark); the scheduled ones run on one.
 */
export function createEvidenceSweep({ store, clock, intervalMs = 60_000, batch = 2_000, scheduledPass = async () => true, onError }: EvidenceSweepOptions) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  async function sweepAll(): Promise<void> {
    let more = true;
    while (more && !stopped) more = (await store.sweepExpiredEvidence(clock.now().toISOString(), batch)).more;
  }

  /** Starts a pass unless one is under way; resolves when the pass ends. Errors go to onError. */
  function sweep(): Promise<void> {
    running ??= sweepAll()
      .catch(onError)
      .finally(() => (running = null));
    return running;
  }

  /** The timer's pass, when this node is the one to run it. */
  let scheduling: Promise<void> | null = null;
  function scheduledSweep(): void {
    if (running || scheduling || stopped) return;
    scheduling = scheduledPass()
      .then((mine) => (mine && !stopped ? sweep() : undefined))
      .catch(onError)
      .finally(() => (scheduling = null));
  }

  return {
    sweep,
    start(): void {
      stopped = false;
      timer = setInterval(scheduledSweep, intervalMs);
      timer.unref();
      scheduledSweep();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      await scheduling;
      await running;
    },
  };
}

export type EvidenceSweep = ReturnType<typeof createEvidenceSweep>;
