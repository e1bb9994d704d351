import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../../lib/clock.ts';

/**
 * Password guessing against one account, from any number of addresses. Each email address has a
 * budget of login attempts: the first `freeFailures` are free; after that each attempt is let
 * through only once a delay has passed since the previous one, a delay that doubles from
 * `delayBaseMs` up to `delayMaxMs`. An attempt made during the delay is refused unchecked and not
 * counted, so hammering never lengthens the wait: an attacker cannot lock the owner out for longer
 * than `delayMaxMs` at a time. A successful login clears the budget it was counted against; a budget
 * nobody touched for `failureWindowMs` after its delay ended is forgotten.
 *
 * An address that logged into the account within `knownAddressMs` has a budget of its own for that
 * account, so guesses from elsewhere never delay the owner where they logged in before.
 *
 * Every attempt is counted when it is admitted (before the password is checked), so parallel
 * guesses cannot all pass a check that reads a count not yet written; success takes it back. A
 * failure starts its delay again from the moment it is known: checking a password takes time (more on
 * a loaded server), and a delay counted from the admission alone could be over before the answer,
 * letting one more guess through at once than `freeFailures`.
 * Emails without an account are counted the same way, so a 429 says nothing about which exist.
 */

export interface LoginThrottleRule {
  freeFailures: number;
  delayBaseMs: number;
  delayMaxMs: number;
  failureWindowMs: number;
  /** 0: no address is ever known. */
  knownAddressMs: number;
}

export type Admission = { admitted: true; budget: string } | { admitted: false; waitMs: number };

export interface LoginThrottle {
  /** Reserves one attempt at `email` from `address`, or says how long to wait. */
  admit(email: string, address: string): Promise<Admission>;
  /** The admitted attempt was right: clear its budget and remember the address for this account. */
  succeeded(email: string, address: string, budget: string): Promise<void>;
  /** The admitted attempt was wrong: a delay it started runs from now. */
  failed(email: string, address: string, budget: string): Promise<void>;
  close(): void;
}

/** What a store keeps; times are epoch ms of the service's clock. */
interface Budget {
  attempts: number;
  /** No attempt is admitted before this. */
  nextAt: number;
  expiresAt: number;
}

interface ThrottleStore {
  admit(account: string, address: string, now: number): Admission | Promise<Admission>;
  succeeded(account: string, address: string, budget: string, now: number): void | Promise<void>;
  failed(account: string, address: string, budget: string, now: number): void | Promise<void>;
  close(): void;
}

const MAX_DOUBLINGS = 40;

/**
 * The budget after one more admitted attempt. The last free attempt starts the first delay, so
 * exactly `freeFailures` attempts go through without waiting (with none free, the first one starts it).
 */
function afterAttempt(budget: Budget | undefined, now: number, rule: LoginThrottleRule): Budget {
  const attempts = (budget && budget.expiresAt > now ? budget.attempts : 0) + 1;
  const nextAt = attempts >= Math.max(rule.freeFailures, 1) ? now + delayAfter(attempts, rule) : 0;
  return { attempts, nextAt, expiresAt: Math.max(nextAt, now) + rule.failureWindowMs };
}

/** The wait after the `attempts`-th attempt, once the free ones are spent. */
const delayAfter = (attempts: number, rule: LoginThrottleRule) =>
  Math.min(rule.delayMaxMs, rule.delayBaseMs * 2 ** Math.min(attempts - Math.max(rule.freeFailures, 1), MAX_DOUBLINGS));

/** The budget once its last attempt failed at `now`: a delay it started runs from then. */
function afterFailure(budget: Budget, now: number, rule: LoginThrottleRule): Budget {
  if (budget.nextAt === 0 || budget.expiresAt <= now) return budget;
  const nextAt = Math.max(budget.nextAt, now + delayAfter(budget.attempts, rule));
  return { ...budget, nextAt, expiresAt: Math.max(budget.expiresAt, nextAt + rule.failureWindowMs) };
}

/** The account part of every key: emails are not kept in clear in the counters. */
const accountKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);

/** Entries beyond this push out the oldest, so a spray of invented emails cannot exhaust memory. */
const MAX_MEMORY_ENTRIES = 200_000;
const SWEEP_INTERVAL_MS = 60_000;

function createMemoryThrottleStore(rule: LoginThrottleRule, now: () => number): ThrottleStore {
  const budgets = new Map<string, Budget>();
  /** Known address per account, to the epoch ms it stops being known. */
  const known = new Map<string, number>();
  const put = <T>(map: Map<string, T>, key: string, value: T) => {
    // Re-inserting moves the key to the end, so the first key is the one touched longest ago.
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_MEMORY_ENTRIES) map.delete(map.keys().next().value!);
  };
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, budget] of budgets) if (budget.expiresAt <= t) budgets.delete(key);
    for (const [key, until] of known) if (until <= t) known.delete(key);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  return {
    admit(account, address, t) {
      const isKnown = (known.get(`${account} ${address}`) ?? 0) > t;
      const key = isKnown ? `${account} ${address}` : account;
      const budget = budgets.get(key);
      if (budget && budget.expiresAt > t && budget.nextAt > t) return { admitted: false, waitMs: budget.nextAt - t };
      put(budgets, key, afterAttempt(budget, t, rule));
      return { admitted: true, budget: isKnown ? 'address' : 'account' };
    },
    succeeded(account, address, budget, t) {
      budgets.delete(budget === 'address' ? `${account} ${address}` : account);
      if (rule.knownAddressMs > 0) put(known, `${account} ${address}`, t + rule.knownAddressMs);
    },
    failed(account, address, budget, t) {
      const key = budget === 'address' ? `${account} ${address}` : account;
      const current = budgets.get(key);
      if (current) budgets.set(key, afterFailure(current, t, rule));
    },
    close: () => clearInterval(sweep),
  };
}

// One step per admission, so two nodes never both admit on the same count. The hash tag {account}
// keeps an account's keys in one cluster slot. Times come from the caller's clock, so the rule
// reads the same on every node and in tests; Redis expiry only cleans up.
const admitScript = `
local now = tonumber(ARGV[1])
local key = KEYS[1]
local budget = 'account'
if tonumber(redis.call('GET', KEYS[2]) or '0') > now then
  key = KEYS[3]
  budget = 'address'
end
local state = redis.call('HMGET', key, 'attempts', 'nextAt', 'expiresAt')
local attempts = tonumber(state[1]) or 0
local nextAt = tonumber(state[2]) or 0
if (tonumber(state[3]) or 0) <= now then
  attempts = 0
  nextAt = 0
end
if nextAt > now then return {0, nextAt - now, budget} end
attempts = attempts + 1
local free = math.max(tonumber(ARGV[2]), 1)
if attempts >= free then
  nextAt = now + math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(attempts - free, ${MAX_DOUBLINGS})))
else
  nextAt = 0
end
local expiresAt = math.max(nextAt, now) + tonumber(ARGV[5])
redis.call('HSET', key, 'attempts', attempts, 'nextAt', nextAt, 'expiresAt', expiresAt)
redis.call('PEXPIRE', key, expiresAt - now)
return {1, 0, budget}`;

// As afterFailure(): a delay the failed attempt started runs from now.
const failScript = `
local now = tonumber(ARGV[1])
local state = redis.call('HMGET', KEYS[1], 'attempts', 'nextAt', 'expiresAt')
local attempts = tonumber(state[1])
local nextAt = tonumber(state[2]) or 0
local expiresAt = tonumber(state[3]) or 0
if not attempts or nextAt == 0 or expiresAt <= now then return 0 end
local free = math.max(tonumber(ARGV[2]), 1)
nextAt = math.max(nextAt, now + math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(attempts - free, ${MAX_DOUBLINGS}))))
expiresAt = math.max(expiresAt, nextAt + tonumber(ARGV[5]))
redis.call('HSET', KEYS[1], 'nextAt', nextAt, 'expiresAt', expiresAt)
redis.call('PEXPIRE', KEYS[1], expiresAt - now)
return 1`;

type RedisWithAdmit = Redis & {
  agentryLoginAdmit(...args: (string | number)[]): Promise<[number, number, string]>;
  agentryLoginFailed(...args: (string | number)[]): Promise<number>;
};

/** Marks a budget counted on this node while Redis was unreachable. */
const LOCAL = 'local:';

/** How often a failing Redis is reported: once per minute, not once per login. */
const REPORT_EVERY_MS = 60_000;

function createRedisThrottleStore(redis: Redis, rule: LoginThrottleRule, now: () => number, prefix: string, onError: (error: unknown) => void): ThrottleStore {
  // While Redis is unreachable each node throttles on its own, so the limit still holds per node.
  const local = createMemoryThrottleStore(rule, now);
  redis.defineCommand('agentryLoginAdmit', { numberOfKeys: 3, lua: admitScript });
  redis.defineCommand('agentryLoginFailed', { numberOfKeys: 1, lua: failScript });
  let reportedAt = -Infinity;
  const report = (error: unknown) => {
    if (now() - reportedAt < REPORT_EVERY_MS) return;
    reportedAt = now();
    onError(error);
  };
  const keys = (account: string, address: string) => ({
    account: `${prefix}{${account}}:account`,
    known: `${prefix}{${account}}:known:${address}`,
    address: `${prefix}{${account}}:address:${address}`,
  });
  return {
    async admit(account, address, t) {
      const k = keys(account, address);
      try {
        const [admitted, waitMs, budget] = await (redis as RedisWithAdmit).agentryLoginAdmit(
          k.account,
          k.known,
          k.address,
          t,
          rule.freeFailures,
          rule.delayBaseMs,
          rule.delayMaxMs,
          rule.failureWindowMs,
        );
        return admitted === 1 ? { admitted: true, budget } : { admitted: false, waitMs };
      } catch (error) {
        report(error);
        const admission = await local.admit(account, address, t);
        return admission.admitted ? { admitted: true, budget: `${LOCAL}${admission.budget}` } : admission;
      }
    },
    async succeeded(account, address, budget, t) {
      const k = keys(account, address);
      if (budget.startsWith(LOCAL)) {
        budget = budget.slice(LOCAL.length);
        await local.succeeded(account, address, budget, t);
      }
      try {
        const steps = redis.multi().del(budget === 'address' ? k.address : k.account);
        if (rule.knownAddressMs > 0) steps.set(k.known, String(t + rule.knownAddressMs), 'PX', rule.knownAddressMs);
        await steps.exec();
      } catch (error) {
        report(error);
      }
    },
    async failed(account, address, budget, t) {
      if (budget.startsWith(LOCAL)) return local.failed(account, address, budget.slice(LOCAL.length), t);
      const k = keys(account, address);
      try {
        await (redis as RedisWithAdmit).agentryLoginFailed(
          budget === 'address' ? k.address : k.account,
          t,
          rule.freeFailures,
          rule.delayBaseMs,
          rule.delayMaxMs,
          rule.failureWindowMs,
        );
      } catch (error) {
        report(error);
      }
    },
    close: () => local.close(),
  };
}

export interface LoginThrottleOptions {
  rule: LoginThrottleRule;
  clock: Clock;
  /** Shares the budgets between nodes; null keeps them in this process. */
  redis: Redis | null;
  prefix?: string;
  onRedisError?: (error: unknown) => void;
}

export function createLoginThrottle({ rule, clock, redis, prefix = 'agentry-login:', onRedisError = () => {} }: LoginThrottleOptions): LoginThrottle {
  const now = () => clock.now().getTime();
  const store = redis ? createRedisThrottleStore(redis, rule, now, prefix, onRedisError) : createMemoryThrottleStore(rule, now);
  return {
    admit: async (email, address) => store.admit(accountKey(email), address, now()),
    succeeded: async (email, address, budget) => store.succeeded(accountKey(email), address, budget, now()),
    failed: async (email, address, budget) => store.failed(accountKey(email), address, budget, now()),
    close: () => store.close(),
  };
}
