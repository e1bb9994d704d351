import { randomUUID } from 'node:crypto';
import { Server as NetServer } from 'node:net';
import fastifyCookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config, TrustProxy } from '../config.ts';
import type { Authenticator } from '../lib/principal.ts';
import { installAuthentication } from './auth.ts';
import { installAccountStanding, type NewAccountRules } from './account-standing.ts';
import { answerClientError, installErrorHandlers, sendError } from './errors.ts';
import { installJsonBodyParser } from './json-body.ts';
import { createMemoryCounterStore, createRedisCounterStore, installRateLimit } from './rate-limit.ts';
import { installLazyRequestLoggers } from './request-logger.ts';
import type { Metrics } from '../lib/metrics.ts';
import type { Tracing } from '../lib/tracing.ts';
import { installHttpMetrics } from './metrics.ts';
import { forGeneratedClients } from './openapi.ts';
import { ErrorBody } from './schemas.ts';
import { installResponseHeaders } from './response-headers.ts';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { createValidatorCompiler, madeOnFirstUse } from './validation.ts';
import { recordRoutes, type RouteEntry } from './route-table.ts';
import type { PageSubjects } from './app-pages.ts';
import { installWebApp, type PageFallback } from './web-app.ts';

export interface ServerOptions {
  config: Config;
  authenticator: Authenticator;
  redis: Redis | null;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** The built web app's folder; null serves the API alone. */
  webRoot: string | null;
  /** Whether a post or user a page is about exists; without it such pages always answer 200. */
  pageSubjects?: PageSubjects;
  /** Counts every request (GET /metrics); null counts nothing. */
  metrics?: Metrics | null;
  /** A span for every request when tracing is on; null traces nothing. */
  tracing?: Tracing | null;
  /** Whether the node is shutting down: every answer then asks the client to close its connection. */
  shuttingDown?: () => boolean;
  /** What tells a new account (the first 24 hours' budget) apart; without it no new-account budget applies. */
  newAccounts?: NewAccountRules;
}

const incomingRequestId = /^[A-Za-z0-9._-]{8,128}$/;

const inFlight = new WeakMap<FastifyInstance, { count: number }>();

/**
 * Counts requests from their first hook until their handler has answered, so shutdown can wait for
 * them. The answer is counted at onSend: Fastify skips onResponse when the client has gone, though
 * the handler still ran (and may still be using the database); onResponse is the backstop.
 */
function trackRequestsInFlight(app: FastifyInstance): void {
  const state = { count: 0 };
  inFlight.set(app, state);
  const open = new WeakSet<FastifyRequest>();
  const answered = (request: FastifyRequest) => {
    if (open.delete(request)) state.count--;
  };
  app.addHook('onRequest', (request, _reply, done) => {
    open.add(request);
    state.count++;
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    answered(request);
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    answered(request);
    done();
  });
}

export async function waitForRequestsToFinish(app: FastifyInstance, maxWaitMs: number): Promise<void> {
  const state = inFlight.get(app);
  const deadline = Date.now() + maxWaitMs;
  while (state && state.count > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Stops accepting connections, and resolves once every open one has closed, or once no request has
 * been under way for `idleMs` (the connections left are idle: their clients keep them past the
 * drain), or after `maxWaitMs`. Unlike http.Server's close it closes no kept-alive connection: one
 * the server closes may be the one a proxy is sending a request on at that moment, and the proxy
 * answers it 502 without resending it elsewhere when it is a POST. The clients close them, after an
 * answer that says `Connection: close` or at the end of their own idle timeout, which for the proxy
 * is below `idleMs`. A connection refused instead is safe: nothing was sent on it, and a proxy tries
 * the next node.
 */
export function connectionsClosed(app: FastifyInstance, { idleMs, maxWaitMs }: { idleMs: number; maxWaitMs: number }): Promise<void> {
  const state = inFlight.get(app);
  return new Promise((resolve) => {
    let lastBusy = Date.now();
    const done = () => {
      clearTimeout(deadline);
      clearInterval(watch);
      resolve();
    };
    const deadline = setTimeout(done, maxWaitMs);
    const watch = setInterval(() => {
      if (state && state.count > 0) lastBusy = Date.now();
      else if (Date.now() - lastBusy >= idleMs) done();
    }, 50);
    NetServer.prototype.close.call(app.server, done);
  });
}

/**
 * What Fastify believes of X-Forwarded-For, and so the address every per-client limit counts.
 * A hop count is a function: Fastify's own number form trusts no hop at all (it cannot vouch for
 * the peer), which would put every client behind the proxy on the proxy's one budget. With it the
 * client address is the entry the outermost trusted proxy appended; entries a client wrote itself
 * sit further left and are never read.
 */
function proxyTrust(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.proxies;
}

/** Fastify's own response serializers (fast-json-stringify), each built on its route's first answer, as validators are. */
function serializersMadeOnFirstUse(...factoryArgs: Parameters<ReturnType<typeof SerializerSelector>>) {
  const compile = SerializerSelector()(...factoryArgs);
  return (route: Parameters<typeof compile>[0]) => {
    const serializer = madeOnFirstUse(() => compile(route));
    return (data: unknown) => serializer()(data);
  };
}

export async function createServer({
  config,
  authenticator,
  redis,
  logger,
  logStream,
  webRoot,
  pageSubjects,
  metrics,
  tracing,
  shuttingDown = () => false,
  newAccounts,
}: ServerOptions): Promise<{ app: FastifyInstance; routes: readonly RouteEntry[] }> {
  const logging = logger !== false && config.logLevel !== 'silent';
  const app = Fastify({
    logger: logging
      ? {
          level: config.logLevel,
          // Tracing on, every line written inside a span says which (trace_id, span_id); off, lines carry nothing more.
          ...(tracing ? { mixin: tracing.logFields } : {}),
          ...(logStream ? { stream: logStream } : {}),
        }
      : false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: proxyTrust(config.trustProxy),
    // A proxy's request id is kept so one request can be followed across systems.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && incomingRequestId.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Bad percent-encoding and over-long path segments are refused before routing; same error body.
    frameworkErrors: (error, request, reply) => void sendError(error, request, reply),
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildSerializer: serializersMadeOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routes = recordRoutes(app);
  // First of the hooks: everything after it runs inside the request's span.
  if (tracing) tracing.instrumentServer(app);
  trackRequestsInFlight(app);
  if (metrics) installHttpMetrics(app, metrics);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addSchema(ErrorBody);
  let pageFallback: PageFallback | null = null;
  installErrorHandlers(app, () => pageFallback);
  installJsonBodyParser(app);
  installResponseHeaders(app, shuttingDown);
  if (logging) installLazyRequestLoggers(app);

  // Cookies are parsed only by the authentication hook, and only when a request has no bearer token.
  await app.register(fastifyCookie, { hook: false });

  // Both prepend an onRequest hook per route: the limiter, installed last, runs before authentication.
  installAuthentication(app, authenticator);
  const counters = redis
    ? createRedisCounterStore(redis, { onError: (error) => app.log.warn({ err: error }, 'rate limits: Redis unreachable, counting on this node') })
    : createMemoryCounterStore();
  installRateLimit(app, { max: config.rateLimit.max, windowMs: config.rateLimit.windowMs, store: counters });
  // Appends its hooks, so they run after authentication and the limiter.
  if (newAccounts) installAccountStanding(app, { rules: newAccounts, ordinary: config.rateLimit, store: counters });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Agentry API', version: '1.0.0', description: 'Registry, trust layer and social network for software agents' },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Session token, OIDC token or API key' } },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) => ('openapiObject' in document ? forGeneratedClients(document.openapiObject) : document.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());
  pageFallback = await installWebApp(app, webRoot, pageSubjects ?? null);

  return { app, routes };
}
