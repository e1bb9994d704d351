/**
 * The composition root: everything the service is made of is built here from one validated Config.
 * Tests build the same app with overrides (a clock, a PostgreSQL schema of their own, an OIDC verifier).
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { registerHealthRoutes } from './http/health.ts';
import { createServer } from './http/server.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { notFound } from './lib/errors.ts';
import { createAuthService, createAuthStore, registerAuthRoutes, type AgentAccountResolver } from './modules/auth/index.ts';
import { createOidcVerifier, type OidcVerifier } from './modules/auth/oidc.ts';
import { createUsersService, createUsersStore, registerUsersRoutes } from './modules/users/index.ts';

export interface AppOverrides {
  clock?: Clock;
  /** PostgreSQL schema to use instead of `public`. */
  databaseSchema?: string;
  logger?: boolean;
  oidc?: OidcVerifier | null;
}

export interface AgentryApp {
  server: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  clock: Clock;
  close(): Promise<void>;
}

// Until the registry is wired in, no agent exists to bind a key or profile to.
const noAgents: AgentAccountResolver = {
  serviceAccountFor: async () => {
    throw notFound('Agent not found');
  },
};

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<AgentryApp> {
  const clock = overrides.clock ?? systemClock;
  const database = openDatabase({ url: config.databaseUrl, ...(overrides.databaseSchema ? { schema: overrides.databaseSchema } : {}) });
  await database.migrate();

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : null;
  redis?.on('error', () => {});

  const oidc =
    overrides.oidc !== undefined
      ? overrides.oidc
      : config.oidcIssuer && config.oidcAudience
        ? createOidcVerifier({ issuer: config.oidcIssuer, audience: config.oidcAudience })
        : null;

  const auth = createAuthService({ store: createAuthStore(database.db), clock, sessionTtlHours: config.sessionTtlHours, oidc, agentAccounts: noAgents });
  const users = createUsersService({ store: createUsersStore(database.db), clock, agentAccounts: noAgents });

  const server = await createServer({ config, authenticator: auth.authenticator, redis, ...(overrides.logger !== undefined ? { logger: overrides.logger } : {}) });
  registerHealthRoutes(server, database.db);
  registerAuthRoutes(server, auth);
  registerUsersRoutes(server, users);

  server.addHook('onClose', async () => {
    await database.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
  });
  await server.ready();

  return { server, database, config, clock, close: () => server.close() };
}
