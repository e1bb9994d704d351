/**
 * The composition root: everything the service is made of is built here from one validated Config.
 * Tests build the same app with overrides (a clock, a PostgreSQL schema of their own, an OIDC verifier).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { createBackgroundPasses } from './db/background-passes.ts';
import { dialectOf } from './db/dialect.ts';
import { createBackupSchedule, type BackupSchedule } from './db/backup-schedule.ts';
import { openSignals, type Signals } from './db/signals.ts';
import { registerHealthRoutes } from './http/health.ts';
import { registerMetricsRoute } from './http/metrics.ts';
import { createMetrics } from './lib/metrics.ts';
import { startTracing, type Tracing } from './lib/tracing.ts';
import type { Principal } from './lib/principal.ts';
import type { RouteEntry } from './http/route-table.ts';
import { connectionsClosed, createServer, waitForRequestsToFinish } from './http/server.ts';
import { defaultWebRoot } from './http/web-app.ts';
import { isoNow, systemClock, type Clock } from './lib/clock.ts';
import {
  createAccountDeletion,
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
import { createA2aFrontDoor, registerA2aRoutes, registerAgentCardRoute, signedServiceAgentCard } from './modules/a2a/index.ts';
import {
  createEvidenceSweep,
  createReceiptsService,
  type EvidenceSweep,
  createReceiptsStore,
  createReceiptSequencer,
  createSequencerThread,
  type ReceiptSequencer,
  createSignatureVerifier,
  registerReceiptsRoutes,
} from './modules/receipts/index.ts';
import { createLogSequencer, createTransparencyLog, registerTlogRoutes, type LogSequencer } from './modules/tlog/index.ts';
import { createWitness, createWitnessClient, createWitnessStore, registerWitnessRoutes, type WitnessClient } from './modules/witness/index.ts';
import { createOrgsService, createOrgsStore, registerOrgsRoutes } from './modules/orgs/index.ts';
import {
  createAgentFeed,
  createFeedCursors,
  createFeedStore,
  createDomainProofs,
  createCardSignatureVerifier,
  identityLevelOf,
  createManifestImporter,
  createRegistryService,
  registerDomainRoutes,
  type DomainProofs,
  createRegistryStore,
  registerAgentFeedRoute,
  registerRegistryRoutes,
} from './modules/registry/index.ts';
import { createMcpRegistryService, registerMcpRegistryRoutes } from './modules/mcp-registry/index.ts';
import { createArdService, registerArdRoutes } from './modules/ard/index.ts';
import {
  createDiscoveryService,
  createDiscoveryStore,
  createRemoteEmbedder,
  createWordVectorEmbedder,
  DISCOVERY_MAX_OFFSET,
  registerDiscoveryRoutes,
  type DiscoveryService,
  type SentenceEncoder,
} from './modules/discovery/index.ts';
import { createSocialService, registerSocialRoutes } from './modules/social/index.ts';
import { createBuiltinExtractor, createModelExtractor, outboundFetch } from './modules/extraction/index.ts';
import {
  createA2aSender,
  createAssigner,
  createDeliveryHandOff,
  createDeliveryWorker,
  type DeliveryWorker,
  createTasksService,
  createTasksStore,
  watchingStatusChanges,
  createStatusSignals,
  createStatusEventsStore,
  registerTasksRoutes,
  standardWebhookHeaders,
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
import { createOutboundClient, knownRefusal } from './lib/outbound-http.ts';
import { createSecretBox, keyFromFile } from './lib/secret-box.ts';
import { createMediaService, createMediaStore, registerMediaRoutes } from './modules/media/index.ts';
import { createUsersService, createUsersStore, registerUsersRoutes } from './modules/users/index.ts';
import { createHealthStore, createMeasurements, createProber, type Measurements, type Prober } from './modules/health/index.ts';
import { createModerationService, createPolicies, createModerationStore, createRolesStore, registerModerationRoutes } from './modules/moderation/index.ts';

/** The version the service's A2A agent card states. */
const SERVICE_VERSION = '0.1.0';
/** How long an account counts as new: its budget for posts, comments and agents is smaller (docs/moderation.md). */
const NEW_ACCOUNT_MS = 24 * 3600_000;

export interface AppOverrides {
  clock?: Clock;
  /** PostgreSQL schema to use instead of `public`. */
  databaseSchema?: string;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  oidc?: OidcVerifier | null;
  /** The built web app's folder (default dist/web); null serves the API alone. */
  webRoot?: string | null;
  /** How often the trust evidence sweep and event pruning run (default a minute each); tests shorten them. */
  backgroundIntervalsMs?: { trustEvidenceSweep?: number; eventPrune?: number; domainRecheck?: number };
  /** How often this instance asks its witnesses to cosign new checkpoints (default a second); tests shorten it. */
  witnessIntervalMs?: number;
  /** How long the receipt threads (verifier, insert worker, log sequencer) may sit idle before they stop (default a minute); tests shorten it. */
  idleWorkerStopMs?: number;
  /** Lets a test add routes before the server is sealed. */
  beforeReady?: (server: FastifyInstance) => void;
  /** The built-in sentence encoder, shared by the apps of a test process and left open by each. */
  sentenceEncoder?: SentenceEncoder;
  /**
   * scrypt's cost N for new password hashes (default 2^15). Only tests lower it, where thousands of
   * sign-ups would otherwise spend minutes of CPU; it is deliberately not an environment setting.
   */
  passwordCost?: number;
  /**
   * Leaves the background work (delivery worker, log sequencers, witness client, sweeps, backups) for
   * the caller to start with `startBackground()`: the entry point starts it once the server listens,
   * so none of it delays the first answer. Without it, the app starts it before it returns.
   */
  deferBackground?: boolean;
}

export interface AgentryApp {
  server: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  clock: Clock;
  /** Cross-node "look again" signals: in-process on SQLite, LISTEN/NOTIFY on PostgreSQL. */
  signals: Signals;
  /** Discovery; the entry point warms its index once the server listens. */
  discovery: Pick<DiscoveryService, 'warm' | 'searchReady'>;
  /** Every route the server registered, with its declared auth mode and schemas. */
  routes: readonly RouteEntry[];
  /** Runs once a minute on one node; tests with a manual clock run a pass when they need one. */
  trustEvidenceSweep: EvidenceSweep;
  /** Puts verified receipts into the receipt log; tests `drain()` it instead of waiting for a pass. */
  receiptSequencer: ReceiptSequencer;
  /** Puts agent lifecycle events into the registry log; tests `drain()` it instead of waiting for a pass. */
  registrySequencer: LogSequencer;
  witnessClient: WitnessClient;
  /** The webhook outbox worker; tests await its `settled()` to know a pass has run. */
  deliveryWorker: DeliveryWorker;
  /** The Stripe transfer worker, when Stripe is configured. */
  transferWorker: TransferWorker | null;
  /** Measured health: tests flush and refresh its measurements, and run a probe pass, when they need one. */
  health: { measurements: Measurements; prober: Prober };
  /** Verified domains; tests with a manual clock run the daily re-check pass when they need one. */
  domainProofs: DomainProofs;
  /** GET /v1/events; tests with a manual clock run its prune pass when they need one. */
  events: EventsService;
  /** BACKUP_DIR's scheduled backups (SQLite); null when not configured. */
  backups: BackupSchedule | null;
  /** Starts the background work, once (already started unless the app was built with `deferBackground`). */
  startBackground(): Promise<void>;
  /** OpenTelemetry tracing when an OTLP endpoint is configured; null when off. */
  tracing: Tracing | null;
  /**
   * The first step of a shutdown, before close(): refuses new connections, keeps answering requests
   * on open ones (each asking the client to close its connection), ends long polls and event streams,
   * and resolves once the clients have closed every connection, no request has been under way for
   * DRAIN_IDLE_MS, or SHUTDOWN_GRACE_MS has run out.
   */
  drain(): Promise<void>;
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

/**
 * How long a draining node waits with no request under way before it stops waiting for its clients
 * to close their connections: longer than the proxy's upstream keepalive_timeout (2 s in the
 * recommended configuration), so the proxy has closed its own by then; the ones left belong to
 * clients that keep idle connections for longer (monitors, scrapers), which close() then closes.
 */
const DRAIN_IDLE_MS = 3_000;

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<AgentryApp> {
  const clock = overrides.clock ?? systemClock;
  const metrics = createMetrics();
  // Off, the OpenTelemetry SDK is never loaded and nothing below pays for it.
  const tracing = config.tracing ? await startTracing(config.tracing, SERVICE_VERSION) : null;
  const dialect = dialectOf(config.databaseUrl);
  const database = openDatabase({
    url: config.databaseUrl,
    connectTimeoutMs: config.databaseTimeoutMs,
    onQuery: tracing
      ? (seconds, failed, sql) => {
          metrics.databaseQuery(seconds, failed);
          tracing.query(sql, seconds, failed, dialect);
        }
      : (seconds, failed) => metrics.databaseQuery(seconds, failed),
    ...(overrides.databaseSchema ? { schema: overrides.databaseSchema } : {}),
  });
  await database.migrate();
  const secretsKey = config.secretsKey ? { key: config.secretsKey, createdFile: null } : secretsKeyBeside(database);
  const secrets = createSecretBox(secretsKey.key);
  const receiptLog = createTransparencyLog({
    database: database.db,
    dialect: database.dialect,
    name: 'receipts',
    publicUrl: config.publicUrl,
    secrets,
    clock,
    signer: config.receiptLog.signer,
  });
  // The agent lifecycle log: signed with the same operator key, when one is given.
  const registryLog = createTransparencyLog({
    database: database.db,
    dialect: database.dialect,
    name: 'registry',
    publicUrl: config.publicUrl,
    secrets,
    clock,
    signer: config.receiptLog.signer,
  });
  // A log whose signing key cannot be settled stops the start, before anything else is opened.
  const witnessStore = createWitnessStore(database.db);
  const witness = createWitness({ store: witnessStore, secrets, clock, publicUrl: config.publicUrl });
  await Promise.all([receiptLog.start(), registryLog.start(), witness.start()]).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
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
  const outbound = createOutboundClient({ allowPrivate: config.allowPrivateEndpoints, totalTimeoutMs: config.delivery.timeoutMs, tracing });
  const principals = createPrincipalCache({ clock, signals, onError: reportSignalError });
  const authStore = createAuthStore(database.db);
  const usersStore = createUsersStore(database.db);
  const orgs = createOrgsService({
    store: createOrgsStore(database.db),
    clock,
    isPerson: authStore.isPerson,
    accountIdByUsername: usersStore.accountIdByUsername,
  });
  const registryStore = createRegistryStore(database.db, database.dialect);
  const healthStore = createHealthStore(database.db, database.dialect);
  const measurements = createMeasurements({
    store: healthStore,
    clock,
    slowMs: config.health.slowMs,
    onError: (error) => log?.warn({ err: error }, 'health: measurements could not be written or read; they are retried'),
  });
  await measurements.start();
  const policies = createPolicies(database.db, config.policies, () => isoNow(clock));
  const moderationStore = createModerationStore(database.db);
  const registry = createRegistryService({
    listingPolicy: async () => (await policies.current()).agentListing,
    ownerLimited: async (accountId) => (await moderationStore.statesOf('account', accountId)).some((s) => s.state === 'limited'),
    store: registryStore,
    serviceAccounts: authStore,
    clock,
    isOrgMember: orgs.isMember,
    heartbeatIntervalMs: config.heartbeatIntervalSeconds * 1000,
    allowUnsignedProvisionalPoll: config.allowUnsignedProvisionalPoll,
    agentRemoved: principals.forgetAgent,
    manifests: createManifestImporter(
      outbound,
      createCardSignatureVerifier({ outbound, allowPlainHttp: config.allowPrivateEndpoints, now: () => isoNow(clock) }),
    ),
    secrets,
    endpointRefusal: (url) => knownRefusal(url, config.allowPrivateEndpoints),
    registryLog,
    onSeenWriteError: (error) => log?.warn({ err: error }, "registry: an agent's sign of life was not written; its next one is"),
    healthOf: measurements.healthOf,
  });
  // Few events and small ones: this sequencer runs on the event loop on both databases.
  const registrySequencer = createLogSequencer({
    database: database.db,
    log: registryLog,
    queue: { unlogged: registryStore.unloggedEvents, markLogged: registryStore.markEventsLogged },
    batchSize: config.receiptLog.batchSize,
    intervalMs: config.receiptLog.intervalMs,
    onError: (error) => log?.error({ err: error }, 'registry log: a sequencing pass failed; the next pass retries'),
  });
  const { agentAccounts } = registry;
  const loginThrottle = createLoginThrottle({
    rule: config.loginThrottle,
    clock,
    redis,
    onRedisError: (error) => log?.warn({ err: error }, 'login limits: Redis unreachable, counting on this node'),
  });
  // Each module hooks its part of deleting an account below, once it exists (docs/security.md).
  const accountDeletion = createAccountDeletion();
  const auth = createAuthService({
    accountDeletion,
    suspensionOf: moderationStore.suspensionOf,
    signUpPolicy: async () => (await policies.current()).signUp,
    approval: { hold: (accountId) => moderationStore.holdForApproval(accountId, isoNow(clock)), of: moderationStore.approvalOf },
    store: authStore,
    clock,
    sessionTtlHours: config.sessionTtlHours,
    oidc,
    agentAccounts,
    principals,
    loginThrottle,
    ...(overrides.passwordCost ? { passwordCost: overrides.passwordCost } : {}),
  });
  const idleWorkerStop = overrides.idleWorkerStopMs !== undefined ? { idleStopMs: overrides.idleWorkerStopMs } : {};
  const signatureVerifier = createSignatureVerifier({
    threads: config.signatureThreads,
    onWorkerError: (error) => log?.error({ err: error }, 'signature worker died; verifying on the request thread'),
    ...idleWorkerStop,
  });
  const receiptsStore = createReceiptsStore(database.db, {
    dialect: database.dialect,
    sqliteFile: database.sqliteFile,
    onInsertWorkerError: (error) => log?.error({ err: error }, 'receipt insert worker died; inserting on the request thread'),
    ...(overrides.idleWorkerStopMs !== undefined ? { idleWorkerStopMs: overrides.idleWorkerStopMs } : {}),
  });
  const onSequencingError = (error: unknown) => log?.error({ err: error }, 'receipt log: a sequencing pass failed; the next pass retries');
  const receiptSequencer = database.sqliteFile
    ? createSequencerThread({
        path: database.sqliteFile,
        publicUrl: config.publicUrl,
        signer: receiptLog.signer(),
        batchSize: config.receiptLog.batchSize,
        intervalMs: config.receiptLog.intervalMs,
        onError: onSequencingError,
        receiptsWaiting: async () => (await database.db.transaction().execute((tx) => receiptsStore.unlogged(tx, 1))).length > 0,
        ...idleWorkerStop,
      })
    : createReceiptSequencer({
        database: database.db,
        store: receiptsStore,
        log: receiptLog,
        batchSize: config.receiptLog.batchSize,
        intervalMs: config.receiptLog.intervalMs,
        onError: onSequencingError,
      });
  const receipts = createReceiptsService({
    store: receiptsStore,
    clock,
    verifier: signatureVerifier,
    log: receiptLog,
    sequenceIntervalMs: config.receiptLog.intervalMs,
    onIngested: (verified) => {
      metrics.receiptIngested(verified);
      if (verified) receiptSequencer.entryQueued();
    },
    // A bound outcome is a verdict on the task, as a rating is: tasks tells discovery (completed work).
    onTaskBoundOutcome: ({ taskId, outcome }) =>
      tasks
        .boundOutcomeReceived(taskId, outcome)
        .catch((error: unknown) => log?.warn({ err: error }, 'discovery: a task-bound outcome could not be recorded as evidence')),
  });
  // Scheduled background passes run on one node of those sharing the database.
  const backgroundPasses = createBackgroundPasses({
    db: database.db,
    dialect: database.dialect,
    clock,
    onPass: (job) => metrics.backgroundPass(job),
    onError: (error) => log?.warn({ err: error }, 'background work: could not check whose pass it is; the next tick asks again'),
  });
  const sweepIntervalMs = overrides.backgroundIntervalsMs?.trustEvidenceSweep ?? 60_000;
  const pruneIntervalMs = overrides.backgroundIntervalsMs?.eventPrune ?? 60_000;
  const evidenceSweep = createEvidenceSweep({
    store: receiptsStore,
    clock,
    intervalMs: sweepIntervalMs,
    scheduledPass: backgroundPasses.scheduled('trust_evidence_sweep', sweepIntervalMs),
    onError: (error) => log?.error({ err: error }, 'trust evidence sweep failed; reads stay exact, the next pass retries'),
  });
  const users = createUsersService({ store: usersStore, clock, agentAccounts, signals, onSignalError: reportSignalError });
  const rolesStore = createRolesStore(database.db);
  const isModerator = async (principal: Principal) => principal.kind === 'person' && (await rolesStore.roleOf(principal.accountId)) !== null;
  const discovery = createDiscoveryService({
    store: createDiscoveryStore(database.db, database.dialect),
    registry,
    trust: receipts,
    embedder: config.embeddings ? createRemoteEmbedder(config.embeddings) : createWordVectorEmbedder(),
    // A model the operator configured is the semantic signal itself; the built-in encoder is for offline nodes.
    ...(config.embeddings ? { sentenceEncoders: null } : overrides.sentenceEncoder ? { sharedBuiltInEncoder: overrides.sentenceEncoder } : {}),
    candidatesFrom: config.discoveryCandidatesFrom,
    indexDir: config.discoveryIndexDir,
    embedderName: config.embeddings ? `${config.embeddings.url} ${config.embeddings.model}` : 'built-in word vectors',
    clock,
    isModerator,
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
  const taskStatusSignals = createStatusSignals({
    signals,
    ownerOf: async (agentId) => (await registry.findAgent(agentId))?.ownerId ?? null,
    now: () => clock.now().getTime(),
    onError: reportSignalError,
  });
  const tasksStore = watchingStatusChanges(createTasksStore(database.db, database.dialect), (status, parties) => {
    metrics.taskStatusChanged(status, parties.length);
    taskStatusSignals.changed(parties);
  });
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
    pollLeaseMs: config.pollLeaseMs,
    pollTokenKey: createHmac('sha256', secretsKey.key).update('agentry poll task token').digest(),
    onPollHeld: () => metrics.longPollHeld(),
    discover: async (principal, words) =>
      (await discovery.search(principal, { q: words, limit: 20, offset: 0 })).data.map((found) => ({
        agentId: found.id,
        relevance: found.relevance,
        weakMatch: found.weakMatch,
      })),
    // The rating or receipt stands whatever happens here; a failure only means this task does not improve search.
    learnFromWork: (work) =>
      discovery.learn(work).catch((error: unknown) => log?.warn({ err: error }, 'discovery: a completed task could not be recorded as evidence')),
    // Tasks are only cancelled through the routes, so the sender (made once the server's logger is) exists by then.
    onCancelled: (task) =>
      void a2aSender.cancelAtAgents([task]).catch((error: unknown) => log?.warn({ err: error }, 'cancelling a task at its A2A agent failed')),
  });
  // Profiles first: an agent's profile is found through its agent, which goes next.
  accountDeletion.hook({
    remove: async (accountId) => {
      const agentIds = await registry.ownedAgentIds(accountId);
      // Follows end first, so the people on the other side count one fewer, then the profiles go.
      await social.people.endFollowsOfAccount(accountId, agentIds);
      await users.deleteProfilesOf(accountId, agentIds);
    },
  });
  accountDeletion.hook({
    refusal: async (accountId) => payments.deletionRefusal(await registry.ownedAgentIds(accountId)),
    remove: registry.removeAllOwnedBy,
  });
  const media = createMediaService({
    store: createMediaStore(database.db, database.dialect),
    storeIn: (tx) => createMediaStore(tx, database.dialect),
    clock,
    publicUrl: config.publicUrl,
    quotaBytes: config.mediaQuotaBytes,
  });
  accountDeletion.hook({ remove: media.forgetAccount });
  accountDeletion.hook({ refusal: tasks.deletionRefusal, remove: discovery.forgetAccount });
  accountDeletion.hook({ remove: orgs.forgetAccount });
  const social = createSocialService({
    database,
    isModerator,
    clock,
    // The `services` tab is discovery itself; its pages end where discovery's do (offset 500).
    searchServices: async (q, limit, offset, principal) => {
      if (offset > DISCOVERY_MAX_OFFSET) return { agents: [], pagination: { limit, offset, hasMore: false } };
      const { data, pagination } = await discovery.search(principal, { q, limit, offset });
      return { agents: data, pagination };
    },
    adjustFollowCounts: usersStore.adjustFollowCounts,
    media,
    profilesChanged: async (accountIds) => void (await Promise.all(accountIds.map(users.profileChanged))),
    signals,
    onSignalError: reportSignalError,
  });

  const moderation = createModerationService({
    roles: rolesStore,
    store: moderationStore,
    clock,
    agentFor: async (id, reader) => {
      const agent = reader === 'all' ? await registry.findAgent(id) : await registry.visibleAgent(id, reader);
      return agent ? { ownerId: agent.ownerId, name: agent.name, slug: agent.slug, listing: agent.listing.state } : undefined;
    },
    // Every node's discovery reads the listing from the registry's change log at its next search.
    listing: { set: registry.setListing, ownedBy: registry.ownedAgentIds, pending: registry.pendingAgents },
    policies,
    reportsPerAccountPerHour: config.reports.perAccountPerHour,
    notify: (accountId, subject, text) =>
      social.notifications.moderationNotice(
        accountId,
        { postId: subject.type === 'post' ? subject.id : null, commentId: subject.type === 'comment' ? subject.id : null },
        text,
      ),
    applied: async (action) => {
      // A suspension holds from the next request on every node: no node may answer from a cached credential.
      if (action.action === 'suspend') await principals.forgetAccount(action.subject.id);
      // An approval or rejection changes what the account's credentials may do, on every node from the next request.
      if (action.subject.type === 'account' && (action.action === 'approve' || action.action === 'reject')) await principals.forgetAccount(action.subject.id);
      if (['hide', 'restore', 'limit', 'unlimit'].includes(action.action)) social.posts.moderationChanged();
      if (action.action === 'limit' || action.action === 'unlimit') await registry.setOwnerLimited(action.subject.id, action.action === 'limit');
    },
  });

  const domainRecheckIntervalMs = overrides.backgroundIntervalsMs?.domainRecheck ?? 3_600_000;
  const domainProofs = createDomainProofs({
    store: registryStore,
    outbound,
    clock,
    allowPrivate: config.allowPrivateEndpoints,
    findOwned: registry.findOwned,
    notifyOwner: (accountId, text) => social.notifications.moderationNotice(accountId, { postId: null, commentId: null }, text),
    onError: (error) => log?.warn({ err: error }, 'verified domains: a re-check failed; the next pass retries'),
    recheckIntervalMs: domainRecheckIntervalMs,
    scheduledPass: backgroundPasses.scheduled('domain_recheck', domainRecheckIntervalMs),
  });

  const statusEvents = createStatusEventsStore(database.db);
  const events = createEventsService({
    log: statusEvents,
    live: social.live,
    signals,
    clock,
    ...config.events,
    pruneIntervalMs,
    scheduledPrune: backgroundPasses.scheduled('event_prune', pruneIntervalMs),
    onError: (error) => log?.error({ err: error }, 'events: a read or prune failed; streams look again shortly'),
  });

  // Set when shutdown begins (drain() or close()); the HTTP layer reads it.
  let shuttingDown = false;
  const { app: server, routes } = await createServer({
    config,
    shuttingDown: () => shuttingDown,
    authenticator: auth.authenticator,
    redis,
    webRoot: overrides.webRoot !== undefined ? overrides.webRoot : defaultWebRoot,
    pageSubjects: { postExists: social.posts.exists, userExists: social.people.exists },
    metrics,
    tracing,
    newAccounts: {
      isNew: async (personId) => {
        const createdAt = await moderationStore.accountAge(personId);
        return createdAt !== null && clock.now().getTime() - Date.parse(createdAt) < NEW_ACCOUNT_MS;
      },
      fraction: async () => (await policies.current()).newAccountFraction,
    },
    ...(overrides.logger !== undefined ? { logger: overrides.logger } : {}),
    ...(overrides.logStream ? { logStream: overrides.logStream } : {}),
  });
  log = server.log;
  if (secretsKey.createdFile)
    server.log.warn({ file: secretsKey.createdFile }, 'SECRETS_KEY is not set: created a key file for stored agent credentials; back it up with the database');
  registerHealthRoutes(server, database.db, () => shuttingDown, discovery.searchReady);
  registerMetricsRoute(server, metrics, config.metricsToken);
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
  registerDomainRoutes(server, domainProofs);
  registerAgentFeedRoute(
    server,
    createAgentFeed({
      feed: createFeedStore(database.db, database.dialect),
      findMany: registryStore.findMany,
      view: registry.view,
      cursors: createFeedCursors(secretsKey.key),
    }),
  );
  registerMcpRegistryRoutes(
    server,
    createMcpRegistryService({
      db: database.db,
      publicUrl: config.publicUrl,
      identitiesOf: async (ids) =>
        new Map(
          (await registryStore.findMany(ids)).map((agent) => {
            const signature = agent.cardSignature;
            return [
              agent.id,
              {
                identityLevel: identityLevelOf(agent),
                verifiedDomain: agent.verifiedDomain,
                cardSignature: signature ? { kid: signature.kid, jku: signature.jku } : null,
              },
            ];
          }),
        ),
    }),
  );
  registerArdRoutes(
    server,
    createArdService({
      publicUrl: config.publicUrl,
      publicAgents: registryStore.publicAgents,
      findMany: registryStore.findMany,
      availabilityOf: registry.availabilityOf,
      rank: async (text, limit) => (await discovery.search(null, { q: text, limit, offset: 0 })).data,
    }),
  );
  registerCatalogRoutes(server);
  registerDiscoveryRoutes(server, discovery);
  registerReceiptsRoutes(server, receipts);
  const witnessClient = createWitnessClient({
    store: witnessStore,
    logs: [receiptLog, registryLog],
    clock,
    intervalMs: overrides.witnessIntervalMs ?? 1_000,
    onError: (message, error) => log?.warn({ err: error }, message),
  });
  registerTlogRoutes(server, [receiptLog, registryLog], witnessClient.cosigned);
  registerWitnessRoutes(server, { witness, client: witnessClient, store: witnessStore, roles: rolesStore, clock });
  registerSocialRoutes(server, social);
  registerTasksRoutes(server, tasks);
  registerEventsRoutes(server, events, auth.authenticator);
  registerPaymentsRoutes(server, payments, { stripeEnabled: stripe !== null });
  registerMediaRoutes(server, media);
  registerModerationRoutes(server, moderation, { reportRateLimit: { max: config.reports.perAddressPerHour, timeWindow: 3600_000 } });
  // The card is signed with the instance's key: the one its logs sign with, the same on every node.
  const instanceSeed = receiptLog.signer().seed;
  registerAgentCardRoute(server, { publicUrl: config.publicUrl, version: SERVICE_VERSION, signingSeed: instanceSeed });
  const a2aFrontDoor = createA2aFrontDoor({
    tasks,
    log: statusEvents,
    signals,
    card: signedServiceAgentCard(config.publicUrl, SERVICE_VERSION, instanceSeed),
    publicUrl: config.publicUrl,
    logger: server.log,
    maxStreamsPerAccount: config.events.maxStreamsPerAccount,
    openEventStreams: events.openCount,
  });
  registerA2aRoutes(server, a2aFrontDoor, { heartbeatSeconds: config.events.heartbeatSeconds });
  registerMcpRoutes(server, { rateLimit: { max: config.rateLimit.max, timeWindow: config.rateLimit.windowMs } });
  const transfers = stripe
    ? createTransferWorker({
        store: paymentsStore,
        stripe,
        clock,
        signals,
        log: server.log,
        pollIntervalMs: config.delivery.pollIntervalMs,
        scheduledPass: backgroundPasses.scheduled('stripe_transfers', config.delivery.pollIntervalMs),
      })
    : null;
  const a2aSender = createA2aSender({
    outbound,
    secrets,
    clock,
    log: server.log,
    findAgent: registry.findAgent,
    remoteTaskOf: tasksStore.remoteTaskOf,
    pollBaseMs: config.delivery.retryBaseMs,
  });
  const deliveries = createDeliveryWorker({
    store: tasksStore,
    dialect: database.dialect,
    clock,
    outbound,
    signals,
    assigner,
    findAgent: registry.findAgent,
    markSeen: registry.markSeen,
    a2a: a2aSender,
    settlement: payments.settlement,
    log: server.log,
    tracing,
    options: { ...config.delivery, leaseMs: config.delivery.timeoutMs + 5_000 },
    handOff: deliveryHandOff,
    onAttempt: (mode, outcome) => metrics.deliveryAttempt(mode, outcome),
    onHealth: measurements.record,
    scheduledExpiry: backgroundPasses.scheduled('task_expiry', config.delivery.pollIntervalMs),
  });
  const prober = createProber({
    store: healthStore,
    measurements,
    outbound,
    clock,
    targetIds: registry.probeTargetIds,
    findTarget: registry.findAgent,
    signWebhook: standardWebhookHeaders,
    intervalMs: config.health.probeIntervalMs,
    hostGapMs: config.health.hostGapMs,
    timeoutMs: config.delivery.timeoutMs,
    scheduledEnrol: backgroundPasses.scheduled('health_enrol', Math.max(config.health.probeIntervalMs, 1)),
    onError: (error) => log?.warn({ err: error }, 'health: a probe pass failed; the next one retries'),
  });
  metrics.readFrom({
    databasePool: database.poolStats,
    eventStreamsOpen: events.openTotal,
    deliveriesInFlight: deliveries.inFlight,
    deliveryQueue: tasksStore.queueDepth,
    discoveryAwaitingMeaning: discovery.agentsAwaitingMeaning,
  });

  const backups =
    config.backupSchedule && database.sqliteFile ? createBackupSchedule({ sqliteFile: database.sqliteFile, ...config.backupSchedule, log: server.log }) : null;

  // Shutdown has one budget, SHUTDOWN_GRACE_MS from its start, shared by every step that waits on
  // others (open connections, open requests, webhooks in flight) instead of each taking it, or no
  // limit, in turn.
  let graceEndsAt = Number.POSITIVE_INFINITY;
  const graceLeft = () => Math.max(0, graceEndsAt - Date.now());
  let shutdownBegun: Promise<void> | null = null;
  const beginShutdown = () =>
    (shutdownBegun ??= (() => {
      shuttingDown = true;
      graceEndsAt = Date.now() + config.shutdownGraceMs;
      // Held long polls answer now, and open event streams end (with their retry hint): otherwise
      // they keep their connections, and so the shutdown, waiting up to their full length.
      tasks.stopWaiting();
      a2aFrontDoor.stop();
      // No webhook is taken from now on; those in flight have the grace to finish, and the ones
      // still running when it ends are handed back for another node to send.
      return Promise.all([events.stop(), deliveries.stop(graceLeft())]).then(() => undefined);
    })());
  // Requests on open connections are answered as usual while draining; close() answers them 503.
  let draining: Promise<void> | null = null;
  const drain = () =>
    (draining ??= Promise.all([beginShutdown(), connectionsClosed(server, { idleMs: DRAIN_IDLE_MS, maxWaitMs: graceLeft() })]).then(() => undefined));
  server.addHook('preClose', async () => {
    await beginShutdown();
    // The server's close waits for every request still being answered; past the grace, their
    // connections are cut so the node exits on time.
    setTimeout(() => server.server.closeAllConnections(), graceLeft()).unref();
  });
  server.addHook('onClose', async () => {
    // Requests whose clients left are no longer tracked by the HTTP server but may still be running.
    await waitForRequestsToFinish(server, graceLeft());
    await transfers?.stop();
    await backups?.stop();
    await outbound.close();
    await signatureVerifier.close();
    await evidenceSweep.stop();
    await domainProofs.stop();
    await prober.stop();
    await measurements.stop();
    await receiptSequencer.close();
    await registrySequencer.close();
    await witnessClient.stop();
    await receiptsStore.close();
    await discovery.close();
    registry.stopSeenWrites();
    await taskStatusSignals.settled();
    await signals.close();
    await database.close();
    loginThrottle.close();
    if (redis) await redis.quit().catch(() => redis.disconnect());
    // Last: the spans of everything above are exported before the process ends.
    await tracing?.close();
  });
  overrides.beforeReady?.(server);
  await server.ready();
  let background: Promise<void> | null = null;
  const startBackground = () =>
    (background ??= (async () => {
      await deliveries.start();
      transfers?.start();
      evidenceSweep.start();
      domainProofs.start();
      prober.start();
      receiptSequencer.start();
      registrySequencer.start();
      witnessClient.start();
      events.start();
      backups?.start();
    })());
  if (!overrides.deferBackground) await startBackground();

  return {
    server,
    routes,
    database,
    config,
    clock,
    signals,
    discovery,
    trustEvidenceSweep: evidenceSweep,
    domainProofs,
    health: { measurements, prober },
    receiptSequencer,
    registrySequencer,
    witnessClient,
    deliveryWorker: deliveries,
    transferWorker: transfers,
    events,
    backups,
    startBackground,
    tracing,
    drain,
    close: () => server.close(),
  };
}
