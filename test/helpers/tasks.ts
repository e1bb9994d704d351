import type { Signals } from '../../src/db/signals.ts';
import { AGENT_TASKS_CHANNEL } from '../../src/modules/tasks/service.ts';
import type { TestApp } from './app.ts';
import { registerAgent } from './agents.ts';
import { waitFor } from './wait.ts';

/** Registers an owned webhook agent at `endpoint`, gives it a webhook secret and a heartbeat, so routing may pick it. */
export async function readyWebhookAgent(app: TestApp, token: string, endpoint: string, overrides: Record<string, unknown> = {}) {
  const agent = await registerAgent(app, token, { endpoint, capabilities: ['text-summarization'], ...overrides });
  const secret = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/webhook-secret`, token });
  if (secret.statusCode !== 201 && secret.statusCode !== 200) throw new Error(`webhook secret: ${secret.statusCode} ${secret.body}`);
  await heartbeat(app, token, agent.id);
  return { ...agent, secret: secret.json().data.secret as string };
}

export async function heartbeat(app: TestApp, token: string, agentId: string) {
  const response = await app.request({ method: 'POST', url: `/v1/agents/${agentId}/heartbeat`, token, body: { status: 'available' } });
  if (response.statusCode !== 200) throw new Error(`heartbeat: ${response.statusCode} ${response.body}`);
}

export async function submitTask(app: TestApp, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await app.request({
    method: 'POST',
    url: '/v1/tasks',
    token,
    body: { description: 'Summarise this report', capabilities: ['summarize'], ...body },
    headers,
  });
  if (response.statusCode !== 201) throw new Error(`submit: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; status: string; assignedAgent: { id: string } | null; [key: string]: unknown };
}

export async function taskOf(app: TestApp, token: string, id: string) {
  const response = await app.request({ method: 'GET', url: `/v1/tasks/${id}`, token });
  if (response.statusCode !== 200) throw new Error(`get task: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; status: string; result: unknown; error: unknown; assignedAgent: { id: string } | null; [key: string]: unknown };
}

/** Reads GET /v1/tasks/:id until `done` holds (the worker runs on real timers). */
export function waitForTask(app: TestApp, token: string, id: string, done: (task: Awaited<ReturnType<typeof taskOf>>) => boolean, timeoutMs = 10_000) {
  return waitFor(`task ${id} to move on`, () => taskOf(app, token, id), done, { timeoutMs });
}

const pollCounts = new WeakMap<Signals, { count: number }>();

/**
 * How many long polls hold on a node now. A waiting poll listens on the node's agent-tasks signal
 * channel from its start to its end, so counting those listeners shows a poll arrive and leave.
 */
export function pollsHeld(app: TestApp): () => number {
  let counter = pollCounts.get(app.signals);
  if (!counter) {
    const held = { count: 0 };
    const subscribe = app.signals.subscribe.bind(app.signals);
    app.signals.subscribe = (channel, listener) => {
      const unsubscribe = subscribe(channel, listener);
      if (channel !== AGENT_TASKS_CHANNEL) return unsubscribe;
      held.count++;
      let left = false;
      return () => {
        unsubscribe();
        if (!left) held.count--;
        left = true;
      };
    };
    pollCounts.set(app.signals, held);
    counter = held;
  }
  const held = counter;
  return () => held.count;
}
