import { Type, type Static } from '@sinclair/typebox';
import { Currency, literals, PageQuery } from '../../http/schemas.ts';
import { MAX_AMOUNT_CENTS } from '../../lib/money.ts';
import { TaskClass } from '../receipts/index.ts';

export const priorities = ['low', 'normal', 'high', 'urgent'] as const;
export const taskStatuses = ['pending', 'matched', 'in_progress', 'completed', 'failed', 'cancelled', 'expired', 'unmatched'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

const Json = Type.Unknown({ description: 'any JSON value' });
const JsonObject = Type.Object({}, { additionalProperties: true });

export const CreateTask = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.String({ minLength: 1, maxLength: 10_000, description: 'natural language allowed when the matched agent has an inputSchema' }),
    input: Type.Optional(JsonObject),
    capabilities: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 20, uniqueItems: true })),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    taskClass: Type.Optional(TaskClass),
    priority: Type.Optional(literals(priorities)),
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 24 * 60 })),
    metadata: Type.Optional(JsonObject),
    maxPriceCents: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_AMOUNT_CENTS, description: 'the most this task may cost; without it only free agents are chosen' }),
    ),
    currency: Type.Optional(Currency()),
    searchQuery: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'the search that led you to this task (the web app passes it from the results you opened): write-only, never delivered or shown; if you rate the task 4 or 5 it helps discovery (docs/discovery.md)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTaskInput = Static<typeof CreateTask>;

/**
 * The shared error body, plus `found` on the 400 that refuses a submission whose chosen agent
 * needs a field the description does not give: the values the description did give.
 */
export const SubmissionError = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    found: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description:
          "the input fields read from the description (defaults included), when a required field of the chosen agent's inputSchema was not found; each missing field is a details entry /input/<field>",
      }),
    ),
  },
  { description: 'Every error the API returns; a refused plain-language submission also has found' },
);

const InputFieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ExtractRequest = Type.Object(
  {
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "read the fields of this agent's inputSchema" })),
    inputSchema: Type.Optional(
      Type.Union([Type.String({ maxLength: 20000 }), Type.Object({})], {
        description: 'or of this schema (JSON text or object), as an agent would register it',
      }),
    ),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.String({ minLength: 1, maxLength: 10_000 }),
  },
  { additionalProperties: false },
);
export type ExtractRequestInput = Static<typeof ExtractRequest>;

export const ExtractPreview = Type.Object({
  data: Type.Object({
    input: Type.Record(Type.String(), InputFieldValue, { description: 'the fields a task with this text would carry, in schema order, defaults included' }),
    missing: Type.Array(Type.String(), {
      description: 'required fields with neither a value in the text nor a default: a submission would be refused naming them',
    }),
  }),
});

const AgentRef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  identityLevel: literals(['provisional', 'none', 'key', 'domain'] as const, {
    description: 'provisional (no owner yet), none (owned, no key proven), key (registration key proven), domain (control of the endpoint host proven)',
  }),
  verifiedDomain: Type.Union([Type.String(), Type.Null()], { description: 'the endpoint host whose control the owner proved' }),
});

export const Task = Type.Object({
  id: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  input: Type.Union([JsonObject, Type.Null()]),
  capabilities: Type.Array(Type.String()),
  taskClass: Type.Union([Type.String(), Type.Null()], {
    description:
      "the requester's class or, when it gave none, the class of the first capability of the agent that took the task: its catalogue class (`<category>.<capability>`), or `other.<the term as a slug>` for a term outside the catalogue; outcome receipts bound to the task name it",
  }),
  status: literals(taskStatuses),
  assignedAgent: Type.Union([AgentRef, Type.Null()]),
  requestedAgent: Type.Union([AgentRef, Type.Null()], { description: 'the agent the requester named, kept when it refused the task' }),
  agentDeleted: Type.Boolean({ description: 'the agent the requester named, or the one that took the task, has since been deleted' }),
  result: Json,
  error: Json,
  priority: Type.String(),
  metadata: Type.Union([JsonObject, Type.Null()]),
  maxPriceCents: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  priceCents: Type.Union([Type.Integer({ description: "the assigned agent's price when it was assigned: what completion charges" }), Type.Null()]),
  rating: Type.Union([Type.Object({ score: Type.Integer(), comment: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  expiresAt: Type.String(),
  deliveredAt: Type.Union([Type.String(), Type.Null()]),
  completedAt: Type.Union([Type.String(), Type.Null()]),
});
export type TaskView = Static<typeof Task>;

export const TaskListQuery = Type.Object({
  role: Type.Optional(literals(['requester', 'agent'] as const)),
  status: Type.Optional(literals(taskStatuses)),
  ...PageQuery(20, 100).properties,
});

export const Rating = Type.Object(
  { score: Type.Integer({ minimum: 1, maximum: 5 }), comment: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

export const LeaseRenewal = Type.Object({ taskToken: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const Callback = Type.Object(
  {
    taskToken: Type.String({ minLength: 1, maxLength: 200 }),
    result: Type.Optional(Json),
    error: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4000 }), JsonObject])),
  },
  { additionalProperties: false },
);

const Factors = Type.Object({
  capability: Type.Number(),
  trust: Type.Number(),
  rating: Type.Number(),
  responseTime: Type.Number(),
  availability: Type.Number(),
  load: Type.Number(),
});

export const RouteCandidate = Type.Object({
  agent: AgentRef,
  score: Type.Number(),
  factors: Factors,
  discovery: Type.Union([Type.Object({ rank: Type.Integer(), relevance: Type.Number() }), Type.Null()], {
    description: "a task with only words: the agent's place among discovery's results for them (rank 1 = best) and its relevance",
  }),
  keyVerified: Type.Boolean({
    description: 'whether the agent proved its registration key: without, factors.trust is neutral (prove it: docs/registry.md)',
  }),
  availability: Type.String(),
  deliveryMode: Type.String(),
});

export const RoutePlan = Type.Object({
  data: Type.Object({
    candidates: Type.Array(RouteCandidate, { description: 'eligible agents, best first; a task is offered to at most the first 5' }),
    excluded: Type.Array(
      Type.Object({
        agent: AgentRef,
        code: Type.String({ description: 'offline, down, maintenance, no_endpoint, no_webhook_secret, price_unbudgeted, price_currency or price_above_max' }),
        reason: Type.String(),
      }),
    ),
    weights: Factors,
  }),
});

export const PollQuery = Type.Object({
  wait: Type.Integer({ minimum: 0, maximum: 30, default: 0, description: 'seconds to hold the request when no task waits' }),
  limit: PageQuery(1, 20).properties.limit,
});

export const Delivery = Type.Object({
  taskId: Type.String(),
  taskToken: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  input: Type.Union([JsonObject, Type.Null()]),
  callbackUrl: Type.String(),
  capabilities: Type.Array(Type.String()),
  priority: Type.String(),
  expiresAt: Type.String(),
  timestamp: Type.String(),
  leaseUntil: Type.Optional(
    Type.String({
      description:
        'A task taken by a long poll: when it goes back to the queue unless the agent answers or renews the lease (POST /v1/tasks/{id}/lease) before',
    }),
  ),
});
export type DeliveryPayload = Static<typeof Delivery>;

/** A delivery taken by a `listen` session: the exact body and headers the agent's endpoint would have been sent. */
export const ListenedDelivery = Type.Object({
  webhookId: Type.String({ description: 'the delivery id, also the webhook-id header' }),
  headers: Type.Record(Type.String(), Type.String(), {
    description:
      "content-type, user-agent and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) signed with the agent's webhook secret",
  }),
  body: Type.String({ description: 'the JSON delivery (taskId, taskToken, input, callbackUrl, ...) exactly as signed' }),
});
export type ListenedDelivery = Static<typeof ListenedDelivery>;
