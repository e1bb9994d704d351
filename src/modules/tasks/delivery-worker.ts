/**
 * Works the delivery outbox (`task_deliveries`): sends due jobs with Standard Webhooks signatures,
 * or as A2A messages to agents with deliveryMode "a2a" (a2a-sender.ts), retries with exponential
 * backoff inside the task's expiry, moves a task to its next candidate after repeated failure,
 * expires tasks nobody finished, and puts back in the queue tasks whose poll lease ran out. Every state change is a conditional update, so any number of
 * workers (one per node) can share the table, and a worker killed mid-delivery leaves a job whose lease runs out and is sent again: the same task, the same webhook-id.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { DeliveryMode, DeliveryOutcome } from '../../lib/metrics.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Signals } from '../../db/signals.ts';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { publicFailureReason, type OutboundClient } from '../../lib/outbound-http.ts';
import type { Tracing } from '../../lib/tracing.ts';
import type { AgentRecord } from '../registry/index.ts';
import { deliverySpanAttributes, type A2aSender } from './a2a-sender.ts';
import type { Assigner } from './assignment.ts';
import { AGENT_TASKS_CHANNEL, DELIVERY_CHANNEL } from './service.ts';
import { type DeliveryJob, type Task, type TaskSettlement, type TasksStore } from './store.ts';
import { webhookDeliveryHeaders } from './webhook-signature.ts';

export interface DeliveryOptions {
  /** Attempts per agent before the task moves to the next candidate. */
  maxAttempts: number;
  /** First retry delay; each later one is four times longer. */
  retryBaseMs: number;
  /** How long a claimed job is reserved; past this another worker takes it over. */
  leaseMs: number;
  pollIntervalMs: number;
  concurrency: number;
}

/**
 * A delivery job claimed by this node's worker in the transaction that creates its task, so the
 * worker sends it at once instead of claiming it in a commit of its own first. Held from before the
 * transaction: `send` once it has committed, `release` if it did not.
 */
export interface DeliverySlot {
  leaseUntil: string;
  send(job: DeliveryJob, known: KnownDelivery): void;
  release(): void;
}

/** The task as its creation committed it and the agent it was routed to: what a handed-off job is sent from, unread. */
export interface KnownDelivery {
  task: Task;
  agent: AgentRecord;
  /** When the agent's listen session ends, as the creation's statement found it; null when none ran. */
  listeningUntil: string | null;
}

/**
 * Where task creation asks this node's worker for a slot. The worker attaches itself while it runs;
 * without one (not started, stopped, or every slot busy) there is no slot, and the job waits in the
 * outbox for whichever worker claims it.
 */
export function createDeliveryHandOff() {
  let claimSlot: (() => DeliverySlot | null) | null = null;
  return {
    claimSlot: (): DeliverySlot | null => claimSlot?.() ?? null,
    attach(worker: () => DeliverySlot | null): void {
      claimSlot = worker;
    },
    detach(): void {
      claimSlot = null;
    },
  };
}

export type DeliveryHandOff = ReturnType<typeof createDeliveryHandOff>;

export interface DeliveryWorkerDeps {
  store: TasksStore;
  dialect: DialectName;
  clock: Clock;
  outbound: OutboundClient;
  signals: Signals;
  assigner: Assigner;
  findAgent(id: string): Promise<AgentRecord | undefined>;
  /** Records that the agent answered a delivery: a sign of life for its availability (docs/registry.md). */
  markSeen(agentId: string): Promise<unknown>;
  /** Sends to agents with deliveryMode "a2a"; the others get webhooks. */
  a2a: A2aSender;
  /** Completes paid tasks that an A2A agent finished (payments writes the ledger entries). */
  settlement: TaskSettlement;
  log: FastifyBaseLogger;
  /** When tracing is on, each delivery runs in a span of its own: its queries and log lines are in its trace. */
  tracing?: Pick<Tracing, 'inSpan'> | null;
  options: DeliveryOptions;
  handOff: DeliveryHandOff;
  /** Told what each attempt led to (the metrics). */
  onAttempt?: (mode: DeliveryMode, outcome: DeliveryOutcome) => void;
  /** Each attempt's outcome for the agent's measured health: counted in memory, never a statement of the delivery's own. */
  onHealth?: (agentId: string, outcome: { ok: boolean; ms: number; reason?: string }) => void;
  /**
   * Asked at each tick of the timer whether this node expires due tasks in that pass (one node of
   * those sharing the database does: src/db/background-passes.ts); without it every tick does.
   * Every node claims due deliveries at every tick whatever the answer: they share the outbox.
   */
  scheduledExpiry?: () => Promise<boolean>;
}

export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { store, clock, outbound, signals, assigner, findAgent, log, options, handOff } = deps;
  const attempted = deps.onAttempt ?? (() => {});
  const health = deps.onHealth ?? (() => {});
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let ticking = false;
  let again = false;
  // Whether the pass running or next expires due tasks: the timer's when this node won the schedule, and those asked for by tick().
  let expireNext = false;
  let scheduling: Promise<void> | null = null;
  const scheduledExpiry = deps.scheduledExpiry ?? (async () => true);
  // Due jobs may be left in the outbox because every slot was busy: a finished delivery looks again.
  let backlog = false;
  const inFlight = new Set<Promise<void>>();
  // The jobs this node holds a lease on (sending, or claimed while stopping): released if a stop runs out of time.
  const held = new Map<string, DeliveryJob>();
  // Slots promised to tasks being created, not yet sending.
  let reserved = 0;
  // settled() callers, told when a pass ends with no delivery in flight.
  let idleWaiters: (() => void)[] = [];
  const wakeIdleWaiters = () => {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  let unsubscribe: () => void = () => {};

  async function fallBack(task: Task, job: DeliveryJob, reason: string): Promise<void> {
    const now = isoNow(clock);
    const candidates = task.candidates;
    for (let index = task.candidateIndex + 1; index < candidates.length; index++) {
      const agent = await findAgent(candidates[index] as string);
      if (!agent) continue;
      const assignment = await assigner.assign(task, agent, now);
      if (!assignment.ok) continue;
      const moved = await store.reassign(task.id, task.candidateIndex, { ...assignment.changes, candidateIndex: index, updatedAt: now }, assignment.delivery, {
        id: job.id,
        error: reason,
        now,
      });
      if (moved) void signals.publish(assignment.delivery ? DELIVERY_CHANNEL : AGENT_TASKS_CHANNEL, assignment.delivery ? '' : agent.id).catch(() => {});
      return;
    }
    const error = { code: 'delivery_failed', message: `No agent accepted the task; the last one failed with: ${reason}` };
    await store.reassign(task.id, task.candidateIndex, { status: 'failed', error, tokenHash: null, completedAt: now, updatedAt: now }, null, {
      id: job.id,
      error: reason,
      now,
    });
  }

  /** A failed send: again later while attempts and time remain, else the task moves to its next candidate. */
  async function retryOrFallBack(mode: DeliveryMode, job: DeliveryJob, task: Task, agentId: string, reason: string, detail: string): Promise<void> {
    // Cut off by shutdown after stop() handed the job back: it is due again as it is, for another node.
    if (stopped && !held.has(job.id)) return;
    const retryAt = isoIn(clock, options.retryBaseMs * 4 ** (job.attempts - 1));
    const retry = job.attempts < options.maxAttempts && retryAt < task.expiresAt;
    attempted(mode, retry ? 'retry' : 'next_candidate');
    if (retry) {
      log.info({ taskId: task.id, agentId, attempt: job.attempts, reason: detail }, 'delivery failed; retrying');
      await store.retryLater(job, retryAt, reason, isoNow(clock));
    } else {
      log.info({ taskId: task.id, agentId, attempts: job.attempts, reason: detail }, 'delivery failed; trying the next candidate');
      await fallBack(task, job, reason);
    }
  }

  async function deliverA2a(job: DeliveryJob, task: Task, agent: AgentRecord): Promise<void> {
    const started = performance.now();
    const outcome = await deps.a2a.deliver(job, task, agent);
    const ms = performance.now() - started;
    health(agent.id, outcome.kind === 'failed' ? { ok: false, ms, reason: outcome.reason } : { ok: true, ms });
    const now = isoNow(clock);
    if (outcome.kind !== 'failed') {
      attempted('a2a', 'delivered');
      await deps.markSeen(agent.id);
    }
    switch (outcome.kind) {
      case 'failed':
        return retryOrFallBack('a2a', job, task, agent.id, outcome.reason, outcome.detail);
      case 'following':
        await store.following(job, outcome.remoteTaskId, outcome.runAt, now);
        return;
      case 'finished': {
        const finished = await store.finish(
          task.id,
          deps.settlement,
          {
            status: outcome.status,
            result: outcome.status === 'completed' ? outcome.result : null,
            error: outcome.status === 'failed' ? outcome.error : null,
            now,
          },
          null,
        );
        if (finished?.status === 'completed') deps.settlement.afterCommit(finished.task);
        await store.retire(job.id, now);
      }
    }
  }

  async function deliver(job: DeliveryJob, known: KnownDelivery | null): Promise<void> {
    const task = known ? known.task : await store.find(job.taskId);
    const now = isoNow(clock);
    // A job following an A2A agent's task waits on a task in progress; a fresh one on a matched task.
    const following = job.remoteTaskId !== null;
    if (!task || task.status !== (following ? 'in_progress' : 'matched') || task.assignedAgentId !== job.agentId || (!following && !job.body)) {
      await store.retire(job.id, now);
      return;
    }
    const agent = known ? known.agent : await findAgent(job.agentId);
    if (agent?.deliveryMode === 'a2a' && agent.endpoint) {
      await deliverA2a(job, task, agent);
      return;
    }
    // The agent left A2A delivery while its task was followed: nothing to send; the task runs to its expiry.
    if (following || !job.body) {
      await store.retire(job.id, now);
      return;
    }
    // The owner's `listen` session takes this agent's deliveries while it runs; the endpoint gets them after.
    if (agent?.deliveryMode === 'webhook') {
      const listening = known ? known.listeningUntil : await store.listeningUntil(agent.id, now);
      if (listening) {
        await store.holdForListener(job, listening, now);
        void signals.publish(AGENT_TASKS_CHANNEL, agent.id).catch(() => {});
        return;
      }
    }
    if (!agent?.endpoint || !agent.webhookSecret) {
      await fallBack(task, job, 'the agent has no endpoint or webhook secret any more');
      return;
    }
    const headers = webhookDeliveryHeaders(agent.webhookSecret, job.id, Math.floor(clock.now().getTime() / 1000), job.body);
    const started = performance.now();
    const outcome = await outbound.send({
      url: agent.endpoint,
      method: 'POST',
      headers,
      body: job.body,
      trace: { name: 'deliver webhook', attributes: deliverySpanAttributes(job, 'webhook') },
    });
    const ms = performance.now() - started;
    health(agent.id, outcome.ok ? { ok: true, ms } : { ok: false, ms, reason: publicFailureReason(outcome.failure, "the agent's endpoint", outcome.response) });
    if (outcome.ok) {
      attempted('webhook', 'delivered');
      await store.delivered(job, isoNow(clock));
      await deps.markSeen(agent.id);
      return;
    }
    // The detail stays in the log: it can name what the endpoint's host resolved to inside our network.
    const detail = `${outcome.failure.kind}: ${outcome.failure.message}`;
    await retryOrFallBack('webhook', job, task, agent.id, publicFailureReason(outcome.failure, "the agent's endpoint", outcome.response), detail);
  }

  const attempt = (job: DeliveryJob, known: KnownDelivery | null) =>
    deliver(job, known).catch((error: unknown) =>
      log.error({ err: error, taskId: job.taskId, jobId: job.id }, 'webhook delivery crashed; the job is retried when its lease ends'),
    );
  const tracing = deps.tracing ?? null;

  function send(job: DeliveryJob, known: KnownDelivery | null = null): void {
    held.set(job.id, job);
    const delivery = tracing
      ? tracing.inSpan(
          'delivery',
          { 'agentry.task.id': job.taskId, 'agentry.agent.id': job.agentId, 'agentry.delivery.id': job.id, 'agentry.delivery.attempt': job.attempts },
          () => attempt(job, known),
        )
      : attempt(job, known);
    const work = delivery.finally(() => {
      held.delete(job.id);
      inFlight.delete(work);
      // Looking again after every delivery would cost a pass per task; only a backlog or a
      // settled() caller waiting for the last delivery needs one.
      if (!stopped && (backlog || idleWaiters.length > 0)) void pass(false);
    });
    inFlight.add(work);
  }

  function claimSlot(): DeliverySlot | null {
    if (stopped || inFlight.size + reserved >= options.concurrency) return null;
    reserved++;
    let slotHeld = true;
    const free = () => {
      if (slotHeld) reserved--;
      slotHeld = false;
    };
    return {
      leaseUntil: isoIn(clock, options.leaseMs),
      send(job, known) {
        free();
        // Stopping: the job is not sent here; stop() hands it back to the outbox (should stop have
        // ended already, its lease running out, or the next start on SQLite, sends it).
        if (!stopped) send(job, known);
        else held.set(job.id, job);
      },
      release: free,
    };
  }

  /** Claims and sends due deliveries, and with `expire` first expires due tasks. */
  async function pass(expire: boolean): Promise<void> {
    if (expire) expireNext = true;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        if (stopped) return;
        if (expireNext) {
          expireNext = false;
          const expired = await store.expireDue(isoNow(clock));
          if (expired.length > 0)
            void deps.a2a.cancelAtAgents(expired).catch((error: unknown) => log.warn({ err: error }, 'cancelling expired tasks at their A2A agents failed'));
          // Poll hand-outs whose lease ran out (the answer lost with a node, or the agent gone) go back to the queue; waiting polls are woken.
          const requeued = await store.requeueLapsed(isoNow(clock));
          for (const agentId of new Set(requeued.map((parties) => parties.assignedAgentId)))
            if (agentId) void signals.publish(AGENT_TASKS_CHANNEL, agentId).catch(() => {});
        }
        const room = options.concurrency - inFlight.size - reserved;
        backlog = room <= 0;
        if (room <= 0) return;
        const jobs = await store.claimDue(isoNow(clock), isoIn(clock, options.leaseMs), room);
        for (const job of jobs) {
          // Stopping began while this pass claimed them: they are handed back by stop(), not sent.
          if (stopped) held.set(job.id, job);
          else send(job);
        }
        if (jobs.length === room) again = backlog = true;
      } while (again);
    } catch (error) {
      log.error({ err: error }, 'delivery worker tick failed');
    } finally {
      ticking = false;
      if (inFlight.size === 0) wakeIdleWaiters();
    }
  }

  /** A pass that expires tasks too; what tests run instead of waiting for the timer. */
  const tick = () => pass(true);

  /** The timer's pass: it expires tasks when this node is the one to. */
  function scheduledTick(): void {
    if (scheduling || stopped) return;
    scheduling = scheduledExpiry()
      .then((mine) => (stopped ? undefined : pass(mine)))
      .catch((error: unknown) => log.error({ err: error }, 'delivery worker tick failed'))
      .finally(() => (scheduling = null));
  }

  return {
    async start(): Promise<void> {
      stopped = false;
      // With SQLite this process is the only worker, so jobs still marked running were cut off by a crash.
      if (deps.dialect === 'sqlite') await store.releaseRunning(isoNow(clock));
      unsubscribe = signals.subscribe(DELIVERY_CHANNEL, () => void pass(false));
      timer = setInterval(scheduledTick, options.pollIntervalMs);
      timer.unref();
      handOff.attach(claimSlot);
      scheduledTick();
    },

    /** Runs one pass now (tests with a manual clock use it instead of waiting for the timer). */
    tick,

    /** Deliveries this node is sending now. */
    inFlight: () => inFlight.size,

    /**
     * Runs a pass now and resolves once it, and every delivery it started, has finished: whatever
     * was due by the clock has then been sent, retried or failed over. Lets a test know that the
     * worker had its chance, instead of sleeping and hoping it did.
     */
    settled(): Promise<void> {
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve));
      void tick();
      return idle;
    },

    /**
     * Stops claiming jobs and lets the deliveries in flight finish for up to `maxWaitMs`. The jobs
     * still held then are handed back to the outbox, due now: another node sends them at once
     * instead of waiting for their lease to run out (a webhook cut off mid-send arrives again with
     * the same webhook-id, which receivers already treat as a repeat).
     */
    async stop(maxWaitMs = Number.POSITIVE_INFINITY): Promise<void> {
      stopped = true;
      handOff.detach();
      unsubscribe();
      if (timer) clearInterval(timer);
      await scheduling;
      let deadline: NodeJS.Timeout | undefined;
      const outOfTime = new Promise<void>((resolve) => {
        if (Number.isFinite(maxWaitMs)) deadline = setTimeout(resolve, Math.max(0, maxWaitMs));
      });
      await Promise.race([Promise.allSettled([...inFlight]), outOfTime]);
      clearTimeout(deadline);
      if (held.size > 0) {
        const jobs = [...held.values()];
        held.clear();
        try {
          await store.releaseHeld(jobs, isoNow(clock));
          log.info({ jobs: jobs.length }, 'stopping: handed undelivered webhook jobs back to the outbox');
        } catch (error) {
          log.warn({ err: error }, 'stopping: could not hand webhook jobs back; they are sent again when their lease ends');
        }
      }
      wakeIdleWaiters();
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
