import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { prependOnRequest } from './route-hooks.ts';
import { AppError } from '../lib/errors.ts';
import { clientAddressKey } from './client-address.ts';

/**
 * Fixed-window rate limiting per client address (an IPv6 client by its /64): a global limit, and per-route limits or none
 * (`config.rateLimit`). Counters live in memory, or in Redis when REDIS_URL is set so every node
 * shares them.
 *
 * This replaced @fastify/rate-limit, which costs several promises and awaits per request even with
 * its memory store; here the memory path is synchronous (see docs/architecture.md, bench/RESULTS.md).
 */

export interface RouteRateLimit {
  max: number;
  timeWindow: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not limited. An object: this route's own limit, counted apart from the global one. */
    rateLimit?: false | RouteRateLimit;
  }
}

interface Count {
  count: number;
  /** Epoch ms at which the window ends. */
  resetAt: number;
}

/** Counts a hit (`weight` of them, one by default) and answers synchronously when it can (memory), or later (Redis). Never fails. */
export interface CounterStore {
  hit(key: string, windowMs: number, weight?: number): Count | Promise<Count>;
  close(): void;
}

const SWEEP_INTERVAL_MS = 10_000;

export function createMemoryCounterStore(now: () => number = Date.now): CounterStore {
  const counts = new Map<string, Count>();
  // Ended windows are dropped on a timer (a hit on one starts afresh anyway), so memory holds about
  // one entry per client seen in the last window.
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, entry] of counts) if (entry.resetAt <= t) counts.delete(key);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  return {
    hit(key, windowMs, weight = 1) {
      const t = now();
      const entry = counts.get(key);
      if (entry === undefined || entry.resetAt <= t) {
        const fresh = { count: weight, resetAt: t + windowMs };
        counts.set(key, fresh);
        return fresh;
      }
      entry.count += weight;
      return entry;
    },
    close: () => clearInterval(sweep),
  };
}

// INCR and the expiry in one step, so two nodes never both start a window, and a key never lives forever.
const hitScript = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** How often a failing Redis is reported: once per minute, not once per request. */
const REPORT_EVERY_MS = 60_000;

export interface RedisCounterStoreOptions {
  prefix?: string;
  /** Redis failed; the request was counted on this node instead. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

type RedisWithHit = Redis & { agentryRateHit(key: string, windowMs: number, weight: number): Promise<[number, number]> };

/**
 * Counts in Redis, shared by every node. While Redis is unreachable each node counts on its own, so
 * limits (the login budget among them) still hold per node instead of lapsing.
 */
export function createRedisCounterStore(
  redis: Redis,
  { prefix = 'agentry-rl:', onError = () => {}, now = Date.now }: RedisCounterStoreOptions = {},
): CounterStore {
  const local = createMemoryCounterStore(now);
  // Registered once: later calls send the script's hash (EVALSHA), not the script.
  redis.defineCommand('agentryRateHit', { numberOfKeys: 1, lua: hitScript });
  let reportedAt = -Infinity;
  return {
    async hit(key, windowMs, weight = 1) {
      try {
        const [count, ttl] = await (redis as RedisWithHit).agentryRateHit(prefix + key, windowMs, weight);
        return { count, resetAt: now() + ttl };
      } catch (error) {
        if (now() - reportedAt >= REPORT_EVERY_MS) {
          reportedAt = now();
          onError(error);
        }
        return local.hit(key, windowMs, weight);
      }
    },
    close: () => local.close(),
  };
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  store: CounterStore;
  keyOf?: (request: FastifyRequest) => string;
}

/** Adds the limiter as each route's first onRequest hook (before authentication, so floods cost no lookups). */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const keyOf = options.keyOf ?? ((request: FastifyRequest) => clientAddressKey(request.ip));
  const global = { max: options.max, timeWindow: options.windowMs };

  app.addHook('onRoute', (route) => {
    const own = route.config?.rateLimit;
    if (own === false) return;
    const limit = own ?? global;
    // A route with its own limit counts apart, so a tight login limit never eats the global budget.
    // Fastify's automatic HEAD twin of a GET route shares its budget.
    const method = route.method === 'HEAD' ? 'GET' : String(route.method);
    const scope = own ? `${method}:${route.url}:` : '';
    const hook = rateLimitHook(options.store, limit, scope, keyOf);
    prependOnRequest(route, hook);
  });
  app.addHook('onClose', (_instance, done) => {
    options.store.close();
    done();
  });
}

function rateLimitHook(store: CounterStore, limit: RouteRateLimit, scope: string, keyOf: (request: FastifyRequest) => string) {
  const maxHeader = String(limit.max);
  const judge = (reply: FastifyReply, { count, resetAt }: Count): AppError | undefined => {
    const resetSeconds = String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)));
    reply.header('x-ratelimit-limit', maxHeader);
    reply.header('x-ratelimit-remaining', String(Math.max(0, limit.max - count)));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (count <= limit.max) return undefined;
    reply.header('retry-after', resetSeconds);
    return new AppError('RATE_LIMITED', `Too many requests; retry in ${resetSeconds} s`);
  };
  // Callback style: it runs on nearly every request, and the memory store answers without a promise.
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const counted = store.hit(scope + keyOf(request), limit.timeWindow);
    if (counted instanceof Promise) counted.then((count) => done(judge(reply, count)), done);
    else done(judge(reply, counted));
  };
}
