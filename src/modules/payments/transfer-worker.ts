/**
 * Sends the Stripe transfers that completions wrote to the `payment_transfers` outbox. A transfer is a
 * network call, so it never runs inside the completing transaction: the completion commits the row,
 * then wakes this worker (and a timer catches anything a lost wake-up missed). Every attempt uses the
 * idempotency key of the task, so a retry, a second node or a restart after a crash gets Stripe's
 * first answer back instead of paying twice.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Signals } from '../../db/signals.ts';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { ProviderError, type StripeProvider } from './providers/types.ts';
import type { PaymentsStore, TransferRow } from './store.ts';

export const TRANSFERS_CHANNEL = 'payments.transfers';

/** Six attempts, 30 s apart and then four times longer each: about three hours in all, well inside the 24 h Stripe keeps idempotency keys. */
const TRANSFER_MAX_ATTEMPTS = 6;
const TRANSFER_RETRY_BASE_MS = 30_000;
const LEASE_MS = 60_000;
const BATCH = 8;

export interface TransferWorkerDeps {
  store: PaymentsStore;
  stripe: StripeProvider;
  clock: Clock;
  signals: Signals;
  log: FastifyBaseLogger;
  pollIntervalMs: number;
  /**
   * Asked at each tick of the timer whether this node runs the pass (one node of those sharing the
   * database does: src/db/background-passes.ts); without it every tick runs one. Wake-ups after a
   * completion run a pass on every node, which share the due transfers by their leases.
   */
  scheduledPass?: () => Promise<boolean>;
}

export function createTransferWorker({ store, stripe, clock, signals, log, pollIntervalMs, scheduledPass = async () => true }: TransferWorkerDeps) {
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let running: Promise<void> | null = null;
  let again = false;
  let scheduling: Promise<void> | null = null;
  let unsubscribe: () => void = () => {};

  async function send(transfer: TransferRow): Promise<void> {
    let transferId: string;
    try {
      ({ transferId } = await stripe.transfer({
        taskId: transfer.task_id,
        amountCents: Number(transfer.amount_cents),
        currency: transfer.currency,
        destination: transfer.destination,
      }));
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      const retryable = !(error instanceof ProviderError) || error.retryable;
      if (!retryable || transfer.attempts >= TRANSFER_MAX_ATTEMPTS) {
        log.error(
          { taskId: transfer.task_id, agentId: transfer.agent_id, attempts: transfer.attempts, reason },
          "stripe transfer failed for good; the amount is back in the agent's available balance",
        );
        await store.transferFailed(transfer, reason, isoNow(clock));
      } else {
        log.warn({ taskId: transfer.task_id, attempt: transfer.attempts, reason }, 'stripe transfer failed; retrying');
        await store.retryTransferLater(transfer, isoIn(clock, TRANSFER_RETRY_BASE_MS * 4 ** (transfer.attempts - 1)), reason, isoNow(clock));
      }
      return;
    }
    // Stripe has the transfer now. If recording it fails, the lease runs out and the resend gets
    // Stripe's saved answer for the key, so it is recorded then, never sent twice.
    await store.transferSent(transfer, transferId, isoNow(clock));
  }

  async function pass(): Promise<void> {
    do {
      again = false;
      if (stopped) return;
      const due = await store.claimDueTransfers(isoNow(clock), isoIn(clock, LEASE_MS), BATCH);
      await Promise.all(due.map(send));
      if (due.length === BATCH) again = true;
    } while (again);
  }

  function tick(): void {
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((error: unknown) => log.error({ err: error }, 'transfer worker pass failed; the next one retries'))
      .finally(() => (running = null));
  }

  /** The timer's pass, when this node is the one to run it. */
  function scheduledTick(): void {
    if (running || scheduling || stopped) return;
    scheduling = scheduledPass()
      .then((mine) => void (mine && !stopped && tick()))
      .catch((error: unknown) => log.error({ err: error }, 'transfer worker pass failed; the next one retries'))
      .finally(() => (scheduling = null));
  }

  return {
    start(): void {
      stopped = false;
      unsubscribe = signals.subscribe(TRANSFERS_CHANNEL, tick);
      timer = setInterval(scheduledTick, pollIntervalMs);
      timer.unref();
      scheduledTick();
    },
    /**
     * Runs a pass now and resolves once it has finished: every transfer due by the clock has then
     * been tried. Lets a test know that the worker had its chance, instead of sleeping.
     */
    async settled(): Promise<void> {
      tick();
      while (running) await running;
    },
    async stop(): Promise<void> {
      stopped = true;
      unsubscribe();
      if (timer) clearInterval(timer);
      await scheduling;
      await running;
    },
  };
}

export type TransferWorker = ReturnType<typeof createTransferWorker>;
