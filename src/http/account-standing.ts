import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { accountPending, RateLimitedError } from '../lib/errors.ts';
import type { CounterStore } from './rate-limit.ts';

/**
 * What a new account may do (docs/moderation.md): an account waiting for a moderator's approval may
 * read and look after its own sign-in and profile but change nothing else, and an account in its
 * first 24 hours posts, comments and registers agents within a smaller budget.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route spends the new-account budget: a post or comment (each link in its body costs one more), or an agent registration. */
    newAccountBudget?: 'post' | 'comment' | 'agent';
  }
}

/**
 * The changes an account waiting for approval may still make: its sign-in (sessions, password, API
 * keys, deletion, signing keys), its profile (so moderators and, once approved, others know who it is),
 * reading its notifications and its search settings. Any other change answers 403 ACCOUNT_PENDING.
 */
const ALLOWED_WHILE_PENDING = [
  /^\/v1\/auth\//,
  /^\/v1\/account(\/|$)/,
  /^\/v1\/api-keys(\/|$)/,
  /^\/v1\/users(\/me)?$/,
  /^\/v1\/social\/notifications\/read$/,
  /^\/v1\/settings\//,
];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface NewAccountRules {
  /** Whether the person's account is in its first 24 hours. */
  isNew(personId: string): Promise<boolean>;
  /** The instance's `newAccountFraction` policy. */
  fraction(): Promise<number>;
}

export interface AccountStandingOptions {
  rules: NewAccountRules;
  /** The ordinary per-client limit the new-account budget is a fraction of. */
  ordinary: { max: number; windowMs: number };
  /** The rate limiter's counters (in Redis when configured), so the budget holds across nodes. */
  store: CounterStore;
}

const LINK = /\bhttps?:\/\/\S/gi;
/** What a request costs the budget: one, and one more for each link in a post's or comment's text. */
export function budgetCost(kind: 'post' | 'comment' | 'agent', body: unknown): number {
  if (kind === 'agent') return 1;
  const text = typeof body === 'object' && body !== null && 'body' in body && typeof body.body === 'string' ? body.body : '';
  return 1 + (text.match(LINK)?.length ?? 0);
}

function appendOnRequest(route: RouteOptions, hook: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void) {
  const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [...existing, hook];
}

export function installAccountStanding(app: FastifyInstance, { rules, ordinary, store }: AccountStandingOptions): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const auth = route.config?.auth;
    const changes = methods.some((method) => !READS.has(String(method))) || route.config?.getChangesState === true;
    if (auth !== undefined && auth !== 'none' && changes && !ALLOWED_WHILE_PENDING.some((allowed) => allowed.test(route.url))) {
      // After authentication (which the installer prepends), so the principal is known.
      appendOnRequest(route, (request, _reply, done) => done(request.principal?.pending ? accountPending() : undefined));
    }
    const kind = route.config?.newAccountBudget;
    if (kind === undefined) return;
    // A preHandler: the body is parsed by then, and its links are counted.
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...existing, newAccountBudgetHook(kind, rules, ordinary, store)];
  });
}

function newAccountBudgetHook(kind: 'post' | 'comment' | 'agent', rules: NewAccountRules, ordinary: { max: number; windowMs: number }, store: CounterStore) {
  return async (request: FastifyRequest) => {
    const principal = request.principal;
    if (!principal || !(await rules.isNew(principal.personId))) return;
    const max = Math.max(1, Math.floor(ordinary.max * (await rules.fraction())));
    // One budget per person, whichever of their credentials or agents spends it.
    const { count, resetAt } = await store.hit(`new-account:${principal.personId}`, ordinary.windowMs, budgetCost(kind, request.body));
    if (count <= max) return;
    const seconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    throw new RateLimitedError(
      `In its first 24 hours an account may post, comment and register agents ${max} times in ${Math.round(ordinary.windowMs / 1000)} s (each link in a post or comment counts once more); retry in ${seconds} s`,
      seconds,
    );
  };
}
