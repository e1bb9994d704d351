/**
 * Configuration is read from the environment exactly once, in main.ts, and validated here so a bad
 * value stops the process with a message that names the variable instead of failing later.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { parseSecretsKey } from './lib/secret-box.ts';
import type { TracingConfig } from './lib/tracing.ts';
import { parseSignerKey } from '@agentry/sdk/tlog';
import type { NoteSigner } from './modules/tlog/index.ts';
import type { InstancePolicies } from './modules/moderation/index.ts';

export interface Config {
  port: number;
  host: string;
  /** `sqlite:<path>` / a plain file path / `:memory:` for SQLite, or a `postgres://` URL. */
  databaseUrl: string;
  /** How long a request waits for a database connection before it answers 503 (PostgreSQL). */
  databaseTimeoutMs: number;
  publicUrl: string;
  oidcIssuer: string | null;
  oidcAudience: string | null;
  /**
   * Browser sign-in through the OIDC issuer (authorization code with PKCE): our client at the
   * issuer, and its secret for a confidential client (null: a public client). Null: no such sign-in.
   */
  oidcClient: { id: string; secret: string | null } | null;
  redisUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  rateLimit: { max: number; windowMs: number };
  /** Per-address budget of signup and login (each counted apart). */
  credentialRateLimit: { max: number; windowMs: number };
  /** Failed logins per account, across addresses (src/modules/auth/login-throttle.ts). */
  loginThrottle: { freeFailures: number; delayBaseMs: number; delayMaxMs: number; failureWindowMs: number; knownAddressMs: number };
  /** Per-address budget of the unauthenticated provisional registration, per rate-limit window. */
  provisionalRateLimitMax: number;
  /** Reports one account may file per hour, and one client address per hour (docs/moderation.md). */
  reports: { perAccountPerHour: number; perAddressPerHour: number };
  /** The instance policies at the first start; admins change them later (docs/moderation.md). */
  policies: InstancePolicies;
  heartbeatIntervalSeconds: number;
  sessionTtlHours: number;
  allowPrivateEndpoints: boolean;
  /** SECRETS_KEY: seals stored agent credentials; null on SQLite means a key file beside the database. */
  secretsKey: Buffer | null;
  /**
   * Lets anyone who knows a provisional agent's id poll its tasks without X-Agent-Signature (the
   * spec's id-only polling, for old clients). Unsafe: agent ids are public.
   */
  allowUnsignedProvisionalPoll: boolean;
  /** Whose X-Forwarded-For to believe: nobody, the nearest `hops` proxies, or proxies at these addresses/CIDRs. */
  trustProxy: TrustProxy;
  /** An OpenAI-compatible embeddings API for discovery; null: the built-in offline word vectors. */
  embeddings: { url: string; model: string; apiKey: string | null } | null;
  delivery: { maxAttempts: number; retryBaseMs: number; timeoutMs: number; pollIntervalMs: number; concurrency: number };
  /** POLL_LEASE_MS: how long a task a long poll handed out stays the agent's without an answer or a renewal. */
  pollLeaseMs: number;
  /** The prober of agents' health (docs/operations.md): how often each agent is probed (0: never), the gap between probes of one host, and the median response time above which an agent is degraded. */
  health: { probeIntervalMs: number; hostGapMs: number; slowMs: number };
  /** An OpenAI-compatible chat model that fills task inputs; null: the built-in extractor. */
  extractor: { url: string; model: string; apiKey: string | null } | null;
  /** The platform's cut of each paid task, in basis points (250 = 2.5%). */
  platformFeeBps: number;
  /** Stripe Connect; null: only the built-in ledger provider. `apiBase` points the client elsewhere (tests). */
  stripe: { secretKey: string; webhookSecret: string; apiBase: string | null } | null;
  /** Who may record payouts and read the ledger: accounts named by email or by id. */
  operators: { emails: string[]; accountIds: string[] };
  /** Worker threads that verify receipt signatures; 0 verifies on the request thread. */
  signatureThreads: number;
  /**
   * DISCOVERY_CANDIDATES_FROM: from this many agents on a node, a search scores only candidates (the
   * nearest agents by meaning from the approximate index, the lexical and catalogue matches) instead
   * of every agent; 0: always.
   */
  discoveryCandidatesFrom: number;
  /**
   * DISCOVERY_INDEX_DIR: where discovery saves its index (at shutdown, and after a start that read every
   * agent from the database) and restores it from at start; null: every start reads every agent.
   */
  discoveryIndexDir: string | null;
  /** How many bytes of uploaded images one account may keep. */
  mediaQuotaBytes: number;
  /** How long shutdown waits for requests still running (including those whose client has left). */
  shutdownGraceMs: number;
  /** GET /v1/events: how long events stay replayable, streams per account on a node, the keep-alive comment's interval. */
  events: { retentionMinutes: number; maxStreamsPerAccount: number; maxStreamsPerAddress: number; heartbeatSeconds: number };
  /** The receipt log: its signing key if the operator gives one (LOG_SIGNING_KEY), and how often receipts are sequenced. */
  receiptLog: { signer: NoteSigner | null; intervalMs: number; batchSize: number };
  /** METRICS_TOKEN: the bearer token /metrics asks for; null serves it to loopback clients only. */
  metricsToken: string | null;
  /** SQLite: online backups the service takes itself into `dir` every `intervalHours`, keeping the newest `keep`; null: none. */
  backupSchedule: { dir: string; intervalHours: number; keep: number } | null;
  /** OpenTelemetry traces, on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT); null: off, the SDK never loaded. */
  tracing: TracingConfig | null;
}

export type TrustProxy = false | { hops: number } | { proxies: string[] };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env): Config {
  const problems: string[] = [];

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, raw: string | undefined, protocols: string[]): string | null => {
    if (raw === undefined || raw === '') return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got "${raw}")`);
        return null;
      }
      return raw.replace(/\/$/, '');
    } catch {
      problems.push(`${name} is not a valid URL (got "${raw}")`);
      return null;
    }
  };

  const port = integer('PORT', 8080, 0, 65535);
  const databaseUrl = env.DATABASE_URL && env.DATABASE_URL !== '' ? env.DATABASE_URL : 'sqlite:./data/agentry.db';
  if (!/^(postgres|postgresql):\/\//.test(databaseUrl) && /^[a-z]+:\/\//i.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a postgres:// URL or a SQLite path (got "${databaseUrl}")`);
  }

  const logSigningKeyText = env.LOG_SIGNING_KEY && env.LOG_SIGNING_KEY !== '' ? env.LOG_SIGNING_KEY : null;
  const logSigner = logSigningKeyText ? parseSignerKey(logSigningKeyText) : null;
  if (logSigningKeyText && !logSigner)
    problems.push(
      'LOG_SIGNING_KEY must be a signed-note Ed25519 signer key, PRIVATE+KEY+<name>+<8 hex digits>+<base64> (make one with `agentry log keygen <name>`)',
    );

  const secretsKeyText = env.SECRETS_KEY && env.SECRETS_KEY !== '' ? env.SECRETS_KEY : null;
  const secretsKey = secretsKeyText ? parseSecretsKey(secretsKeyText) : null;
  if (secretsKeyText && !secretsKey) problems.push('SECRETS_KEY must be 32 bytes as 64 hex digits or base64 (make one with `openssl rand -base64 32`)');
  // Every node must open what another sealed, so a shared database needs the key from the environment.
  if (!secretsKeyText && /^(postgres|postgresql):\/\//.test(databaseUrl))
    problems.push('SECRETS_KEY is required with PostgreSQL: every node must use the same key (make one with `openssl rand -base64 32`)');

  const oidcIssuer = url('OIDC_ISSUER', env.OIDC_ISSUER, ['http:', 'https:']);
  const oidcAudience = env.OIDC_AUDIENCE && env.OIDC_AUDIENCE !== '' ? env.OIDC_AUDIENCE : null;
  if (oidcIssuer && !oidcAudience) problems.push('OIDC_AUDIENCE is required when OIDC_ISSUER is set');
  if (oidcAudience && !oidcIssuer) problems.push('OIDC_ISSUER is required when OIDC_AUDIENCE is set');
  const oidcClientId = env.OIDC_CLIENT_ID && env.OIDC_CLIENT_ID !== '' ? env.OIDC_CLIENT_ID : null;
  const oidcClientSecret = env.OIDC_CLIENT_SECRET && env.OIDC_CLIENT_SECRET !== '' ? env.OIDC_CLIENT_SECRET : null;
  if (oidcClientId && !oidcIssuer) problems.push('OIDC_ISSUER is required when OIDC_CLIENT_ID is set');
  if (oidcClientId && !/^[\x21-\x7e]{1,255}$/.test(oidcClientId)) problems.push('OIDC_CLIENT_ID must be 1-255 printable characters without spaces');
  if (oidcClientSecret && !oidcClientId) problems.push('OIDC_CLIENT_ID is required when OIDC_CLIENT_SECRET is set');
  // The issuer sends the browser back to PUBLIC_URL; a guessed default would only fail at the issuer.
  if (oidcClientId && !env.PUBLIC_URL)
    problems.push('PUBLIC_URL is required when OIDC_CLIENT_ID is set (the sign-in returns to PUBLIC_URL/v1/auth/oidc/callback)');

  const embeddingsUrl = url('EMBEDDINGS_URL', env.EMBEDDINGS_URL, ['http:', 'https:']);
  const embeddingsModel = env.EMBEDDINGS_MODEL && env.EMBEDDINGS_MODEL !== '' ? env.EMBEDDINGS_MODEL : null;
  const embeddingsApiKey = env.EMBEDDINGS_API_KEY && env.EMBEDDINGS_API_KEY !== '' ? env.EMBEDDINGS_API_KEY : null;
  if (embeddingsUrl && !embeddingsModel) problems.push('EMBEDDINGS_MODEL is required when EMBEDDINGS_URL is set');
  if (!embeddingsUrl && (embeddingsModel || embeddingsApiKey)) problems.push('EMBEDDINGS_URL is required when EMBEDDINGS_MODEL or EMBEDDINGS_API_KEY is set');

  const extractorUrl = url('EXTRACTOR_URL', env.EXTRACTOR_URL, ['http:', 'https:']);
  const extractorModel = env.EXTRACTOR_MODEL && env.EXTRACTOR_MODEL !== '' ? env.EXTRACTOR_MODEL : null;
  const extractorApiKey = env.EXTRACTOR_API_KEY && env.EXTRACTOR_API_KEY !== '' ? env.EXTRACTOR_API_KEY : null;
  if (extractorUrl && !extractorModel) problems.push('EXTRACTOR_MODEL is required when EXTRACTOR_URL is set');
  if (!extractorUrl && (extractorModel || extractorApiKey)) problems.push('EXTRACTOR_URL is required when EXTRACTOR_MODEL or EXTRACTOR_API_KEY is set');

  const stripeSecretKey = env.STRIPE_SECRET_KEY && env.STRIPE_SECRET_KEY !== '' ? env.STRIPE_SECRET_KEY : null;
  const stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET && env.STRIPE_WEBHOOK_SECRET !== '' ? env.STRIPE_WEBHOOK_SECRET : null;
  const stripeApiBase = url('STRIPE_API_BASE', env.STRIPE_API_BASE, ['http:', 'https:']);
  if (stripeSecretKey && !stripeWebhookSecret)
    problems.push('STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (accounts become active through its webhook)');
  if (!stripeSecretKey && (stripeWebhookSecret || stripeApiBase))
    problems.push('STRIPE_SECRET_KEY is required when STRIPE_WEBHOOK_SECRET or STRIPE_API_BASE is set');
  const list = (raw: string | undefined) =>
    (raw ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const operatorEmails = list(env.OPERATOR_EMAILS).map((email) => email.toLowerCase());
  for (const email of operatorEmails)
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) problems.push(`OPERATOR_EMAILS must be comma-separated email addresses (got "${email}")`);

  const metricsToken = env.METRICS_TOKEN && env.METRICS_TOKEN !== '' ? env.METRICS_TOKEN : null;
  if (metricsToken && !/^[\x21-\x7e]{16,4096}$/.test(metricsToken))
    problems.push('METRICS_TOKEN must be 16 or more printable characters without spaces (make one with `openssl rand -base64 32`)');
  const backupDir = env.BACKUP_DIR && env.BACKUP_DIR !== '' ? env.BACKUP_DIR : null;
  if (backupDir && /^(postgres|postgresql):\/\//.test(databaseUrl))
    problems.push('BACKUP_DIR is for SQLite; back up PostgreSQL with pg_dump (docs/operations.md, "Backups and restore")');
  if (!backupDir && (env.BACKUP_INTERVAL_HOURS || env.BACKUP_KEEP)) problems.push('BACKUP_DIR is required when BACKUP_INTERVAL_HOURS or BACKUP_KEEP is set');

  const choice = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(allowed as readonly string[]).includes(raw)) problems.push(`${name} must be one of ${allowed.join(', ')}`);
    return raw as T;
  };
  const newAccountFraction = env.NEW_ACCOUNT_FRACTION && env.NEW_ACCOUNT_FRACTION !== '' ? Number(env.NEW_ACCOUNT_FRACTION) : 0.25;
  if (!(newAccountFraction > 0 && newAccountFraction <= 1)) problems.push('NEW_ACCOUNT_FRACTION must be a number above 0 and at most 1');

  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!logLevels.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);

  const config: Config = {
    port,
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    databaseUrl,
    publicUrl: url('PUBLIC_URL', env.PUBLIC_URL, ['http:', 'https:']) ?? `http://localhost:${port}`,
    oidcIssuer,
    oidcAudience,
    oidcClient: oidcClientId && oidcIssuer ? { id: oidcClientId, secret: oidcClientSecret } : null,
    redisUrl: url('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']),
    logLevel,
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimit: {
      max: integer('RATE_LIMIT_MAX', 600, 1, 10_000_000),
      windowMs: integer('RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    credentialRateLimit: {
      max: integer('CREDENTIAL_RATE_LIMIT_MAX', 20, 1, 10_000_000),
      windowMs: integer('CREDENTIAL_RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    loginThrottle: {
      freeFailures: integer('LOGIN_FAILURES_PER_ACCOUNT', 5, 0, 1000),
      delayBaseMs: integer('LOGIN_DELAY_BASE_MS', 1000, 100, 3_600_000),
      delayMaxMs: integer('LOGIN_DELAY_MAX_MS', 900_000, 1000, 86_400_000),
      failureWindowMs: integer('LOGIN_FAILURE_WINDOW_MS', 900_000, 1000, 7 * 86_400_000),
      knownAddressMs: integer('LOGIN_KNOWN_ADDRESS_DAYS', 30, 0, 365) * 86_400_000,
    },
    provisionalRateLimitMax: integer('PROVISIONAL_RATE_LIMIT_MAX', 30, 1, 10_000_000),
    reports: {
      perAccountPerHour: integer('REPORTS_PER_ACCOUNT_PER_HOUR', 20, 1, 1_000_000),
      perAddressPerHour: integer('REPORTS_PER_ADDRESS_PER_HOUR', 60, 1, 10_000_000),
    },
    policies: {
      agentListing: choice('AGENT_LISTING', 'open', ['open', 'approval'] as const),
      signUp: choice('SIGN_UP', 'open', ['open', 'approval', 'closed'] as const),
      newAccountFraction,
      autoHoldReports: integer('AUTO_HOLD_REPORTS', 0, 0, 1_000_000),
    },
    heartbeatIntervalSeconds: integer('HEARTBEAT_INTERVAL_SECONDS', 60, 1, 86_400),
    sessionTtlHours: integer('SESSION_TTL_HOURS', 24 * 30, 1, 24 * 365),
    allowPrivateEndpoints: boolean('ALLOW_PRIVATE_ENDPOINTS', false),
    secretsKey,
    allowUnsignedProvisionalPoll: boolean('ALLOW_UNSIGNED_PROVISIONAL_POLL', false),
    trustProxy: trustProxy(env.TRUST_PROXY, problems),
    delivery: {
      maxAttempts: integer('WEBHOOK_MAX_ATTEMPTS', 3, 1, 20),
      retryBaseMs: integer('WEBHOOK_RETRY_BASE_MS', 1000, 10, 3_600_000),
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
      pollIntervalMs: integer('DELIVERY_POLL_INTERVAL_MS', 500, 10, 60_000),
      concurrency: integer('DELIVERY_CONCURRENCY', 16, 1, 1000),
    },
    pollLeaseMs: integer('POLL_LEASE_MS', 300_000, 1_000, 86_400_000),
    health: {
      probeIntervalMs: integer('HEALTH_PROBE_INTERVAL_MS', 60_000, 0, 86_400_000),
      hostGapMs: integer('HEALTH_PROBE_HOST_GAP_MS', 1_000, 0, 3_600_000),
      slowMs: integer('HEALTH_SLOW_MS', 3_000, 1, 600_000),
    },
    extractor: extractorUrl && extractorModel ? { url: extractorUrl, model: extractorModel, apiKey: extractorApiKey } : null,
    embeddings: embeddingsUrl && embeddingsModel ? { url: embeddingsUrl, model: embeddingsModel, apiKey: embeddingsApiKey } : null,
    platformFeeBps: integer('PLATFORM_FEE_BPS', 250, 0, 10_000),
    stripe: stripeSecretKey && stripeWebhookSecret ? { secretKey: stripeSecretKey, webhookSecret: stripeWebhookSecret, apiBase: stripeApiBase } : null,
    operators: { emails: operatorEmails, accountIds: list(env.OPERATOR_ACCOUNT_IDS) },
    // One worker on a 2-core machine: the request thread keeps the other core.
    signatureThreads: integer('SIGNATURE_THREADS', Math.min(4, Math.max(1, availableParallelism() - 1)), 0, 16),
    discoveryCandidatesFrom: integer('DISCOVERY_CANDIDATES_FROM', 5_000, 0, 1_000_000_000),
    discoveryIndexDir: env.DISCOVERY_INDEX_DIR && env.DISCOVERY_INDEX_DIR !== '' ? env.DISCOVERY_INDEX_DIR : null,
    databaseTimeoutMs: integer('DATABASE_TIMEOUT_MS', 5000, 100, 120_000),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 5000, 0, 120_000),
    mediaQuotaBytes: integer('MEDIA_QUOTA_BYTES', 100 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    events: {
      retentionMinutes: integer('EVENTS_RETENTION_MINUTES', 60, 1, 7 * 24 * 60),
      maxStreamsPerAccount: integer('EVENTS_MAX_STREAMS_PER_ACCOUNT', 10, 1, 1000),
      maxStreamsPerAddress: integer('EVENTS_MAX_STREAMS_PER_ADDRESS', 30, 1, 100_000),
      heartbeatSeconds: integer('EVENTS_HEARTBEAT_SECONDS', 20, 1, 300),
    },
    // Sequencing is bounded: a receipt waits at most one interval (5 s at most) unless 1,000 are ahead of it.
    receiptLog: { signer: logSigner, intervalMs: integer('RECEIPT_LOG_INTERVAL_MS', 1000, 10, 5000), batchSize: 1000 },
    metricsToken,
    backupSchedule: backupDir
      ? { dir: backupDir, intervalHours: integer('BACKUP_INTERVAL_HOURS', 24, 1, 24 * 30), keep: integer('BACKUP_KEEP', 7, 1, 1000) }
      : null,
    tracing: tracingConfig(env, problems),
  };
  if (config.loginThrottle.delayBaseMs > config.loginThrottle.delayMaxMs) {
    problems.push(`LOGIN_DELAY_BASE_MS (${config.loginThrottle.delayBaseMs}) must not exceed LOGIN_DELAY_MAX_MS (${config.loginThrottle.delayMaxMs})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const otlpProtocols = ['http/protobuf', 'http/json'] as const;

/**
 * The standard OpenTelemetry variables that decide whether traces are sent, where and how. The SDK
 * itself reads the rest of its own (OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES, ...).
 */
function tracingConfig(env: Env, problems: string[]): TracingConfig | null {
  const given = (name: string) => (env[name] !== undefined && env[name]!.trim() !== '' ? env[name]!.trim() : null);
  const tracesEndpoint = given('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = given('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!tracesEndpoint && !baseEndpoint) return null;
  if (given('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = given('OTEL_TRACES_EXPORTER')?.toLowerCase() ?? 'otlp';
  if (exporter === 'none') return null;
  if (exporter !== 'otlp') {
    problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}")`);
    return null;
  }
  // The base endpoint gets the signal's path; the traces endpoint is used exactly as written.
  const endpoint = tracesEndpoint ?? `${baseEndpoint!.replace(/\/+$/, '')}/v1/traces`;
  const name = tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let parsed: URL | null = null;
  try {
    parsed = new URL(endpoint);
  } catch {
    // reported below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    problems.push(`${name} must be an http:// or https:// URL (got "${tracesEndpoint ?? baseEndpoint}")`);
    return null;
  }
  const protocolName = given('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = given(protocolName) ?? 'http/protobuf';
  if (!(otlpProtocols as readonly string[]).includes(protocol)) {
    problems.push(`${protocolName} must be ${otlpProtocols.join(' or ')} (got "${protocol}"; for grpc, send to the collector's OTLP/HTTP port, 4318)`);
    return null;
  }
  const headersName = given('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS';
  const headers: Record<string, string> = {};
  for (const pair of (given(headersName) ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const key = equals > 0 ? pair.slice(0, equals).trim() : '';
    let value: string | null = null;
    try {
      value = equals > 0 ? decodeURIComponent(pair.slice(equals + 1).trim()) : null;
    } catch {
      // reported below
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || value === null) {
      problems.push(`${headersName} must be comma-separated name=value pairs, values percent-encoded`);
      return null;
    }
    headers[key] = value;
  }
  return { endpoint, protocol: protocol as TracingConfig['protocol'], headers, serviceName: given('OTEL_SERVICE_NAME') ?? 'agentry' };
}

/** proxy-addr's names for address ranges, accepted alongside addresses and CIDRs. */
const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_PROXY_HOPS = 10;

function trustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || raw.trim() === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') {
    // Believing every hop lets any client write its own address into X-Forwarded-For and escape every limit.
    problems.push(
      'TRUST_PROXY=true would believe every X-Forwarded-For entry, so any client could choose its own address; ' +
        'write the number of proxies in front of the service (TRUST_PROXY=1) or their addresses and CIDRs (TRUST_PROXY=10.0.0.0/8,192.168.1.7)',
    );
    return false;
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_PROXY_HOPS) {
      problems.push(`TRUST_PROXY must be a hop count from 1 to ${MAX_PROXY_HOPS}, or a list of proxy addresses and CIDRs (got "${raw}")`);
      return false;
    }
    return { hops };
  }
  const proxies = raw.split(',').map((item) => item.trim());
  const bad = proxies.filter((item) => !isProxyAddress(item));
  if (bad.length > 0) {
    problems.push(`TRUST_PROXY must be a hop count, or a comma-separated list of proxy addresses and CIDRs (not "${bad.join('", "')}")`);
    return false;
  }
  return { proxies };
}

function isProxyAddress(item: string): boolean {
  if (namedRanges.has(item)) return true;
  const slash = item.indexOf('/');
  // net.isIP, not ipaddr.isValid: the latter also takes shorthand like "10.1", which would trust an address nobody meant.
  if (slash === -1) return isIP(item) !== 0;
  const address = item.slice(0, slash);
  const bits = item.slice(slash + 1);
  if (isIP(address) === 0 || !/^\d{1,3}$/.test(bits)) return false;
  try {
    ipaddr.parseCIDR(item);
    return true;
  } catch {
    return false;
  }
}
