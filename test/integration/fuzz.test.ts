/**
 * Property-based fuzzing of every route the app registered, from the route table's own schemas:
 * valid requests (to reach handlers and the database) and hostile ones (wrong types, edge numbers,
 * deep nesting, NUL and lone surrogates, long strings, unknown fields, malformed query strings),
 * anonymous or signed in, with path ids that point at real objects or at nothing.
 *
 * Properties: no 5xx; every error in the one shape with a code from the catalogue and the status
 * that code has; every 2xx body valid against the route's declared response schema.
 *
 * FUZZ_SEED reproduces a run (the seed is printed with any failure; `FUZZ_SEED=random` picks a new
 * one), FUZZ_RUNS sets how many requests (5,000 by default).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { ErrorBody } from '../../src/http/schemas.ts';
import type { RouteEntry } from '../../src/http/route-table.ts';
import { errorStatus } from '../../src/lib/errors.ts';
import { agentBody, newAgentKey, registerProvisional } from '../helpers/agents.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { hostileRequest, urlOf, validRequest, type HostileInput } from '../helpers/route-inputs.ts';
import { comment, createPost, socialUser, type SocialUser } from '../helpers/social.ts';
import { heartbeat, submitTask } from '../helpers/tasks.ts';

const seed = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20_261_125);
const runs = Number(process.env.FUZZ_RUNS ?? 5000);

type Auth = 'anonymous' | 'session' | 'apiKey' | 'otherSession' | 'garbage';

/** Objects the generated requests point at, kept alive: a request that deletes one gets a new one. */
interface Seeds {
  owner: SocialUser;
  other: SocialUser;
  apiKey: string;
  apiKeyId: string;
  agent: { id: string; slug: string };
  otherAgent: { id: string; slug: string };
  postId: string;
  commentId: string;
  taskId: string;
  orgId: string;
  correlationId: string;
}

/** Server-sent events: a text answer, not JSON. */
const EVENT_STREAM = '/v1/events';

/** Routes the fuzz test sends requests to: the API and health; the docs pages are static. */
const fuzzed = (route: RouteEntry) => route.url.startsWith('/v1/') || route.url === '/health' || route.url === '/ready';

describe('fuzz: every route, generated from its schemas', () => {
  let app: TestApp;
  let seeds: Seeds;
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(ErrorBody);
  const responseValidators = new Map<string, ValidateFunction>();

  async function createAgent(token: string) {
    const response = await app.request({
      method: 'POST',
      url: '/v1/agents',
      token,
      body: agentBody({ deliveryMode: 'poll', endpoint: undefined, capabilities: ['text-summarization'] }),
    });
    assert.equal(response.statusCode, 201, response.body);
    const agent = response.json().data as { id: string; slug: string };
    await heartbeat(app, token, agent.id);
    return agent;
  }

  async function createApiKey() {
    const response = await app.request({ method: 'POST', url: '/v1/api-keys', token: seeds.owner.token, body: { name: 'fuzz' } });
    assert.equal(response.statusCode, 201, response.body);
    const key = response.json().data as { id: string; key: string };
    seeds.apiKey = key.key;
    seeds.apiKeyId = key.id;
  }

  let logins = 0;
  /**
   * A new session for a seeded user whose session a generated logout ended; each from an address of
   * its own, so the generated requests' use of the credential budget cannot refuse it.
   */
  async function login(user: SocialUser) {
    const me = await app.database.db.selectFrom('accounts').select('email').where('id', '=', user.accountId).executeTakeFirstOrThrow();
    logins++;
    const response = await app.server.inject({
      method: 'POST',
      url: '/v1/auth/login',
      remoteAddress: `10.77.${logins >> 8}.${logins & 255}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: me.email, password: 'correct horse battery' }),
    });
    assert.equal(response.statusCode, 200, response.body);
    user.token = response.json().data.token;
  }

  before(async () => {
    // Generated password changes and deletions send wrong current passwords, which count as failed
    // logins of the seeded accounts; the throttle has its own tests, and here it would refuse the
    // fuzz's own logins after a generated logout.
    app = await startTestApp({ LOGIN_FAILURES_PER_ACCOUNT: '1000' });
    const owner = await socialUser(app);
    const other = await socialUser(app);
    seeds = { owner, other } as Seeds;
    await createApiKey();
    seeds.agent = await createAgent(owner.token);
    seeds.otherAgent = await createAgent(other.token);
    await registerProvisional(app, newAgentKey());
    seeds.postId = (await createPost(app, other.token, 'Seeded post about #agents')).id;
    seeds.commentId = (await comment(app, owner.token, seeds.postId, 'A seeded comment')).id;
    seeds.taskId = (await submitTask(app, other.token, { agentId: seeds.agent.id, capabilities: ['text-summarization'] })).id;
    const org = await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Fuzz org' } });
    assert.equal(org.statusCode, 201, org.body);
    seeds.orgId = org.json().data.id;
    seeds.correlationId = '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f';
  });
  after(() => app.close());

  /** The real object a route's path parameter names, when the request should point at one. */
  function realParam(route: RouteEntry, name: string, useOther: boolean): string | undefined {
    const agent = useOther ? seeds.otherAgent : seeds.agent;
    if (name === 'username') return useOther ? seeds.other.username : seeds.owner.username;
    if (name === 'slug') return agent.slug;
    if (name === 'correlationId') return seeds.correlationId;
    if (route.url.startsWith('/v1/agents/')) return agent.id;
    if (route.url.startsWith('/v1/social/posts/')) return seeds.postId;
    if (route.url.startsWith('/v1/social/comments/')) return seeds.commentId;
    if (route.url.startsWith('/v1/tasks/')) return seeds.taskId;
    if (route.url.startsWith('/v1/orgs/')) return seeds.orgId;
    if (route.url.startsWith('/v1/api-keys/')) return seeds.apiKeyId;
    return undefined;
  }

  function tokenFor(auth: Auth): string | null {
    switch (auth) {
      case 'anonymous':
        return null;
      case 'session':
        return seeds.owner.token;
      case 'apiKey':
        return seeds.apiKey;
      case 'otherSession':
        return seeds.other.token;
      case 'garbage':
        return 'agk_not-a-real-key';
    }
  }

  function responseValidator(route: RouteEntry, status: number): ValidateFunction | undefined {
    const key = `${route.method} ${route.url} ${status}`;
    if (responseValidators.has(key)) return responseValidators.get(key);
    const responses = (route.schema?.response ?? {}) as Record<string, object>;
    const schema = responses[String(status)] ?? responses[`${String(status)[0]}xx`];
    const validate = schema ? ajv.compile(schema) : undefined;
    if (validate) responseValidators.set(key, validate);
    return validate;
  }

  /** Every error in the one shape, with a catalogue code whose status is the one answered. */
  function checkError(response: LightMyRequestResponse): string | null {
    if (!String(response.headers['content-type']).startsWith('application/json')) return `error is not JSON: ${response.headers['content-type']}`;
    let body: Record<string, unknown>;
    try {
      body = response.json();
    } catch {
      return 'error body does not parse';
    }
    const keys = Object.keys(body).filter((k) => k !== 'code' && k !== 'message' && k !== 'details');
    if (keys.length > 0) return `error has other fields: ${keys.join(', ')}`;
    if (typeof body.code !== 'string' || !(body.code in errorStatus)) return `code ${String(body.code)} is not in the catalogue`;
    if (errorStatus[body.code as keyof typeof errorStatus] !== response.statusCode) return `code ${body.code} answered with status ${response.statusCode}`;
    if (typeof body.message !== 'string' || body.message === '') return 'message is not a string';
    if (body.details !== undefined) {
      if (!Array.isArray(body.details)) return 'details is not a list';
      for (const detail of body.details as unknown[]) {
        const d = detail as Record<string, unknown>;
        if (typeof d?.path !== 'string' || typeof d?.message !== 'string' || Object.keys(d).length !== 2)
          return `detail ${JSON.stringify(detail)} is not {path, message}`;
      }
    }
    return null;
  }

  /** Long polls (an agent's, a listen session's) hold a request up to 30 s: generated ones never wait. */
  function noWaiting(route: RouteEntry, request: HostileInput): HostileInput {
    // The event stream answers without following, so the response ends (a second `follow` is a 400, which ends it too).
    if (route.url === EVENT_STREAM) {
      return request.rawQuery !== null
        ? { ...request, rawQuery: `${request.rawQuery}&follow=false` }
        : { ...request, query: { ...request.query, follow: 'false' } };
    }
    if (!route.url.endsWith('/tasks/poll') && !route.url.endsWith('/webhooks/listen')) return request;
    if (request.rawQuery !== null) return { ...request, rawQuery: request.rawQuery.replace(/(^|&)wait=\d+/g, '$1wait=0') };
    const wait = request.query.wait;
    return typeof wait === 'string' && /^\d+$/.test(wait.trim()) ? { ...request, query: { ...request.query, wait: '0' } } : request;
  }

  /** Replaces the seeds a successful request used up, so later requests still reach real objects. */
  async function replenish(route: RouteEntry, url: string, auth: Auth): Promise<void> {
    if (route.url === '/v1/auth/logout') {
      if (auth === 'session') await login(seeds.owner);
      if (auth === 'otherSession') await login(seeds.other);
    }
    if (route.method !== 'DELETE') return;
    if (url === `/v1/api-keys/${seeds.apiKeyId}`) await createApiKey();
    if (url === `/v1/agents/${seeds.agent.id}`) seeds.agent = await createAgent(seeds.owner.token);
    if (url === `/v1/agents/${seeds.otherAgent.id}`) seeds.otherAgent = await createAgent(seeds.other.token);
    if (url === `/v1/social/posts/${seeds.postId}`) {
      // A generated block between the two seeded people would refuse the seeded comment.
      for (const [who, whom] of [
        [seeds.owner, seeds.other],
        [seeds.other, seeds.owner],
      ] as const)
        await app.request({ method: 'DELETE', url: `/v1/social/users/${whom.username}/block`, token: who.token });
      seeds.postId = (await createPost(app, seeds.other.token, 'Seeded post about #agents')).id;
      seeds.commentId = (await comment(app, seeds.owner.token, seeds.postId, 'A seeded comment')).id;
    }
  }

  it(`answers ${runs} generated requests without a 5xx, errors in the one shape, successes as declared`, { timeout: 600_000 }, async (t) => {
    const routes = app.routes.filter(fuzzed);
    assert.ok(routes.length > 60, `only ${routes.length} routes found`);
    // Password hashing makes signup and login a hundred times slower than any other route: they are drawn less often.
    const slow = new Set(['/v1/auth/signup', '/v1/auth/login']);
    const draws = routes.flatMap((route) => Array.from({ length: slow.has(route.url) ? 1 : 10 }, () => route));
    // One arbitrary per route, built once: building compiles patterns, and chain would rebuild it per request.
    const perRoute = new Map(
      routes.map((route) => {
        const valid = validRequest(route).map((input): HostileInput => ({
          params: input.params,
          rawQuery: null,
          query: input.query,
          headers: input.headers,
          body: input.body === undefined ? { kind: 'none' } : { kind: 'json', value: input.body },
          mutation: 'none (valid)',
        }));
        const arbitrary = fc.record({
          route: fc.constant(route),
          input: fc.oneof({ weight: 1, arbitrary: valid }, { weight: 1, arbitrary: hostileRequest(route) }),
          auth: fc.constantFrom<Auth>('anonymous', 'session', 'session', 'apiKey', 'otherSession', 'garbage'),
          realIds: fc.boolean(),
          otherIds: fc.boolean(),
        });
        return [route, arbitrary] as const;
      }),
    );
    const request = fc.integer({ min: 0, max: draws.length - 1 }).chain((index) => perRoute.get(draws[index]!)!);

    let sent = 0;
    let failure: string | null = null;
    const statuses = new Map<number, number>();
    const started = Date.now();
    // fc.check, not fc.assert: its report would print the counterexample, whose deep values overflow the printer.
    const details = await fc.check(
      fc.asyncProperty(request, async ({ route, input: generated, auth, realIds, otherIds }) => {
        const input = noWaiting(route, generated);
        const params = { ...input.params };
        if (realIds && input.mutation !== 'param' && !input.mutation.startsWith('param ')) {
          for (const name of Object.keys(params)) params[name] = realParam(route, name, otherIds) ?? params[name]!;
        }
        const url = urlOf(route, { params, query: input.query, rawQuery: input.rawQuery });
        const token = tokenFor(auth);
        const before = Date.now();
        const response = await app.request({
          method: route.method,
          url,
          token,
          headers: input.headers,
          ...(input.body.kind === 'json' ? { rawBody: JSON.stringify(input.body.value) } : input.body.kind === 'raw' ? { rawBody: input.body.text } : {}),
        });
        sent++;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const timing = Date.now() - before;
        if (process.env.FUZZ_TRACE) console.log(timing, route.method, url.slice(0, 120), auth, input.mutation, response.statusCode);
        const what = `${route.method} ${url.slice(0, 300)} as ${auth}, ${input.mutation}, body ${input.body.kind === 'none' ? '-' : (input.body.kind === 'raw' ? input.body.text : (JSON.stringify(input.body.value) ?? '')).slice(0, 300)}`;
        if (response.statusCode >= 500) failure = `${response.statusCode} for ${what}: ${response.body.slice(0, 500)}`;
        else if (response.statusCode >= 400) {
          const problem = checkError(response);
          if (problem) failure = `${problem} for ${what}: ${response.body.slice(0, 500)}`;
        } else if (response.statusCode >= 200 && response.statusCode < 300 && Object.values(params).some((value) => /^\.*$/.test(value))) {
          // An empty or dot-only segment reaches another route (`/v1/agents/` is the list): its answer is that route's.
          await replenish(route, url, auth);
        } else if (response.statusCode >= 200 && response.statusCode < 300 && route.url === EVENT_STREAM) {
          if (!String(response.headers['content-type']).startsWith('text/event-stream')) failure = `${response.statusCode} is not an event stream for ${what}`;
        } else if (response.statusCode >= 200 && response.statusCode < 300) {
          const validate = responseValidator(route, response.statusCode);
          if (!validate) failure = `${response.statusCode} is not a declared response for ${what}`;
          else if (!validate(response.json()))
            failure = `${response.statusCode} body does not match its schema (${ajv.errorsText(validate.errors)}) for ${what}: ${response.body.slice(0, 500)}`;
          else await replenish(route, url, auth);
        }
        return failure === null;
      }),
      { seed, numRuns: runs, endOnFailure: true },
    );
    if (details.failed) {
      const cause = failure ?? (details.errorInstance instanceof Error ? details.errorInstance.stack : String(details.errorInstance));
      assert.fail(`fuzz failed with FUZZ_SEED=${seed} after ${sent} requests\n${cause}`);
    }
    t.diagnostic(
      `seed ${seed}: ${sent} requests in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
    );
    assert.ok(sent >= runs);
  });
});
