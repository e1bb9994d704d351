import type { TestApp } from './app.ts';
import { registerAgent } from './agents.ts';

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
  const response = await app.request({ method: 'POST', url: '/v1/tasks', token, body: { description: 'Summarise this report', capabilities: ['summarize'], ...body }, headers });
  if (response.statusCode !== 201) throw new Error(`submit: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; status: string; assignedAgent: { id: string } | null; [key: string]: unknown };
}

export async function taskOf(app: TestApp, token: string, id: string) {
  const response = await app.request({ method: 'GET', url: `/v1/tasks/${id}`, token });
  if (response.statusCode !== 200) throw new Error(`get task: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; status: string; result: unknown; error: unknown; assignedAgent: { id: string } | null; [key: string]: unknown };
}

/** Polls GET /v1/tasks/:id until `done` holds (the worker runs on real timers). */
export async function waitForTask(app: TestApp, token: string, id: string, done: (task: Awaited<ReturnType<typeof taskOf>>) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await taskOf(app, token, id);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${id} stayed ${task.status}: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
