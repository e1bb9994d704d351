import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import { installAuthentication, type Authenticator } from './auth.ts';
import { installErrorHandlers } from './errors.ts';
import { ErrorBody } from './schemas.ts';
import { installSecurityHeaders } from './security-headers.ts';
import { createValidatorCompiler } from './validation.ts';


export interface ServerOptions {
  config: Config;
  authenticator: Authenticator;
  redis: Redis | null;
  logger?: boolean;
}

const incomingRequestId = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * A keep-alive connection whose request finishes after close() began would otherwise hold the
 * process open until its idle timeout; telling the client to close lets shutdown end promptly.
 */
function closeConnectionsWhenClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hooks here and below: they run on every request, and an async hook costs a promise and a microtask turn.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

const inFlight = new WeakMap<FastifyInstance, { count: number }>();

/** Counts requests from their first hook to their response, so shutdown can wait for them. */
function trackRequestsInFlight(app: FastifyInstance): void {
  const state = { count: 0 };
  inFlight.set(app, state);
  app.addHook('onRequest', (_request, _reply, done) => {
    state.count++;
    done();
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    state.count--;
    done();
  });
}

export async function waitForRequestsToFinish(app: FastifyInstance, maxWaitMs: number): Promise<void> {
  const state = inFlight.get(app);
  const deadline = Date.now() + maxWaitMs;
  while (state && state.count > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

export async function createServer({ config, authenticator, redis, logger }: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger === false || config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // A proxy's request id is kept so one request can be followed across systems.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && incomingRequestId.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>();

  trackRequestsInFlight(app);
  app.setValidatorCompiler(createValidatorCompiler());
  app.addSchema(ErrorBody);
  installErrorHandlers(app);
  installSecurityHeaders(app);
  closeConnectionsWhenClosing(app);

  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    ...(redis ? { redis, nameSpace: 'agentry-rl:', skipOnError: true } : {}),
    keyGenerator: (request: FastifyRequest) => request.ip,
    errorResponseBuilder: (_request, context) => {
      const error = new AppError('RATE_LIMITED', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s`);
      return Object.assign(error, { statusCode: 429 });
    },
  });

  installAuthentication(app, authenticator);

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
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger());

  return app;
}
