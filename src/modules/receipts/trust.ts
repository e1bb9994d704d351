/**
 * Trust per (subject key, task class) from verified outcome receipts. docs/trust.md explains the
 * formula; in short: a Bayesian mean around a neutral prior, where each issuing party's weight is
 * capped, issuers the subject controls count for nothing, outcomes bound to a task this registry
 * routed weigh fully, other outcomes from owners half, and those from unclaimed keys a quarter.
 */
export const TRUST_PRIOR = 0.5;
/** Pseudo-observations of the prior: a handful of receipts cannot push trust to the extremes. */
export const PRIOR_WEIGHT = 4;
/** Most evidence weight one party (an owner, or one unclaimed key) can contribute to one class. */
export const PARTY_WEIGHT_CAP = 3;
/** An outcome bound to a task this registry routed and saw end: real work, the full weight. */
export const TASK_BOUND_FACTOR = 1;
/** An owner's outcome about no task of ours: cheap talk between accounts, which cost a sign-up each. */
export const OWNER_UNBOUND_FACTOR = 0.5;
/** Unclaimed (provisional) issuers cost nothing to create and can never be task-bound: less again. */
export const UNCLAIMED_ISSUER_FACTOR = 0.25;

export const outcomeValue: Record<string, number> = { success: 1, partial: 0.5, failure: 0, rolled_back: 0 };

/** Verified, unexpired outcome receipts of one issuer key about one subject key in one class. */
export interface IssuerEvidence {
  taskClass: string;
  issuerPubkey: string;
  issuerAgent: string;
  receipts: number;
  valueSum: number;
}

/** A registered agent that could be the issuer: its key, names it answers to, and who owns it. */
export interface RegisteredIssuer {
  id: string;
  slug: string;
  name: string;
  pubkey: string;
  ownerId: string | null;
  /** Proved to hold `pubkey`, and public: the agent a page may name as the key's holder. */
  provenPublic: boolean;
}

/** Registered agents by their key: looked up once per evidence row, so a map, not a list. */
export type RegisteredKeys = ReadonlyMap<string, readonly RegisteredIssuer[]>;

export interface ClassTrust {
  taskClass: string;
  score: number;
  receipts: number;
  issuers: number;
  weight: number;
  /** Counted receipts bound to tasks (one per task at most). */
  taskBound: number;
}

/** An account's signing key stands for the account (its `id` is `account:<account id>`), whatever `issuer.agent` says. */
export const isAccountKey = (issuer: RegisteredIssuer): boolean => issuer.id.startsWith('account:');

export function findRegisteredIssuer(registered: RegisteredKeys, pubkey: string, agent: string): RegisteredIssuer | undefined {
  const candidates = registered.get(pubkey);
  // A key registered on an account was proven by its holder, and only one account may hold it.
  const account = candidates?.find(isAccountKey);
  if (account) return account;
  // Ids are the service's; slugs come from names anyone picks, and anyone may register a copy of a
  // key, so a copy named after the real agent's id has that id as its slug: an id match wins.
  return candidates?.find((candidate) => candidate.id === agent) ?? candidates?.find((candidate) => candidate.slug === agent);
}

/** Why a receipt does not count towards its subject's trust (null: it counts). */
export const notCountedReasons = [
  'signature not verified',
  'not an outcome',
  'issuer is the subject',
  'issuer key not registered',
  "issuer owned by the subject's owner",
] as const;
export type NotCountedReason = (typeof notCountedReasons)[number];

/** What decides whether a receipt counts: its kind, whether its signature verified, and who issued it about whom. */
export interface ReceiptStanding {
  kind: string;
  signatureVerified: boolean;
  issuerPubkey: string;
  issuerAgent: string;
  subjectPubkey: string;
}

/**
 * Whether a receipt counts towards its subject's trust, and if not, why: the one rule, used by the
 * acknowledgement of every receipt and by the trust score. Trust is what others sign about an
 * agent: only verified outcomes count, issued by a registered agent that is neither the subject's
 * key nor owned by an owner of the subject.
 *
 * @param subjectOwners owners of every registered agent holding the subject key: receipts from
 *   their other agents are self-dealing and count for nothing.
 */
export function receiptCounts(
  receipt: ReceiptStanding,
  registered: RegisteredKeys,
  subjectOwners: ReadonlySet<string>,
): { counts: true; countsReason: null; issuer: RegisteredIssuer } | { counts: false; countsReason: NotCountedReason } {
  const no = (countsReason: NotCountedReason) => ({ counts: false as const, countsReason });
  if (!receipt.signatureVerified) return no('signature not verified');
  if (receipt.kind !== 'outcome') return no('not an outcome');
  if (receipt.issuerPubkey === receipt.subjectPubkey) return no('issuer is the subject');
  const issuer = findRegisteredIssuer(registered, receipt.issuerPubkey, receipt.issuerAgent);
  if (!issuer) return no('issuer key not registered');
  if (issuer.ownerId && subjectOwners.has(issuer.ownerId)) return no("issuer owned by the subject's owner");
  return { counts: true, countsReason: null, issuer };
}

/** Why a counted outcome is not bound to a task (null: it is). */
export const notBoundReasons = [
  'correlation id is not a task id of this registry',
  'no task with this id',
  'task not finished',
  'subject is not the agent that took the task',
  'the agent that took the task has not proven its key',
  'issuer is not the requester',
  'task class differs',
  'another receipt binds this task',
] as const;
export type NotBoundReason = (typeof notBoundReasons)[number];

/** This registry's task ids are random (version 4) UUIDs: another shape was minted elsewhere. */
const TASK_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What the registry knows of the task a receipt's correlation id names, as it matters to that receipt. */
export interface TaskOfReceipt {
  status: string;
  /** Registration key of the agent the task was assigned to (null: none). */
  agentPubkey: string | null;
  agentKeyProven: boolean;
  /** The receipt's issuer key is one of the requester's: an agent the requester's account owns or is, or a signing key it registered. */
  issuerIsRequester: boolean;
  /** taskClassOf(requested class, the agent's capabilities). */
  taskClass: string | null;
}

/**
 * Whether a counted outcome is bound to a task this registry routed, and if not, why: the one rule,
 * used by the acknowledgement, the score and its explanation. `task` is undefined for an id no task has.
 */
export function taskBinding(
  receipt: { correlationId: string; subjectPubkey: string; taskClass: string },
  task: TaskOfReceipt | undefined,
): { taskBound: true; taskBoundReason: null } | { taskBound: false; taskBoundReason: NotBoundReason } {
  const no = (taskBoundReason: NotBoundReason) => ({ taskBound: false as const, taskBoundReason });
  if (!TASK_ID_SHAPE.test(receipt.correlationId)) return no('correlation id is not a task id of this registry');
  if (!task) return no('no task with this id');
  if (task.status !== 'completed' && task.status !== 'failed') return no('task not finished');
  if (task.agentPubkey !== receipt.subjectPubkey) return no('subject is not the agent that took the task');
  if (!task.agentKeyProven) return no('the agent that took the task has not proven its key');
  if (!task.issuerIsRequester) return no('issuer is not the requester');
  if (task.taskClass !== receipt.taskClass) return no('task class differs');
  return { taskBound: true, taskBoundReason: null };
}

/** Owners of the registered agents holding `subjectPubkey`. */
export const ownersOf = (registered: RegisteredKeys, subjectPubkey: string): Set<string> =>
  new Set((registered.get(subjectPubkey) ?? []).flatMap((agent) => (agent.ownerId ? [agent.ownerId] : [])));

/** One verified, unexpired outcome about the subject whose correlation id is a finished task routed to an agent under the subject key. */
export interface BoundCandidate {
  receiptId: string;
  correlationId: string;
  taskClass: string;
  issuerPubkey: string;
  issuerAgent: string;
  issuedAt: string;
  value: number;
  task: TaskOfReceipt;
}

/** A party's counted evidence in one class and what it weighs. */
export interface PartyEvidence {
  party: { kind: 'owner'; id: string } | { kind: 'key'; pubkey: string };
  weight: number;
  /** Mean value of its evidence, weighted as its weight is. */
  value: number;
  taskBound: { receiptId: string; correlationId: string; issuerPubkey: string; value: number }[];
  unbound: { issuerPubkey: string; issuerAgent: string; receipts: number; valueSum: number; factor: number }[];
}

/** Evidence of one issuer that did not count, and why. */
export interface UncountedEvidence {
  issuerPubkey: string;
  issuerAgent: string;
  receipts: number;
  reason: NotCountedReason;
}

/** Why a receipt about a task counted as an ordinary outcome instead of a task-bound one. */
export interface UnboundTaskReceipt {
  receiptId: string;
  correlationId: string;
  issuerPubkey: string;
  reason: NotBoundReason;
}

export interface ClassEvidence {
  taskClass: string;
  score: number;
  weight: number;
  parties: PartyEvidence[];
  uncounted: UncountedEvidence[];
  unboundTaskReceipts: UnboundTaskReceipt[];
}

/**
 * Every class's evidence about one subject key, party by party: the score and its explanation are
 * both read from this, so they cannot disagree. `evidence` is the summed verified outcomes per issuer
 * (bound receipts included); `bound` the receipts that may be bound to tasks. Each counts as
 * `receiptCounts` decides, and binds as `taskBinding` decides; a task binds at most one receipt,
 * its requester's latest (the others count as ordinary outcomes).
 */
export function weighEvidence(
  evidence: readonly IssuerEvidence[],
  bound: readonly BoundCandidate[],
  registered: RegisteredKeys,
  subjectPubkey: string,
): ClassEvidence[] {
  const subjectOwners = ownersOf(registered, subjectPubkey);
  const standingOf = (issuerPubkey: string, issuerAgent: string) =>
    receiptCounts({ kind: 'outcome', signatureVerified: true, issuerPubkey, issuerAgent, subjectPubkey }, registered, subjectOwners);
  const classes = new Map<string, { parties: Map<string, PartyEvidence>; uncounted: UncountedEvidence[]; unboundTaskReceipts: UnboundTaskReceipt[] }>();
  const classOf = (taskClass: string) => {
    let entry = classes.get(taskClass);
    if (!entry) classes.set(taskClass, (entry = { parties: new Map(), uncounted: [], unboundTaskReceipts: [] }));
    return entry;
  };
  const partyOf = (taskClass: string, issuer: RegisteredIssuer) => {
    // All agents and keys of one owner are one party; an unclaimed key is a party of its own.
    const key = issuer.ownerId ? `owner:${issuer.ownerId}` : `key:${issuer.pubkey}`;
    const parties = classOf(taskClass).parties;
    let party = parties.get(key);
    if (!party) {
      party = {
        party: issuer.ownerId ? { kind: 'owner', id: issuer.ownerId } : { kind: 'key', pubkey: issuer.pubkey },
        weight: 0,
        value: 0,
        taskBound: [],
        unbound: [],
      };
      parties.set(key, party);
    }
    return party;
  };

  // The receipts bound to tasks: per task, the latest issued of those that bind.
  const byTask = new Map<string, BoundCandidate>();
  const boundBySums = new Map<string, { receipts: number; valueSum: number }>();
  for (const candidate of bound) {
    if (!standingOf(candidate.issuerPubkey, candidate.issuerAgent).counts) continue;
    const binding = taskBinding({ ...candidate, subjectPubkey }, candidate.task);
    if (!binding.taskBound) {
      classOf(candidate.taskClass).unboundTaskReceipts.push({ ...pick(candidate), reason: binding.taskBoundReason });
      continue;
    }
    const held = byTask.get(candidate.correlationId);
    const later = !held || candidate.issuedAt > held.issuedAt || (candidate.issuedAt === held.issuedAt && candidate.receiptId > held.receiptId);
    if (held)
      classOf((later ? held : candidate).taskClass).unboundTaskReceipts.push({ ...pick(later ? held : candidate), reason: 'another receipt binds this task' });
    if (later) byTask.set(candidate.correlationId, candidate);
  }
  for (const receipt of byTask.values()) {
    const issuer = (standingOf(receipt.issuerPubkey, receipt.issuerAgent) as { issuer: RegisteredIssuer }).issuer;
    partyOf(receipt.taskClass, issuer).taskBound.push({ ...pick(receipt), value: receipt.value });
    const sumsKey = `${receipt.taskClass}\n${receipt.issuerPubkey}\n${receipt.issuerAgent}`;
    const taken = boundBySums.get(sumsKey) ?? { receipts: 0, valueSum: 0 };
    taken.receipts += 1;
    taken.valueSum += receipt.value;
    boundBySums.set(sumsKey, taken);
  }

  // The rest of the summed evidence: ordinary outcomes, or evidence that does not count.
  for (const item of evidence) {
    const taken = boundBySums.get(`${item.taskClass}\n${item.issuerPubkey}\n${item.issuerAgent}`);
    const receipts = item.receipts - (taken?.receipts ?? 0);
    if (receipts <= 0) continue;
    const valueSum = item.valueSum - (taken?.valueSum ?? 0);
    const standing = standingOf(item.issuerPubkey, item.issuerAgent);
    if (!standing.counts) {
      classOf(item.taskClass).uncounted.push({ issuerPubkey: item.issuerPubkey, issuerAgent: item.issuerAgent, receipts, reason: standing.countsReason });
      continue;
    }
    const factor = standing.issuer.ownerId ? OWNER_UNBOUND_FACTOR : UNCLAIMED_ISSUER_FACTOR;
    partyOf(item.taskClass, standing.issuer).unbound.push({ issuerPubkey: item.issuerPubkey, issuerAgent: item.issuerAgent, receipts, valueSum, factor });
  }

  const result: ClassEvidence[] = [];
  for (const [taskClass, entry] of classes) {
    let weight = 0;
    let weightedValue = 0;
    for (const party of entry.parties.values()) {
      const weighed = weighParty(party);
      weight += weighed.weight;
      weightedValue += weighed.weight * weighed.value;
      party.weight = round(weighed.weight);
      party.value = round(weighed.value);
    }
    const score = (TRUST_PRIOR * PRIOR_WEIGHT + weightedValue) / (PRIOR_WEIGHT + weight);
    const parties = [...entry.parties.values()].sort((a, b) => b.weight - a.weight);
    result.push({ taskClass, score: round(score), weight: round(weight), parties, uncounted: entry.uncounted, unboundTaskReceipts: entry.unboundTaskReceipts });
  }
  return result.sort((a, b) => b.weight - a.weight || a.taskClass.localeCompare(b.taskClass));
}

const pick = (receipt: BoundCandidate) => ({ receiptId: receipt.receiptId, correlationId: receipt.correlationId, issuerPubkey: receipt.issuerPubkey });

/**
 * A party's weight: its task-bound receipts count up to the cap at full weight, its other outcomes
 * up to the cap at their factor, and the two together never more than the cap.
 */
function weighParty(party: PartyEvidence): { weight: number; value: number } {
  const boundCount = party.taskBound.length;
  const boundMean = boundCount ? party.taskBound.reduce((sum, receipt) => sum + receipt.value, 0) / boundCount : 0;
  const boundWeight = Math.min(boundCount, PARTY_WEIGHT_CAP) * TASK_BOUND_FACTOR;
  const unboundCount = party.unbound.reduce((sum, item) => sum + item.receipts, 0);
  const unboundMean = unboundCount ? party.unbound.reduce((sum, item) => sum + item.valueSum, 0) / unboundCount : 0;
  // One party's issuers share one factor: an owner's (agents and account keys) or one unclaimed key's.
  const unboundWeight = Math.min(unboundCount, PARTY_WEIGHT_CAP) * (party.unbound[0]?.factor ?? 0);
  const raw = boundWeight + unboundWeight;
  return { weight: Math.min(raw, PARTY_WEIGHT_CAP), value: raw > 0 ? (boundWeight * boundMean + unboundWeight * unboundMean) / raw : 0 };
}

/** Trust per class of one subject key: the score of `weighEvidence`, in short. */
export function scoreClasses(
  evidence: readonly IssuerEvidence[],
  bound: readonly BoundCandidate[],
  registered: RegisteredKeys,
  subjectPubkey: string,
): ClassTrust[] {
  return weighEvidence(evidence, bound, registered, subjectPubkey)
    .filter((entry) => entry.parties.length > 0)
    .map((entry) => ({
      taskClass: entry.taskClass,
      score: entry.score,
      receipts: entry.parties.reduce((sum, party) => sum + party.taskBound.length + party.unbound.reduce((n, item) => n + item.receipts, 0), 0),
      issuers: entry.parties.length,
      weight: entry.weight,
      taskBound: entry.parties.reduce((sum, party) => sum + party.taskBound.length, 0),
    }));
}

const round = (value: number) => Math.round(value * 10000) / 10000;
