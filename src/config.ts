/**
 * Configuration is read from the environment exactly once, in main.ts, and validated here so a bad
 * value stops the process with a message that names the variable instead of failing later.
 */
export interface Config {
  port: number;
  host: string;
  /** `sqlite:<path>` / a plain file path / `:memory:` for SQLite, or a `postgres://` URL. */
  databaseUrl: string;
  publicUrl: string;
  oidcIssuer: string | null;
  oidcAudience: string | null;
  redisUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  rateLimit: { max: number; windowMs: number };
  /** Per-address budget of the unauthenticated provisional registration, per rate-limit window. */
  provisionalRateLimitMax: number;
  heartbeatIntervalSeconds: number;
  sessionTtlHours: number;
  allowPrivateEndpoints: boolean;
  trustProxy: boolean;
}

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

  const oidcIssuer = url('OIDC_ISSUER', env.OIDC_ISSUER, ['http:', 'https:']);
  const oidcAudience = env.OIDC_AUDIENCE && env.OIDC_AUDIENCE !== '' ? env.OIDC_AUDIENCE : null;
  if (oidcIssuer && !oidcAudience) problems.push('OIDC_AUDIENCE is required when OIDC_ISSUER is set');
  if (oidcAudience && !oidcIssuer) problems.push('OIDC_ISSUER is required when OIDC_AUDIENCE is set');

  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!logLevels.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);

  const config: Config = {
    port,
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    databaseUrl,
    publicUrl: url('PUBLIC_URL', env.PUBLIC_URL, ['http:', 'https:']) ?? `http://localhost:${port}`,
    oidcIssuer,
    oidcAudience,
    redisUrl: url('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']),
    logLevel,
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimit: {
      max: integer('RATE_LIMIT_MAX', 600, 1, 10_000_000),
      windowMs: integer('RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    provisionalRateLimitMax: integer('PROVISIONAL_RATE_LIMIT_MAX', 30, 1, 10_000_000),
    heartbeatIntervalSeconds: integer('HEARTBEAT_INTERVAL_SECONDS', 60, 1, 86_400),
    sessionTtlHours: integer('SESSION_TTL_HOURS', 24 * 30, 1, 24 * 365),
    allowPrivateEndpoints: boolean('ALLOW_PRIVATE_ENDPOINTS', false),
    trustProxy: boolean('TRUST_PROXY', false),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
