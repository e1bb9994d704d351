/**
 * Trust per (subject key, task class) from verified outcome receipts. docs/trust.md explains the
 * formula; in short: a Bayesian mean around a neutral prior, where each issuing party's weight is
 * capped, issuers the subject controls count for nothing, and unclaimed issuers count half.
 */
export const TRUST_PRIOR = 0.5;
/** Pseudo-observations of the prior: a handful of receipts cannot push trust to the extremes. */
export const PRIOR_WEIGHT = 4;
/** Most evidence weight one party (an owner, or one unclaimed key) can contribute to one class. */
export const PARTY_WEIGHT_CAP = 3;
/** Unclaimed (provisional) issuers are free to create, so their word is discounted. */
export const UNCLAIMED_ISSUER_FACTOR = 0.5;

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
  pubkey: string;
  ownerId: string | null;
}

/** Registered agents by their key: looked up once per evidence row, so a map, not a list. */
export type RegisteredKeys = ReadonlyMap<string, readonly RegisteredIssuer[]>;

export interface ClassTrust {
  taskClass: string;
  score: number;
  receipts: number;
  issuers: number;
  weight: number;
}

export function findRegisteredIssuer(registered: RegisteredKeys, pubkey: string, agent: string): RegisteredIssuer | undefined {
  const candidates = registered.get(pubkey);
  // Ids are the service's; slugs come from names anyone picks, and anyone may register a copy of a
  // key, so a copy named after the real agent's id has that id as its slug: an id match wins.
  return candidates?.find((candidate) => candidate.id === agent) ?? candidates?.find((candidate) => candidate.slug === agent);
}

/**
 * @param subjectOwners owners of every registered agent holding the subject key: receipts from
 *   their other agents are self-dealing and count for nothing.
 */
export function scoreClasses(evidence: readonly IssuerEvidence[], registered: RegisteredKeys, subjectOwners: ReadonlySet<string>): ClassTrust[] {
  const byClass = new Map<string, Map<string, { receipts: number; valueSum: number; factor: number }>>();
  for (const item of evidence) {
    const issuer = findRegisteredIssuer(registered, item.issuerPubkey, item.issuerAgent);
    if (!issuer) continue;
    if (issuer.ownerId && subjectOwners.has(issuer.ownerId)) continue;
    // All agents of one owner are one party; an unclaimed key is a party of its own.
    const party = issuer.ownerId ? `owner:${issuer.ownerId}` : `key:${issuer.pubkey}`;
    const parties = byClass.get(item.taskClass) ?? new Map<string, { receipts: number; valueSum: number; factor: number }>();
    byClass.set(item.taskClass, parties);
    const entry = parties.get(party) ?? { receipts: 0, valueSum: 0, factor: issuer.ownerId ? 1 : UNCLAIMED_ISSUER_FACTOR };
    entry.receipts += item.receipts;
    entry.valueSum += item.valueSum;
    parties.set(party, entry);
  }

  const classes: ClassTrust[] = [];
  for (const [taskClass, parties] of byClass) {
    let weight = 0;
    let weightedValue = 0;
    let receipts = 0;
    for (const party of parties.values()) {
      const partyWeight = Math.min(party.receipts, PARTY_WEIGHT_CAP) * party.factor;
      weight += partyWeight;
      weightedValue += partyWeight * (party.valueSum / party.receipts);
      receipts += party.receipts;
    }
    const score = (TRUST_PRIOR * PRIOR_WEIGHT + weightedValue) / (PRIOR_WEIGHT + weight);
    classes.push({ taskClass, score: round(score), receipts, issuers: parties.size, weight: round(weight) });
  }
  return classes.sort((a, b) => b.weight - a.weight || a.taskClass.localeCompare(b.taskClass));
}

const round = (value: number) => Math.round(value * 10000) / 10000;
