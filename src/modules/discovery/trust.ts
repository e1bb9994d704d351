import type { ClassTrust } from '../receipts/index.ts';
import { stem, wordsOf } from '../../lib/words.ts';

/** What discovery reads of a class's trust (the receipts module scores it). */
type TrustEvidence = Pick<ClassTrust, 'taskClass' | 'score' | 'receipts'>;

/** Trust of an agent with no evidence: neither rewarded nor punished. */
export const NEUTRAL_TRUST = 0.5;

/** A dotted class's words, stemmed: `code.review.pull_request` -> code, review, pull, request. */
const classStems = (taskClass: string): string[] => wordsOf(taskClass.replace(/[._-]+/g, ' ')).map(stem);

const weightedMean = (evidence: TrustEvidence[]): number => {
  const receipts = evidence.reduce((sum, e) => sum + e.receipts, 0);
  return receipts > 0 ? evidence.reduce((sum, e) => sum + e.score * e.receipts, 0) / receipts : NEUTRAL_TRUST;
};

/**
 * An agent's trust for this query: the receipt-weighted mean over the task classes that match the
 * query (a class matches when one of its words, stemmed, is among the query's words or the words of
 * the catalogue capabilities the query names or filters by), else over all its classes, else neutral.
 */
export function trustFor(evidence: TrustEvidence[] | undefined, queryStems: ReadonlySet<string>): number {
  return trustWithSample(evidence, queryStems).trust;
}

/** The same trust with the number of receipts behind it, so a reader can tell 0.9 from one receipt and from a thousand. */
export function trustWithSample(evidence: TrustEvidence[] | undefined, queryStems: ReadonlySet<string>): { trust: number; receipts: number } {
  if (!evidence || evidence.length === 0) return { trust: NEUTRAL_TRUST, receipts: 0 };
  const matching = evidence.filter((e) => classStems(e.taskClass).some((s) => queryStems.has(s)));
  const used = matching.length > 0 ? matching : evidence;
  return { trust: Math.min(1, Math.max(0, weightedMean(used))), receipts: used.reduce((sum, e) => sum + e.receipts, 0) };
}
