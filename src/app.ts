/**
 * The composition root: everything the service is made of is built here from one validated Config.
 * Tests build the same app with overrides (a clock, a PostgreSQL schema of their own, an OIDC verifier).
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { registerHealthRoutes } from './http/health.ts';
import { createServer, waitForRequestsToFinish } from './http/server.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createAuthService, createAuthStore, registerAuthRoutes } from './modules/auth/index.ts';
import { createOidcVerifier, type OidcVerifier } from './modules/auth/oidc.ts';
import { registerCatalogRoutes } from './modules/catalog/index.ts';
import { createReceiptsService, createReceiptsStore, registerReceiptsRoutes } from './modules/receipts/index.ts';
import { createOrgsService, createOrgsStore, registerOrgsRoutes } from './modules/orgs/index.ts';
import { createRegistryService, createRegistryStore, registerRegistryRoutes } from './modules/registry/index.ts';
import { createUsersService, createUsersStore, registerUsersRoutes } from './modules/users/index.ts';

export interface AppOverrides {
  clock?: Clock;
  /** PostgreSQL schema to use instead of `public`. */
  databaseSchema?: string;
  logger?: boolean;
  oidc?: OidcVerifier | null;
  /** Lets a test add routes before the server is sealed. */
  beforeReady?: (server: FastifyInstance) => void;
}

export interface AgentryApp {
  server: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  clock: Clock;
  close(): Promise<void>;
}

/**
 * Redis holds only rate-limit counters, so it is connected before serving but never required:
 * while it is unreachable the limiter lets requests through rather than taking the API down.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
  redis.on('error', () => {});
  await redis.connect().catch(() => {});
  return redis;
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<AgentryApp> {
  const clock = overrides.clock ?? systemClock;
  const database = openDatabase({ url: config.databaseUrl, ...(overrides.databaseSchema ? { schema: overrides.databaseSchema } : {}) });
  await database.migrate();

  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;

  const oidc =
    overrides.oidc !== undefined
      ? overrides.oidc
      : config.oidcIssuer && config.oidcAudience
        ? createOidcVerifier({ issuer: config.oidcIssuer, audience: config.oidcAudience })
        : null;

  const orgs = createOrgsService({ store: createOrgsStore(database.db), clock });
  const registry = createRegistryService({
    store: createRegistryStore(database.db),
    clock,
    isOrgMember: orgs.isMember,
    heartbeatIntervalMs: config.heartbeatIntervalSeconds * 1000,
  });
  const { agentAccounts } = registry;
  const auth = createAuthService({ store: createAuthStore(database.db), clock, sessionTtlHours: config.sessionTtlHours, oidc, agentAccounts });
  const receipts = createReceiptsService({ store: createReceiptsStore(database.db), clock });
  const users = createUsersService({ store: createUsersStore(database.db), clock, agentAccounts });

  const server = await createServer({ config, authenticator: auth.authenticator, redis, ...(overrides.logger !== undefined ? { logger: overrides.logger } : {}) });
  registerHealthRoutes(server, database.db);
  registerAuthRoutes(server, auth);
  registerUsersRoutes(server, users);
  registerOrgsRoutes(server, orgs);
  registerRegistryRoutes(server, registry, { provisionalRateLimit: { max: config.provisionalRateLimitMax, timeWindow: config.rateLimit.windowMs } });
  registerCatalogRoutes(server);
  registerReceiptsRoutes(server, receipts);

  server.addHook('onClose', async () => {
    // Requests whose clients left are no longer tracked by the HTTP server but may still be running.
    await waitForRequestsToFinish(server, 5000);
    await database.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
  });
  overrides.beforeReady?.(server);
  await server.ready();

  return { server, database, config, clock, close: () => server.close() };
}
