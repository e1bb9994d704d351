import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, IdParams, listOf, PageQuery } from '../../http/schemas.ts';
import {
  Agent,
  AgentHistory,
  ChallengeSignature,
  ClaimChallenge,
  Claimed,
  CreateAgent,
  CreateProvisionalAgent,
  DomainToken,
  DomainVerified,
  HeartbeatAck,
  HeartbeatBody,
  KeyProven,
  KeySet,
  ProvisionalCreated,
  RegisteredAgent,
  RegistrationWarnings,
  SetKey,
  UpdateAgent,
  WebhookSecret,
} from './schemas.ts';
import type { RegistryService } from './service.ts';
import type { DomainProofs } from './domain-proofs.ts';
import type { createAgentFeed } from './feed.ts';

type AgentFeed = ReturnType<typeof createAgentFeed<unknown>>;

export interface RegistryRouteOptions {
  /** Anyone may register provisionally, so this open door gets its own per-address budget. */
  provisionalRateLimit: { max: number; timeWindow: number };
  /** Where people reach the web app: its claim page is linked from the provisional registration's message. */
  publicUrl: string;
}

export function registerRegistryRoutes(root: FastifyInstance, registry: RegistryService, options: RegistryRouteOptions): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['registry'];
  const security = [{ bearer: [] }];

  app.post('/v1/agents', {
    config: { auth: 'either', newAccountBudget: 'agent' },
    schema: {
      tags,
      security,
      summary: 'Register an agent you own',
      body: CreateAgent,
      response: { 201: Type.Object({ data: RegisteredAgent, warnings: RegistrationWarnings }), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send(await registry.register(principalOf(request), request.body)),
  });

  app.post('/v1/agents/provisional', {
    config: { auth: 'none', rateLimit: options.provisionalRateLimit },
    schema: {
      tags,
      summary: 'Register an agent with only its Ed25519 key; a person claims it later',
      body: CreateProvisionalAgent,
      response: { 201: ProvisionalCreated, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { data, warnings } = await registry.registerProvisional(request.body);
      const claimUrl = `/v1/agents/${data.id}/claim/challenge`;
      const message =
        `Provisional agent registered. A person claims it at ${options.publicUrl}/claim/${data.id} ` +
        `(or by API: POST ${claimUrl} with your credential, sign the nonce with the registration key, POST /v1/agents/${data.id}/claim).`;
      return reply.status(201).send({ data, message, claimUrl, warnings });
    },
  });

  app.get('/v1/agents', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Agents you own', querystring: PageQuery(20, 100), response: { 200: listOf(Agent), ...errorResponses } },
    handler: async (request) => registry.listMine(principalOf(request), request.query.limit, request.query.offset),
  });

  app.get('/v1/agents/:id', {
    config: { auth: 'optional' },
    schema: { tags, summary: 'One agent (404 if you may not see it)', params: IdParams, response: { 200: dataOf(Agent), ...errorResponses } },
    handler: async (request) => ({ data: await registry.get(request.principal, request.params.id) }),
  });

  app.get('/v1/agents/:id/history', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: "An agent's registry log events, each with its inclusion proof against the latest checkpoint (404 if you may not see the agent)",
      params: IdParams,
      response: { 200: dataOf(AgentHistory), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.history(request.principal, request.params.id) }),
  });

  app.patch('/v1/agents/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Change an agent you own (a new endpoint removes the stored credential unless the request sets one; then `message` says so)',
      params: IdParams,
      body: UpdateAgent,
      response: { 200: Type.Object({ data: Agent, message: Type.Optional(Type.String()) }), ...errorResponses },
    },
    handler: async (request) => registry.update(principalOf(request), request.params.id, request.body),
  });

  app.delete('/v1/agents/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Delete an agent you own',
      params: IdParams,
      response: { 200: dataOf(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.remove(principalOf(request), request.params.id) }),
  });

  app.get('/v1/agents/:id/claim/challenge', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary:
        'A nonce to sign with the registration key (valid 10 minutes, single use); anyone may ask, so others can replace it: signed-in claimers use POST',
      params: IdParams,
      response: { 200: dataOf(ClaimChallenge), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.challenge(request.params.id, null) }),
  });

  app.post('/v1/agents/:id/claim/challenge', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'A nonce issued to your account: only your claim can use it, and no one else asking for challenges replaces it (valid 10 minutes)',
      params: IdParams,
      response: { 200: dataOf(ClaimChallenge), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.challenge(request.params.id, principalOf(request)) }),
  });

  app.post('/v1/agents/:id/claim', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Claim a provisional agent with a signature over the nonce',
      params: IdParams,
      body: ChallengeSignature,
      response: { 200: Claimed, ...errorResponses },
    },
    handler: async (request) => ({
      data: await registry.claim(principalOf(request), request.params.id, request.body.signature),
      message: 'Agent claimed: you are its owner now.',
    }),
  });

  app.get('/v1/agents/:id/key-challenge', {
    // Issuing a challenge replaces the oldest kept one: a change made by a GET, so never on the browser's session cookie.
    config: { auth: 'either', getChangesState: true },
    schema: {
      tags,
      security,
      summary: "A nonce for the owner to sign with the agent's registration key (valid 10 minutes, single use)",
      params: IdParams,
      response: { 200: dataOf(ClaimChallenge), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.keyChallenge(principalOf(request), request.params.id) }),
  });

  app.post('/v1/agents/:id/key-challenge', {
    // The same challenge for browsers: a POST, so the session cookie comes with its CSRF token.
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "A nonce for the owner to sign with the agent's registration key, or with a new key to set (as the GET; the web app's form)",
      params: IdParams,
      response: { 200: dataOf(ClaimChallenge), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.keyChallenge(principalOf(request), request.params.id) }),
  });

  app.post('/v1/agents/:id/key-proof', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Prove holding the registration key with a signature over the key challenge; the agent then carries the trust of its key',
      params: IdParams,
      body: ChallengeSignature,
      response: { 200: KeyProven, ...errorResponses },
    },
    handler: async (request) => ({
      data: await registry.proveKey(principalOf(request), request.params.id, request.body.signature),
      message: 'Registration key proven: this agent now carries the trust of its key.',
    }),
  });

  app.put('/v1/agents/:id/key', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "Add or replace the agent's registration key, proven by the new key's signature over a key challenge",
      params: IdParams,
      body: SetKey,
      response: { 200: KeySet, ...errorResponses },
    },
    handler: async (request) => ({
      data: await registry.setKey(principalOf(request), request.params.id, request.body.pubkey, request.body.signature),
      message: 'Registration key set and proven: this agent now carries the trust of this key.',
    }),
  });

  app.post('/v1/agents/:id/heartbeat', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: "Report availability: owner's credential, or X-Agent-Signature by the registration key",
      params: IdParams,
      headers: Type.Object({ 'x-agent-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
      body: Type.Optional(HeartbeatBody),
      response: { 200: dataOf(HeartbeatAck), ...errorResponses },
    },
    handler: async (request) => ({
      data: await registry.heartbeat(request.principal, request.params.id, request.headers['x-agent-signature'], request.body ?? {}),
    }),
  });

  app.post('/v1/agents/:id/webhook-secret', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Create or rotate the webhook signing secret (shown once)',
      params: IdParams,
      response: { 201: dataOf(WebhookSecret), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send({ data: await registry.rotateWebhookSecret(principalOf(request), request.params.id) }),
  });

  app.delete('/v1/agents/:id/webhook-secret', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Remove the webhook signing secret',
      params: IdParams,
      response: { 200: dataOf(Type.Object({ agentId: Type.String(), deleted: Type.Boolean() })), ...errorResponses },
    },
    handler: async (request) => ({ data: await registry.deleteWebhookSecret(principalOf(request), request.params.id) }),
  });
}

/** Verified domains (docs/registry.md, "Domain verification"): the owner's token, and the check. */
export function registerDomainRoutes(root: FastifyInstance, domains: DomainProofs): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['registry'];
  const security = [{ bearer: [] }];

  app.post('/v1/agents/:id/domain', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "A token to serve at the endpoint host's /.well-known/agentry.json, proving control of the host (owner only)",
      params: IdParams,
      response: { 200: dataOf(DomainToken), ...errorResponses },
    },
    handler: async (request) => ({ data: await domains.issue(principalOf(request), request.params.id) }),
  });

  app.post('/v1/agents/:id/domain/verify', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary:
        "Reads the endpoint host's /.well-known/agentry.json now: 200 when it lists the agent with its token, else 422 naming the URL and what was wrong",
      params: IdParams,
      response: { 200: dataOf(DomainVerified), ...errorResponses },
    },
    handler: async (request) => ({ data: await domains.verify(principalOf(request), request.params.id) }),
  });
}

const AgentChange = Type.Union([
  Type.Object({ id: Type.String(), deleted: Type.Literal(false), at: Type.String(), agent: Agent }),
  Type.Object({ id: Type.String(), deleted: Type.Literal(true), at: Type.String() }),
]);

export function registerAgentFeedRoute(root: FastifyInstance, feed: AgentFeed): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v1/agents/changes', {
    config: { auth: 'none' },
    schema: {
      tags: ['registry'],
      summary: 'Changes of public agents since a cursor, for mirrors: agents in full, deletions and losses of visibility as tombstones',
      querystring: Type.Object({
        since: Type.Optional(Type.String({ maxLength: 64, description: 'the `next` of the previous page; omitted: from the start' })),
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
      }),
      response: {
        200: Type.Object({ data: Type.Array(AgentChange), next: Type.String(), hasMore: Type.Boolean() }),
        ...errorResponses,
      },
    },
    handler: async (request) => feed.changes(request.query.since, request.query.limit),
  });
}
