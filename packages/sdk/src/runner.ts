/**
 * AgentRunner keeps an agent alive: heartbeats on a timer, takes tasks by long poll or webhook, runs
 * the author's handler on each task's input, and calls back with the result or the error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { AgentryClient, FINAL_TASK_STATUSES } from './client.ts';
import { AgentryError, AgentryNetworkError } from './errors.ts';
import { checkInput, type TypedInputSchema } from './input-schema.ts';
import { agentSignatureHeader, publicKeyString } from './keys.ts';
import { buildReceipt, signReceipt, type Party, type ReceiptInput, type SignedReceipt } from './receipts.ts';
import { readWebhookRequest, type TaskDelivery } from './webhooks.ts';

export type TaskHandler<TInput = unknown, TOutput = unknown> = (input: TInput, task: TaskDelivery, context: { signal: AbortSignal }) => Promise<TOutput>;

/**
 * The runner cannot go on without a change on the author's side: the service refused the agent's
 * credential, does not know the agent, or delivers its tasks another way. `status` is the service's answer.
 */
export class AgentRunnerError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(message: string, cause: AgentryError) {
    super(message, { cause });
    this.name = 'AgentRunnerError';
    this.status = cause.status;
    this.code = cause.code;
  }
}

export interface AgentRunnerOptions<TInput = unknown, TOutput = unknown> {
  client: AgentryClient;
  agentId: string;
  handler: TaskHandler<TInput, TOutput>;
  /**
   * The agent's input schema (the one it registered; `inputSchema()` types it): each delivery's input
   * is checked against it before the handler runs, and a mismatch fails the task naming the fields.
   */
  inputSchema?: TypedInputSchema<TInput>;
  /** The registration key: signs `X-Agent-Signature` (needed for provisional agents) and receipts. */
  key?: KeyObject;
  /** `poll` (default) or `webhook`, as the agent's `deliveryMode` at the service. */
  mode?: 'poll' | 'webhook';
  /** Webhook mode: the `whsec_` secret, and where to listen (default 127.0.0.1, port 0). */
  webhook?: { secret: string; port?: number; host?: string };
  heartbeatIntervalMs?: number;
  /** Seconds a poll waits for work (0..30). */
  pollWaitSeconds?: number;
  /** Tasks run at the same time (default 1). */
  concurrency?: number;
  /** On stop, how long tasks in hand may take to finish before they are failed (default 10 s). */
  gracePeriodMs?: number;
  /**
   * While a task is in hand, how often to ask the service whether it still waits for the result
   * (default 5 s): a task cancelled or expired meanwhile has its handler's signal aborted, and no callback.
   */
  cancelCheckIntervalMs?: number;
  /** Attempts at a callback that meets network errors (default 5). */
  callbackAttempts?: number;
  /** Install SIGTERM/SIGINT handlers that stop gracefully (default false). */
  handleSignals?: boolean;
  /** Errors the runner recovers from (a failed heartbeat, a network error, a refused callback). Default: a line on stderr. */
  onError?: (error: unknown, context: string) => void;
  /**
   * The runner stopped because the service refused its polls (401, 403, 404, 409): the error names
   * the fix. Default: throw it (an uncaught error, which ends the process unless handled).
   */
  onFatal?: (error: AgentRunnerError) => void;
  /**
   * A task ended at the runner: `completed` or `failed` (the callback was sent), `cancelled` (the
   * requester cancelled it while it ran), `abandoned` (the runner stopped before it finished, or the
   * service stopped waiting for it: it expired).
   */
  onTask?: (event: { taskId: string; outcome: 'completed' | 'failed' | 'cancelled' | 'abandoned' }) => void;
}

interface InHand {
  delivery: TaskDelivery;
  controller: AbortController;
  done: Promise<void>;
  reported: boolean;
  /** Set when the service no longer waits for the task's result: `cancelled`, or `abandoned` (expired, or taken back). */
  ended?: 'cancelled' | 'abandoned';
}

type Outcome = { result: unknown } | { error: { code: string; message: string } };

/**
 * What became of a callback: `settled` (the service took it, or refused it for a reason sending it
 * again would not change), the service's 409 (the task no longer takes an outcome), or `unanswered`
 * (network errors or 5xx to the last attempt: the service may never have had it).
 */
type CallbackAnswer = 'settled' | AgentryError | 'unanswered';

/**
 * How many tasks the runner remembers having answered: a poll that took a task again just before its
 * answer arrived hands it out once more, moments later, so the latest few hundred are plenty.
 */
const REMEMBERED_ANSWERS = 1000;
/**
 * How many webhook-ids the runner remembers: the service retries a delivery under its webhook-id for
 * minutes at most, so the latest ten thousand cover any retry while the runner's memory stays bounded.
 */
const REMEMBERED_DELIVERIES = 10_000;

const logToStderr = (error: unknown, context: string) => {
  process.stderr.write(`agentry runner: ${context}: ${error instanceof Error ? error.message : String(error)}\n`);
};
const rethrow = (error: AgentRunnerError) => {
  throw error;
};

export class AgentRunner<TInput = unknown, TOutput = unknown> {
  private readonly options: Required<
    Pick<
      AgentRunnerOptions<TInput, TOutput>,
      | 'mode'
      | 'heartbeatIntervalMs'
      | 'pollWaitSeconds'
      | 'concurrency'
      | 'gracePeriodMs'
      | 'cancelCheckIntervalMs'
      | 'callbackAttempts'
      | 'onError'
      | 'onFatal'
    >
  > &
    AgentRunnerOptions<TInput, TOutput>;
  private running = false;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly stopController = new AbortController();
  private pollLoop: Promise<void> | null = null;
  private server: Server | null = null;
  private readonly inHand = new Map<string, InHand>();
  private readonly seenDeliveries = new Set<string>();
  /** Tasks this runner's handler has finished: null once the service has the answer, else the answer to send again. */
  private readonly answered = new Map<string, Outcome | null>();
  private readonly signalHandler = () => void this.stop();
  private stopping: Promise<void> | null = null;

  constructor(options: AgentRunnerOptions<TInput, TOutput>) {
    this.options = {
      mode: 'poll',
      heartbeatIntervalMs: 60_000,
      pollWaitSeconds: 30,
      concurrency: 1,
      gracePeriodMs: 10_000,
      cancelCheckIntervalMs: 5000,
      callbackAttempts: 5,
      onError: logToStderr,
      onFatal: rethrow,
      ...options,
    };
    if (this.options.mode === 'webhook' && !this.options.webhook?.secret) throw new Error('webhook mode needs webhook.secret');
  }

  /** The webhook server's address (webhook mode, after start). */
  get webhookUrl(): string | null {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) return null;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}/`;
  }

  get tasksInHand(): number {
    return this.inHand.size;
  }

  /**
   * Sends the first heartbeat (signed by the key when one is given, which proves the key to the
   * service), then starts taking tasks. Rejects when that heartbeat is refused (401, 403, 404), with
   * the service's message and what to check.
   */
  async start(): Promise<void> {
    if (this.running) return;
    try {
      await this.options.client.heartbeat(this.options.agentId, { status: 'available', load: 0 }, this.signature());
    } catch (error) {
      if (error instanceof AgentryError && [401, 403, 404].includes(error.status)) throw this.refusal(error, 'heartbeat');
      this.options.onError(error, 'heartbeat');
    }
    this.running = true;
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.options.heartbeatIntervalMs);
    this.heartbeatTimer.unref();
    if (this.options.mode === 'poll') this.pollLoop = this.runPollLoop();
    else await this.listen();
    if (this.options.handleSignals) {
      process.once('SIGTERM', this.signalHandler);
      process.once('SIGINT', this.signalHandler);
    }
  }

  /**
   * Stops taking work, lets the tasks in hand finish within the grace period, then aborts the rest
   * and calls back with an error for each, so the requester learns at once instead of at expiry.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.running = false;
    process.off('SIGTERM', this.signalHandler);
    process.off('SIGINT', this.signalHandler);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.stopController.abort();
    await this.pollLoop?.catch(() => {});
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
    }
    const pending = [...this.inHand.values()];
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.gracePeriodMs);
    });
    await Promise.race([Promise.all(pending.map((task) => task.done)), grace]);
    clearTimeout(timer);
    await Promise.all(
      [...this.inHand.values()].map(async (task) => {
        task.controller.abort();
        if (task.reported) return;
        task.reported = true;
        await this.reportOutcome(task.delivery, { error: { code: 'agent_shutdown', message: 'the agent stopped before finishing the task' } });
        this.options.onTask?.({ taskId: task.delivery.taskId, outcome: 'abandoned' });
      }),
    );
  }

  /** The service refused the agent: its message, and what the author has to change. */
  private refusal(error: AgentryError, what: 'heartbeat' | 'poll'): AgentRunnerError {
    const id = this.options.agentId;
    const fix =
      error.status === 401
        ? `give the runner the agent's registration key (\`key\`) or a token of the agent's owner (AgentryClient \`token\`)`
        : error.status === 403
          ? `the credential may not act as agent ${id}: use its owner's token or its registration key`
          : error.status === 404
            ? `check agentId (${id}) and the service URL (${this.options.client.baseUrl}); an agent the credential may not see answers 404`
            : `make the runner's \`mode\` (${this.options.mode}) match the agent's deliveryMode at the service, or change the agent's deliveryMode`;
    return new AgentRunnerError(`agent ${id}: the service refused the ${what} (${error.status} ${error.code}: ${error.message}); ${fix}`, error);
  }

  private signature(): string | undefined {
    return this.options.key ? agentSignatureHeader(this.options.key, this.options.agentId) : undefined;
  }

  private async heartbeat(): Promise<void> {
    const load = Math.min(1, this.inHand.size / this.options.concurrency);
    try {
      await this.options.client.heartbeat(this.options.agentId, { status: load >= 1 ? 'busy' : 'available', load }, this.signature());
    } catch (error) {
      this.options.onError(error, 'heartbeat');
    }
  }

  private async runPollLoop(): Promise<void> {
    let backoff = 1000;
    while (this.running) {
      if (this.inHand.size >= this.options.concurrency) {
        await Promise.race([...[...this.inHand.values()].map((task) => task.done), this.stopped()]);
        continue;
      }
      try {
        const deliveries = (await this.options.client.pollTasks(this.options.agentId, {
          wait: this.options.pollWaitSeconds,
          limit: this.options.concurrency - this.inHand.size,
          ...(this.options.key ? { agentSignature: this.signature()! } : {}),
          signal: this.stopController.signal,
        })) as TaskDelivery[];
        backoff = 1000;
        // A task handed out again (its renewals were lost and the lease ran out) is the same task,
        // under the same token: the handler at work on it answers it, and one that has answered it
        // does not run again (a poll took the task again just before its answer arrived).
        for (const delivery of deliveries) {
          if (this.inHand.has(delivery.taskId)) continue;
          if (!this.answered.has(delivery.taskId)) this.accept(delivery);
          else {
            const unanswered = this.answered.get(delivery.taskId);
            if (unanswered) this.resend(delivery, unanswered);
          }
        }
      } catch (error) {
        if (!this.running) return;
        // A refusal (credential, unknown agent, another delivery mode) will not fix itself: stop and say what to change.
        if (error instanceof AgentryError && [401, 403, 404, 409].includes(error.status)) {
          const fatal = this.refusal(error, 'poll');
          void this.stop();
          // Outside this loop's promise, so the default (throw) is an uncaught error rather than a lost rejection.
          setImmediate(() => this.options.onFatal(fatal));
          return;
        }
        this.options.onError(error, 'poll');
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  private stopped(): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopController.signal.aborted) resolve();
      else this.stopController.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  private async sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms))), this.stopped()]);
    clearTimeout(timer);
  }

  private async listen(): Promise<void> {
    const secret = this.options.webhook!.secret;
    this.server = createServer((request, response) => {
      void readWebhookRequest(request, secret).then((result) => {
        if (!result.ok) {
          response.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: result.error }));
          return;
        }
        if (!this.running || this.inHand.size >= this.options.concurrency) {
          // Not 2xx: the service retries, or moves the task to another agent.
          response.writeHead(503, { 'retry-after': '5' }).end();
          return;
        }
        // A retried delivery (same webhook-id) of a task already taken is acknowledged, not run twice.
        if (!this.seenDeliveries.has(result.id) && !this.inHand.has(result.delivery.taskId)) {
          this.seenDeliveries.add(result.id);
          if (this.seenDeliveries.size > REMEMBERED_DELIVERIES) this.seenDeliveries.delete(this.seenDeliveries.values().next().value!);
          this.accept(result.delivery);
        }
        response.writeHead(204).end();
      });
    });
    const { port = 0, host = '127.0.0.1' } = this.options.webhook!;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
  }

  private accept(delivery: TaskDelivery): void {
    const controller = new AbortController();
    const task: InHand = { delivery, controller, reported: false, done: Promise.resolve() };
    task.done = this.run(task).finally(() => this.inHand.delete(delivery.taskId));
    this.inHand.set(delivery.taskId, task);
  }

  /**
   * A task whose answer never reached the service (every callback attempt failed), handed out again:
   * the same answer goes again, without running the handler a second time.
   */
  private resend(delivery: TaskDelivery, outcome: Outcome): void {
    const task: InHand = { delivery, controller: new AbortController(), reported: true, done: Promise.resolve() };
    task.done = this.reportOutcome(delivery, outcome)
      .then((answer) => {
        if (answer !== 'unanswered') this.remember(delivery.taskId, null);
      })
      .finally(() => this.inHand.delete(delivery.taskId));
    this.inHand.set(delivery.taskId, task);
  }

  private remember(taskId: string, unanswered: Outcome | null): void {
    this.answered.delete(taskId);
    this.answered.set(taskId, unanswered);
    if (this.answered.size > REMEMBERED_ANSWERS) this.answered.delete(this.answered.keys().next().value!);
  }

  private async run(task: InHand): Promise<void> {
    let outcome: Outcome;
    const problems = this.options.inputSchema ? checkInput(this.options.inputSchema, task.delivery.input) : [];
    const watch = setInterval(() => void this.checkStillWaited(task), this.options.cancelCheckIntervalMs);
    watch.unref();
    const leaseKept = this.keepLease(task);
    // A handler that ignores its signal still frees its place once the task has ended at the service.
    const ended = new Promise<never>((_, reject) =>
      task.controller.signal.addEventListener('abort', () => task.ended && reject(new Error(`the task was ${task.ended}`)), { once: true }),
    );
    ended.catch(() => {});
    try {
      if (problems.length > 0) {
        outcome = { error: { code: 'invalid_input', message: `the input does not match the agent's input schema: ${problems.join('; ')}`.slice(0, 3900) } };
      } else {
        const result = await Promise.race([this.options.handler(task.delivery.input as TInput, task.delivery, { signal: task.controller.signal }), ended]);
        outcome = { result: result === undefined ? null : result };
      }
    } catch (error) {
      outcome = { error: { code: 'handler_error', message: (error instanceof Error ? error.message : String(error)).slice(0, 3900) || 'the handler failed' } };
    } finally {
      clearInterval(watch);
      leaseKept();
    }
    if (task.reported) return;
    task.reported = true;
    const answer = task.ended ? null : await this.reportOutcome(task.delivery, outcome);
    this.remember(task.delivery.taskId, answer === 'unanswered' ? outcome : null);
    if (answer instanceof AgentryError) {
      await this.checkStillWaited(task);
      if (task.ended !== 'cancelled') this.options.onError(answer, `callback for task ${task.delivery.taskId}`);
      task.ended ??= 'abandoned';
    }
    this.options.onTask?.({ taskId: task.delivery.taskId, outcome: task.ended ?? ('result' in outcome ? 'completed' : 'failed') });
  }

  /**
   * A task taken by long poll is leased: while the handler runs, the lease is renewed each time half
   * of it has passed, so a long task stays this runner's and one whose runner died goes back to the
   * queue. Returns what stops the renewals.
   */
  private keepLease(task: InHand): () => void {
    const { leaseUntil, timestamp, taskId, taskToken } = task.delivery;
    if (!leaseUntil) return () => {};
    // Both times are the service's, so the length holds whatever this machine's clock says.
    const every = Math.max(1000, (Date.parse(leaseUntil) - Date.parse(timestamp)) / 2);
    const timer = setInterval(() => {
      this.options.client.renewTaskLease(taskId, taskToken).catch((error: unknown) => {
        // The task ended or expired (a lease that ran out is taken back by a renewal): the state check says what to do; renewing is over.
        if (error instanceof AgentryError && (error.status === 401 || error.status === 409)) {
          clearInterval(timer);
          void this.checkStillWaited(task);
        } else this.options.onError(error, `renewing the lease of task ${taskId}`);
      });
    }, every);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Asks the service whether the task still waits for its result; when it does not, aborts the handler. */
  private async checkStillWaited(task: InHand): Promise<void> {
    if (task.ended) return;
    try {
      const state = await this.options.client.taskState(task.delivery.taskId, task.delivery.taskToken);
      if (!FINAL_TASK_STATUSES.includes(state.status)) return;
      task.ended = state.status === 'cancelled' ? 'cancelled' : 'abandoned';
    } catch (error) {
      // The token no longer counts: the task expired, or was taken back from this agent.
      if (error instanceof AgentryError && error.status === 401) task.ended = 'abandoned';
      else {
        this.options.onError(error, `checking task ${task.delivery.taskId}`);
        return;
      }
    }
    task.controller.abort();
  }

  /**
   * Calls back, retrying network errors with backoff; the service's refusals (401, 409) are final.
   * Answers the service's 409 when the task no longer takes an outcome (finished, cancelled, expired).
   */
  private async reportOutcome(delivery: TaskDelivery, outcome: Outcome): Promise<CallbackAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.client.callback(delivery.taskId, { taskToken: delivery.taskToken, ...outcome } as never);
        return 'settled';
      } catch (error) {
        if (error instanceof AgentryError && error.status === 409) return error;
        const retryable = error instanceof AgentryNetworkError || (error instanceof AgentryError && error.status >= 500);
        if (!retryable || attempt >= this.options.callbackAttempts) {
          this.options.onError(error, `callback for task ${delivery.taskId}`);
          return retryable ? 'unanswered' : 'settled';
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** (attempt - 1), 10_000)));
      }
    }
  }

  /** This agent as a receipt party: its id and the public half of its key. */
  self(): Party {
    if (!this.options.key) throw new Error('signing receipts needs the agent key');
    return { agent: this.options.agentId, pubkey: publicKeyString(this.options.key) };
  }

  /** A receipt about a counterparty, issued and signed by this agent. */
  signReceipt(input: Omit<ReceiptInput, 'issuer'>): SignedReceipt {
    return signReceipt(buildReceipt({ ...input, issuer: this.self() }), this.options.key!);
  }

  async submitReceipt(input: Omit<ReceiptInput, 'issuer'>) {
    return await this.options.client.submitReceipt(this.signReceipt(input));
  }
}
