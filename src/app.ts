/**
 * The composition root: everything the service is made of is built here from one validated Config.
 * Tests build the same app with overrides (a clock, a PostgreSQL schema of their own, an OIDC verifier).
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { openSignals, type Signals } from './db/signals.ts';
import { registerHealthRoutes } from './http/health.ts';
import type { RouteEntry } from './http/route-table.ts';
import { createServer, waitForRequestsToFinish } from './http/server.ts';
import { defaultWebRoot } from './http/web-app.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import {
  createAuthService,
  createAuthStore,
  createLoginThrottle,
  createOidcLogin,
  createOidcVerifier,
  createPrincipalCache,
  OIDC_CALLBACK_PATH,
  type OidcVerifier,
  registerAuthRoutes,
  registerOidcRoutes,
} from './modules/auth/index.ts';
import { registerCatalogRoutes } from './modules/catalog/index.ts';
import { createEventsService, type EventsService, registerEventsRoutes } from './modules/events/index.ts';
import { registerMcpRoutes } from './modules/mcp/index.ts';
import { registerAgentCardRoute } from './modules/a2a/index.ts';
import {
  createEvidenceSweep,
  createReceiptsService,
  type EvidenceSweep,
  createReceiptsStore,
  createSignatureVerifier,
  registerReceiptsRoutes,
} from './modules/receipts/index.ts';
import { createOrgsService, createOrgsStore, registerOrgsRoutes } from './modules/orgs/index.ts';
import { createManifestImporter, createRegistryService, createRegistryStore, registerRegistryRoutes } from './modules/registry/index.ts';
import {
  createDiscoveryService,
  createDiscoveryStore,
  createRemoteEmbedder,
  createWordVectorEmbedder,
  DISCOVERY_MAX_OFFSET,
  registerDiscoveryRoutes,
  type DiscoveryService,
} from './modules/discovery/index.ts';
import { createSocialService, registerSocialRoutes } from './modules/social/index.ts';
import {
  createA2aSender,
  createAssigner,
  createBuiltinExtractor,
  createDeliveryHandOff,
  createModelExtractor,
  outboundFetch,
  createDeliveryWorker,
  type DeliveryWorker,
  createTasksService,
  createTasksStore,
  createStatusEventsStore,
  registerTasksRoutes,
} from './modules/tasks/index.ts';
import {
  createLedgerProvider,
  createPaymentsService,
  createPaymentsStore,
  createTransferWorker,
  type TransferWorker,
  loadStripeProvider,
  registerPaymentsRoutes,
} from './modules/payments/index.ts';
import { createOutboundClient } from './lib/outbound-http.ts';
import { createSecretBox, keyFromFile } from './lib/secret-box.ts';
import { createMediaService, createMediaStore, registerMediaRoutes } from './modules/media/index.ts';
import { createUsersService, createUsersStore, registerUsersRoutes } from './modules/users/index.ts';

export interface AppOverrides {
  clock?: Clock;
  /** PostgreSQL schema to use instead of `public`. */
  databaseSchema?: string;
  logger?: boolean;
  oidc?: OidcVerifier | null;
  /** The built web app's folder (default dist/web); null serves the API alone. */
  webRoot?: string | null;
  /** Lets a test add routes before the server is sealed. */
  beforeReady?: (server: FastifyInstance) => void;
}

export interface AgentryApp {
  server: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  clock: Clock;
  /** Cross-node "look again" signals: in-process on SQLite, LISTEN/NOTIFY on PostgreSQL. */
  signals: Signals;
  /** Discovery; the entry point warms its index once the server listens. */
  discovery: Pick<DiscoveryService, 'warm'>;
  /** Every route the server registered, with its declared auth mode and schemas. */
  routes: readonly RouteEntry[];
  /** Runs once a minute; tests with a manual clock run a pass when they need one. */
  trustEvidenceSweep: EvidenceSweep;
  /** The webhook outbox worker; tests await its `settled()` to know a pass has run. */
  deliveryWorker: DeliveryWorker;
  /** The Stripe transfer worker, when Stripe is configured. */
  transferWorker: TransferWorker | null;
  /** GET /v1/events; tests with a manual clock run its prune pass when they need one. */
  events: EventsService;
  close(): Promise<void>;
}

/**
 * Redis holds only rate-limit counters and login budgets, so it is connected before serving but never
 * required: while it is unreachable each node counts on its own (src/http/rate-limit.ts,
 * src/modules/auth/login-throttle.ts).
 */
async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when configured: most single nodes run without Redis.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 500 });
  redis.on('error', () => {});
  await redis.connect().catch(() => {});
  return redis;
}

/**
 * SQLite without SECRETS_KEY: the key file `secrets.key` beside the database, made on first start
 * (a throwaway key for an in-memory database, whose rows die with it).
 */
function secretsKeyBeside(database: DatabaseHandle): { key: Buffer; createdFile: string | null } {
  if (database.dialect === 'postgres') throw new Error('SECRETS_KEY is required with PostgreSQL');
  if (!database.sqliteFile) return { key: randomBytes(32), createdFile: null };
  const path = join(dirname(database.sqliteFile), 'secrets.key');
  const { key, created } = keyFromFile(path);
  return { key, createdFile: created ? path : null };
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<AgentryApp> {
  const clock = overrides.clock ?? systemClock;
  const database = openDatabase({ url: config.databaseUrl, ...(overrides.databaseSchema ? { schema: overrides.databaseSchema } : {}) });
  await database.migrate();
  // Signal errors can come before the server's logger exists; those are dropped (the caches' max age bounds the harm).
  let log: FastifyBaseLogger | null = null;
  const reportSignalError = (error: unknown) => log?.warn({ err: error }, 'signals: other nodes may see a change late');
  const signals = await openSignals({
    url: config.databaseUrl,
    ...(overrides.databaseSchema ? { schema: overrides.databaseSchema } : {}),
    onError: reportSignalError,
  });
  // Triggers raise signals in SQL (task status events); on SQLite this process hands them on.
  database.relaySqlSignals((channel, payload) => void signals.publish(channel, payload).catch(reportSignalError));

  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;

  const oidc =
    overrides.oidc !== undefined
      ? overrides.oidc
      : config.oidcIssuer && config.oidcAudience
        ? createOidcVerifier({ issuer: config.oidcIssuer, audience: config.oidcAudience })
        : null;

  // Agent endpoints (webhooks, manifests, a configured model) are reached only through the SSRF-checked client.
  const outbound = createOutboundClient({ allowPrivate: config.allowPrivateEndpoints, totalTimeoutMs: config.delivery.timeoutMs });
  const principals = createPrincipalCache({ clock, signals, onError: reportSignalError });
  const authStore = createAuthStore(database.db);
  const usersStore = createUsersStore(database.db);
  const orgs = createOrgsService({
    store: createOrgsStore(database.db),
    clock,
    isPerson: authStore.isPerson,
    accountIdByUsername: usersStore.accountIdByUsername,
  });
  const secretsKey = config.secretsKey ? { key: config.secretsKey, createdFile: null } : secretsKeyBeside(database);
  const secrets = createSecretBox(secretsKey.key);
  const registry = createRegistryService({
    store: createRegistryStore(database.db, database.dialect),
    serviceAccounts: authStore,
    clock,
    isOrgMember: orgs.isMember,
    heartbeatIntervalMs: config.heartbeatIntervalSeconds * 1000,
    allowUnsignedProvisionalPoll: config.allowUnsignedProvisionalPoll,
    agentRemoved: principals.forgetAgent,
    manifests: createManifestImporter(outbound),
    secrets,
  });
  const { agentAccounts } = registry;
  const loginThrottle = createLoginThrottle({
    rule: config.loginThrottle,
    clock,
    redis,
    onRedisError: (error) => log?.warn({ err: error }, 'login limits: Redis unreachable, counting on this node'),
  });
  const auth = createAuthService({
    store: authStore,
    clock,
    sessionTtlHours: config.sessionTtlHours,
    oidc,
    agentAccounts,
    principals,
    loginThrottle,
  });
  const signatureVerifier = createSignatureVerifier({
    threads: config.signatureThreads,
    onWorkerError: (error) => log?.error({ err: error }, 'signature worker died; verifying on the request thread'),
  });
  const receiptsStore = createReceiptsStore(database.db, {
    dialect: database.dialect,
    sqliteFile: database.sqliteFile,
    onInsertWorkerError: (error) => log?.error({ err: error }, 'receipt insert worker died; inserting on the request thread'),
  });
  const receipts = createReceiptsService({ store: receiptsStore, clock, verifier: signatureVerifier });
  const evidenceSweep = createEvidenceSweep({
    store: receiptsStore,
    clock,
    onError: (error) => log?.error({ err: error }, 'trust evidence sweep failed; reads stay exact, the next pass retries'),
  });
  const users = createUsersService({ store: usersStore, clock, agentAccounts, signals, onSignalError: reportSignalError });
  const discovery = createDiscoveryService({
    store: createDiscoveryStore(database.db, database.dialect),
    registry,
    trust: receipts,
    embedder: config.embeddings ? createRemoteEmbedder(config.embeddings) : createWordVectorEmbedder(),
    // A model the operator configured is the semantic signal itself; the built-in encoder is for offline nodes.
    ...(config.embeddings ? { sentenceEncoders: null } : {}),
    clock,
    onEmbedderError: (error) => log?.warn({ err: error }, 'discovery: a relevance signal is unavailable; search goes on with the others'),
  });
  const extractor = config.extractor
    ? createModelExtractor({
        url: config.extractor.url,
        model: config.extractor.model,
        ...(config.extractor.apiKey ? { apiKey: config.extractor.apiKey } : {}),
        fetch: outboundFetch(outbound),
        onFallback: (error) => log?.warn({ err: error }, 'extraction: the model answer was unusable; used the built-in extractor'),
      })
    : createBuiltinExtractor();
  const assigner = createAssigner({ extractor, publicUrl: config.publicUrl });
  const tasksStore = createTasksStore(database.db, database.dialect);
  const paymentsStore = createPaymentsStore(database.db, database.dialect);
  const stripe = config.stripe ? await loadStripeProvider(config.stripe) : null;
  const payments = createPaymentsService({
    store: paymentsStore,
    clock,
    registry,
    ledger: createLedgerProvider(),
    stripe,
    feeBps: config.platformFeeBps,
    operators: config.operators,
    emailOf: authStore.emailOf,
    publicUrl: config.publicUrl,
    signals,
  });
  const deliveryHandOff = createDeliveryHandOff();
  const tasks = createTasksService({
    store: tasksStore,
    clock,
    registry,
    trust: receipts,
    assigner,
    signals,
    settlement: payments.settlement,
    deliveries: deliveryHandOff,
  });
  const events = createEventsService({
    log: createStatusEventsStore(database.db),
    signals,
    clock,
    ...config.events,
    onError: (error) => log?.error({ err: error }, 'events: a read or prune failed; streams look again shortly'),
  });
  const social = createSocialService({
    database,
    clock,
    // The `services` tab is discovery itself; its pages end where discovery's do (offset 500).
    searchServices: async (q, limit, offset, principal) => {
      if (offset > DISCOVERY_MAX_OFFSET) return { agents: [], pagination: { limit, offset, hasMore: false } };
      const { data, pagination } = await discovery.search(principal, { q, limit, offset });
      return { agents: data, pagination };
    },
    adjustFollowCounts: usersStore.adjustFollowCounts,
    profilesChanged: async (accountIds) => void (await Promise.all(accountIds.map(users.profileChanged))),
    signals,
    onSignalError: reportSignalError,
  });

  const { app: server, routes } = await createServer({
    config,
    authenticator: auth.authenticator,
    redis,
    webRoot: overrides.webRoot !== undefined ? overrides.webRoot : defaultWebRoot,
    ...(overrides.logger !== undefined ? { logger: overrides.logger } : {}),
  });
  log = server.log;
  if (secretsKey.createdFile)
    server.log.warn({ file: secretsKey.createdFile }, 'SECRETS_KEY is not set: created a key file for stored agent credentials; back it up with the database');
  registerHealthRoutes(server, database.db);
  const credentialRateLimit = { max: config.credentialRateLimit.max, timeWindow: config.credentialRateLimit.windowMs };
  const cookies = { secure: config.publicUrl.startsWith('https:') };
  registerAuthRoutes(server, auth, { credentialRateLimit, cookies });
  registerOidcRoutes(server, auth, {
    oidcLogin:
      oidc && config.oidcIssuer && config.oidcClient
        ? {
            issuer: config.oidcIssuer,
            login: createOidcLogin({
              issuer: config.oidcIssuer,
              verifier: oidc,
              client: config.oidcClient,
              redirectUri: `${config.publicUrl}${OIDC_CALLBACK_PATH}`,
              clock,
            }),
          }
        : null,
    credentialRateLimit,
    cookies,
  });
  registerUsersRoutes(server, users);
  registerOrgsRoutes(server, orgs);
  registerRegistryRoutes(server, registry, {
    provisionalRateLimit: { max: config.provisionalRateLimitMax, timeWindow: config.rateLimit.windowMs },
    publicUrl: config.publicUrl,
  });
  registerCatalogRoutes(server);
  registerDiscoveryRoutes(server, discovery);
  registerReceiptsRoutes(server, receipts);
  registerSocialRoutes(server, social);
  registerTasksRoutes(server, tasks);
  registerEventsRoutes(server, events);
  registerPaymentsRoutes(server, payments, { stripeEnabled: stripe !== null });
  registerMediaRoutes(
    server,
    createMediaService({ store: createMediaStore(database.db), clock, publicUrl: config.publicUrl, quotaBytes: config.mediaQuotaBytes }),
  );
  registerAgentCardRoute(server, { publicUrl: config.publicUrl, version: '0.1.0' });
  registerMcpRoutes(server, { rateLimit: { max: config.rateLimit.max, timeWindow: config.rateLimit.windowMs } });
  const transfers = stripe
    ? createTransferWorker({ store: paymentsStore, stripe, clock, signals, log: server.log, pollIntervalMs: config.delivery.pollIntervalMs })
    : null;
  const deliveries = createDeliveryWorker({
    store: tasksStore,
    dialect: database.dialect,
    clock,
    outbound,
    signals,
    assigner,
    findAgent: registry.findAgent,
    a2a: createA2aSender({
      outbound,
      secrets,
      clock,
      log: server.log,
      findAgent: registry.findAgent,
      remoteTaskOf: tasksStore.remoteTaskOf,
      pollBaseMs: config.delivery.retryBaseMs,
    }),
    settlement: payments.settlement,
    log: server.log,
    options: { ...config.delivery, leaseMs: config.delivery.timeoutMs + 5_000 },
    handOff: deliveryHandOff,
  });

  // Open event streams would keep their connections, and so the server's close, waiting forever.
  server.addHook('preClose', async () => events.stop());
  server.addHook('onClose', async () => {
    // Requests whose clients left are no longer tracked by the HTTP server but may still be running.
    await waitForRequestsToFinish(server, config.shutdownGraceMs);
    await deliveries.stop();
    await transfers?.stop();
    await outbound.close();
    await signatureVerifier.close();
    await evidenceSweep.stop();
    await receiptsStore.close();
    await discovery.close();
    await signals.close();
    await database.close();
    loginThrottle.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
  });
  overrides.beforeReady?.(server);
  await server.ready();
  await deliveries.start();
  transfers?.start();
  evidenceSweep.start();
  events.start();

  return {
    server,
    routes,
    database,
    config,
    clock,
    signals,
    discovery,
    trustEvidenceSweep: evidenceSweep,
    deliveryWorker: deliveries,
    transferWorker: transfers,
    events,
    close: () => server.close(),
  };
}
