/**
 * Verified domains (docs/registry.md, "Domain verification"): an owner proves control of its agent's
 * endpoint host by serving a token the registry issued at `/.well-known/agentry.json` on that host.
 * The registry reads the file through the outbound guard (public addresses only unless
 * ALLOW_PRIVATE_ENDPOINTS, its size and time limits), follows redirects only within the host, and
 * re-checks every verified agent daily; three days of failed re-checks take the mark off.
 */
import { randomBytes } from 'node:crypto';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import { publicFailureReason, type OutboundClient } from '../../lib/outbound-http.ts';
import type { Principal } from '../../lib/principal.ts';
import { domainOfEndpoint } from './identity.ts';
import type { AgentRecord } from './store.ts';
import type { RegistryStore } from './store.ts';

export const DOMAIN_FILE_PATH = '/.well-known/agentry.json';
const DAY_MS = 24 * 3600 * 1000;
/** A verified agent's file is read again once its last check is this old. */
export const RECHECK_AFTER_MS = DAY_MS;
/** Re-checks failing for this long since the first failure take the mark off. */
export const LOSE_AFTER_MS = 3 * DAY_MS;
/** Same-host redirects followed (http to https, a trailing slash); any redirect off the host fails the check. */
const MAX_REDIRECTS = 3;
/** Agents re-checked per pass; the next pass takes the rest. */
const RECHECK_BATCH = 50;

export interface DomainProofsDeps {
  store: Pick<RegistryStore, 'domainProofs'>;
  outbound: Pick<OutboundClient, 'send'>;
  clock: Clock;
  /** ALLOW_PRIVATE_ENDPOINTS: the file may then be read over plain http, as the endpoint is. */
  allowPrivate: boolean;
  /** The owner, whose agent it must be (403/404 as the registry decides). */
  findOwned(principal: Principal, id: string): Promise<AgentRecord>;
  /** Tells an owner that its agent lost its verified domain. */
  notifyOwner(accountId: string, text: string): Promise<unknown>;
  onError(error: unknown): void;
  /** How often a node asks whether re-checks are due. */
  recheckIntervalMs: number;
  /** Whether this node runs the pass now (one node of those sharing the database does). */
  scheduledPass(): Promise<boolean>;
}

type CheckOutcome = { ok: true } | { ok: false; url: string; problem: string };

export function createDomainProofs({
  store,
  outbound,
  clock,
  allowPrivate,
  findOwned,
  notifyOwner,
  onError,
  recheckIntervalMs,
  scheduledPass,
}: DomainProofsDeps) {
  const proofs = store.domainProofs;

  /** The agent's endpoint host and where its file is read: https, or http only where private endpoints are allowed and the endpoint is http. */
  function targetOf(agent: Pick<AgentRecord, 'endpoint'>): { domain: string; url: string } {
    const domain = domainOfEndpoint(agent.endpoint);
    if (domain === null)
      throw badRequest("A domain is proven for the agent's endpoint host, and this agent has no http(s) endpoint: set one first", [
        { path: '/endpoint', message: 'is required to verify a domain' },
      ]);
    const plain = allowPrivate && new URL(agent.endpoint!).protocol === 'http:';
    return { domain, url: `${plain ? 'http' : 'https'}://${domain}${DOMAIN_FILE_PATH}` };
  }

  /** Reads the file, following redirects that stay on the host; the problem is in words its owner can act on. */
  async function read(domain: string, url: string): Promise<{ ok: true; body: string } | { ok: false; problem: string }> {
    let target = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const result = await outbound.send({ url: target, method: 'GET', headers: { accept: 'application/json' }, requireFullBody: true });
      if (result.ok) return { ok: true, body: result.response.body };
      const location = result.failure.kind === 'redirect' ? result.response?.headers.location : undefined;
      if (location === undefined) return { ok: false, problem: publicFailureReason(result.failure, 'the domain file', result.response) };
      let next: URL;
      try {
        next = new URL(location, target);
      } catch {
        return { ok: false, problem: 'the domain file redirects to something that is not a URL' };
      }
      if (next.host.toLowerCase() !== domain || (next.protocol !== 'https:' && !(allowPrivate && next.protocol === 'http:')))
        return { ok: false, problem: `the domain file redirects off ${domain} (to ${next.protocol}//${next.host.slice(0, 100)}), which is not followed` };
      target = next.href;
    }
    return { ok: false, problem: `the domain file redirects more than ${MAX_REDIRECTS} times` };
  }

  /** Whether the file at the agent's host lists the agent with its token. */
  async function check(agentId: string, domain: string, url: string, token: string): Promise<CheckOutcome> {
    const fetched = await read(domain, url);
    if (!fetched.ok) return { ok: false, url, problem: fetched.problem };
    let parsed: unknown;
    try {
      parsed = JSON.parse(fetched.body);
    } catch {
      return { ok: false, url, problem: 'the domain file is not JSON' };
    }
    const agents = (parsed as { agents?: unknown } | null)?.agents;
    if (!Array.isArray(agents)) return { ok: false, url, problem: 'the domain file has no "agents" list' };
    const listed = agents.filter((entry): entry is { agentId: unknown; token: unknown } => (entry as { agentId?: unknown } | null)?.agentId === agentId);
    if (listed.length === 0) return { ok: false, url, problem: `the domain file's "agents" list has no entry with "agentId": "${agentId}"` };
    if (!listed.some((entry) => entry.token === token)) return { ok: false, url, problem: `the domain file lists agent ${agentId} with another token` };
    return { ok: true };
  }

  /** One verified agent's daily re-check. */
  async function recheck(due: Awaited<ReturnType<typeof proofs.due>>[number]): Promise<void> {
    const now = isoNow(clock);
    // The endpoint moved off the host since: the mark went with it, and the update took it off already.
    if (domainOfEndpoint(due.endpoint) !== due.domain) {
      await proofs.lose(due.agent_id, due.domain, 'the endpoint moved to another host', now);
      return;
    }
    const outcome = await check(due.agent_id, due.domain, targetOf(due).url, due.token);
    if (outcome.ok) {
      await proofs.passed(due.agent_id, due.domain, now);
      return;
    }
    const failingSince = await proofs.failed(due.agent_id, outcome.problem, now);
    if (Date.parse(now) - Date.parse(failingSince) < LOSE_AFTER_MS) return;
    const lost = await proofs.lose(due.agent_id, due.domain, 'the domain file failed its re-checks for 3 days', now);
    if (lost && due.owner_id !== null)
      await notifyOwner(
        due.owner_id,
        `Your agent "${due.name}" no longer shows ${due.domain} as its verified domain: ${outcome.url} failed every re-check for 3 days (the last: ${outcome.problem}). Serve the file again and verify the domain again.`,
      );
  }

  let running: Promise<void> | null = null;
  async function recheckAll(): Promise<void> {
    for (;;) {
      const due = await proofs.due(new Date(clock.now().getTime() - RECHECK_AFTER_MS + 1).toISOString(), RECHECK_BATCH);
      for (const agent of due) await recheck(agent).catch(onError);
      if (due.length < RECHECK_BATCH) return;
    }
  }

  let timer: NodeJS.Timeout | null = null;
  let scheduling: Promise<void> | null = null;
  function tick(): void {
    if (running || scheduling || timer === null) return;
    scheduling = scheduledPass()
      .then((mine) => (mine && timer !== null ? recheckDue() : undefined))
      .catch(onError)
      .finally(() => (scheduling = null));
  }

  function recheckDue(): Promise<void> {
    running ??= recheckAll()
      .catch(onError)
      .finally(() => (running = null));
    return running;
  }

  return {
    /** The token to serve and where: the same token while the endpoint stays on the same host. */
    async issue(principal: Principal, id: string) {
      const agent = await findOwned(principal, id);
      const { domain, url } = targetOf(agent);
      const proof = await proofs.issue(id, domain, `agentry-domain-${randomBytes(24).toString('base64url')}`, isoNow(clock));
      return {
        domain,
        token: proof.token,
        url,
        file: { agents: [{ agentId: id, token: proof.token }] },
      };
    },

    /** Reads the file now: the verified domain on success, else a 422 naming the URL and the problem. */
    async verify(principal: Principal, id: string) {
      const agent = await findOwned(principal, id);
      const { domain, url } = targetOf(agent);
      const proof = await proofs.find(id);
      if (!proof || proof.domain !== domain)
        throw badRequest(`Ask for a token for ${domain} first: POST /v1/agents/${id}/domain`, [{ path: '/domain', message: 'no token issued for this host' }]);
      const outcome = await check(id, domain, url, proof.token);
      if (!outcome.ok)
        throw new AppError('UNPROCESSABLE', `${domain} is not verified: ${outcome.problem} (tried ${outcome.url})`, [
          { path: '/domainFile', message: `${outcome.url}: ${outcome.problem}` },
        ]);
      const now = isoNow(clock);
      await proofs.passed(id, domain, now);
      return { agentId: id, verifiedDomain: domain, identityLevel: 'domain' as const, checkedAt: now };
    },

    /** Re-checks every verified agent whose last check is a day old; resolves when done. Tests with a manual clock call it. */
    recheckDue,
    start(): void {
      timer = setInterval(tick, recheckIntervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await scheduling;
      await running;
    },
  };
}

export type DomainProofs = ReturnType<typeof createDomainProofs>;
