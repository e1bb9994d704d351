import { Type, type Static } from '@sinclair/typebox';
import { HealthSchema } from '../health/index.ts';
import { Currency, literals, nullable } from '../../http/schemas.ts';
import { MAX_AMOUNT_CENTS } from '../../lib/money.ts';

export const protocolValues = ['mcp', 'a2a', 'rest', 'graphql', 'grpc', 'webhook', 'other'] as const;

const httpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });
const Protocols = (minItems = 0) => Type.Array(literals(protocolValues), { uniqueItems: true, minItems, maxItems: protocolValues.length });
const Categories = (minItems = 0) => Type.Array(Type.String({ pattern: '^[a-z0-9-]{1,40}$' }), { uniqueItems: true, minItems, maxItems: 10 });
const Terms = Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 50 });
/** Requests in users' own words that the agent is for (docs/registry.md "Examples"). */
export const EXAMPLES_MIN = 2;
export const EXAMPLES_MAX = 10;
const Examples = Type.Array(Type.String({ minLength: 3, maxLength: 200, pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]+$' }), {
  minItems: EXAMPLES_MIN,
  maxItems: EXAMPLES_MAX,
  description: "2-10 requests in users' own words that this agent is for (3-200 characters each, no control characters); discovery uses them",
});
const SemVer = Type.String({
  pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$',
  maxLength: 64,
});
const DeliveryMode = Type.Union([Type.Literal('webhook'), Type.Literal('poll'), Type.Literal('a2a')], {
  description:
    'webhook (default when there is an endpoint), poll (default without one: the agent long-polls) or a2a (tasks are sent to the endpoint as A2A SendMessage calls)',
});
const AuthCredential = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: "write-only: the API key or bearer token the agent's A2A endpoint wants (authType api_key or bearer); stored encrypted, never returned",
});
const WebhookSecretOnce = Type.Optional(
  Type.String({
    description:
      'whsec_<base64>: signs the webhook deliveries of a webhook agent; shown only in this response (rotate with POST /v1/agents/:id/webhook-secret)',
  }),
);
const PricePerTaskCents = Type.Integer({
  minimum: 0,
  maximum: MAX_AMOUNT_CENTS,
  description: 'price of one completed task in cents of `currency`; 0 (default) is free',
});
const AgentCurrency = Currency('ISO 4217, lowercase; currencies with two decimal places only (default usd)');
const InputSchemaField = Type.Union([Type.String({ maxLength: 20000 }), Type.Object({})], {
  description: 'JSON text (or object) mapping field names to { type, required, description, enum, default, label, enumLabels }',
});

const registrationFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.String({ minLength: 1, maxLength: 1000 }),
  endpoint: Type.Optional(httpUrl),
  protocols: Protocols(1),
  categories: Categories(1),
  capabilities: Type.Optional(Terms),
  tags: Type.Optional(Terms),
  examples: Type.Optional(Examples),
  manifestUrl: Type.Optional(httpUrl),
  version: Type.Optional(SemVer),
  deliveryMode: Type.Optional(DeliveryMode),
  pricePerTaskCents: Type.Optional(PricePerTaskCents),
  currency: Type.Optional(AgentCurrency),
};

const ownedFields = {
  longDescription: Type.Optional(Type.String({ maxLength: 20000 })),
  docsUrl: Type.Optional(httpUrl),
  authType: Type.Optional(literals(['none', 'api_key', 'oauth2', 'bearer', 'custom'] as const)),
  authCredential: Type.Optional(AuthCredential),
  visibility: Type.Optional(literals(['public', 'org', 'private'] as const)),
  orgId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  pubkey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'ed25519:<base64>: the key this agent signs trust receipts with; trust is scored per key' }),
  ),
  inputSchema: Type.Optional(InputSchemaField),
  twitterUrl: Type.Optional(httpUrl),
};

export const CreateAgent = Type.Object(
  {
    ...registrationFields,
    // A manifest (manifestUrl) may give these; without one they are required (the service says which is missing).
    name: Type.Optional(registrationFields.name),
    description: Type.Optional(registrationFields.description),
    protocols: Type.Optional(Protocols(1)),
    // Required too, but checked by the service, so that every missing field is named in one answer with the categories to choose from.
    categories: Type.Optional(Categories(1)),
    ...ownedFields,
  },
  { additionalProperties: false },
);
export type CreateAgentInput = Static<typeof CreateAgent>;

export const CreateProvisionalAgent = Type.Object(
  {
    ...registrationFields,
    protocols: Type.Optional(Protocols()),
    categories: Type.Optional(Categories()),
    // What its tasks carry: without it a plain-language task to the agent has no fields to be read into.
    inputSchema: ownedFields.inputSchema,
    pubkey: Type.String({ minLength: 1, maxLength: 200, description: 'ed25519:<base64 of the 32-byte public key>' }),
  },
  { additionalProperties: false },
);
export type CreateProvisionalAgentInput = Static<typeof CreateProvisionalAgent>;

/** Everything an owner may change; any other field (status, ownerId, slug, registrationPubkey...) is a 400 naming it. */
export const UpdateAgent = Type.Object(
  {
    name: Type.Optional(registrationFields.name),
    description: Type.Optional(registrationFields.description),
    endpoint: Type.Optional(Type.Union([httpUrl, Type.Null()])),
    protocols: Type.Optional(Protocols()),
    categories: Type.Optional(Categories()),
    capabilities: Type.Optional(Terms),
    tags: Type.Optional(Terms),
    examples: Type.Optional(Type.Union([Examples, Type.Null()], { description: 'null removes them' })),
    manifestUrl: Type.Optional(Type.Union([httpUrl, Type.Null()])),
    version: Type.Optional(SemVer),
    deliveryMode: Type.Optional(DeliveryMode),
    longDescription: Type.Optional(Type.Union([Type.String({ maxLength: 20000 }), Type.Null()])),
    docsUrl: Type.Optional(Type.Union([httpUrl, Type.Null()])),
    authType: ownedFields.authType,
    authCredential: Type.Optional(Type.Union([AuthCredential, Type.Null()])),
    visibility: ownedFields.visibility,
    orgId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    inputSchema: Type.Optional(Type.Union([InputSchemaField, Type.Null()])),
    twitterUrl: Type.Optional(Type.Union([httpUrl, Type.Null()])),
    pricePerTaskCents: Type.Optional(PricePerTaskCents),
    currency: Type.Optional(AgentCurrency),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAgentInput = Static<typeof UpdateAgent>;

export const Agent = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  longDescription: nullable(Type.String()),
  endpoint: nullable(Type.String()),
  protocols: Type.Array(Type.String()),
  categories: Type.Array(Type.String()),
  capabilities: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  examples: Type.Array(Type.String(), { description: "requests in users' own words that this agent is for" }),
  docsUrl: nullable(Type.String()),
  manifestUrl: nullable(Type.String()),
  authType: Type.String(),
  version: Type.String(),
  visibility: Type.String(),
  listing: Type.Object(
    {
      state: Type.Union([Type.Literal('listed'), Type.Literal('pending'), Type.Literal('rejected'), Type.Literal('delisted')]),
      reason: nullable(Type.String()),
      since: nullable(Type.String()),
    },
    {
      description:
        'listed (shown to everyone its visibility allows); pending (waits for a moderator, reason "new" or "changed"), rejected or delisted (with the moderators\' reason): then only its owner sees it',
    },
  ),
  orgId: nullable(Type.String()),
  inputSchema: nullable(Type.String()),
  twitterUrl: nullable(Type.String()),
  status: Type.String(),
  ownerId: nullable(Type.String()),
  registrationPubkey: nullable(Type.String()),
  claimedAt: nullable(Type.String()),
  keyVerified: Type.Boolean({
    description: 'holding registrationPubkey has been proven (claim, signed heartbeat or key proof); only then does the agent carry its trust',
  }),
  identityLevel: literals(['provisional', 'none', 'key', 'domain'] as const, {
    description: 'provisional (no owner yet), none (owned, no key proven), key (registration key proven), domain (control of the endpoint host proven)',
  }),
  verifiedDomain: nullable(Type.String({ description: 'the endpoint host (with its port, if any) whose control the owner proved; null until proven' })),
  cardSignature: nullable(
    Type.Object(
      {
        verified: Type.Literal(true),
        alg: literals(['EdDSA', 'Ed25519', 'ES256'] as const),
        kid: Type.String(),
        jku: Type.String({ description: 'the JWK Set URL the key was read from' }),
        checkedAt: Type.String(),
      },
      { description: 'the A2A card at manifestUrl carried A2A 1.0 signatures and they verified; null for no card or an unsigned one' },
    ),
  ),
  deliveryMode: Type.String(),
  hasWebhookSecret: Type.Boolean(),
  hasAuthCredential: Type.Boolean({ description: 'a credential for the A2A endpoint is stored (it is never shown)' }),
  manifest: Type.Union([
    Type.Object({
      importedAt: Type.String(),
      fields: Type.Array(Type.String(), { description: 'the fields the manifest at manifestUrl filled in' }),
    }),
    Type.Null(),
  ]),
  availability: Type.Union([Type.Literal('available'), Type.Literal('away'), Type.Literal('offline'), Type.Literal('unknown')], {
    description: 'available (heard from within two heartbeat intervals), away (up to 24 h), offline (longer), unknown (never: no heartbeat or poll yet)',
  }),
  lastSeenAt: nullable(Type.String()),
  health: HealthSchema,
  heartbeat: Type.Union([Type.Object({ status: Type.String(), load: Type.Union([Type.Number(), Type.Null()]) }), Type.Null()]),
  pricePerTaskCents: Type.Integer(),
  currency: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** The registration's answer: the agent, and a webhook agent's signing secret, shown this once. */
export const RegisteredAgent = Type.Composite([Agent, Type.Object({ webhookSecret: WebhookSecretOnce })]);

export const RegistrationWarnings = Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
  description: 'what registered but will not work as given (an endpoint the service will refuse to call); empty when nothing',
});

export const ProvisionalCreated = Type.Object({
  data: Type.Object({
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    status: Type.String(),
    ownerId: Type.Null(),
    registrationPubkey: Type.String(),
    webhookSecret: WebhookSecretOnce,
  }),
  message: Type.String(),
  claimUrl: Type.String(),
  warnings: RegistrationWarnings,
});

export const ClaimChallenge = Type.Object({ agentId: Type.String(), nonce: Type.String(), expiresAt: Type.String(), instructions: Type.String() });
/** The body of a claim and of a key proof: a signature over a challenge's nonce. */
export const ChallengeSignature = Type.Object(
  {
    signature: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'base64url (or base64) Ed25519 signature over the UTF-8 bytes of the nonce, by the registration key',
    }),
  },
  { additionalProperties: false },
);
export const Claimed = Type.Object({
  data: Type.Object({ id: Type.String(), status: Type.String(), ownerId: Type.String(), claimedAt: Type.String() }),
  message: Type.String(),
});

/** The body of setting a key: the new key and its signature over a fresh key challenge. */
export const SetKey = Type.Object(
  {
    pubkey: Type.String({ minLength: 1, maxLength: 200, description: 'ed25519:<base64 of the 32-byte public key>: the new registration key' }),
    signature: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'base64url (or base64) Ed25519 signature by the new key over the UTF-8 bytes of a nonce from GET /v1/agents/:id/key-challenge',
    }),
  },
  { additionalProperties: false },
);

export const KeySet = Type.Object({
  data: Type.Object({ id: Type.String(), registrationPubkey: Type.String(), keyVerified: Type.Literal(true), keyVerifiedAt: Type.String() }),
  message: Type.String(),
});

export const KeyProven = Type.Object({
  data: Type.Object({ id: Type.String(), keyVerifiedAt: Type.String() }),
  message: Type.String(),
});

export const HeartbeatBody = Type.Object(
  {
    status: Type.Optional(literals(['available', 'busy', 'maintenance'] as const)),
    load: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);
export const HeartbeatAck = Type.Object({
  id: Type.String(),
  availability: Type.String(),
  lastSeenAt: Type.String(),
  heartbeat: Type.Object({ status: Type.String(), load: Type.Union([Type.Number(), Type.Null()]) }),
});

export const WebhookSecret = Type.Object({ agentId: Type.String(), secret: Type.String({ description: 'whsec_<base64>; shown only in this response' }) });

export const AgentHistory = Type.Object({
  agentId: Type.String(),
  checkpoint: Type.Union([Type.String({ description: "the registry log's latest signed checkpoint, which every proof is against" }), Type.Null()], {
    description: 'null while none of the events is logged',
  }),
  events: Type.Array(
    Type.Object({
      agentId: Type.String(),
      event: Type.String({
        description: 'registered, claimed, key_added, key_rotated, key_revoked, endpoint_changed, name_changed, visibility_changed, deleted, …',
      }),
      values: Type.Record(Type.String(), Type.Unknown(), { description: 'the new public values; empty for an agent that was not public' }),
      time: Type.String({ format: 'date-time' }),
      logIndex: Type.Union([Type.Integer(), Type.Null()], {
        description: 'the entry index in the registry log; null while it waits to be logged (at most a second or so)',
      }),
      proof: Type.Union([Type.String(), Type.Null()], { description: 'c2sp.org/tlog-proof@v1 text: the entry, its inclusion proof and the checkpoint' }),
    }),
    { description: 'in log order; the entry logged is the RFC 8785 form of { agentId, event, values, time }' },
  ),
});

export const DomainToken = Type.Object({
  domain: Type.String({ description: "the endpoint's host, with its port if any" }),
  token: Type.String(),
  url: Type.String({ description: 'where to serve the file: https, or http only where the service allows private endpoints' }),
  file: Type.Object(
    { agents: Type.Array(Type.Object({ agentId: Type.String(), token: Type.String() })) },
    { description: 'what to serve at url for this agent (list every agent of the host in one file)' },
  ),
});

export const DomainVerified = Type.Object({
  agentId: Type.String(),
  verifiedDomain: Type.String(),
  identityLevel: Type.Literal('domain'),
  checkedAt: Type.String(),
});
