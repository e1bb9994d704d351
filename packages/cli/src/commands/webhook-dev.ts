/**
 * Commands for developing a webhook agent on the author's machine (docs/cli.md): `listen` forwards
 * the agent's real deliveries to a local handler, `trigger task` sends it a test task, `logs`
 * follows what happens to the agent's tasks.
 */
import { AgentryClient, AgentryError, AgentryNetworkError, FINAL_TASK_STATUSES, agentSignatureHeader } from '@agentry/sdk';
import type { KeyObject } from 'node:crypto';
import type { Command } from 'commander';

/** What these commands need from the CLI around them. */
export interface DevCommandContext {
  /** A client with the stored login; `auth` makes a missing login an error. */
  client(options?: { auth?: boolean }): AgentryClient;
  /** Whether a login (or AGENTRY_TOKEN) is there. */
  loggedIn(): boolean;
  /** The private key in a file (for a provisional agent's signature). */
  key(path: string): KeyObject;
  stdout(text: string): void;
  stderr(text: string): void;
  json(): boolean;
  signal: AbortSignal | undefined;
  /** An error that is the user's to fix (exit 2). */
  usage(message: string): Error;
  /** No credential (exit 4). */
  authNeeded(message: string): Error;
}

/** How much of a local answer's body is printed. */
const ANSWER_PRINTED = 2000;

export function registerWebhookDevCommands(program: Command, ctx: DevCommandContext): void {
  const now = () => new Date().toISOString();
  const line = (record: Record<string, unknown>, human: string) =>
    ctx.stdout(ctx.json() ? `${JSON.stringify({ at: now(), ...record })}\n` : `${now()}  ${human}\n`);

  program
    .command('listen')
    .description("take a webhook agent's real deliveries on this machine and forward them, signed as the service signs them, to a local handler")
    .requiredOption('--agent <id>')
    .requiredOption('--forward-to <url>', 'the local handler, e.g. http://localhost:3000/hook')
    .option('--key <file>', "the agent's registration key (a provisional agent; otherwise the owner's login is used)")
    .action(async (options: { agent: string; forwardTo: string; key?: string }) => {
      const target = forwardTarget(options.forwardTo, ctx);
      const privateKey = options.key ? ctx.key(options.key) : undefined;
      if (!privateKey && !ctx.loggedIn()) throw ctx.authNeeded("log in as the agent's owner (or give --key, the registration key)");
      const api = ctx.client();
      const signature = () => (privateKey ? { agentSignature: agentSignatureHeader(privateKey, options.agent) } : {});
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      if (ctx.signal?.aborted) stop.abort();
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
      const forwarding = new Set<Promise<void>>();
      let announced = false;
      try {
        while (!stop.signal.aborted) {
          let deliveries;
          try {
            // The first poll answers at once: the session is known to run (or refused) before it is announced.
            deliveries = await api.listenWebhooks(options.agent, { wait: announced ? 30 : 0, limit: 5, signal: stop.signal, ...signature() });
          } catch (error) {
            if (stop.signal.aborted) break;
            if (!(error instanceof AgentryNetworkError)) throw error;
            ctx.stderr(`listen: ${error.message}; trying again\n`);
            await pause(1000, stop.signal);
            continue;
          }
          if (!announced) {
            announced = true;
            ctx.stderr(`listening for agent ${options.agent}'s deliveries, forwarding them to ${target}; stop with Ctrl-C\n`);
          }
          for (const delivery of deliveries) {
            const work = forward(api, options.agent, target, delivery, line).finally(() => forwarding.delete(work));
            forwarding.add(work);
          }
        }
      } finally {
        ctx.signal?.removeEventListener('abort', onAbort);
        await Promise.allSettled([...forwarding]);
        // Gives the endpoint its deliveries back now rather than when the session's last poll runs out.
        await api
          .stopListening(options.agent, signature())
          .catch((error: unknown) => ctx.stderr(`listen: could not end the session: ${(error as Error).message}\n`));
        if (announced) ctx.stderr(`stopped listening: agent ${options.agent}'s endpoint gets its deliveries again\n`);
      }
    });

  program
    .command('trigger')
    .description('send a test event to your agent')
    .command('task')
    .description('submit a task to your agent, as its requester, so its endpoint (or a `listen` session) gets a real, signed delivery; waits for the outcome')
    .requiredOption('--agent <id>')
    .option('--input <json>', "the task's input, a JSON object")
    .option('--description <text>', "the task's description", 'Test task sent by agentry trigger task')
    .option('--timeout <seconds>', 'how long to wait for the outcome (0: do not wait)', (value) => Number(value), 60)
    .action(async (options: { agent: string; input?: string; description: string; timeout: number }) => {
      let input: unknown;
      if (options.input !== undefined) {
        try {
          input = JSON.parse(options.input);
        } catch {
          throw ctx.usage('--input is not valid JSON');
        }
        if (!input || typeof input !== 'object' || Array.isArray(input)) throw ctx.usage('--input must be a JSON object');
      }
      if (!Number.isFinite(options.timeout) || options.timeout < 0) throw ctx.usage('--timeout must be a number of seconds, 0 or more');
      const api = ctx.client({ auth: true });
      const task = await api.submitTask({
        description: options.description,
        agentId: options.agent,
        ...(input !== undefined ? { input: input as Record<string, unknown> } : {}),
      } as never);
      line({ event: 'submitted', taskId: task.id, status: task.status }, `submitted task ${task.id} to ${options.agent}: ${task.status}`);
      if (options.timeout === 0 || FINAL_TASK_STATUSES.includes(task.status)) return;
      const done = await api.waitForTask(task.id, { timeoutMs: options.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      line(
        { event: 'finished', taskId: done.id, status: done.status, result: done.result ?? null, error: done.error ?? null },
        `task ${done.id} ${done.status}${outcomeText(done)}`,
      );
    });

  program
    .command('logs')
    .description("follow an agent's tasks live: each delivery, its outcome and its errors (until Ctrl-C)")
    .requiredOption('--agent <id>')
    .action(async (options: { agent: string }) => {
      const api = ctx.client({ auth: true });
      // Fails now (404, 403) rather than following an agent that is not there.
      const agent = await api.getAgent(options.agent);
      const opened = () => ctx.stderr(`following ${agent.name} (${agent.id}); stop with Ctrl-C\n`);
      for await (const event of api.events({ onOpen: opened, ...(ctx.signal ? { signal: ctx.signal } : {}) })) {
        if (event.event === 'reset') {
          ctx.stderr(`logs: ${event.data.reason}; some events may be missing\n`);
          continue;
        }
        let task;
        try {
          task = await api.getTask(event.data.taskId);
        } catch (error) {
          if (error instanceof AgentryError && error.status === 404) continue;
          throw error;
        }
        if (task.assignedAgent?.id !== agent.id) continue;
        line(
          {
            event: 'task.status',
            taskId: task.id,
            status: event.data.status,
            ...(event.data.status === task.status ? { result: task.result ?? null, error: task.error ?? null } : {}),
          },
          `task ${task.id} ${event.data.status}${event.data.status === task.status ? outcomeText(task) : ''}${event.data.status === 'in_progress' ? ' (delivered)' : ''}`,
        );
      }
    });
}

/** The local handler's address: an http(s) URL, said so now rather than on the first delivery. */
function forwardTarget(value: string, ctx: DevCommandContext): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ctx.usage(`--forward-to is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ctx.usage('--forward-to must be an http:// or https:// URL');
  return url.toString();
}

/**
 * Sends one delivery to the local handler exactly as the service would have sent it, and prints it
 * and the answer. A handler that answers other than 2xx, or cannot be reached, fails the task with
 * that reason (the session took the delivery, so the service does not retry it), so its requester
 * is not left waiting until the task expires.
 */
async function forward(
  api: AgentryClient,
  agentId: string,
  target: string,
  delivery: { webhookId: string; headers: Record<string, string>; body: string },
  line: (record: Record<string, unknown>, human: string) => void,
): Promise<void> {
  const payload = JSON.parse(delivery.body) as { taskId: string; taskToken: string; description?: string; input?: unknown };
  line(
    { event: 'delivery', agentId, webhookId: delivery.webhookId, taskId: payload.taskId, input: payload.input ?? null },
    `--> task ${payload.taskId} (${delivery.webhookId}) ${JSON.stringify(payload.input ?? null)}`,
  );
  let failure: string;
  try {
    const response = await fetch(target, { method: 'POST', headers: delivery.headers, body: delivery.body, redirect: 'manual' });
    const text = (await response.text()).slice(0, ANSWER_PRINTED);
    line(
      { event: 'answer', taskId: payload.taskId, status: response.status, body: text },
      `<-- ${response.status} ${response.statusText} for task ${payload.taskId}${text ? ` ${text}` : ''}`,
    );
    if (response.ok) return;
    failure = `the local handler answered HTTP ${response.status}`;
  } catch (error) {
    failure = `could not reach the local handler: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`;
    line({ event: 'answer', taskId: payload.taskId, error: failure }, `<-- ${failure} (task ${payload.taskId})`);
  }
  await api.callback(payload.taskId, { taskToken: payload.taskToken, error: { code: 'delivery_failed', message: failure } }).catch(() => {});
}

function outcomeText(task: { status: string; result?: unknown; error?: unknown }): string {
  if (task.status === 'completed') return `: ${JSON.stringify(task.result ?? null)}`;
  if (task.status === 'failed' && task.error) return `: ${JSON.stringify(task.error)}`;
  return '';
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
