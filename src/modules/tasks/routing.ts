/**
 * Which agents may take a task, and in what order. docs/routing.md states the formula; the dry run
 * (`POST /v1/tasks/route`) shows every factor so the order can be checked by hand.
 */
import { expandCapabilityTerms, findCapability, normalizeCapabilityTerm } from '../catalog/index.ts';
import type { ClassTrust, TrustLookup } from '../receipts/index.ts';
import type { AgentRecord, Availability } from '../registry/index.ts';
import type { Health } from '../health/index.ts';
import type { AgentTaskStats } from './store.ts';

export const ROUTING_WEIGHTS = { capability: 0.35, trust: 0.25, rating: 0.15, responseTime: 0.1, availability: 0.1, load: 0.05 } as const;
export type Factors = { [K in keyof typeof ROUTING_WEIGHTS]: number };

/** An agent never heard from ranks below one heard from within a day (offline agents are excluded before scoring). */
const AVAILABILITY_FACTOR: Record<Availability, number> = { available: 1, away: 0.5, unknown: 0.25, offline: 0 };

/** A task is offered to at most this many agents in turn. */
export const MAX_CANDIDATES = 5;
const NEUTRAL = 0.5;
/** Ratings are damped towards 3 of 5 as if three such ratings had been given. */
const RATING_PRIOR = { mean: 3, weight: 3 };
/** Mean seconds to completion at which the response-time factor is one half. */
const RESPONSE_HALF_SECONDS = 60;

export interface RoutingRequest {
  capabilities: string[];
  taskClass: string | null;
  maxPriceCents: number | null;
  currency: string;
}

export interface Candidate {
  agent: AgentRecord;
  score: number;
  factors: Factors;
  availability: Availability;
}

export interface Exclusion extends ExclusionCause {
  agent: AgentRecord;
}

export interface RoutingDeps {
  availabilityOf(agent: AgentRecord): Availability;
  /** The health the registry measures (docs/registry.md): a `down` agent is not routed to. */
  healthOf(agentId: string): Pick<Health, 'status' | 'lastFailure'>;
  trust: TrustLookup;
  statsFor(agentIds: string[]): Promise<Map<string, AgentTaskStats>>;
}

/** Every catalogue spelling of each requested capability, normalised: what agents' tags are compared with. */
export function requestedTermSets(capabilities: string[]): Set<string>[] {
  return capabilities.map((capability) => new Set(expandCapabilityTerms(capability).map(normalizeCapabilityTerm)));
}

/** Share of the requested capabilities an agent's tags cover (aliases of the catalogue count). */
export function capabilityMatch(agentCapabilities: string[], requested: Set<string>[]): number {
  if (requested.length === 0) return 1;
  const agentTerms = new Set<string>();
  for (const tag of agentCapabilities) {
    agentTerms.add(normalizeCapabilityTerm(tag));
    const known = findCapability(tag);
    if (known) agentTerms.add(normalizeCapabilityTerm(known.slug));
  }
  const covered = requested.filter((terms) => [...terms].some((term) => agentTerms.has(term))).length;
  return covered / requested.length;
}

/** Trust for the task's class if the key has evidence there, else the evidence-weighted mean of its classes. */
export function trustFactor(classes: ClassTrust[] | undefined, taskClass: string | null): number {
  if (!classes || classes.length === 0) return NEUTRAL;
  if (taskClass) {
    const exact = classes.find((entry) => entry.taskClass === taskClass);
    if (exact) return exact.score;
  }
  const weight = classes.reduce((sum, entry) => sum + entry.weight, 0);
  return weight > 0 ? classes.reduce((sum, entry) => sum + entry.score * entry.weight, 0) / weight : NEUTRAL;
}

/** Why an agent cannot take a task: a stable code (counted in an unmatched task's error) and the reason in words. */
export interface ExclusionCause {
  code: 'offline' | 'down' | 'maintenance' | 'no_endpoint' | 'no_webhook_secret' | 'price_unbudgeted' | 'price_currency' | 'price_above_max';
  reason: string;
}

/** How an unmatched task's message counts each cause: "1 offline, 2 above your maxPriceCents". */
const CAUSE_LABELS: Record<ExclusionCause['code'], string> = {
  offline: 'offline',
  down: 'down (failing their health checks)',
  maintenance: 'in maintenance',
  no_endpoint: 'without an endpoint',
  no_webhook_secret: 'without a webhook secret',
  price_unbudgeted: 'paid while your task names no maxPriceCents',
  price_currency: 'priced in another currency',
  price_above_max: 'above your maxPriceCents',
};

function exclusionOf(
  agent: AgentRecord,
  availability: Availability,
  health: Pick<Health, 'status' | 'lastFailure'>,
  request: RoutingRequest,
): ExclusionCause | null {
  if (availability === 'offline') return { code: 'offline', reason: 'offline: no heartbeat or poll in the last 24 hours' };
  if (health.status === 'down')
    return { code: 'down', reason: `down: its last health checks failed${health.lastFailure ? ` (${health.lastFailure.reason})` : ''}` };
  if (agent.reportedStatus === 'maintenance') return { code: 'maintenance', reason: 'in maintenance (last heartbeat)' };
  if (agent.deliveryMode === 'webhook') {
    if (!agent.endpoint) return { code: 'no_endpoint', reason: 'no endpoint and not polling' };
    if (!agent.webhookSecret) return { code: 'no_webhook_secret', reason: 'no webhook secret (POST /v1/agents/:id/webhook-secret) to sign deliveries with' };
  }
  if (agent.deliveryMode === 'a2a' && !agent.endpoint) return { code: 'no_endpoint', reason: 'no A2A endpoint' };
  return priceExclusion(agent, request);
}

/** A free agent fits every task; a paid one needs a budget, in its currency, at or above its price. */
export function priceExclusion(
  agent: Pick<AgentRecord, 'pricePerTaskCents' | 'currency'>,
  request: Pick<RoutingRequest, 'maxPriceCents' | 'currency'>,
): ExclusionCause | null {
  const price = agent.pricePerTaskCents;
  if (price === 0) return null;
  if (request.maxPriceCents === null) {
    return {
      code: 'price_unbudgeted',
      reason: `price ${price} ${agent.currency} cents, and the task names no maxPriceCents (only free agents are chosen without one)`,
    };
  }
  if (agent.currency !== request.currency) return { code: 'price_currency', reason: `priced in ${agent.currency}; the task pays in ${request.currency}` };
  if (price > request.maxPriceCents) return { code: 'price_above_max', reason: `price ${price} cents is above maxPriceCents ${request.maxPriceCents}` };
  return null;
}

/**
 * The error an unmatched task records: how many agents the requester may see could have taken it,
 * and why each could not, counted by cause. Built from the same exclusions as the dry run, which
 * holds only agents the requester may see, so a hidden agent is never counted.
 */
export function unmatchedError(excluded: Exclusion[], named: boolean, capabilities: string[]) {
  const counts: Partial<Record<ExclusionCause['code'], number>> = {};
  for (const entry of excluded) counts[entry.code] = (counts[entry.code] ?? 0) + 1;
  const quoted = capabilities.map((capability) => `"${capability}"`).join(', ');
  let message: string;
  if (named) {
    message = excluded[0] ? `The agent you named cannot take it: ${excluded[0].reason}` : 'The agent you named cannot take it';
  } else if (excluded.length === 0) {
    message = `No agent you can see has ${capabilities.length === 1 ? 'the capability' : 'any of the capabilities'} ${quoted}`;
  } else {
    const causes = (Object.keys(counts) as ExclusionCause['code'][]).map((code) => `${counts[code]} ${CAUSE_LABELS[code]}`).join(', ');
    const agents = excluded.length === 1 ? '1 agent you can see has' : `${excluded.length} agents you can see have`;
    message = `${agents} ${capabilities.length === 1 ? 'this capability' : 'these capabilities'} (${quoted}): ${causes}`;
  }
  // A named agent's refusal says why, and for a price what the agent asks, so the requester can send again with that budget.
  const refusal = named && excluded[0] ? namedRefusal(excluded[0]) : {};
  return { code: 'no_agent', message, matching: excluded.length, excluded: counts, ...refusal };
}

function namedRefusal({ agent, code }: Exclusion) {
  const priced = code === 'price_unbudgeted' || code === 'price_currency' || code === 'price_above_max';
  return { cause: code, ...(priced && { agentPrice: { cents: agent.pricePerTaskCents, currency: agent.currency } }) };
}

const round = (value: number) => Math.round(value * 10000) / 10000;

/**
 * Ranks visible agents for a task. `agents` must already be limited to those the requester may see;
 * `requireCapability` is false when the requester named the agent.
 */
export async function rankCandidates(
  agents: AgentRecord[],
  request: RoutingRequest,
  deps: RoutingDeps,
  requireCapability: boolean,
): Promise<{ candidates: Candidate[]; excluded: Exclusion[] }> {
  const requested = requestedTermSets(request.capabilities);
  const excluded: Exclusion[] = [];
  const eligible: { agent: AgentRecord; capability: number; availability: Availability }[] = [];
  for (const agent of agents) {
    const capability = capabilityMatch(agent.capabilities, requested);
    if (requireCapability && capability === 0) continue;
    const availability = deps.availabilityOf(agent);
    const cause = exclusionOf(agent, availability, deps.healthOf(agent.id), request);
    if (cause) excluded.push({ agent, ...cause });
    else eligible.push({ agent, capability, availability });
  }

  // Only proven keys bring their trust: an agent registered under someone else's key stays neutral.
  const keys = eligible.map((entry) => entry.agent.provenKey).filter((key): key is string => key !== null);
  const [trust, stats] = await Promise.all([deps.trust.trustBySubject(keys), deps.statsFor(eligible.map((entry) => entry.agent.id))]);

  const candidates = eligible.map(({ agent, capability, availability }): Candidate => {
    const history = stats.get(agent.id);
    const key = agent.provenKey;
    const ratingMean = (RATING_PRIOR.mean * RATING_PRIOR.weight + (history?.ratingSum ?? 0)) / (RATING_PRIOR.weight + (history?.ratings ?? 0));
    const busy = agent.reportedStatus === 'busy' ? 0.5 : 1;
    const factors: Factors = {
      capability: round(capability),
      trust: round(trustFactor(key ? trust.get(key) : undefined, request.taskClass)),
      rating: round((ratingMean - 1) / 4),
      responseTime: round(history?.meanSeconds == null ? NEUTRAL : 1 / (1 + history.meanSeconds / RESPONSE_HALF_SECONDS)),
      availability: AVAILABILITY_FACTOR[availability] * busy,
      load: round(1 - Math.min(1, Math.max(0, agent.reportedLoad ?? 0))),
    };
    const score = (Object.keys(ROUTING_WEIGHTS) as (keyof Factors)[]).reduce((sum, key) => sum + ROUTING_WEIGHTS[key] * factors[key], 0);
    return { agent, score: round(score), factors, availability };
  });
  // Ties go to the longest-registered agent, then the smaller id: the same inputs always give the same order.
  candidates.sort((a, b) => b.score - a.score || a.agent.createdAt.localeCompare(b.agent.createdAt) || a.agent.id.localeCompare(b.agent.id));
  return { candidates, excluded };
}
