/**
 * The A2A front door: an A2A client gives this registry work over JSON-RPC (A2A 1.0, as the installed
 * @a2a-js/sdk speaks it), and the tasks module does it exactly as for POST /v1/tasks. The SDK's
 * JSON-RPC transport handler reads the envelope and calls the request handler below; the handler
 * maps A2A messages to task submissions and tasks back to A2A tasks. Task streams follow the
 * account's status events (the log GET /v1/events streams), woken by the same signal.
 *
 * An A2A client sees only the tasks it submitted: the A2A task is the requester's view.
 */
import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import {
  Role,
  TaskState,
  type AgentCard,
  type Artifact,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type Task as A2aTask,
  type TaskStatus as A2aTaskStatus,
} from '@a2a-js/sdk';
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  JsonRpcTransportError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { FastifyBaseLogger } from 'fastify';
import { RESYNC_CHANNEL, type Signals } from '../../db/signals.ts';
import { AppError } from '../../lib/errors.ts';
import type { Principal } from '../../lib/principal.ts';
import { findUnstorableText, unstorableText } from '../../lib/storable-text.ts';
import { EVENTS_CHANNEL } from '../events/index.ts';
import {
  accountsInEventsPayload,
  CreateTask,
  type CreateTaskInput,
  type StatusEventsStore,
  type TaskStatus,
  type TasksService,
  type TaskView,
} from '../tasks/index.ts';

/** The protocol version this door speaks (the SDK's). */
export const A2A_VERSION = '1.0';
/** The version a request that names none is taken to be. */
const LEGACY_VERSION = '0.3';
/** A blocking SendMessage waits this long for the task to end, then answers it as it stands. */
export const BLOCKING_WAIT_MS = 30_000;
/** A waiting stream looks at its task again this often even unwoken: a backstop should a signal be lost. */
const RECHECK_MS = 5000;
const READ_BATCH = 200;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
/** Message metadata read as task fields; anything else in it is kept as the task's metadata. */
const TASK_FIELDS = ['agentId', 'capabilities', 'title', 'priority', 'taskClass', 'expiresInMinutes', 'maxPriceCents', 'currency'] as const;

const STATE: Record<TaskStatus, TaskState> = {
  pending: TaskState.TASK_STATE_SUBMITTED,
  matched: TaskState.TASK_STATE_SUBMITTED,
  in_progress: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  // Ended before an agent finished it: for the client the work failed.
  expired: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  // No agent would take it: the registry turned the work down.
  unmatched: TaskState.TASK_STATE_REJECTED,
};
const ENDED = new Set<TaskStatus>(['completed', 'failed', 'expired', 'cancelled', 'unmatched']);

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined });
const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a failed, expired or unmatched task's error says, in words. */
function errorText(task: TaskView): string {
  const error = task.error;
  if (typeof error === 'string') return error;
  if (isPlainObject(error) && typeof error.message === 'string') return error.message;
  return task.status === 'expired' ? 'The task expired before an agent finished it' : `The task ${task.status === 'unmatched' ? 'found no agent' : 'failed'}`;
}

/** The words the status carries: who has the task, or why it ended as it did. */
function statusMessage(task: TaskView): Message | undefined {
  let parts: Part[];
  switch (task.status) {
    case 'completed':
      return undefined;
    case 'failed':
    case 'expired':
    case 'unmatched':
      parts = [textPart(errorText(task)), ...(isPlainObject(task.error) ? [dataPart(task.error)] : [])];
      break;
    case 'cancelled':
      parts = [textPart('Cancelled by its requester')];
      break;
    case 'in_progress':
      parts = [textPart(task.assignedAgent ? `${task.assignedAgent.name} is working on it` : 'An agent is working on it')];
      break;
    default:
      parts = [textPart(task.assignedAgent ? `Assigned to ${task.assignedAgent.name}` : 'Waiting for an agent')];
  }
  return {
    messageId: `${task.id}.${task.status}`,
    contextId: task.id,
    taskId: task.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const statusOf = (task: TaskView): A2aTaskStatus => ({
  state: STATE[task.status],
  message: statusMessage(task),
  timestamp: task.completedAt ?? task.updatedAt,
});

/** A completed task's result as the one artifact: text when the agent returned a string, else JSON data. */
function resultArtifact(task: TaskView): Artifact | null {
  if (task.status !== 'completed' || task.result === null || task.result === undefined) return null;
  return {
    artifactId: 'result',
    name: 'result',
    description: 'What the agent returned',
    parts: [typeof task.result === 'string' ? textPart(task.result) : dataPart(task.result)],
    metadata: undefined,
    extensions: [],
  };
}

function a2aTask(task: TaskView, publicUrl: string): A2aTask {
  const artifact = resultArtifact(task);
  const agentRef = (agent: TaskView['assignedAgent']) =>
    agent ? { id: agent.id, name: agent.name, slug: agent.slug, identityLevel: agent.identityLevel, verifiedDomain: agent.verifiedDomain } : undefined;
  const metadata: Record<string, unknown> = {
    agentryStatus: task.status,
    url: `${publicUrl}/v1/tasks/${task.id}`,
    capabilities: task.capabilities,
    createdAt: task.createdAt,
    expiresAt: task.expiresAt,
    ...(task.assignedAgent ? { assignedAgent: agentRef(task.assignedAgent) } : {}),
    ...(task.requestedAgent ? { requestedAgent: agentRef(task.requestedAgent) } : {}),
    ...(task.priceCents !== null ? { priceCents: task.priceCents, currency: task.currency } : {}),
  };
  return { id: task.id, contextId: task.id, status: statusOf(task), artifacts: artifact ? [artifact] : [], history: [], metadata };
}

/** The task submission an A2A message asks for. */
function submissionOf(request: SendMessageRequest): CreateTaskInput {
  const message = request.message;
  if (!message) throw new RequestMalformedError('params.message is required');
  if (message.taskId) {
    throw new UnsupportedOperationError('Continuing a task is not supported: each message submits a new task (leave taskId empty)');
  }
  if (request.configuration?.taskPushNotificationConfig)
    throw new PushNotificationNotSupportedError('Push notifications are not supported: follow the task with SubscribeToTask or GetTask');
  const texts: string[] = [];
  const data: unknown[] = [];
  for (const part of message.parts) {
    switch (part.content?.$case) {
      case 'text':
        texts.push(part.content.value);
        break;
      case 'data':
        data.push(part.content.value);
        break;
      case 'url':
      case 'raw':
        throw new ContentTypeNotSupportedError('File parts are not supported: send text parts (the description) and at most one data part (the input)');
      default:
        throw new RequestMalformedError('A message part has no content');
    }
  }
  if (data.length > 1) throw new RequestMalformedError('At most one data part is allowed: it becomes the task input');
  if (data.length === 1 && !isPlainObject(data[0])) throw new RequestMalformedError('The data part must be a JSON object: it becomes the task input');
  const description = texts.join('\n\n').trim();
  if (!description) throw new RequestMalformedError('A text part saying what the work is is required: it becomes the task description');

  const metadata = { ...(message.metadata ?? {}), ...(request.metadata ?? {}) } as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if ((TASK_FIELDS as readonly string[]).includes(key)) fields[key] = value;
    else rest[key] = value;
  }
  const submission = {
    ...fields,
    description,
    ...(data.length === 1 ? { input: data[0] } : {}),
    ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
  };
  const problem = Value.Errors(CreateTask, submission).First();
  if (problem) {
    const field = problem.path.split('/')[1] ?? '';
    const where = field === 'description' ? 'the text parts' : field === 'input' ? 'the data part' : `metadata.${problem.path.slice(1).replace(/\//g, '.')}`;
    throw new RequestMalformedError(`${where}: ${problem.message}`);
  }
  const unstorable = findUnstorableText(submission);
  if (unstorable) throw new RequestMalformedError(`The message ${unstorable.problem}`);
  return submission as CreateTaskInput;
}

/** Each message id submits one task: a client retrying the same message gets the same task. */
function idempotencyKeyOf(messageId: string): string | undefined {
  if (!messageId) return undefined;
  const key = `a2a:${messageId}`;
  return key.length <= 200 ? key : `a2a:${createHash('sha256').update(messageId).digest('hex')}`;
}

interface PageCursor {
  createdAt: string;
  id: string;
}

const encodeCursor = (task: TaskView) => Buffer.from(JSON.stringify({ c: task.createdAt, i: task.id })).toString('base64url');

function decodeCursor(token: string): PageCursor {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof parsed.c === 'string' && typeof parsed.i === 'string' && /^[0-9T:.Z+-]{1,40}$/.test(parsed.c) && /^[\w-]{1,100}$/.test(parsed.i)) {
      return { createdAt: parsed.c, id: parsed.i };
    }
  } catch {
    // falls through to the error below
  }
  throw new RequestMalformedError('pageToken is not one this service gave: pass nextPageToken from the previous page');
}

export interface FrontDoorDeps {
  tasks: Pick<TasksService, 'create' | 'getRequested' | 'listRequested' | 'cancel'>;
  /** The account's task status events: what streams follow. */
  log: Pick<StatusEventsStore, 'after' | 'latestId'>;
  signals: Signals;
  card: AgentCard;
  publicUrl: string;
  logger: FastifyBaseLogger;
  /** A person's streams on this node (their keys and agents' keys included) are capped together with their /v1/events streams. */
  maxStreamsPerAccount: number;
  openEventStreams(personId: string): number;
}

const PRINCIPAL = 'agentry.principal';
const ABORT = 'agentry.abort';
const LOG = 'agentry.log';

/** Wakes a waiting stream when the account's events may have changed: its signal, a resync, the backstop timer, or the end. */
function accountWaker(signals: Signals, accountId: string) {
  // The first wait returns at once: what happened before the subscription is read then.
  let pending = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    pending = true;
    wake?.();
  };
  const stops = [
    signals.subscribe(EVENTS_CHANNEL, (payload) => {
      if (payload === '' || accountsInEventsPayload(payload).includes(accountId)) poke();
    }),
    signals.subscribe(RESYNC_CHANNEL, poke),
  ];
  return {
    async wait(ms: number, abort: AbortSignal): Promise<void> {
      if (!pending && !abort.aborted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            abort.removeEventListener('abort', done);
            wake = null;
            resolve();
          };
          const timer = setTimeout(done, ms);
          abort.addEventListener('abort', done);
          wake = done;
        });
      }
      pending = false;
    },
    close: () => stops.forEach((stop) => stop()),
  };
}

export function createA2aFrontDoor(deps: FrontDoorDeps) {
  const { tasks, log, signals, card, publicUrl } = deps;
  const base = publicUrl.replace(/\/+$/, '');
  const toA2a = (task: TaskView) => a2aTask(task, base);
  /** Every wait and stream in progress, so a shutdown can end them. */
  const open = new Set<AbortController>();

  /**
   * Our errors as A2A's typed ones. `missing` is what a not-found means here: the task, or (for a
   * submission naming an agent) bad params. Anything unforeseen is logged and told in general terms.
   */
  function translate(error: unknown, missing: 'task' | 'params', context: ServerCallContext): Error {
    if (error instanceof A2AError) return error;
    if (error instanceof AppError) {
      switch (error.code) {
        case 'NOT_FOUND':
          return missing === 'task' ? new TaskNotFoundError('Task not found') : new RequestMalformedError(error.message);
        // The owner of the assigned agent sees the task over /v1, but it is not theirs to act on as a client.
        case 'FORBIDDEN':
          return new TaskNotFoundError('Task not found');
        case 'CONFLICT':
          return new TaskNotCancelableError(error.message);
        case 'BAD_REQUEST':
          return new RequestMalformedError(error.message);
        case 'UNPROCESSABLE':
          return new RequestMalformedError('This messageId was already used for a different message: give each new message its own id');
        case 'RATE_LIMITED':
        case 'UNAVAILABLE':
          return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code: -32000, message: error.message } });
      }
    }
    // The request's own logger: the line carries its request id.
    ((context.state.get(LOG) as FastifyBaseLogger | undefined) ?? deps.logger).error({ err: error }, 'a2a: a request failed');
    return new Error('Internal error');
  }

  async function guarded<T>(missing: 'task' | 'params', context: ServerCallContext, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw translate(error, missing, context);
    }
  }

  /** Streams open on this node per person. */
  const streamsByPerson = new Map<string, number>();
  /** Counts a stream against the person's cap, or refuses it; the answer lets it go (once). */
  function holdStream(principal: Principal): () => void {
    const person = principal.personId;
    const held = (streamsByPerson.get(person) ?? 0) + deps.openEventStreams(person);
    if (held >= deps.maxStreamsPerAccount) {
      throw new JsonRpcTransportError({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: `This account (with its agents' keys) already has ${held} open streams on this server, the most allowed; close one first`,
        },
      });
    }
    streamsByPerson.set(person, (streamsByPerson.get(person) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (streamsByPerson.get(person) ?? 1) - 1;
      if (left > 0) streamsByPerson.set(person, left);
      else streamsByPerson.delete(person);
    };
  }

  const principalOf = (context: ServerCallContext) => context.state.get(PRINCIPAL) as Principal;
  const abortOf = (context: ServerCallContext) => context.state.get(ABORT) as AbortSignal;
  const requireId = (id: string) => {
    if (!id.trim()) throw new RequestMalformedError('params.id (the task id) is required');
    // No task has such an id, and the database would refuse to compare with text it cannot store.
    if (id.length > 100 || unstorableText(id) !== null) throw new TaskNotFoundError('Task not found');
    return id;
  };

  /**
   * The task's changes from `cursor` on: a status update whenever the account's events show it
   * moving, then, once it ended, its result as an artifact and the last status. The task itself is
   * read on every wake, so an end committed out of event order is never missed.
   */
  async function* follow(principal: Principal, first: TaskView, cursor: number, abort: AbortSignal): AsyncGenerator<StreamResponse> {
    const statusUpdate = (task: TaskView): StreamResponse => ({
      payload: { $case: 'statusUpdate', value: { taskId: task.id, contextId: task.id, status: statusOf(task), metadata: undefined } },
    });
    if (ENDED.has(first.status)) return;
    let last = STATE[first.status];
    const waker = accountWaker(signals, principal.accountId);
    const controller = new AbortController();
    open.add(controller);
    const stop = AbortSignal.any([abort, controller.signal]);
    try {
      while (!stop.aborted) {
        await waker.wait(RECHECK_MS, stop);
        if (stop.aborted) return;
        for (;;) {
          const events = await log.after(principal.accountId, cursor, READ_BATCH);
          for (const event of events) {
            cursor = Math.max(cursor, event.id);
            const { taskId, status, role, at } = event.data;
            if (taskId !== first.id || role !== 'requester' || ENDED.has(status) || STATE[status] === last) continue;
            last = STATE[status];
            yield {
              payload: {
                $case: 'statusUpdate',
                value: { taskId, contextId: taskId, status: { state: last, message: undefined, timestamp: at }, metadata: undefined },
              },
            };
          }
          if (events.length < READ_BATCH) break;
        }
        const now = await tasks.getRequested(principal, first.id);
        if (ENDED.has(now.status)) {
          const artifact = resultArtifact(now);
          if (artifact) {
            yield {
              payload: { $case: 'artifactUpdate', value: { taskId: now.id, contextId: now.id, artifact, append: false, lastChunk: true, metadata: undefined } },
            };
          }
          yield statusUpdate(now);
          return;
        }
        if (STATE[now.status] !== last) {
          last = STATE[now.status];
          yield statusUpdate(now);
        }
      }
    } finally {
      waker.close();
      open.delete(controller);
    }
  }

  /** Errors thrown while a stream runs, translated as the plain methods' are. */
  async function* guardedStream(
    missing: 'task' | 'params',
    context: ServerCallContext,
    stream: () => AsyncGenerator<StreamResponse>,
  ): AsyncGenerator<StreamResponse> {
    try {
      yield* stream();
    } catch (error) {
      throw translate(error, missing, context);
    }
  }

  async function submit(principal: Principal, request: SendMessageRequest): Promise<TaskView> {
    const submission = submissionOf(request);
    const { body } = await tasks.create(principal, submission, idempotencyKeyOf(request.message?.messageId ?? ''));
    return body.data;
  }

  const handler: A2ARequestHandler = {
    getAgentCard: async () => card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('This service has no extended agent card');
    },

    sendMessage: (params, context) =>
      guarded('params', context, async () => {
        const principal = principalOf(context);
        const cursor = await log.latestId();
        const created = await submit(principal, params);
        if (params.configuration?.returnImmediately || ENDED.has(created.status)) return toA2a(created);
        // Blocking, as A2A's default asks: until the task ends, the time runs out, or the client leaves.
        const until = AbortSignal.any([abortOf(context), AbortSignal.timeout(BLOCKING_WAIT_MS)]);
        for await (const _ of follow(principal, created, cursor, until));
        return toA2a(await tasks.getRequested(principal, created.id));
      }),

    sendMessageStream: (params, context) =>
      guardedStream('params', context, async function* () {
        const principal = principalOf(context);
        // Refused before anything is created: a stream over the cap submits no task.
        const release = holdStream(principal);
        try {
          const cursor = await log.latestId();
          const created = await submit(principal, params);
          yield { payload: { $case: 'task', value: toA2a(created) } };
          yield* follow(principal, created, cursor, abortOf(context));
        } finally {
          release();
        }
      }),

    resubscribe: (params, context) =>
      guardedStream('task', context, async function* () {
        const principal = principalOf(context);
        const cursor = await log.latestId();
        const task = await tasks.getRequested(principal, requireId(params.id));
        if (ENDED.has(task.status)) throw new UnsupportedOperationError(`The task has ended (${task.status}): read it with GetTask`);
        const release = holdStream(principal);
        try {
          yield { payload: { $case: 'task', value: toA2a(task) } };
          yield* follow(principal, task, cursor, abortOf(context));
        } finally {
          release();
        }
      }),

    getTask: (params: GetTaskRequest, context) =>
      guarded('task', context, async () => toA2a(await tasks.getRequested(principalOf(context), requireId(params.id)))),

    cancelTask: (params: CancelTaskRequest, context) =>
      guarded('task', context, async () => toA2a(await tasks.cancel(principalOf(context), requireId(params.id)))),

    listTasks: (params: ListTasksRequest, context) =>
      guarded('params', context, async (): Promise<ListTasksResponse> => {
        if (params.contextId || (params.status !== TaskState.TASK_STATE_UNSPECIFIED && params.status !== undefined) || params.statusTimestampAfter) {
          throw new UnsupportedOperationError('ListTasks filters (contextId, status, statusTimestampAfter) are not supported: page through all your tasks');
        }
        const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
        if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
          throw new RequestMalformedError(`pageSize must be from 1 to ${MAX_PAGE_SIZE}`);
        }
        const before = params.pageToken ? decodeCursor(params.pageToken) : null;
        // One more than the page: whether another page follows.
        const { tasks: found, total } = await tasks.listRequested(principalOf(context), before, pageSize + 1);
        const page = found.slice(0, pageSize);
        const lastOnPage = page[page.length - 1];
        return {
          tasks: page.map((task) => {
            const a2a = toA2a(task);
            return params.includeArtifacts ? a2a : { ...a2a, artifacts: [] };
          }),
          nextPageToken: found.length > pageSize && lastOnPage ? encodeCursor(lastOnPage) : '',
          pageSize,
          totalSize: total,
        };
      }),

    createTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError('Push notifications are not supported: follow the task with SubscribeToTask or GetTask');
    },
    getTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError('Push notifications are not supported');
    },
    listTaskPushNotificationConfigs: async () => {
      throw new PushNotificationNotSupportedError('Push notifications are not supported');
    },
    deleteTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError('Push notifications are not supported');
    },
  };

  const transport = new JsonRpcTransportHandler(handler);

  return {
    transport,
    /** The call context of one request: who calls, and the signal that ends its waits when the client leaves. */
    context(principal: Principal, abort: AbortSignal, requestedVersion: string | undefined, log: FastifyBaseLogger): ServerCallContext {
      // A request without A2A-Version is an A2A 0.3 one (A2A 1.0 §3), which this door does not speak.
      const version = requestedVersion ?? LEGACY_VERSION;
      if (version !== A2A_VERSION) throw new VersionNotSupportedError(`A2A-Version ${version} is not supported: this service speaks A2A ${A2A_VERSION}`);
      return new ServerCallContext({
        requestedVersion: version,
        state: new Map<string, unknown>([
          [PRINCIPAL, principal],
          [ABORT, abort],
          [LOG, log],
        ]),
      });
    },
    /** Ends every wait and stream (shutdown): streaming clients resubscribe on another node. */
    stop(): void {
      for (const controller of open) controller.abort();
    },
  };
}

export type A2aFrontDoor = ReturnType<typeof createA2aFrontDoor>;
