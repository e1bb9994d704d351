/**
 * Delivery to agents with deliveryMode "a2a": the task goes to the agent's endpoint as an A2A
 * `SendMessage` call (JSON-RPC, in the protocol version of the installed @a2a-js/sdk), through the
 * SSRF-checked outbound client. The agent may answer with a Message (the task is done: its parts
 * are the result) or with an A2A Task, which the delivery job then follows with `GetTask` calls,
 * backing off, until the task ends or ours expires (then it is cancelled at the agent).
 *
 * The sender only talks to the agent and says what happened; the delivery worker changes the task,
 * retries and falls back exactly as it does for webhooks.
 */
import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, Role, TaskState, type Artifact, type Message, type Part, type Task as A2aTask } from '@a2a-js/sdk';
import { JsonRpcTransportFactory, type Transport } from '@a2a-js/sdk/client';
import type { FastifyBaseLogger } from 'fastify';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { publicFailureReason, type OutboundClient, type OutboundFailure, type OutboundResponse } from '../../lib/outbound-http.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { OutboundSpan } from '../../lib/tracing.ts';
import type { AgentRecord } from '../registry/index.ts';
import type { DeliveryPayload } from './schemas.ts';
import type { DeliveryJob, Task } from './store.ts';

/** Follow-up polls start at the retry base and double, up to this. */
const MAX_POLL_INTERVAL_MS = 30_000;
/** Agent-written text kept in a stored error: enough to read, not enough to flood the task. */
const MAX_AGENT_TEXT = 500;
const TARGET = "the agent's A2A endpoint";

export type A2aOutcome =
  /** The task ended at the agent: these are its final fields. */
  | { kind: 'finished'; status: 'completed'; result: unknown }
  | { kind: 'finished'; status: 'failed'; error: { code: string; message: string } }
  /** The agent is working on it: ask again at `runAt`. */
  | { kind: 'following'; remoteTaskId: string; runAt: string }
  /** Not delivered: retry or move on to the next candidate, as for a webhook. */
  | { kind: 'failed'; reason: string; detail: string };

export interface A2aSenderDeps {
  outbound: OutboundClient;
  secrets: SecretBox;
  clock: Clock;
  log: FastifyBaseLogger;
  findAgent(id: string): Promise<AgentRecord | undefined>;
  /** The agent-side task id a delivery of this task was following, if any. */
  remoteTaskOf(taskId: string): Promise<{ agentId: string; remoteTaskId: string } | undefined>;
  pollBaseMs: number;
}

/** The outbound client as the `fetch` the SDK's transport calls, with the agent's credential added. */
function guardedFetch(
  outbound: OutboundClient,
  headers: Record<string, string>,
  failures: { last?: { failure: OutboundFailure; response?: OutboundResponse } },
  trace: OutboundSpan,
): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const result = await outbound.send({
      url,
      method: 'POST',
      headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers },
      body: typeof init?.body === 'string' ? init.body : undefined,
      requireFullBody: true,
      trace,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (!result.ok) {
      failures.last = { failure: result.failure, ...(result.response ? { response: result.response } : {}) };
      throw new Error(`${result.failure.kind}: ${result.failure.message}`);
    }
    return new Response(result.response.body, { status: result.response.status, headers: result.response.headers });
  };
}

/** What a delivery attempt's span says about it (with tracing on); a job's claim has already counted this attempt. */
export function deliverySpanAttributes(job: DeliveryJob, mode: 'webhook' | 'a2a'): Record<string, string | number> {
  return {
    'agentry.task.id': job.taskId,
    'agentry.agent.id': job.agentId,
    'agentry.delivery.id': job.id,
    'agentry.delivery.mode': mode,
    'agentry.delivery.attempt': job.attempts,
  };
}

/** A2A parts as plain JSON, in the protocol's own field names. */
function partJson(part: Part): Record<string, unknown> {
  const extra = {
    ...(part.mediaType ? { mediaType: part.mediaType } : {}),
    ...(part.filename ? { filename: part.filename } : {}),
    ...(part.metadata ? { metadata: part.metadata } : {}),
  };
  switch (part.content?.$case) {
    case 'text':
      return { text: part.content.value, ...extra };
    case 'data':
      return { data: part.content.value ?? null, ...extra };
    case 'url':
      return { url: part.content.value, ...extra };
    case 'raw':
      return { raw: Buffer.from(part.content.value).toString('base64'), ...extra };
    default:
      return { ...extra };
  }
}

const artifactJson = (artifact: Artifact) => ({
  artifactId: artifact.artifactId,
  ...(artifact.name ? { name: artifact.name } : {}),
  ...(artifact.description ? { description: artifact.description } : {}),
  parts: artifact.parts.map(partJson),
});

function textOf(message: Message | undefined): string {
  const text = (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter(Boolean)
    .join('\n');
  return text.length > MAX_AGENT_TEXT ? `${text.slice(0, MAX_AGENT_TEXT)}…` : text;
}

const isTask = (reply: Message | A2aTask): reply is A2aTask => 'status' in reply && 'artifacts' in reply;

const ENDED: Partial<Record<TaskState, { code: string; says: string }>> = {
  [TaskState.TASK_STATE_FAILED]: { code: 'agent_failed', says: 'The agent reported the task failed' },
  [TaskState.TASK_STATE_REJECTED]: { code: 'agent_rejected', says: 'The agent rejected the task' },
  [TaskState.TASK_STATE_CANCELED]: { code: 'agent_canceled', says: 'The agent cancelled the task' },
  // Nobody is there to answer the agent's question: the task cannot go on.
  [TaskState.TASK_STATE_INPUT_REQUIRED]: { code: 'agent_needs_input', says: 'The agent asked for more input, which tasks cannot give' },
  [TaskState.TASK_STATE_AUTH_REQUIRED]: { code: 'agent_needs_input', says: 'The agent asked for further authorization, which tasks cannot give' },
};

/** The message that carries our task: its text, its input as a data part, our task id as the context. */
function messageFor(job: DeliveryJob, payload: DeliveryPayload): Message {
  const text = payload.title ? `${payload.title}\n\n${payload.description}` : payload.description;
  const parts: Part[] = [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }];
  if (payload.input) parts.push({ content: { $case: 'data', value: payload.input }, mediaType: 'application/json', filename: '', metadata: undefined });
  return {
    // The job's id: a retry of the same delivery sends the same message id, so the agent can tell.
    messageId: job.id,
    contextId: payload.taskId,
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: { agentryTaskId: payload.taskId, capabilities: payload.capabilities, priority: payload.priority, expiresAt: payload.expiresAt },
    extensions: [],
    referenceTaskIds: [],
  };
}

export function createA2aSender(deps: A2aSenderDeps) {
  const { outbound, secrets, clock, log } = deps;

  /** A transport to the agent's endpoint, or a reason there cannot be one. */
  async function transportFor(
    agent: AgentRecord,
    failures: { last?: { failure: OutboundFailure; response?: OutboundResponse } },
    trace: OutboundSpan,
  ): Promise<Transport | string> {
    const headers: Record<string, string> = { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION, 'user-agent': 'Agentry-A2A/1' };
    if (agent.authCredential) {
      let credential: string;
      try {
        credential = secrets.open(agent.authCredential, agent.id);
      } catch {
        return "the agent's stored credential cannot be decrypted with this service's SECRETS_KEY; its owner must store it again";
      }
      if (agent.authType === 'bearer') headers.authorization = `Bearer ${credential}`;
      else if (agent.authType === 'api_key') headers['x-api-key'] = credential;
    }
    // The endpoint is the JSON-RPC URL itself; the factory reads the card only for v0.3 agents, which are not enabled.
    return new JsonRpcTransportFactory({ fetchImpl: guardedFetch(outbound, headers, failures, trace) }).create(agent.endpoint as string, {} as never);
  }

  function failure(error: unknown, failures: { last?: { failure: OutboundFailure; response?: OutboundResponse } }): { reason: string; detail: string } {
    if (failures.last) {
      const { failure: outboundFailure, response } = failures.last;
      return { reason: publicFailureReason(outboundFailure, TARGET, response), detail: `${outboundFailure.kind}: ${outboundFailure.message}` };
    }
    // A JSON-RPC error or an answer that is not A2A: the agent's words, kept short.
    const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_AGENT_TEXT);
    return { reason: `${TARGET} refused the message: ${message}`, detail: message };
  }

  /** What a returned or polled A2A task means for ours. */
  function outcomeOf(remote: A2aTask, job: DeliveryJob, task: Task): A2aOutcome {
    const state = remote.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    if (state === TaskState.TASK_STATE_COMPLETED) {
      return { kind: 'finished', status: 'completed', result: { a2aTaskId: remote.id, artifacts: remote.artifacts.map(artifactJson) } };
    }
    const ended = ENDED[state];
    if (ended) {
      const said = textOf(remote.status?.message);
      return { kind: 'finished', status: 'failed', error: { code: ended.code, message: said ? `${ended.says}: ${said}` : ended.says } };
    }
    // Still submitted or working: look again later, never past our own expiry.
    const polls = job.remoteTaskId ? job.attempts : 0;
    const wait = Math.min(deps.pollBaseMs * 2 ** polls, MAX_POLL_INTERVAL_MS);
    const next = isoIn(clock, wait);
    return { kind: 'following', remoteTaskId: remote.id, runAt: next < task.expiresAt ? next : task.expiresAt };
  }

  return {
    /** Sends the task (a fresh job) or asks how the agent's task is going (a followed job). */
    async deliver(job: DeliveryJob, task: Task, agent: AgentRecord): Promise<A2aOutcome> {
      const failures: { last?: { failure: OutboundFailure; response?: OutboundResponse } } = {};
      const transport = await transportFor(agent, failures, {
        name: job.remoteTaskId ? 'deliver a2a: follow' : 'deliver a2a',
        attributes: deliverySpanAttributes(job, 'a2a'),
      });
      if (typeof transport === 'string') return { kind: 'failed', reason: transport, detail: transport };
      if (job.remoteTaskId) {
        try {
          return outcomeOf(await transport.getTask({ tenant: '', id: job.remoteTaskId }), job, task);
        } catch (error) {
          // The agent has the task; a failed look is no reason to hand it to someone else. Ask again.
          log.info({ taskId: task.id, agentId: agent.id, reason: failure(error, failures).detail }, 'A2A task status unavailable; asking again later');
          return outcomeOf({ id: job.remoteTaskId, contextId: '', status: undefined, artifacts: [], history: [], metadata: undefined }, job, task);
        }
      }
      // A fresh job always has its payload (the worker retires one without).
      const payload = job.payload as DeliveryPayload;
      let reply: Message | A2aTask;
      try {
        reply = await transport.sendMessage({
          tenant: '',
          message: messageFor(job, payload),
          // Answer at once with the task when the work takes time: it is followed by polling, not held open.
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
          metadata: { agentryTaskId: task.id },
        });
      } catch (error) {
        return { kind: 'failed', ...failure(error, failures) };
      }
      if (!isTask(reply)) return { kind: 'finished', status: 'completed', result: { messageId: reply.messageId, parts: reply.parts.map(partJson) } };
      return outcomeOf(reply, job, task);
    },

    /** Our tasks ended (expired, or cancelled by their requester): cancel what their agents are still working on, where they allow it. */
    async cancelAtAgents(tasks: Task[]): Promise<void> {
      for (const task of tasks) {
        const followed = await deps.remoteTaskOf(task.id);
        if (!followed) continue;
        const agent = await deps.findAgent(followed.agentId);
        if (agent?.deliveryMode !== 'a2a' || !agent.endpoint) continue;
        const failures = {};
        const transport = await transportFor(agent, failures, {
          name: 'cancel a2a',
          attributes: { 'agentry.task.id': task.id, 'agentry.agent.id': agent.id, 'agentry.delivery.mode': 'a2a' },
        });
        if (typeof transport === 'string') continue;
        try {
          await transport.cancelTask({ tenant: '', id: followed.remoteTaskId, metadata: { agentryTaskId: task.id } });
        } catch (error) {
          log.info(
            { taskId: task.id, agentId: agent.id, at: isoNow(clock), reason: failure(error, failures).detail },
            'could not cancel the task at its A2A agent',
          );
        }
      }
    },
  };
}

export type A2aSender = ReturnType<typeof createA2aSender>;
