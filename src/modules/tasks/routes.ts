import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, IdParams, listOf } from '../../http/schemas.ts';
import {
  Callback,
  CreateTask,
  Delivery,
  ExtractPreview,
  ExtractRequest,
  LeaseRenewal,
  ListenedDelivery,
  PollQuery,
  Rating,
  RoutePlan,
  SubmissionError,
  Task,
  TaskListQuery,
} from './schemas.ts';
import type { TasksService } from './service.ts';

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'replays return the first answer; the same key with another body is 422' }),
  ),
});

export function registerTasksRoutes(root: FastifyInstance, tasks: TasksService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['tasks'];
  const security = [{ bearer: [] }];

  app.post('/v1/tasks', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Submit a task: routed to the best agent and delivered',
      headers: IdempotencyHeaders,
      body: CreateTask,
      response: { 201: dataOf(Task), 400: SubmissionError, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { status, body } = await tasks.create(principalOf(request), request.body, request.headers['idempotency-key']);
      return reply.status(status).send(body);
    },
  });

  app.post('/v1/tasks/route', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Dry run: the ranked candidates for a task and why', body: CreateTask, response: { 200: RoutePlan, ...errorResponses } },
    handler: async (request) => ({ data: await tasks.route(principalOf(request), request.body) }),
  });

  app.post('/v1/tasks/extract', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "Preview: the input fields a plain-language task would carry for an agent's inputSchema (nothing is created)",
      body: ExtractRequest,
      response: { 200: ExtractPreview, ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.previewInput(principalOf(request), request.body) }),
  });

  app.get('/v1/tasks', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Tasks you submitted, or with role=agent those assigned to your agents',
      querystring: TaskListQuery,
      response: { 200: listOf(Task), ...errorResponses },
    },
    handler: async (request) => tasks.list(principalOf(request), request.query),
  });

  app.get('/v1/tasks/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'One task (its requester, or the owner of its agent)',
      params: IdParams,
      response: { 200: dataOf(Task), ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.get(principalOf(request), request.params.id) }),
  });

  app.post('/v1/tasks/:id/cancel', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Cancel an open task you submitted', params: IdParams, response: { 200: dataOf(Task), ...errorResponses } },
    handler: async (request) => ({ data: await tasks.cancel(principalOf(request), request.params.id) }),
  });

  app.post('/v1/tasks/:id/rating', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Rate a completed task you submitted (once)',
      params: IdParams,
      body: Rating,
      response: { 200: dataOf(Task), ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.rate(principalOf(request), request.params.id, request.body) }),
  });

  app.post('/v1/tasks/:id/callback', {
    // The task token in the body is the credential: it was given only to the assigned agent.
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'The assigned agent returns its result or error',
      params: IdParams,
      body: Callback,
      response: { 200: dataOf(Type.Object({ id: Type.String(), status: Type.String() })), ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.callback(request.params.id, request.body) }),
  });

  app.post('/v1/tasks/:id/lease', {
    // The task token is the credential, as for the callback: only the agent holding the task renews it.
    config: { auth: 'none' },
    schema: {
      tags,
      summary:
        "The agent working on a task it took by long poll keeps it: the lease runs another POLL_LEASE_MS from now (past it, the task goes back to the queue; renewed there before a poll takes it again, it is the agent's again)",
      params: IdParams,
      body: LeaseRenewal,
      response: { 200: dataOf(Type.Object({ id: Type.String(), status: Type.String(), leaseUntil: Type.String() })), ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.renewLease(request.params.id, request.body.taskToken) }),
  });

  app.get('/v1/agents/:id/webhooks/listen', {
    // Taking deliveries is a change made by a GET: never on the browser's session cookie.
    config: { auth: 'optional', getChangesState: true },
    schema: {
      tags,
      summary:
        "Long poll of a `listen` session for a webhook agent: while it polls, the agent's deliveries come here, signed as its endpoint would get them, instead of to its endpoint",
      params: IdParams,
      headers: Type.Object({ 'x-agent-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
      querystring: PollQuery,
      response: { 200: dataOf(Type.Array(ListenedDelivery)), ...errorResponses },
    },
    handler: (request, reply) =>
      longPoll(reply, (clientGone) =>
        tasks.listen(request.principal, request.params.id, request.headers['x-agent-signature'], request.query.wait, request.query.limit, clientGone),
      ),
  });

  app.delete('/v1/agents/:id/webhooks/listen', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: "End a `listen` session: the agent's endpoint gets its deliveries again, those held back for the session first",
      params: IdParams,
      headers: Type.Object({ 'x-agent-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
      response: { 200: dataOf(Type.Object({ agentId: Type.String(), listening: Type.Boolean() })), ...errorResponses },
    },
    handler: async (request) => {
      await tasks.stopListening(request.principal, request.params.id, request.headers['x-agent-signature']);
      return { data: { agentId: request.params.id, listening: false } };
    },
  });

  app.get('/v1/tasks/:id/state', {
    // The task token is the credential, as for the callback: the agent at work asks whether the task still waits for it.
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "The assigned agent reads its task's status by its task token: a task cancelled or expired meanwhile takes no result, so the work can stop",
      params: IdParams,
      headers: Type.Object({ 'x-task-token': Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: dataOf(Type.Object({ id: Type.String(), status: Type.String() })), ...errorResponses },
    },
    handler: async (request) => ({ data: await tasks.stateForAgent(request.params.id, request.headers['x-task-token']) }),
  });

  app.get('/v1/agents/:id/tasks/poll', {
    // Taking tasks is a change made by a GET: never on the browser's session cookie.
    config: { auth: 'optional', getChangesState: true },
    schema: {
      tags,
      summary:
        "Long poll for an agent's queued tasks: X-Agent-Signature by the registration key for a provisional agent, the owner's credential or the agent's key once claimed",
      params: IdParams,
      headers: Type.Object({ 'x-agent-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
      querystring: PollQuery,
      response: { 200: dataOf(Type.Array(Delivery)), ...errorResponses },
    },
    handler: (request, reply) =>
      longPoll(reply, (clientGone) =>
        tasks.poll(request.principal, request.params.id, request.headers['x-agent-signature'], request.query.wait, request.query.limit, clientGone),
      ),
  });

  /** Answers a long poll with what `wait` gives, telling it when the client left so its wait ends. */
  async function longPoll<T>(reply: FastifyReply, wait: (clientGone: AbortSignal) => Promise<T>): Promise<{ data: T }> {
    // The response closing before it finished is the client leaving (the request stream's own
    // 'close' also fires when its body has merely been read).
    const clientGone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) clientGone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const data = await wait(clientGone.signal);
      // The node is stopping and answered before the wait ended: poll again now (another node answers).
      if (tasks.stopping) reply.header('retry-after', '0');
      return { data };
    } finally {
      reply.raw.off('close', onClose);
    }
  }
}
