/**
 * One authorization sweep over every route the server registered (app.routes), not a hand-kept list.
 *
 * Each route needs an entry in FIXTURES: either `public` (no credential involved, with the reason),
 * or a builder that makes fresh objects owned by `owner` and says, for each other caller, the exact
 * status the rules give. For every route that looks at a credential the sweep then checks:
 * - missing, garbage, malformed, revoked and logged-out credentials answer 401 (optional routes too,
 *   for everything but a missing one); a session route refuses an API key and a key route a session;
 * - each outsider call answers its expected status (404 where the caller may not see the object,
 *   403 where they may see it but not act), and after every refused call the owner's view of the
 *   object is unchanged;
 * - last, the legitimate call succeeds with the same inputs, so no refusal above was an accident of
 *   a broken fixture.
 * A route without an entry fails the sweep by name, so a route added later cannot slip through.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { RouteEntry } from '../../src/http/route-table.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { agentBody, agentSignature, newAgentKey, registerAgent, registerProvisional, uniqueName } from '../helpers/agents.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { comment, createPost, socialUser, uniqueUsername, type SocialUser } from '../helpers/social.ts';
import { sampleValidRequest } from '../helpers/route-inputs.ts';
import { submitTask } from '../helpers/tasks.ts';
import { png } from '../helpers/images.ts';
import { databaseFingerprint } from '../helpers/db-fingerprint.ts';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { generateSignerKey, witnessKeyText } from '@agentry/sdk/tlog';

const PASSWORD = 'correct horse battery';
const OPERATOR_EMAIL = 'operator@authz-sweep.example.test';
const METRICS_TOKEN = 'authz-sweep-metrics-token-0123456789';

/** The people and credentials the sweep signs requests with. */
interface World {
  app: TestApp;
  /** Owns every object the fixtures build. */
  owner: SocialUser & { email: string };
  /** The owner's API key without agentId: acts as the owner. */
  ownerKey: string;
  /** A key of one of the owner's agents (with a social profile): it acts as that agent, never as another one. */
  ownerAgentKey: string;
  ownerAgentUsername: string;
  /** Another person with a profile, who owns nothing the fixtures build. */
  stranger: SocialUser & { email: string };
  /** A key of the stranger's agent, with a profile of its own. */
  strangerAgentKey: string;
  strangerAgentUsername: string;
  /** A third person without a social profile: an org member, and the owner of the agents tasks go to. */
  member: { token: string; accountId: string };
  /** Named in OPERATOR_EMAILS. */
  operator: { token: string };
  /** An API key of the owner, used once and then revoked. */
  revokedKey: string;
  /** A session of the owner, used once and then logged out. */
  loggedOutSession: string;
  /** The owner's browser session: its cookies, without the CSRF token that goes with them. */
  ownerBrowserCookie: string;
  /** Browser session cookies of the people who make legitimate calls (owner, member, stranger, operator). */
  browserCookies: Map<CallerName, string>;
}

type CallerName = 'anonymous' | 'owner' | 'ownerKey' | 'ownerAgentKey' | 'stranger' | 'strangerAgentKey' | 'member' | 'operator';
/** A named caller of the world, or a credential a fixture made for itself. */
type Caller = CallerName | { label: string; token: string };

interface Call {
  as: Caller;
  status: number;
  /** Another path than the case's (another object), query string included. */
  url?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Text that must not appear in a 2xx answer (ids of the owner's objects). */
  absent?: string[];
  /** Text that must appear in a 2xx answer. */
  present?: string[];
}

interface Case {
  /** The path with real ids, query string included. */
  url: string;
  /** A valid body for this object: what calls that name no body of their own send. */
  body?: unknown;
  /**
   * The refusal does not depend on the body (it names no object): refused outsider calls are also
   * sent with bodies derived from the route's schema, which must be refused alike.
   */
  schemaBodies?: boolean;
  headers?: Record<string, string>;
  /** Optional routes: the status without any credential (required routes always answer 401). */
  anonymous?: number;
  /** Calls by everyone but the legitimate caller, with the status the rules give. */
  outsiders: Call[];
  /** What the outsiders must not change, read by those who may see it; compared after every refused call. */
  snapshot?: () => Promise<unknown>;
  /** The legitimate call, made last: it must succeed with these inputs. */
  success: Call;
}

type Fixture =
  | { public: string }
  | {
      build(world: World, route: RouteEntry): Promise<Case>;
      /** For a route that takes no bearer credential (auth "none") yet guards an object: what guards it instead. */
      guardedBy?: string;
    };

const codeOf: Record<number, string> = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT' };

function tokenOf(world: World, caller: Caller): string | null {
  if (typeof caller === 'object') return caller.token;
  switch (caller) {
    case 'anonymous':
      return null;
    case 'owner':
      return world.owner.token;
    case 'stranger':
      return world.stranger.token;
    case 'member':
      return world.member.token;
    case 'operator':
      return world.operator.token;
    default:
      return world[caller];
  }
}

const labelOf = (caller: Caller) => (typeof caller === 'object' ? caller.label : caller);

async function json(response: LightMyRequestResponse, what: string) {
  assert.ok(response.statusCode < 300, `${what}: ${response.statusCode} ${response.body}`);
  return response.json();
}

// --- Builders of owned objects -----------------------------------------------------------------

const get = (world: World, url: string, token: string | null = world.owner.token) => world.app.request({ method: 'GET', url, token });

/** Status and body of a read, so a snapshot also catches an object that vanished. */
async function read(world: World, url: string, token: string | null = world.owner.token) {
  const response = await get(world, url, token);
  return { status: response.statusCode, body: response.json() };
}

async function ownerAgents(world: World, overrides: Record<string, unknown> = {}) {
  const publicAgent = await registerAgent(world.app, world.owner.token, { pubkey: newAgentKey().pubkey, ...overrides });
  const privateAgent = await registerAgent(world.app, world.owner.token, { visibility: 'private', ...overrides });
  return {
    publicAgent,
    privateAgent,
    snapshot: () => Promise.all([read(world, `/v1/agents/${publicAgent.id}`), read(world, `/v1/agents/${privateAgent.id}`)]),
  };
}

/** A read of an agent its owner keeps private (`suffix`: the path under it): its owner only, 404 to everyone else, an org's agent to outsiders likewise. */
async function privateAgentRead(world: World, suffix: string): Promise<Case> {
  const { privateAgent, snapshot } = await ownerAgents(world);
  const org = await newOrg(world, false);
  const orgAgent = await registerAgent(world.app, world.owner.token, { visibility: 'org', orgId: org.id });
  return {
    url: `/v1/agents/${privateAgent.id}${suffix}`,
    anonymous: 404,
    outsiders: [
      { as: 'stranger', status: 404 },
      { as: 'strangerAgentKey', status: 404 },
      { as: 'ownerAgentKey', status: 404 },
      { as: 'member', status: 404 },
      { as: 'stranger', status: 404, url: `/v1/agents/${orgAgent.id}${suffix}` },
      { as: 'anonymous', status: 404, url: `/v1/agents/${orgAgent.id}${suffix}` },
    ],
    snapshot,
    success: { as: 'owner', status: 200 },
  };
}

/**
 * An owner-only action on an agent: a public agent someone else may see but not act on (403), a
 * private one they may not see (404), an org agent its members see (403) and others do not (404),
 * and the owner's key of another of its agents (403).
 */
async function ownedAgentCase(
  world: World,
  path: string,
  options: {
    body?: unknown;
    status: number;
    anonymous?: number;
    prepare?: (agentId: string) => Promise<void>;
    snapshot?: (agentIds: string[]) => Promise<unknown>;
    /** Outsider calls of this route only, given the public agent's path. */
    outsiders?: (publicPath: string, publicAgentId: string) => Call[];
  },
): Promise<Case> {
  const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
  const org = await newOrg(world);
  const orgAgent = await registerAgent(world.app, world.owner.token, { visibility: 'org', orgId: org.id });
  const agentIds = [publicAgent.id, privateAgent.id, orgAgent.id];
  for (const id of agentIds) await options.prepare?.(id);
  const at = (id: string) => `/v1/agents/${id}${path}`;
  return {
    url: at(publicAgent.id),
    body: options.body,
    schemaBodies: true,
    ...(options.anonymous !== undefined ? { anonymous: options.anonymous } : {}),
    outsiders: [
      { as: 'stranger', status: 403 },
      { as: 'strangerAgentKey', status: 403 },
      { as: 'ownerAgentKey', status: 403 },
      { as: 'member', status: 403 },
      { as: 'stranger', status: 404, url: at(privateAgent.id) },
      { as: 'strangerAgentKey', status: 404, url: at(privateAgent.id) },
      // A key acting as one agent does not see its owner's other private agents.
      { as: 'ownerAgentKey', status: 404, url: at(privateAgent.id) },
      { as: 'member', status: 403, url: at(orgAgent.id) },
      { as: 'stranger', status: 404, url: at(orgAgent.id) },
      { as: 'strangerAgentKey', status: 404, url: at(orgAgent.id) },
      ...(options.outsiders?.(at(publicAgent.id), publicAgent.id) ?? []),
    ],
    snapshot: async () => [await snapshot(), await read(world, `/v1/agents/${orgAgent.id}`), await options.snapshot?.(agentIds)],
    success: { as: 'owner', status: options.status },
  };
}

async function newOrg(world: World, withMember = true) {
  const org = await json(await world.app.request({ method: 'POST', url: '/v1/orgs', token: world.owner.token, body: { name: uniqueName('Org') } }), 'org');
  if (withMember)
    await json(
      await world.app.request({
        method: 'POST',
        url: `/v1/orgs/${org.data.id}/members`,
        token: world.owner.token,
        body: { accountId: world.member.accountId },
      }),
      'add member',
    );
  return { id: org.data.id as string, snapshot: () => read(world, `/v1/orgs/${org.data.id}`) };
}

async function newApiKey(app: TestApp, token: string) {
  const created = await json(await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: uniqueName('key') } }), 'api key');
  return created.data as { id: string; prefix: string; key: string };
}

async function agentKey(app: TestApp, token: string, agentId: string) {
  const created = await json(await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: uniqueName('agent key'), agentId } }), 'agent key');
  return created.data.key as string;
}

/**
 * A free polling agent of the member, with a task queued for it (matched, not yet taken): the
 * owner's task, or for a private agent (which only the member sees) the member's own.
 */
async function queuedTask(world: World, agentOverrides: Record<string, unknown> = {}) {
  const agent = await pollingAgent(world.app, world.member.token, agentOverrides);
  const requester = agentOverrides.visibility === 'private' ? world.member.token : world.owner.token;
  const task = await submitTask(world.app, requester, { agentId: agent.id });
  assert.equal(task.status, 'matched', JSON.stringify(task));
  return { agent, task, snapshot: () => read(world, `/v1/tasks/${task.id}`, requester) };
}

/** A `listen` session of the member's webhook agent (taking its deliveries, or ending the session): its operator's only. */
async function listenCase(world: World, query: string): Promise<Case> {
  const agent = await registerAgent(world.app, world.member.token, { deliveryMode: 'webhook', protocols: ['webhook'] });
  const hidden = await registerAgent(world.app, world.member.token, { deliveryMode: 'webhook', protocols: ['webhook'], visibility: 'private' });
  const at = (id: string) => `/v1/agents/${id}/webhooks/listen${query}`;
  return {
    url: at(agent.id),
    anonymous: 401,
    outsiders: [
      { as: 'stranger', status: 403 },
      { as: 'strangerAgentKey', status: 403 },
      { as: 'owner', status: 403 },
      { as: 'stranger', status: 404, url: at(hidden.id) },
      { as: 'owner', status: 404, url: at(hidden.id) },
    ],
    snapshot: async () => [await read(world, `/v1/agents/${agent.id}`, world.member.token), await read(world, `/v1/agents/${hidden.id}`, world.member.token)],
    success: { as: 'member', status: 200 },
  };
}

/** A task of the owner, taken by the member's polling agent: its id and its callback token. */
async function takenTask(world: World) {
  const agent = await pollingAgent(world.app, world.member.token);
  const taken = await assignedTask(world.app, world.owner.token, world.member.token, agent.id);
  return { agent, id: taken.id, token: taken.token, snapshot: () => read(world, `/v1/tasks/${taken.id}`) };
}

async function ownerPost(world: World) {
  const post = await createPost(world.app, world.owner.token, `A post to guard ${uniqueName('post')}`);
  return { id: post.id, snapshot: () => read(world, `/v1/social/posts/${post.id}`) };
}

/** A notification of the owner (the stranger commented on the owner's post). */
async function ownerNotification(world: World) {
  const post = await ownerPost(world);
  await comment(world.app, world.stranger.token, post.id, 'A reply that notifies the owner');
  const listed = await json(await get(world, '/v1/social/notifications?limit=100'), 'notifications');
  const found = (listed.notifications as { id: string; postId: string }[]).find((n) => n.postId === post.id);
  assert.ok(found, 'the owner was notified');
  const snapshot = async () => [await read(world, '/v1/social/notifications/unread'), await read(world, '/v1/social/notifications?limit=100')];
  return { id: found.id, snapshot };
}

/** The signing keys of an account, as rows: what a refused call must leave unchanged. */
const signingKeysOf = async (world: World, accountId: string) =>
  JSON.stringify(await world.app.database.db.selectFrom('account_signing_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute());

/** A signing key registered on the owner's account. */
async function ownerSigningKey(world: World): Promise<{ id: string }> {
  const key = newAgentKey();
  const response = await world.app.request({
    method: 'POST',
    url: '/v1/account/signing-keys',
    token: world.owner.token,
    body: { pubkey: key.pubkey, signature: key.sign(`agentry signing key ${key.pubkey} for account ${world.owner.accountId}`) },
  });
  if (response.statusCode !== 201) throw new Error(`signing key: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

async function ownerUpload(world: World) {
  const response = await world.app.request({
    method: 'POST',
    url: '/v1/media',
    token: world.owner.token,
    rawBody: png,
    headers: { 'content-type': 'image/png' },
  });
  const { data } = await json(response, 'upload');
  // The served image's status: the bytes are not JSON.
  return { id: data.id as string, snapshot: async () => (await get(world, `/media/${data.id}`, null)).statusCode };
}

/**
 * Mute and block have the same three routes and the same rules: each caller shuns as itself (an agent's
 * key as the agent), undoes only its own shun, and lists only its own.
 */
function shunFixtures(verb: 'mute' | 'block', list: 'mutes' | 'blocks'): Record<string, Fixture> {
  const shun = async (world: World, username: string) =>
    json(await world.app.request({ method: 'POST', url: `/v1/social/users/${username}/${verb}`, token: world.owner.token }), verb);
  return {
    [`POST /v1/social/users/:username/${verb}`]: {
      async build(world) {
        // Someone of its own, so this shun changes no other case's follows.
        const target = await socialUser(world.app);
        return {
          url: `/v1/social/users/${target.username}/${verb}`,
          // An agent's key shuns as the agent: the owner's own list stays as it was.
          outsiders: [
            { as: 'member', status: 403 },
            { as: 'ownerAgentKey', status: 200 },
          ],
          snapshot: () => read(world, `/v1/social/${list}`),
          success: { as: 'owner', status: 200 },
        };
      },
    },
    [`DELETE /v1/social/users/:username/${verb}`]: {
      async build(world) {
        const target = await socialUser(world.app);
        await shun(world, target.username);
        return {
          url: `/v1/social/users/${target.username}/${verb}`,
          // Each caller can only undo their own shun.
          outsiders: [
            { as: 'stranger', status: 200 },
            { as: 'strangerAgentKey', status: 200 },
            { as: 'member', status: 403 },
          ],
          snapshot: () => read(world, `/v1/social/${list}`),
          success: { as: 'owner', status: 200 },
        };
      },
    },
    [`GET /v1/social/${list}`]: {
      async build(world) {
        const target = await socialUser(world.app);
        await shun(world, target.username);
        return {
          url: `/v1/social/${list}`,
          outsiders: [
            { as: 'stranger', status: 200, absent: [target.profileId] },
            { as: 'ownerAgentKey', status: 200, absent: [target.profileId] },
            { as: 'member', status: 403 },
          ],
          success: { as: 'owner', status: 200, present: [target.profileId] },
        };
      },
    },
  };
}

// --- The fixture table: one entry per registered route ------------------------------------------

const apiDocs = { public: 'the API documentation, the same for everyone' };

/** A post of the owner's that the operator (an admin) hid: an action the owner may appeal. */
async function hiddenOwnerPost(world: World) {
  const post = await createPost(world.app, world.owner.token, 'Hidden for an appeal');
  const hidden = await json(
    await world.app.request({
      method: 'POST',
      url: '/v1/admin/actions',
      token: world.operator.token,
      body: { action: 'hide', subject: { type: 'post', id: post.id }, reason: 'The sweep hides it' },
    }),
    'hide',
  );
  return hidden.data as { id: string };
}

/** Keys the witness fixtures list: a log's (type 0x01) and a witness's (type 0x04). */
const WITNESSED_LOG_KEY = generateSignerKey('log.example.test/sweep').verifierKey;
const WITNESS_KEY = witnessKeyText('witness.example.test', Buffer.alloc(32, 7));

/** Everyone in the world but the operator, who is also the instance's admin: none holds a moderation role. */
const notModerators: Call[] = [
  { as: 'owner', status: 403 },
  { as: 'ownerKey', status: 403 },
  { as: 'ownerAgentKey', status: 403 },
  { as: 'stranger', status: 403 },
  { as: 'strangerAgentKey', status: 403 },
  { as: 'member', status: 403 },
];

const FIXTURES: Record<string, Fixture> = {
  'GET /docs': apiDocs,
  'GET /docs/static/index.html': apiDocs,
  'GET /docs/static/swagger-initializer.js': apiDocs,
  'GET /docs/json': apiDocs,
  'GET /docs/yaml': apiDocs,
  'GET /docs/static/*': apiDocs,
  'GET /openapi.json': apiDocs,
  'GET /health': { public: 'liveness probe' },
  'GET /ready': { public: 'readiness probe' },
  'GET /metrics': {
    guardedBy: 'METRICS_TOKEN (unset: loopback clients only, tested in test/integration/metrics.test.ts)',
    async build() {
      return {
        url: '/metrics',
        outsiders: [
          { as: 'anonymous', status: 401 },
          // No credential of a person or an agent is the metrics token.
          { as: 'owner', status: 401 },
          { as: 'operator', status: 401 },
          { as: 'ownerKey', status: 401 },
          { as: 'ownerAgentKey', status: 401 },
          { as: { label: 'a wrong metrics token', token: `${METRICS_TOKEN}x` }, status: 401 },
        ],
        success: { as: { label: 'the metrics token', token: METRICS_TOKEN }, status: 200, present: ['http_requests_total'] },
      };
    },
  },
  'GET /.well-known/agent-card.json': { public: "the service's own A2A agent card" },
  'GET /.well-known/jwks.json': { public: "the key set that verifies the service's own signed A2A card" },
  'GET /mcp': { public: 'answers 405: the MCP endpoint is stateless and takes POST only' },
  'DELETE /mcp': { public: 'answers 405: the MCP endpoint is stateless and takes POST only' },
  // Every MCP tool calls /v1 with the caller's own credential, so the API's own fixtures cover what a tool may
  // reach; here the endpoint itself must refuse a bad credential before reading any MCP message.
  'POST /mcp': {
    async build() {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const headers = { accept: 'application/json, text/event-stream' };
      return {
        url: '/mcp',
        body,
        headers,
        anonymous: 200,
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'ownerAgentKey', status: 200 },
        ],
        success: { as: 'owner', status: 200, present: ['submit_task'] },
      };
    },
  },
  // The A2A front door acts on the caller's own tasks only: someone else's is a JSON-RPC "task not
  // found" (HTTP 200, as JSON-RPC answers), the assigned agent's owner and an agent key of the owner included.
  'POST /a2a': {
    async build(world) {
      const { task, snapshot } = await queuedTask(world);
      const body = { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: task.id } };
      return {
        url: '/a2a',
        body,
        headers: { 'a2a-version': '1.0' },
        outsiders: [
          { as: 'stranger', status: 200, absent: [task.id, 'TASK_STATE_CANCELED'], present: ['TASK_NOT_FOUND'] },
          { as: 'strangerAgentKey', status: 200, absent: [task.id, 'TASK_STATE_CANCELED'], present: ['TASK_NOT_FOUND'] },
          { as: 'ownerAgentKey', status: 200, absent: [task.id, 'TASK_STATE_CANCELED'], present: ['TASK_NOT_FOUND'] },
          { as: 'member', status: 200, absent: [task.id, 'TASK_STATE_CANCELED'], present: ['TASK_NOT_FOUND'] },
        ],
        snapshot,
        success: { as: 'owner', status: 200, present: [task.id, 'TASK_STATE_CANCELED'] },
      };
    },
  },
  'POST /v1/auth/signup': { public: 'how a credential is obtained' },
  'POST /v1/auth/login': { public: 'how a credential is obtained' },
  'POST /v1/auth/browser/signup': { public: 'how a browser session is obtained' },
  'POST /v1/auth/browser/login': { public: 'how a browser session is obtained' },
  'GET /v1/auth/sign-in-options': { public: 'which sign-in buttons the login page shows; no object' },
  'GET /v1/auth/oidc/start': { public: 'how a browser session is obtained through the OIDC issuer' },
  'GET /v1/auth/oidc/callback': { public: 'how a browser session is obtained through the OIDC issuer (checked against its transaction cookie)' },
  'GET /v1/users/check': { public: 'username availability is public' },
  'POST /v1/agents/provisional': { public: 'provisional registration needs no account (the key is proven at claim)' },
  'GET /v1/capabilities': { public: 'the capability catalogue' },
  'GET /v1/capabilities/agent-counts': {
    // How many agents the caller may see offer each capability: a private agent counts only for its owner.
    async build(world) {
      // A catalogue category no other agent of this world (a database of its own) is filed under.
      const category = '"slug":"gaming"';
      await registerAgent(world.app, world.owner.token, { visibility: 'private', categories: ['gaming'] });
      return {
        url: '/v1/capabilities/agent-counts',
        anonymous: 200,
        outsiders: [
          { as: 'anonymous', status: 200, absent: [category] },
          { as: 'stranger', status: 200, absent: [category] },
          { as: 'strangerAgentKey', status: 200, absent: [category] },
        ],
        success: { as: 'owner', status: 200, present: [category] },
      };
    },
  },
  'GET /v1/payments/terms': { public: "the service's platform fee and payment providers, the same for everyone" },
  'GET /v1/agents/changes': { public: 'public agents only, as anyone sees them; agents never public leave no trace' },
  'GET /.well-known/ai-catalog.json': { public: 'the AI Catalog: public agents only' },
  'GET /ard/catalog/:page': { public: 'the AI Catalog: public agents only' },
  'POST /ard/search': { public: 'ARD search over public agents, as discovery answers anyone' },
  'POST /ard/explore': { public: 'ARD facets over public agents' },
  'GET /ard/agents': { public: 'ARD listing of public agents' },
  'GET /v0.1/servers': { public: 'the MCP Registry read API: public MCP agents only' },
  'GET /v0.1/servers/:serverName/versions': { public: 'the MCP Registry read API: public MCP agents only' },
  'GET /v0.1/servers/:serverName/versions/:version': { public: 'the MCP Registry read API: public MCP agents only' },
  'GET /v1/trust-receipts': { public: 'receipts are public; their signatures are their integrity' },
  'GET /v1/trust-receipts/chain/:correlationId': { public: 'receipts are public; their signatures are their integrity' },
  'POST /v1/trust-receipts': { public: 'receipts are verified by their Ed25519 signature, not by who sends them' },
  'GET /v1/trust': { public: 'trust is computed from public receipts' },
  'GET /v1/social/hashtags': { public: 'hashtag counts of public posts' },
  'GET /v1/social/posts/:id/likes': { public: 'who liked a public post: public, as its like count is' },
  'GET /v1/social/posts/:id/reposts': { public: 'who reposted a public post: public, as the reposts themselves are' },
  'GET /v1/social/users/:username/followers': { public: 'who follows a profile: public, as its follower count is' },
  'GET /v1/trust-receipts/:id/proof': { public: 'receipts are public; a proof is computed from the public log' },
  'GET /v1/log/receipts/consistency': { public: 'the receipt log is public: anyone may check it' },
  'GET /.tlog/keys': { public: "the receipt log's verifier keys" },
  'GET /.tlog/receipts/checkpoint': { public: "the receipt log's signed checkpoint" },
  'GET /.tlog/receipts/tile/*': { public: "the receipt log's tiles and entries" },
  'GET /v1/log/registry/consistency': { public: 'the registry log is public: anyone may check it' },
  'GET /.tlog/registry/checkpoint': { public: "the registry log's signed checkpoint" },
  'GET /.tlog/registry/tile/*': { public: "the registry log's tiles and entries (a private agent's entries carry its id only)" },
  'POST /.tlog/witness/add-checkpoint': { public: 'c2sp.org/tlog-witness: the checkpoint signature by the log key is the only authentication' },
  'GET /.tlog/witness/key': { public: "the instance's witness verifier key" },
  'GET /.tlog/witness/:originHash/checkpoint': { public: 'the latest checkpoint the witness cosigned for a log (c2sp.org/tlog-witness monitor retrieval)' },
  'GET /v1/social/users/:username/following': { public: 'whom a profile follows: public, as its following count is' },
  'POST /v1/payments/stripe/webhook': { public: 'Stripe-Signature over the raw body is the credential' },

  // --- auth and API keys
  'POST /v1/auth/logout': {
    async build(world) {
      const login = () => world.app.request({ method: 'POST', url: '/v1/auth/login', body: { email: world.owner.email, password: PASSWORD } });
      const session = (await json(await login(), 'login')).data.token as string;
      const strangerSession = (
        await json(await world.app.request({ method: 'POST', url: '/v1/auth/login', body: { email: world.stranger.email, password: PASSWORD } }), 'login')
      ).data.token as string;
      return {
        url: '/v1/auth/logout',
        // Another person's logout ends their own session only.
        outsiders: [
          { as: { label: "stranger's own session", token: strangerSession }, status: 200 },
          { as: 'ownerAgentKey', status: 401 },
        ],
        snapshot: () => read(world, '/v1/auth/account', session),
        success: { as: { label: "the owner's session", token: session }, status: 200 },
      };
    },
  },
  // Both act on the caller's own account only; a fresh person each, so the world's owner stays.
  'POST /v1/auth/password': {
    async build(world) {
      const person = await world.app.signup();
      const other = await world.app.signup();
      // Read from the database: logging in to check would spend the credential routes' rate limit.
      const passwordHash = async () =>
        (await world.app.database.db.selectFrom('accounts').select('password_hash').where('id', '=', person.accountId).executeTakeFirstOrThrow()).password_hash;
      return {
        url: '/v1/auth/password',
        body: { currentPassword: PASSWORD, newPassword: 'another long password' },
        outsiders: [
          { as: { label: "another person's own session", token: other.token }, status: 200 },
          { as: 'ownerKey', status: 401 },
          { as: 'ownerAgentKey', status: 401 },
        ],
        snapshot: passwordHash,
        success: { as: { label: "the person's session", token: person.token }, status: 200, present: ['otherSessionsEnded'] },
      };
    },
  },
  'DELETE /v1/account': {
    async build(world) {
      const person = await world.app.signup();
      const other = await world.app.signup();
      return {
        url: '/v1/account',
        body: { password: PASSWORD },
        outsiders: [
          { as: { label: "another person's own session", token: other.token }, status: 200 },
          { as: 'ownerKey', status: 401 },
          { as: 'ownerAgentKey', status: 401 },
        ],
        snapshot: () => read(world, '/v1/auth/account', person.token),
        success: { as: { label: "the person's session", token: person.token }, status: 200 },
      };
    },
  },
  'GET /v1/auth/account': {
    async build(world) {
      return {
        url: '/v1/auth/account',
        outsiders: [
          { as: 'stranger', status: 200, absent: [world.owner.accountId] },
          { as: 'strangerAgentKey', status: 200, absent: [world.owner.accountId] },
        ],
        success: { as: 'owner', status: 200, present: [world.owner.accountId] },
      };
    },
  },
  'POST /v1/api-keys': {
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const body = { name: 'a key for my agent', agentId: publicAgent.id };
      return {
        url: '/v1/api-keys',
        body,
        outsiders: [
          { as: 'stranger', status: 403, body },
          { as: 'ownerAgentKey', status: 401, body },
          { as: 'member', status: 403, body },
          { as: 'stranger', status: 404, body: { ...body, agentId: privateAgent.id } },
        ],
        snapshot: async () => [
          await snapshot(),
          await read(world, '/v1/api-keys?limit=100', world.stranger.token),
          await read(world, '/v1/api-keys?limit=100', world.member.token),
        ],
        success: { as: 'owner', status: 201, body },
      };
    },
  },
  'GET /v1/api-keys': {
    async build(world) {
      const key = await newApiKey(world.app, world.owner.token);
      return {
        url: '/v1/api-keys?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [key.id, key.prefix] },
          { as: 'ownerAgentKey', status: 401 },
        ],
        success: { as: 'owner', status: 200, present: [key.id, key.prefix] },
      };
    },
  },
  'DELETE /v1/api-keys/:id': {
    async build(world) {
      const key = await newApiKey(world.app, world.owner.token);
      // In use before the first snapshot, which would otherwise record its first use.
      await json(await get(world, '/v1/auth/account', key.key), 'key in use');
      return {
        url: `/v1/api-keys/${key.id}`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'member', status: 404 },
          { as: 'ownerAgentKey', status: 401 },
        ],
        snapshot: async () => [await read(world, '/v1/api-keys?limit=100'), (await get(world, '/v1/auth/account', key.key)).statusCode],
        success: { as: 'owner', status: 200 },
      };
    },
  },

  // --- discovery settings
  'GET /v1/settings/search': {
    async build() {
      return {
        url: '/v1/settings/search',
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'ownerAgentKey', status: 403 },
        ],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'PATCH /v1/settings/search': {
    async build(world) {
      const body = { completedTasksImproveSearch: true };
      return {
        url: '/v1/settings/search',
        body,
        // Everyone changes their own setting: the stranger's call leaves the owner's alone.
        outsiders: [
          { as: 'stranger', status: 200, body: { completedTasksImproveSearch: false } },
          { as: 'ownerAgentKey', status: 403, body: { completedTasksImproveSearch: false } },
        ],
        snapshot: () => read(world, '/v1/settings/search'),
        success: { as: 'owner', status: 200, body },
      };
    },
  },

  // --- users
  'POST /v1/users': {
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const username = uniqueUsername('agentprofile');
      const body = { username, displayName: 'My agent', type: 'agent', agentId: publicAgent.id };
      // A key of the agent itself makes its profile: the owner's own account already has one.
      const key = await agentKey(world.app, world.owner.token, publicAgent.id);
      return {
        url: '/v1/users',
        body,
        outsiders: [
          { as: 'stranger', status: 403, body },
          { as: 'member', status: 403, body },
          // A key of another agent cannot make a profile for this one.
          { as: 'ownerAgentKey', status: 400, body },
          { as: 'member', status: 404, body: { ...body, agentId: privateAgent.id } },
        ],
        snapshot: async () => [await snapshot(), await read(world, `/v1/users/check?username=${username}`, null)],
        success: { as: { label: "the agent's own key", token: key }, status: 201, body: { username, displayName: 'My agent', type: 'agent' } },
      };
    },
  },
  'GET /v1/users/me': {
    async build(world) {
      return {
        url: '/v1/users/me',
        outsiders: [
          { as: 'stranger', status: 200, absent: [world.owner.profileId, world.owner.username] },
          { as: 'strangerAgentKey', status: 200, absent: [world.owner.profileId, world.owner.username] },
        ],
        success: { as: 'owner', status: 200, present: [world.owner.profileId] },
      };
    },
  },
  'PATCH /v1/users/me': {
    async build(world) {
      return {
        url: '/v1/users/me',
        body: { bio: 'Written by the owner' },
        // Everyone edits their own profile: the stranger's call changes only the stranger's.
        outsiders: [
          { as: 'stranger', status: 200, body: { bio: 'Written by the stranger' }, absent: [world.owner.profileId] },
          { as: 'member', status: 404, body: { bio: 'No profile to change' } },
          { as: 'ownerAgentKey', status: 200, body: { bio: 'Written by the agent' }, absent: [world.owner.profileId] },
        ],
        snapshot: () => read(world, '/v1/users/me'),
        success: { as: 'owner', status: 200, present: [world.owner.profileId] },
      };
    },
  },

  // --- media
  'POST /v1/media': {
    async build(world) {
      const uploads = async () => (await world.app.database.db.selectFrom('media').select('id').where('owner_id', '=', world.owner.accountId).execute()).length;
      // Anyone signed in uploads into their own account: there is no one else's object to reach.
      return { url: '/v1/media', body: png, snapshot: uploads, outsiders: [{ as: 'ownerAgentKey', status: 201 }], success: { as: 'owner', status: 201 } };
    },
  },
  'GET /v1/media': {
    async build(world) {
      const media = await ownerUpload(world);
      return {
        url: '/v1/media?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [media.id] },
          { as: 'ownerAgentKey', status: 200, absent: [media.id] },
        ],
        success: { as: 'owner', status: 200, present: [media.id] },
      };
    },
  },
  'DELETE /v1/media/:id': {
    async build(world) {
      const media = await ownerUpload(world);
      return {
        url: `/v1/media/${media.id}`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          // A key acting as the owner's agent is another account: the upload is not its own.
          { as: 'ownerAgentKey', status: 404 },
          { as: 'member', status: 404 },
        ],
        snapshot: media.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  // --- account signing keys (trust receipts)
  'POST /v1/account/signing-keys': {
    async build(world) {
      const key = newAgentKey();
      const signature = key.sign(`agentry signing key ${key.pubkey} for account ${world.owner.accountId}`);
      // Which keys sign for an account is the owner's decision: an agent's key is refused even for its own account.
      const agentAccountId = ((await read(world, '/v1/auth/account', world.ownerAgentKey)).body as { data: { id: string } }).data.id;
      const agentSigned = { pubkey: key.pubkey, signature: key.sign(`agentry signing key ${key.pubkey} for account ${agentAccountId}`) };
      // The signature names the owner's account: for anyone else's account it proves nothing.
      return {
        url: '/v1/account/signing-keys',
        body: { pubkey: key.pubkey, signature },
        snapshot: async () => [await signingKeysOf(world, world.owner.accountId), await signingKeysOf(world, agentAccountId)],
        outsiders: [
          { as: 'stranger', status: 400 },
          { as: 'ownerAgentKey', status: 403 },
          { as: 'ownerAgentKey', status: 403, body: agentSigned },
        ],
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'GET /v1/account/signing-keys': {
    async build(world) {
      const key = await ownerSigningKey(world);
      return {
        url: '/v1/account/signing-keys',
        outsiders: [
          { as: 'stranger', status: 200, absent: [key.id] },
          { as: 'ownerAgentKey', status: 200, absent: [key.id] },
        ],
        success: { as: 'owner', status: 200, present: [key.id] },
      };
    },
  },
  'DELETE /v1/account/signing-keys/:id': {
    async build(world) {
      const key = await ownerSigningKey(world);
      return {
        url: `/v1/account/signing-keys/${key.id}`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 403 },
          { as: 'ownerAgentKey', status: 403 },
        ],
        snapshot: () => signingKeysOf(world, world.owner.accountId),
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /media/:id': { public: 'an uploaded image is readable by anyone with its URL (an unguessable id), as agents fetch it without a credential' },

  // --- orgs
  'POST /v1/orgs': {
    async build(world) {
      // No route lists organizations, so the stored rows are what a refused call must leave alone.
      const orgCount = async () =>
        (
          await world.app.database.db
            .selectFrom('orgs')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      return {
        url: '/v1/orgs',
        body: { name: 'Acme' },
        snapshot: async () => Number(await orgCount()),
        // Organizations are of people: a key acting as an agent makes none, not even for its owner.
        outsiders: [
          { as: 'ownerAgentKey', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
        ],
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'GET /v1/orgs/:id': {
    async build(world) {
      const org = await newOrg(world);
      return {
        url: `/v1/orgs/${org.id}`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          // A key acting as the owner's agent is not the owner: the agent is no member.
          { as: 'ownerAgentKey', status: 404 },
        ],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/orgs/:id/members': {
    async build(world) {
      const org = await newOrg(world);
      const joinStranger = { accountId: world.stranger.accountId };
      return {
        url: `/v1/orgs/${org.id}/members`,
        body: joinStranger,
        outsiders: [
          // Adding oneself to someone else's org is the attack.
          { as: 'stranger', status: 404, body: joinStranger },
          { as: 'strangerAgentKey', status: 404, body: joinStranger },
          { as: 'ownerAgentKey', status: 404, body: joinStranger },
          { as: 'stranger', status: 404, body: { username: world.stranger.username, role: 'owner' } },
          // A plain member sees the org but may not add people.
          { as: 'member', status: 403, body: joinStranger },
        ],
        snapshot: org.snapshot,
        success: { as: 'owner', status: 201, present: [world.stranger.accountId] },
      };
    },
  },
  'DELETE /v1/orgs/:id/members': {
    async build(world) {
      const org = await newOrg(world);
      const removeMember = { accountId: world.member.accountId };
      return {
        url: `/v1/orgs/${org.id}/members`,
        body: removeMember,
        outsiders: [
          { as: 'stranger', status: 404, body: removeMember },
          { as: 'strangerAgentKey', status: 404, body: removeMember },
          { as: 'ownerAgentKey', status: 404, body: removeMember },
          { as: 'stranger', status: 404, body: { accountId: world.owner.accountId } },
          // A plain member may leave, not remove others.
          { as: 'member', status: 403, body: { accountId: world.owner.accountId } },
        ],
        snapshot: org.snapshot,
        success: { as: 'owner', status: 200, absent: [world.member.accountId] },
      };
    },
  },

  // --- registry
  'POST /v1/agents': {
    async build(world) {
      const org = await newOrg(world, false);
      const body = agentBody({ visibility: 'org', orgId: org.id });
      return {
        url: '/v1/agents',
        body,
        // Registering into an org needs membership; outsiders are told the org does not exist.
        outsiders: [
          { as: 'stranger', status: 404, body },
          // Registering is a person's decision: a key acting as an agent is refused before anything is looked up.
          { as: 'strangerAgentKey', status: 403, body },
          { as: 'ownerAgentKey', status: 403, body },
          { as: 'ownerAgentKey', status: 403, body: agentBody() },
          { as: 'member', status: 404, body },
        ],
        snapshot: async () => [
          await read(world, '/v1/agents?limit=100', world.stranger.token),
          await read(world, '/v1/agents?limit=100', world.member.token),
          await read(world, '/v1/agents?limit=100', world.owner.token),
        ],
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'GET /v1/agents': {
    async build(world) {
      const { privateAgent } = await ownerAgents(world);
      return {
        url: '/v1/agents?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [privateAgent.id] },
          { as: 'strangerAgentKey', status: 200, absent: [privateAgent.id] },
          // A key acting as an agent owns nothing: it is shown its own agent alone.
          { as: 'ownerAgentKey', status: 200, absent: [privateAgent.id] },
          { as: 'member', status: 200, absent: [privateAgent.id] },
        ],
        success: { as: 'owner', status: 200, present: [privateAgent.id] },
      };
    },
  },
  'GET /v1/agents/:id': { build: (world) => privateAgentRead(world, '') },
  'GET /v1/agents/:id/history': { build: (world) => privateAgentRead(world, '/history') },
  'PATCH /v1/agents/:id': {
    build: (world) => ownedAgentCase(world, '', { body: { description: 'Changed by its owner' }, status: 200 }),
  },
  'DELETE /v1/agents/:id': {
    build: (world) => ownedAgentCase(world, '', { status: 200 }),
  },
  'GET /v1/agents/:id/claim/challenge': {
    guardedBy: 'visibility: a hidden agent answers 404 to everyone on this anonymous route',
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const provisional = await registerProvisional(world.app);
      return {
        url: `/v1/agents/${privateAgent.id}/claim/challenge`,
        outsiders: [
          { as: 'anonymous', status: 404 },
          { as: 'anonymous', status: 409, url: `/v1/agents/${publicAgent.id}/claim/challenge` },
        ],
        snapshot,
        success: { as: 'anonymous', status: 200, url: `/v1/agents/${provisional.id}/claim/challenge` },
      };
    },
  },
  'POST /v1/agents/:id/claim/challenge': {
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const provisional = await registerProvisional(world.app);
      return {
        url: `/v1/agents/${provisional.id}/claim/challenge`,
        outsiders: [
          { as: 'stranger', status: 404, url: `/v1/agents/${privateAgent.id}/claim/challenge` },
          { as: 'strangerAgentKey', status: 404, url: `/v1/agents/${privateAgent.id}/claim/challenge` },
          { as: 'ownerAgentKey', status: 404, url: `/v1/agents/${privateAgent.id}/claim/challenge` },
          { as: 'stranger', status: 409, url: `/v1/agents/${publicAgent.id}/claim/challenge` },
          // Anyone signed in may ask: the challenge is theirs alone, and claiming decides ownership.
          { as: 'stranger', status: 200 },
        ],
        snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/agents/:id/claim': {
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const provisional = await registerProvisional(world.app);
      const challenge = await json(await get(world, `/v1/agents/${provisional.id}/claim/challenge`, null), 'challenge');
      const body = { signature: provisional.key.sign(challenge.data.nonce) };
      return {
        url: `/v1/agents/${provisional.id}/claim`,
        body,
        outsiders: [
          { as: 'stranger', status: 404, url: `/v1/agents/${privateAgent.id}/claim`, body },
          { as: 'strangerAgentKey', status: 404, url: `/v1/agents/${privateAgent.id}/claim`, body },
          { as: 'ownerAgentKey', status: 404, url: `/v1/agents/${privateAgent.id}/claim`, body },
          // Claiming is a person's decision: a key acting as an agent cannot claim into its owner's account.
          { as: 'ownerAgentKey', status: 403, body },
          { as: 'strangerAgentKey', status: 403, body },
          { as: 'stranger', status: 409, url: `/v1/agents/${publicAgent.id}/claim`, body },
        ],
        snapshot: async () => [await snapshot(), await read(world, `/v1/agents/${provisional.id}`, null)],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /v1/agents/:id/key-challenge': {
    build: (world) => ownedAgentCase(world, '/key-challenge', { status: 200 }),
  },
  'POST /v1/agents/:id/key-challenge': {
    build: (world) => ownedAgentCase(world, '/key-challenge', { status: 200 }),
  },
  'POST /v1/agents/:id/domain': {
    build: (world) => ownedAgentCase(world, '/domain', { status: 200 }),
  },
  'POST /v1/agents/:id/domain/verify': {
    // agent.example.test serves no domain file, so the owner's check is the 422 that says so.
    build: (world) =>
      ownedAgentCase(world, '/domain/verify', {
        status: 422,
        prepare: async (agentId) =>
          void (await json(await world.app.request({ method: 'POST', url: `/v1/agents/${agentId}/domain`, token: world.owner.token }), 'domain token')),
      }),
  },
  'POST /v1/agents/:id/key-proof': {
    async build(world) {
      const key = newAgentKey();
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world, { pubkey: key.pubkey });
      const challenge = await json(await get(world, `/v1/agents/${publicAgent.id}/key-challenge`), 'key challenge');
      const body = { signature: key.sign(challenge.data.nonce) };
      const at = (id: string) => `/v1/agents/${id}/key-proof`;
      return {
        url: at(publicAgent.id),
        body,
        schemaBodies: true,
        outsiders: [
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
          { as: 'ownerAgentKey', status: 403 },
          { as: 'stranger', status: 404, url: at(privateAgent.id) },
        ],
        snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'PUT /v1/agents/:id/key': {
    async build(world) {
      const { publicAgent, privateAgent, snapshot } = await ownerAgents(world);
      const challenge = await json(await get(world, `/v1/agents/${publicAgent.id}/key-challenge`), 'key challenge');
      const key = newAgentKey();
      const body = { pubkey: key.pubkey, signature: key.sign(challenge.data.nonce) };
      const at = (id: string) => `/v1/agents/${id}/key`;
      return {
        url: at(publicAgent.id),
        body,
        schemaBodies: true,
        outsiders: [
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
          { as: 'ownerAgentKey', status: 403 },
          { as: 'stranger', status: 404, url: at(privateAgent.id) },
        ],
        snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/agents/:id/heartbeat': {
    // Without a credential a heartbeat needs X-Agent-Signature by the registration key.
    build: (world) =>
      ownedAgentCase(world, '/heartbeat', {
        body: { status: 'busy', load: 0.5 },
        status: 200,
        anonymous: 401,
        outsiders: (_path, agentId) => [
          { as: 'anonymous', status: 401, headers: { 'x-agent-signature': agentSignature(agentId, newAgentKey(), Math.floor(Date.now() / 1000)) } },
          { as: 'anonymous', status: 401, headers: { 'x-agent-signature': 'garbage' } },
        ],
      }),
  },
  'POST /v1/agents/:id/webhook-secret': {
    build: (world) => ownedAgentCase(world, '/webhook-secret', { status: 201 }),
  },
  'DELETE /v1/agents/:id/webhook-secret': {
    build: (world) =>
      ownedAgentCase(world, '/webhook-secret', {
        status: 200,
        prepare: async (agentId) =>
          void (await json(
            await world.app.request({ method: 'POST', url: `/v1/agents/${agentId}/webhook-secret`, token: world.owner.token }),
            'webhook secret',
          )),
      }),
  },

  // --- discovery
  'GET /v1/discover': {
    async build(world) {
      const word = `sweepdiscover${process.pid}`;
      const privateAgent = await registerAgent(world.app, world.owner.token, {
        visibility: 'private',
        name: uniqueName(word),
        description: `Handles ${word} requests`,
      });
      const url = `/v1/discover?q=${word}&limit=50`;
      return {
        url,
        anonymous: 200,
        outsiders: [
          { as: 'anonymous', status: 200, absent: [privateAgent.id] },
          { as: 'stranger', status: 200, absent: [privateAgent.id] },
          { as: 'strangerAgentKey', status: 200, absent: [privateAgent.id] },
        ],
        success: { as: 'owner', status: 200, present: [privateAgent.id] },
      };
    },
  },
  'GET /v1/discover/:slug': {
    async build(world) {
      const { privateAgent } = await ownerAgents(world);
      return {
        url: `/v1/discover/${privateAgent.slug}`,
        anonymous: 404,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
        ],
        success: { as: 'owner', status: 200 },
      };
    },
  },

  // --- social: posts are public; acting on one needs a profile, deleting one needs authorship
  'GET /v1/social/posts': {
    async build() {
      return { url: '/v1/social/posts', anonymous: 200, outsiders: [{ as: 'ownerAgentKey', status: 200 }], success: { as: 'owner', status: 200 } };
    },
  },
  'POST /v1/social/posts': {
    async build(world) {
      return {
        url: '/v1/social/posts',
        body: { body: 'Hello from the sweep' },
        schemaBodies: true,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: () => read(world, '/v1/social/posts?limit=100', null),
        // An agent with a profile posts as itself.
        success: { as: 'ownerAgentKey', status: 201 },
      };
    },
  },
  'GET /v1/social/posts/:id': {
    async build(world) {
      const post = await ownerPost(world);
      return { url: `/v1/social/posts/${post.id}`, anonymous: 200, outsiders: [{ as: 'ownerAgentKey', status: 200 }], success: { as: 'owner', status: 200 } };
    },
  },
  'GET /v1/social/posts/:id/quotes': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}/quotes`,
        anonymous: 200,
        outsiders: [{ as: 'ownerAgentKey', status: 200 }],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'DELETE /v1/social/posts/:id': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}`,
        outsiders: [
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
          // The owner's agent has a profile of its own: it is not the author.
          { as: 'ownerAgentKey', status: 403 },
          { as: 'member', status: 403 },
        ],
        snapshot: post.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/social/posts/:id/vote': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}/vote`,
        body: { value: 1 },
        schemaBodies: true,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: post.snapshot,
        success: { as: 'ownerAgentKey', status: 200 },
      };
    },
  },
  'POST /v1/social/comments/:id/vote': {
    async build(world) {
      const post = await ownerPost(world);
      const reply = await comment(world.app, world.owner.token, post.id, 'A comment to vote on');
      return {
        url: `/v1/social/comments/${reply.id}/vote`,
        body: { value: -1 },
        schemaBodies: true,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: post.snapshot,
        success: { as: 'ownerAgentKey', status: 200 },
      };
    },
  },
  'DELETE /v1/social/comments/:id': {
    async build(world) {
      const post = await ownerPost(world);
      const reply = await comment(world.app, world.owner.token, post.id, 'A comment to delete');
      return {
        url: `/v1/social/comments/${reply.id}`,
        outsiders: [
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
          // The owner's agent has a profile of its own: it is not the comment's author.
          { as: 'ownerAgentKey', status: 403 },
          { as: 'member', status: 403 },
        ],
        snapshot: post.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/social/posts/:id/comments': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}/comments`,
        body: { body: 'A reply' },
        schemaBodies: true,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: post.snapshot,
        success: { as: 'ownerAgentKey', status: 201 },
      };
    },
  },
  'POST /v1/social/posts/:id/repost': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}/repost`,
        body: {},
        schemaBodies: true,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: post.snapshot,
        success: { as: 'ownerAgentKey', status: 201 },
      };
    },
  },
  'GET /v1/social/posts/:id/repost': {
    async build(world) {
      const post = await ownerPost(world);
      const repost = await json(
        await world.app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: world.owner.token, body: {} }),
        'repost',
      );
      return {
        url: `/v1/social/posts/${post.id}/repost`,
        outsiders: [
          { as: 'stranger', status: 200, absent: [repost.post.id] },
          { as: 'member', status: 403 },
          { as: 'ownerAgentKey', status: 200, absent: [repost.post.id] },
        ],
        success: { as: 'owner', status: 200, present: [repost.post.id] },
      };
    },
  },
  'DELETE /v1/social/posts/:id/repost': {
    async build(world) {
      const post = await ownerPost(world);
      await json(await world.app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: world.owner.token, body: {} }), 'repost');
      return {
        url: `/v1/social/posts/${post.id}/repost`,
        // Only one's own repost can be removed: the others have none here.
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          { as: 'ownerAgentKey', status: 404 },
          { as: 'member', status: 403 },
        ],
        snapshot: async () => [await post.snapshot(), await read(world, `/v1/social/posts/${post.id}/repost`)],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/social/users/:username/follow': {
    async build(world) {
      return {
        url: `/v1/social/users/${world.strangerAgentUsername}/follow`,
        outsiders: [{ as: 'member', status: 403 }],
        snapshot: () => read(world, `/v1/social/users/${world.strangerAgentUsername}/profile`, null),
        success: { as: 'ownerAgentKey', status: 200 },
      };
    },
  },
  'DELETE /v1/social/users/:username/follow': {
    async build(world) {
      const url = `/v1/social/users/${world.ownerAgentUsername}/follow`;
      await json(await world.app.request({ method: 'POST', url, token: world.owner.token }), 'follow');
      return {
        url,
        // Unfollowing ends the caller's own follow only.
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'strangerAgentKey', status: 200 },
          { as: 'member', status: 403 },
        ],
        snapshot: async () => [await read(world, url), await read(world, `/v1/social/users/${world.ownerAgentUsername}/profile`, null)],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/social/posts/:id/bookmark': {
    async build(world) {
      const post = await ownerPost(world);
      return {
        url: `/v1/social/posts/${post.id}/bookmark`,
        // Each caller bookmarks for themselves (an agent's key as the agent): the owner's bookmarks stay as they were.
        outsiders: [
          { as: 'member', status: 403 },
          { as: 'stranger', status: 201 },
          { as: 'ownerAgentKey', status: 201 },
        ],
        snapshot: () => read(world, '/v1/social/bookmarks'),
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'DELETE /v1/social/posts/:id/bookmark': {
    async build(world) {
      const post = await ownerPost(world);
      await json(await world.app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/bookmark`, token: world.owner.token }), 'bookmark');
      return {
        url: `/v1/social/posts/${post.id}/bookmark`,
        // Each caller can only take back their own bookmark.
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'strangerAgentKey', status: 200 },
          { as: 'member', status: 403 },
        ],
        snapshot: () => read(world, '/v1/social/bookmarks'),
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /v1/social/bookmarks': {
    async build(world) {
      const post = await ownerPost(world);
      await json(await world.app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/bookmark`, token: world.owner.token }), 'bookmark');
      return {
        url: '/v1/social/bookmarks?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [post.id] },
          { as: 'ownerAgentKey', status: 200, absent: [post.id] },
          { as: 'member', status: 403 },
        ],
        success: { as: 'owner', status: 200, present: [post.id] },
      };
    },
  },
  'GET /v1/social/muted-words': {
    async build(world) {
      const word = uniqueName('muted')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '');
      await json(await world.app.request({ method: 'PUT', url: '/v1/social/muted-words', token: world.owner.token, body: { words: [word] } }), 'muted words');
      return {
        url: '/v1/social/muted-words',
        outsiders: [
          { as: 'stranger', status: 200, absent: [word] },
          { as: 'ownerAgentKey', status: 200, absent: [word] },
          { as: 'member', status: 403 },
        ],
        success: { as: 'owner', status: 200, present: [word] },
      };
    },
  },
  'PUT /v1/social/muted-words': {
    async build(world) {
      return {
        url: '/v1/social/muted-words',
        body: {
          words: [
            uniqueName('muted')
              .toLowerCase()
              .replace(/[^a-z0-9]/g, ''),
          ],
        },
        schemaBodies: true,
        // Each caller replaces only their own list (an agent's key the agent's).
        outsiders: [
          { as: 'member', status: 403 },
          { as: 'stranger', status: 200 },
          { as: 'ownerAgentKey', status: 200 },
        ],
        snapshot: () => read(world, '/v1/social/muted-words'),
        success: { as: 'owner', status: 200 },
      };
    },
  },
  ...shunFixtures('mute', 'mutes'),
  ...shunFixtures('block', 'blocks'),
  'GET /v1/social/users/:username/follow': {
    async build(world) {
      return {
        url: `/v1/social/users/${world.stranger.username}/follow`,
        outsiders: [
          { as: 'member', status: 403 },
          { as: 'ownerAgentKey', status: 200 },
        ],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /v1/social/users/:username/profile': {
    async build(world) {
      return {
        url: `/v1/social/users/${world.owner.username}/profile`,
        anonymous: 200,
        outsiders: [{ as: 'ownerAgentKey', status: 200 }],
        success: { as: 'stranger', status: 200 },
      };
    },
  },
  'GET /v1/social/users/:username/posts': {
    async build(world) {
      return {
        url: `/v1/social/users/${world.owner.username}/posts`,
        anonymous: 200,
        outsiders: [{ as: 'ownerAgentKey', status: 200 }],
        success: { as: 'stranger', status: 200 },
      };
    },
  },
  'GET /v1/social/users/suggested': {
    async build() {
      return {
        url: '/v1/social/users/suggested',
        outsiders: [
          { as: 'member', status: 403 },
          { as: 'ownerAgentKey', status: 200 },
        ],
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /v1/social/notifications': {
    async build(world) {
      const notification = await ownerNotification(world);
      return {
        url: '/v1/social/notifications?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [notification.id] },
          { as: 'strangerAgentKey', status: 200, absent: [notification.id] },
          { as: 'member', status: 403 },
        ],
        snapshot: notification.snapshot,
        success: { as: 'owner', status: 200, present: [notification.id] },
      };
    },
  },
  'GET /v1/social/notifications/unread': {
    async build(world) {
      const notification = await ownerNotification(world);
      return {
        url: '/v1/social/notifications/unread',
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'member', status: 403 },
          { as: 'ownerAgentKey', status: 200 },
        ],
        snapshot: notification.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/social/notifications/read': {
    async build(world) {
      const notification = await ownerNotification(world);
      const body = { ids: [notification.id] };
      return {
        url: '/v1/social/notifications/read',
        body,
        // Marking someone else's notification read changes nothing.
        outsiders: [
          { as: 'stranger', status: 200, body },
          { as: 'strangerAgentKey', status: 200, body },
          { as: 'member', status: 403, body },
        ],
        snapshot: notification.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'GET /v1/social/search': {
    async build(world) {
      const word = `sweepsearch${process.pid}`;
      const privateAgent = await registerAgent(world.app, world.owner.token, {
        visibility: 'private',
        name: uniqueName(word),
        description: `Handles ${word} requests`,
      });
      return {
        url: `/v1/social/search?q=${word}&tab=services`,
        anonymous: 200,
        outsiders: [
          { as: 'anonymous', status: 200, absent: [privateAgent.id] },
          { as: 'stranger', status: 200, absent: [privateAgent.id] },
          { as: 'ownerAgentKey', status: 200, absent: [privateAgent.id] },
        ],
        success: { as: 'owner', status: 200, present: [privateAgent.id] },
      };
    },
  },
  'GET /v1/social/topics': {
    async build() {
      // The taxonomy and its counts are the same for everyone; a credential adds only whether you follow each.
      return { url: '/v1/social/topics', anonymous: 200, outsiders: [{ as: 'ownerAgentKey', status: 200 }], success: { as: 'owner', status: 200 } };
    },
  },
  'GET /v1/social/topics/:slug': {
    async build() {
      return { url: '/v1/social/topics/security', anonymous: 200, outsiders: [{ as: 'ownerAgentKey', status: 200 }], success: { as: 'owner', status: 200 } };
    },
  },
  'POST /v1/social/topics/:slug/follow': {
    async build(world) {
      return {
        url: '/v1/social/topics/robotics/follow',
        // Following changes the caller's own follows only; following needs a social profile.
        outsiders: [
          { as: 'member', status: 403 },
          { as: 'strangerAgentKey', status: 200 },
        ],
        // Others' follows move the follower count: the owner's own follow must not move.
        snapshot: async () => (await read(world, '/v1/social/topics/robotics')).body.data.following,
        success: { as: 'owner', status: 200, present: ['"following":true'] },
      };
    },
  },
  'DELETE /v1/social/topics/:slug/follow': {
    async build(world) {
      const url = '/v1/social/topics/pets/follow';
      await json(await world.app.request({ method: 'POST', url, token: world.owner.token }), 'follow a topic');
      return {
        url,
        // Unfollowing ends the caller's own follow only.
        outsiders: [
          { as: 'stranger', status: 200 },
          { as: 'strangerAgentKey', status: 200 },
          { as: 'member', status: 403 },
        ],
        snapshot: async () => (await read(world, '/v1/social/topics/pets')).body.data.following,
        success: { as: 'owner', status: 200, present: ['"following":false'] },
      };
    },
  },
  'GET /v1/social/trending': {
    async build() {
      return { url: '/v1/social/trending', anonymous: 200, outsiders: [{ as: 'ownerAgentKey', status: 200 }], success: { as: 'owner', status: 200 } };
    },
  },

  // --- tasks
  'POST /v1/tasks': {
    async build(world) {
      const privateAgent = await pollingAgent(world.app, world.owner.token, { visibility: 'private' });
      const body = { description: 'Summarise this report', agentId: privateAgent.id };
      return {
        url: '/v1/tasks',
        body,
        outsiders: [
          { as: 'stranger', status: 404, body },
          { as: 'strangerAgentKey', status: 404, body },
          { as: 'member', status: 404, body },
        ],
        snapshot: () => read(world, '/v1/tasks?role=agent&limit=100'),
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'POST /v1/tasks/route': {
    async build(world) {
      const capability = `sweep-route-${process.pid}`;
      const privateAgent = await pollingAgent(world.app, world.owner.token, { visibility: 'private', capabilities: [capability] });
      const body = { description: 'Summarise this report', capabilities: [capability] };
      return {
        url: '/v1/tasks/route',
        body,
        outsiders: [
          { as: 'stranger', status: 200, body, absent: [privateAgent.id] },
          { as: 'strangerAgentKey', status: 200, body, absent: [privateAgent.id] },
          { as: 'stranger', status: 404, body: { description: 'x', agentId: privateAgent.id } },
        ],
        // A dry run: it queues nothing for the agent.
        snapshot: () => read(world, '/v1/tasks?role=agent&limit=100'),
        success: { as: 'owner', status: 200, present: [privateAgent.id] },
      };
    },
  },
  'POST /v1/tasks/extract': {
    async build(world) {
      const inputSchema = JSON.stringify({ city: { type: 'string', required: true, description: 'City to forecast' } });
      const privateAgent = await pollingAgent(world.app, world.owner.token, { visibility: 'private', inputSchema });
      const body = { agentId: privateAgent.id, description: 'Weather in Porto tomorrow' };
      return {
        url: '/v1/tasks/extract',
        body,
        outsiders: [
          { as: 'stranger', status: 404, body },
          { as: 'strangerAgentKey', status: 404, body },
        ],
        // A preview: it creates nothing.
        snapshot: () => read(world, '/v1/tasks?role=agent&limit=100'),
        success: { as: 'owner', status: 200, present: ['Porto'] },
      };
    },
  },
  'GET /v1/tasks': {
    async build(world) {
      const { task } = await queuedTask(world);
      return {
        url: '/v1/tasks?limit=100',
        outsiders: [
          { as: 'stranger', status: 200, absent: [task.id] },
          { as: 'stranger', status: 200, url: '/v1/tasks?role=agent&limit=100', absent: [task.id] },
          { as: 'strangerAgentKey', status: 200, absent: [task.id] },
          { as: 'ownerAgentKey', status: 200, absent: [task.id] },
          // The member owns the assigned agent: it sees the task among its agents' tasks, not as its own request.
          { as: 'member', status: 200, absent: [task.id] },
        ],
        success: { as: 'owner', status: 200, present: [task.id] },
      };
    },
  },
  'GET /v1/events': {
    async build(world) {
      const { task } = await queuedTask(world);
      // Without following, the answer ends after the events kept since Last-Event-ID 0: all of them.
      return {
        url: '/v1/events?follow=false',
        headers: { 'last-event-id': '0' },
        outsiders: [
          { as: 'stranger', status: 200, absent: [task.id] },
          { as: 'strangerAgentKey', status: 200, absent: [task.id] },
          { as: 'ownerAgentKey', status: 200, absent: [task.id] },
        ],
        success: { as: 'owner', status: 200, present: [task.id] },
      };
    },
  },
  'GET /v1/tasks/:id': {
    async build(world) {
      const { task, snapshot } = await queuedTask(world);
      return {
        url: `/v1/tasks/${task.id}`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          // Acts as an agent that neither asked for the task nor was given it.
          { as: 'ownerAgentKey', status: 404 },
        ],
        snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/tasks/:id/cancel': {
    async build(world) {
      const { task, snapshot } = await queuedTask(world);
      return {
        url: `/v1/tasks/${task.id}/cancel`,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          { as: 'ownerAgentKey', status: 404 },
          // The owner of the assigned agent sees the task but may not cancel it.
          { as: 'member', status: 403 },
        ],
        snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/tasks/:id/rating': {
    async build(world) {
      const taken = await takenTask(world);
      await json(await callback(world.app, taken.id, { taskToken: taken.token, result: { summary: 'done' } }), 'callback');
      const body = { score: 5, comment: 'Quick and right' };
      return {
        url: `/v1/tasks/${taken.id}/rating`,
        body,
        schemaBodies: true,
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          { as: 'ownerAgentKey', status: 404 },
          // The agent's owner may not rate its own work.
          { as: 'member', status: 403 },
        ],
        snapshot: taken.snapshot,
        success: { as: 'owner', status: 200 },
      };
    },
  },
  'POST /v1/tasks/:id/callback': {
    guardedBy: 'the task token in the body, good for its own task only',
    async build(world) {
      const first = await takenTask(world);
      const second = await takenTask(world);
      const forged = { summary: 'forged' };
      const at = (id: string) => `/v1/tasks/${id}/callback`;
      return {
        url: at(first.id),
        body: { taskToken: first.token, result: { summary: 'done' } },
        outsiders: [
          { as: 'anonymous', status: 401, body: { taskToken: second.token, result: forged } },
          { as: 'anonymous', status: 401, body: { taskToken: second.token, error: 'forged failure' } },
          { as: 'anonymous', status: 401, url: at(second.id), body: { taskToken: first.token, result: forged } },
          { as: 'anonymous', status: 401, body: { taskToken: 'tkt_not-a-real-token', result: forged } },
          // A bearer credential is no substitute for the task token.
          { as: 'member', status: 401, body: { taskToken: `${first.token}x`, result: forged } },
        ],
        snapshot: async () => [await first.snapshot(), await second.snapshot()],
        success: { as: 'anonymous', status: 200 },
      };
    },
  },
  'POST /v1/tasks/:id/lease': {
    guardedBy: 'the task token in the body, good for its own task only',
    async build(world) {
      const first = await takenTask(world);
      const second = await takenTask(world);
      const at = (id: string) => `/v1/tasks/${id}/lease`;
      // The lease is not in the task's view: a refused renewal must leave the stored one as it was.
      const leases = async () =>
        JSON.stringify(
          await world.app.database.db.selectFrom('tasks').select(['id', 'poll_lease_until']).where('id', 'in', [first.id, second.id]).orderBy('id').execute(),
        );
      return {
        url: at(first.id),
        body: { taskToken: first.token },
        outsiders: [
          { as: 'anonymous', status: 401, body: { taskToken: second.token } },
          { as: 'anonymous', status: 401, url: at(second.id), body: { taskToken: first.token } },
          { as: 'anonymous', status: 401, body: { taskToken: 'tkt_not-a-real-token' } },
          // A bearer credential is no substitute for the task token.
          { as: 'member', status: 401, body: { taskToken: `${first.token}x` } },
        ],
        snapshot: async () => [await first.snapshot(), await second.snapshot(), await leases()],
        success: { as: 'anonymous', status: 200, present: ['in_progress', 'leaseUntil'] },
      };
    },
  },
  'GET /v1/tasks/:id/state': {
    guardedBy: 'the task token in X-Task-Token, good for its own task only',
    async build(world) {
      const first = await takenTask(world);
      const second = await takenTask(world);
      const at = (id: string) => `/v1/tasks/${id}/state`;
      return {
        url: at(first.id),
        headers: { 'x-task-token': first.token },
        outsiders: [
          { as: 'anonymous', status: 401, headers: { 'x-task-token': second.token } },
          { as: 'anonymous', status: 401, url: at(second.id), headers: { 'x-task-token': first.token } },
          { as: 'anonymous', status: 401, headers: { 'x-task-token': 'tkt_not-a-real-token' } },
          // A bearer credential is no substitute for the task token.
          { as: 'owner', status: 401, headers: { 'x-task-token': `${first.token}x` } },
        ],
        snapshot: async () => [await first.snapshot(), await second.snapshot()],
        success: { as: 'anonymous', status: 200, present: ['in_progress'] },
      };
    },
  },
  'GET /v1/agents/:id/tasks/poll': {
    async build(world) {
      const { agent, task, snapshot } = await queuedTask(world);
      const hidden = await queuedTask(world, { visibility: 'private' });
      const at = (id: string) => `/v1/agents/${id}/tasks/poll?wait=0&limit=5`;
      return {
        url: at(agent.id),
        // A claimed agent's queue needs its owner's credential or its own key.
        anonymous: 401,
        outsiders: [
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
          // The requester of the queued task is not the agent.
          { as: 'owner', status: 403 },
          { as: 'stranger', status: 404, url: at(hidden.agent.id) },
          { as: 'owner', status: 404, url: at(hidden.agent.id) },
        ],
        snapshot: async () => [await snapshot(), await hidden.snapshot()],
        success: { as: 'member', status: 200, present: [task.id] },
      };
    },
  },

  'GET /v1/agents/:id/webhooks/listen': {
    build: (world) => listenCase(world, '?wait=0&limit=5'),
  },
  'DELETE /v1/agents/:id/webhooks/listen': {
    build: (world) => listenCase(world, ''),
  },

  // --- payments
  'POST /v1/agents/:id/payment-account': {
    build: (world) =>
      ownedAgentCase(world, '/payment-account', {
        body: { provider: 'ledger' },
        status: 201,
        snapshot: (ids) => Promise.all(ids.map((id) => read(world, `/v1/agents/${id}/payment-account`))),
      }),
  },
  'GET /v1/agents/:id/payment-account': {
    build: (world) =>
      ownedAgentCase(world, '/payment-account', {
        status: 200,
        prepare: async (agentId) =>
          void (await json(
            await world.app.request({ method: 'POST', url: `/v1/agents/${agentId}/payment-account`, token: world.owner.token, body: { provider: 'ledger' } }),
            'connect',
          )),
      }),
  },
  'GET /v1/agents/:id/balance': {
    build: (world) => ownedAgentCase(world, '/balance', { status: 200 }),
  },
  'GET /v1/agents/:id/earnings': {
    build: (world) => ownedAgentCase(world, '/earnings', { status: 200 }),
  },
  'POST /v1/payouts': {
    async build(world) {
      const agent = await pollingAgent(world.app, world.owner.token, { pricePerTaskCents: 500 });
      const paid = await assignedTask(world.app, world.stranger.token, world.owner.token, agent.id, { maxPriceCents: 500 });
      await json(await callback(world.app, paid.id, { taskToken: paid.token, result: { ok: true } }), 'paid callback');
      const body = { agentId: agent.id, amountCents: 100, reference: 'sweep payout' };
      return {
        url: '/v1/payouts',
        body,
        // Payouts are for operators: the agent's owner included, nobody else may record one.
        schemaBodies: true,
        outsiders: [
          { as: 'owner', status: 403 },
          { as: 'ownerKey', status: 403 },
          { as: 'ownerAgentKey', status: 403 },
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
        ],
        snapshot: () => read(world, `/v1/agents/${agent.id}/balance`),
        success: { as: 'operator', status: 201 },
      };
    },
  },
  'POST /v1/reports': {
    async build(world) {
      const { publicAgent, privateAgent } = await ownerAgents(world);
      return {
        url: '/v1/reports',
        body: { subject: { type: 'agent', id: publicAgent.id }, reason: 'spam' },
        outsiders: [
          // Nobody reports what they answer for, whichever of their credentials they use.
          { as: 'owner', status: 400 },
          { as: 'ownerKey', status: 400 },
          { as: 'ownerAgentKey', status: 400 },
          // A private agent cannot be reported by those who cannot see it.
          { as: 'stranger', status: 404, body: { subject: { type: 'agent', id: privateAgent.id }, reason: 'spam' } },
          { as: 'strangerAgentKey', status: 404, body: { subject: { type: 'agent', id: privateAgent.id }, reason: 'spam' } },
        ],
        snapshot: () => Promise.all([read(world, '/v1/reports'), read(world, '/v1/reports', world.stranger.token)]),
        success: { as: 'stranger', status: 201 },
      };
    },
  },
  'GET /v1/reports': {
    async build(world) {
      const post = await createPost(world.app, world.stranger.token, 'Reported in the sweep');
      const filed = await json(
        await world.app.request({
          method: 'POST',
          url: '/v1/reports',
          token: world.owner.token,
          body: { subject: { type: 'post', id: post.id }, reason: 'other' },
        }),
        'report',
      );
      return {
        url: '/v1/reports',
        outsiders: [
          { as: 'stranger', status: 200, absent: [filed.data.id] },
          { as: 'strangerAgentKey', status: 200, absent: [filed.data.id] },
          { as: 'member', status: 200, absent: [filed.data.id] },
        ],
        success: { as: 'owner', status: 200, present: [filed.data.id] },
      };
    },
  },
  'GET /v1/moderation/role': {
    async build() {
      // Each caller reads only their own role: without one it is null, whoever else holds one.
      const none = ['"role":null'];
      return {
        url: '/v1/moderation/role',
        outsiders: notModerators.map((call) => ({ ...call, status: 200, present: none })),
        success: { as: 'operator', status: 200, present: ['"role":"admin"'] },
      };
    },
  },
  'GET /v1/admin/reports': {
    async build() {
      return { url: '/v1/admin/reports', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'GET /v1/admin/actions': {
    async build() {
      return { url: '/v1/admin/actions', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'GET /v1/admin/appeals': {
    async build() {
      return { url: '/v1/admin/appeals', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'POST /v1/admin/actions': {
    async build(world) {
      const post = await createPost(world.app, world.owner.token, 'Hidden in the sweep');
      return {
        url: '/v1/admin/actions',
        body: { action: 'hide', subject: { type: 'post', id: post.id }, reason: 'The sweep hides it' },
        schemaBodies: true,
        outsiders: notModerators,
        snapshot: () => read(world, `/v1/social/posts/${post.id}`, world.stranger.token),
        success: { as: 'operator', status: 201 },
      };
    },
  },
  'POST /v1/appeals': {
    async build(world) {
      const action = await hiddenOwnerPost(world);
      return {
        url: '/v1/appeals',
        body: { actionId: action.id, note: 'Please reconsider' },
        // Only the person the action concerns sees it.
        outsiders: [
          { as: 'stranger', status: 404 },
          { as: 'strangerAgentKey', status: 404 },
          { as: 'member', status: 404 },
          { as: 'operator', status: 404 },
        ],
        snapshot: () => read(world, '/v1/admin/appeals', world.operator.token),
        success: { as: 'owner', status: 201 },
      };
    },
  },
  'POST /v1/admin/appeals/:id': {
    async build(world) {
      const action = await hiddenOwnerPost(world);
      const appeal = await json(
        await world.app.request({ method: 'POST', url: '/v1/appeals', token: world.owner.token, body: { actionId: action.id, note: 'Please' } }),
        'appeal',
      );
      const second = await world.app.signup();
      await json(
        await world.app.request({ method: 'PUT', url: `/v1/admin/roles/${second.accountId}`, token: world.operator.token, body: { role: 'moderator' } }),
        'second moderator',
      );
      return {
        url: `/v1/admin/appeals/${appeal.data.id}`,
        body: { decision: 'uphold', reason: 'The sweep upholds it' },
        schemaBodies: true,
        // The moderator who took the action does not decide its appeal.
        outsiders: [...notModerators, { as: 'operator', status: 403 }],
        snapshot: () => read(world, '/v1/admin/appeals', world.operator.token),
        success: { as: { label: 'another moderator', token: second.token }, status: 200 },
      };
    },
  },
  'GET /v1/admin/policies': {
    async build() {
      return { url: '/v1/admin/policies', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'PUT /v1/admin/policies': {
    async build(world) {
      return {
        url: '/v1/admin/policies',
        body: { newAccountFraction: 0.5 },
        schemaBodies: true,
        outsiders: notModerators,
        snapshot: () => read(world, '/v1/admin/policies', world.operator.token),
        success: { as: 'operator', status: 200 },
      };
    },
  },
  'GET /v1/admin/pending': {
    async build() {
      return { url: '/v1/admin/pending', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'GET /v1/admin/roles': {
    async build() {
      return { url: '/v1/admin/roles', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'PUT /v1/admin/roles/:accountId': {
    async build(world) {
      const person = await world.app.signup();
      return {
        url: `/v1/admin/roles/${person.accountId}`,
        body: { role: 'moderator' },
        schemaBodies: true,
        outsiders: notModerators,
        snapshot: () => read(world, '/v1/admin/roles', world.operator.token),
        success: { as: 'operator', status: 200 },
      };
    },
  },
  'DELETE /v1/admin/roles/:accountId': {
    async build(world) {
      const person = await world.app.signup();
      await json(
        await world.app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, token: world.operator.token, body: { role: 'moderator' } }),
        'grant',
      );
      return {
        url: `/v1/admin/roles/${person.accountId}`,
        outsiders: notModerators,
        snapshot: () => read(world, '/v1/admin/roles', world.operator.token),
        success: { as: 'operator', status: 200 },
      };
    },
  },
  'GET /v1/admin/witnessed-logs': {
    async build() {
      return { url: '/v1/admin/witnessed-logs', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'PUT /v1/admin/witnessed-logs': {
    async build(world) {
      return {
        url: '/v1/admin/witnessed-logs',
        body: { logs: [{ origin: 'log.example.test/sweep', key: WITNESSED_LOG_KEY, url: null }] },
        schemaBodies: true,
        outsiders: notModerators,
        snapshot: () => read(world, '/v1/admin/witnessed-logs', world.operator.token),
        success: { as: 'operator', status: 200 },
      };
    },
  },
  'GET /v1/admin/witnesses': {
    async build() {
      return { url: '/v1/admin/witnesses', outsiders: notModerators, success: { as: 'operator', status: 200 } };
    },
  },
  'PUT /v1/admin/witnesses': {
    async build(world) {
      return {
        url: '/v1/admin/witnesses',
        body: { witnesses: [{ key: WITNESS_KEY, url: 'https://witness.example.test/.tlog/witness' }] },
        schemaBodies: true,
        outsiders: notModerators,
        snapshot: () => read(world, '/v1/admin/witnesses', world.operator.token),
        success: { as: 'operator', status: 200 },
      };
    },
  },
  'GET /v1/ledger': {
    async build() {
      return {
        url: '/v1/ledger',
        outsiders: [
          { as: 'owner', status: 403 },
          { as: 'ownerAgentKey', status: 403 },
          { as: 'stranger', status: 403 },
          { as: 'strangerAgentKey', status: 403 },
        ],
        success: { as: 'operator', status: 200 },
      };
    },
  },
};

// --- The credential checks every guarded route gets -----------------------------------------------

interface CredentialCheck {
  label: string;
  authorization: (world: World) => string;
}

const invalidCredentials: CredentialCheck[] = [
  { label: 'garbage session-like token', authorization: () => `Bearer ags_${'x'.repeat(43)}` },
  { label: 'garbage key-like token', authorization: () => `Bearer agk_${'x'.repeat(43)}` },
  { label: 'garbage token of no known kind', authorization: () => 'Bearer not-a-credential' },
  { label: 'garbage JWT-shaped token', authorization: () => 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' },
  { label: 'Basic scheme', authorization: (world) => `Basic ${Buffer.from(`${world.owner.email}:${PASSWORD}`).toString('base64')}` },
  { label: 'Bearer without a token', authorization: () => 'Bearer' },
  { label: 'a valid token without the Bearer scheme', authorization: (world) => world.owner.token },
  { label: 'a valid token followed by junk', authorization: (world) => `Bearer ${world.owner.token} junk` },
  { label: 'an over-long token', authorization: () => `Bearer ags_${'x'.repeat(5000)}` },
  { label: 'revoked API key', authorization: (world) => `Bearer ${world.revokedKey}` },
  { label: 'logged-out session', authorization: (world) => `Bearer ${world.loggedOutSession}` },
];

/**
 * A browser session is a cookie, sent by the browser to any request aimed at the service: every
 * state-changing request that carries it needs the session's CSRF token as well, or it answers 403
 * and changes nothing (a page on another site cannot read the token).
 */
const cookieWithoutCsrfChecks: { label: string; headers: (world: World) => Record<string, string> }[] = [
  { label: "the owner's browser session cookie without a CSRF token", headers: (world) => ({ cookie: world.ownerBrowserCookie }) },
  {
    label: "the owner's browser session cookie with a wrong CSRF token",
    headers: (world) => ({ cookie: world.ownerBrowserCookie, 'x-csrf-token': 'x'.repeat(43) }),
  },
];
const changesState = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

// --- The sweep -------------------------------------------------------------------------------------

/** Seeds of the schema-derived bodies: fixed, so a failure reproduces. */
const SCHEMA_BODY_SEEDS = [1, 2, 3];

/** A valid body derived from the route's declared schema, or undefined for a route that takes none. */
function schemaBody(route: RouteEntry, seed: number): unknown {
  return (route.schema as { body?: unknown } | undefined)?.body === undefined ? undefined : sampleValidRequest(route, seed).body;
}

const routeKey = (route: Pick<RouteEntry, 'method' | 'url'>) => `${route.method} ${route.url}`;

describe('authorization sweep over every registered route', () => {
  let world: World;

  before(async () => {
    const app = await startTestApp({
      OPERATOR_EMAILS: OPERATOR_EMAIL,
      METRICS_TOKEN,
      // Registers the Stripe webhook route, so the sweep sees it; the sweep never calls Stripe.
      STRIPE_SECRET_KEY: 'sk_test_sweep',
      STRIPE_WEBHOOK_SECRET: 'whsec_sweep',
      STRIPE_API_BASE: 'http://127.0.0.1:1',
    });
    const person = async () => {
      const user = await socialUser(app);
      const account = (await json(await app.request({ method: 'GET', url: '/v1/auth/account', token: user.token }), 'account')).data;
      return { ...user, email: account.email as string };
    };
    const owner = await person();
    const stranger = await person();
    const member = await app.signup();
    const operator = await app.signup(OPERATOR_EMAIL);
    assert.equal((await runAdminCommand(['grant', OPERATOR_EMAIL], app.database.db, app.clock)).exitCode, 0);

    const agentWithProfile = async (token: string) => {
      const agent = await registerAgent(app, token);
      const key = await agentKey(app, token, agent.id);
      const username = uniqueUsername('agent');
      await json(
        await app.request({ method: 'POST', url: '/v1/users', token: key, body: { username, displayName: 'An agent', type: 'agent' } }),
        'agent profile',
      );
      return { key, username };
    };
    const ownerAgent = await agentWithProfile(owner.token);
    const strangerAgent = await agentWithProfile(stranger.token);

    // Both credentials are used once before they end, so a cached credential would show.
    const revoked = await newApiKey(app, owner.token);
    await json(await app.request({ method: 'GET', url: '/v1/auth/account', token: revoked.key }), 'key in use');
    await json(await app.request({ method: 'DELETE', url: `/v1/api-keys/${revoked.id}`, token: owner.token }), 'revoke');
    const loggedOut = (await json(await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: owner.email, password: PASSWORD } }), 'login')).data
      .token as string;
    await json(await app.request({ method: 'GET', url: '/v1/auth/account', token: loggedOut }), 'session in use');
    await json(await app.request({ method: 'POST', url: '/v1/auth/logout', token: loggedOut }), 'logout');

    const browserCookie = async (email: string) => {
      const browserLogin = await app.request({ method: 'POST', url: '/v1/auth/browser/login', body: { email, password: PASSWORD } });
      await json(browserLogin, 'browser login');
      const setCookies = ([] as string[]).concat(browserLogin.headers['set-cookie'] ?? []);
      const cookie = setCookies.map((text) => text.split(';')[0]).join('; ');
      assert.match(cookie, /agentry_session=/);
      return cookie;
    };
    const ownerBrowserCookie = await browserCookie(owner.email);
    const browserCookies = new Map<CallerName, string>([
      ['owner', ownerBrowserCookie],
      ['member', await browserCookie(member.email)],
      ['stranger', await browserCookie(stranger.email)],
      ['operator', await browserCookie(OPERATOR_EMAIL)],
    ]);

    world = {
      app,
      ownerBrowserCookie,
      browserCookies,
      owner,
      stranger,
      member,
      operator,
      ownerKey: (await newApiKey(app, owner.token)).key,
      ownerAgentKey: ownerAgent.key,
      ownerAgentUsername: ownerAgent.username,
      strangerAgentKey: strangerAgent.key,
      strangerAgentUsername: strangerAgent.username,
      revokedKey: revoked.key,
      loggedOutSession: loggedOut,
    };
  });
  after(() => world?.app.close());

  it('the fixture table names exactly the registered routes, and public entries only for routes that take no credential', () => {
    const registered = new Map(world.app.routes.map((route) => [routeKey(route), route]));
    const problems: string[] = [];
    for (const key of registered.keys()) if (!FIXTURES[key]) problems.push(`route ${key} has no authorization fixture`);
    for (const key of Object.keys(FIXTURES)) if (!registered.has(key)) problems.push(`fixture ${key} matches no registered route`);
    for (const [key, route] of registered) {
      const fixture = FIXTURES[key];
      if (!fixture) continue;
      if ('public' in fixture) {
        if (route.auth !== 'none') problems.push(`route ${key} declares auth "${route.auth}" but its fixture lists it as public`);
      } else if (route.auth === 'none' && !fixture.guardedBy) {
        problems.push(`route ${key} declares auth "none" but its fixture expects a credential`);
      } else if (route.auth !== 'none' && fixture.guardedBy) {
        problems.push(`route ${key} declares auth "${route.auth}" but its fixture says "${fixture.guardedBy}" guards it instead`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('a task callback with the token of another existing task is 401 and changes neither task', async () => {
    const first = await takenTask(world);
    const second = await takenTask(world);
    const states = async () => [await first.snapshot(), await second.snapshot()];
    const before = await states();
    assert.deepEqual(
      before.map((state) => state.body.data.status),
      ['in_progress', 'in_progress'],
    );

    expectError(await callback(world.app, second.id, { taskToken: first.token, result: { summary: 'forged' } }), 401, 'UNAUTHORIZED');
    expectError(await callback(world.app, first.id, { taskToken: second.token, error: 'forged failure' }), 401, 'UNAUTHORIZED');
    assert.deepEqual(await states(), before);

    // Once its own task is done, a token still opens no other task.
    assert.equal((await callback(world.app, first.id, { taskToken: first.token, result: { summary: 'done' } })).statusCode, 200);
    expectError(await callback(world.app, second.id, { taskToken: first.token, result: { summary: 'forged' } }), 401, 'UNAUTHORIZED');
    const secondNow = await second.snapshot();
    assert.equal(secondNow.body.data.status, 'in_progress');
    assert.equal(secondNow.body.data.result, null);

    const own = await callback(world.app, second.id, { taskToken: second.token, result: { summary: 'the real answer' } });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual((await second.snapshot()).body.data.result, { summary: 'the real answer' });
  });

  it("every route refuses bad credentials and outsiders, and leaves the owner's objects unchanged", async (t) => {
    let routes = 0;
    let checks = 0;
    for (const route of world.app.routes) {
      const fixture = FIXTURES[routeKey(route)];
      if (!fixture || 'public' in fixture) continue;
      routes++;
      await t.test(routeKey(route), async () => {
        checks += await sweepRoute(world, route, await fixture.build(world, route));
      });
    }
    console.log(`authorization sweep: ${world.app.routes.length} routes (${routes} guarded), ${checks} checks`);
  });
});

async function sweepRoute(world: World, route: RouteEntry, testCase: Case): Promise<number> {
  let checks = 0;
  const refusesOutsiders = testCase.outsiders.some((call) => call.status >= 400);
  // A key acting as an agent is a principal of its own (it reads what its agent may, and writes only
  // that agent's state): every route that looks at a credential says what such a key gets.
  const byAgentKey = (call: Call) =>
    call.as === 'ownerAgentKey' || call.as === 'strangerAgentKey' || (typeof call.as === 'object' && /agent.*key/i.test(call.as.label));
  assert.ok(
    route.auth === 'none' || [...testCase.outsiders, testCase.success].some(byAgentKey),
    `${routeKey(route)}: the fixture names no call by a key acting as an agent`,
  );
  assert.ok(
    route.method === 'GET' || !refusesOutsiders || testCase.snapshot,
    `${routeKey(route)}: a fixture refusing a state-changing call names the state it must leave unchanged (snapshot)`,
  );
  const before = testCase.snapshot ? await testCase.snapshot() : undefined;
  const unchanged = async (after: string) => {
    if (!testCase.snapshot) return;
    assert.deepEqual(await testCase.snapshot(), before, `${routeKey(route)}: the owner's object changed after ${after}`);
  };
  const send = (call: Partial<Call> & { authorization?: string | null }) => {
    const token = call.as === undefined ? null : tokenOf(world, call.as);
    const body = 'body' in call ? call.body : testCase.body;
    return world.app.request({
      method: route.method,
      url: call.url ?? testCase.url,
      token,
      // Raw bytes (an upload) go as they are; anything else as JSON.
      ...(Buffer.isBuffer(body) ? { rawBody: body } : body !== undefined ? { body } : {}),
      headers: { ...testCase.headers, ...call.headers, ...(call.authorization ? { authorization: call.authorization } : {}) },
    });
  };
  const refused = async (response: LightMyRequestResponse, status: number, what: string) => {
    checks++;
    try {
      expectError(response, status, codeOf[status]!);
    } catch (error) {
      throw new Error(`${routeKey(route)} ${what}: ${(error as Error).message}`);
    }
    await unchanged(what);
  };

  if (route.auth !== 'none') {
    const anonymous = await send({});
    if (route.auth === 'optional') {
      assert.ok(testCase.anonymous !== undefined, `${routeKey(route)}: an optional route's fixture says what an anonymous call answers`);
      if (testCase.anonymous >= 400) await refused(anonymous, testCase.anonymous, 'without a credential');
      else {
        checks++;
        assert.equal(anonymous.statusCode, testCase.anonymous, `${routeKey(route)} without a credential: ${anonymous.body}`);
      }
    } else {
      await refused(anonymous, 401, 'without a credential');
    }
    // Credentials are judged before the body is read: the fixture's body and schema-derived ones alike.
    const bodies = [testCase.body, ...SCHEMA_BODY_SEEDS.map((seed) => schemaBody(route, seed))];
    for (const [index, check] of invalidCredentials.entries()) {
      const body = bodies[index % bodies.length];
      await refused(await send({ authorization: check.authorization(world), body }), 401, `with ${check.label} and body ${JSON.stringify(body)}`);
    }
    if (changesState(route.method) && route.auth !== 'key') {
      for (const check of cookieWithoutCsrfChecks) await refused(await send({ headers: check.headers(world) }), 403, `with ${check.label}`);
    }
    if (route.auth === 'session') await refused(await send({ as: 'ownerKey' }), 401, 'with an API key on a session route');
    if (route.auth === 'key') await refused(await send({ as: 'owner' }), 401, 'with a session on a key route');
  }

  for (const call of testCase.outsiders) {
    const what = `as ${labelOf(call.as)}${call.url ? ` on ${call.url}` : ''}`;
    const response = await send(call);
    if (call.status >= 400) {
      await refused(response, call.status, what);
      if (testCase.schemaBodies && !('body' in call)) {
        for (const seed of SCHEMA_BODY_SEEDS) {
          const body = schemaBody(route, seed);
          if (body !== undefined) await refused(await send({ ...call, body }), call.status, `${what} with body ${JSON.stringify(body)}`);
        }
      }
      continue;
    }
    checks++;
    assert.equal(response.statusCode, call.status, `${routeKey(route)} ${what}: ${response.body}`);
    for (const text of call.absent ?? []) assert.ok(!response.body.includes(text), `${routeKey(route)} ${what}: the answer shows the owner's ${text}`);
    for (const text of call.present ?? []) assert.ok(response.body.includes(text), `${routeKey(route)} ${what}: the answer lacks ${text}`);
    await unchanged(what);
  }

  // A cross-site page can make a signed-in browser send a GET with its SameSite=Lax cookie: no GET
  // may change anything on the cookie of the very person whose credential would succeed.
  const successCookie = typeof testCase.success.as === 'string' ? world.browserCookies.get(testCase.success.as) : undefined;
  if (route.method === 'GET' && route.auth !== 'none' && successCookie !== undefined) {
    // Earlier calls' agent events reach the registry log on its sequencer's own timer: log them
    // first, so that only the GET itself can change what is stored.
    await world.app.registrySequencer.drain();
    // Health from earlier deliveries is written in batches a second apart: write what is waiting now.
    await world.app.health.measurements.flush();
    const before = await databaseFingerprint(world.app.database);
    const response = await send({ url: testCase.success.url, body: testCase.success.body, headers: { ...testCase.success.headers, cookie: successCookie } });
    checks++;
    assert.equal(
      await databaseFingerprint(world.app.database),
      before,
      `${routeKey(route)}: a GET with the browser cookie changed the database (${response.statusCode} ${response.body})`,
    );
  }

  const success = await send(testCase.success);
  checks++;
  assert.equal(success.statusCode, testCase.success.status, `${routeKey(route)} as ${labelOf(testCase.success.as)} (the legitimate call): ${success.body}`);
  for (const text of testCase.success.present ?? []) assert.ok(success.body.includes(text), `${routeKey(route)}: the legitimate answer lacks ${text}`);
  for (const text of testCase.success.absent ?? []) assert.ok(!success.body.includes(text), `${routeKey(route)}: the legitimate answer still shows ${text}`);
  return checks;
}
