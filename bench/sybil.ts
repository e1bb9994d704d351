/**
 * Sybil bench: how far a ring of N fresh accounts trading outcome receipts about one key can move
 * its score, against honest task-bound evidence from real completed tasks; under the rules before
 * task binding (every owner's outcome weighed 1, unclaimed keys 0.5) and after (task-bound 1, other
 * owner outcomes 0.5, unclaimed keys 0.25). It runs the service's own weighing (weighEvidence) on
 * the evidence each scenario produces, so the figures are the scores GET /v1/trust would answer.
 * Run: node --import tsx bench/sybil.ts
 */
import { randomUUID } from 'node:crypto';
import { weighEvidence, type BoundCandidate, type IssuerEvidence, type RegisteredIssuer } from '../src/modules/receipts/trust.ts';

const CLASS = 'writing.text-summarization';
const SUBJECT = 'ed25519:subject';

interface Scenario {
  /** Ring members (fresh accounts, or unclaimed keys), each sending `perMember` successes about no task. */
  ring: number;
  ringKind: 'owner' | 'unclaimed';
  /** Honest requesters, each with `honestTasks` finished tasks they rated a failure, task-bound. */
  honest: number;
}

function score(scenario: Scenario, rules: 'before' | 'after', perMember = 10, honestTasks = 3): number {
  const registered = new Map<string, RegisteredIssuer[]>();
  const evidence: IssuerEvidence[] = [];
  const bound: BoundCandidate[] = [];
  const issuer = (pubkey: string, ownerId: string | null) =>
    registered.set(pubkey, [{ id: pubkey, slug: pubkey, name: pubkey, pubkey, ownerId, provenPublic: true }]);
  for (let i = 0; i < scenario.ring; i++) {
    const pubkey = `ed25519:ring-${i}`;
    issuer(pubkey, scenario.ringKind === 'owner' ? `ring-account-${i}` : null);
    evidence.push({ taskClass: CLASS, issuerPubkey: pubkey, issuerAgent: pubkey, receipts: perMember, valueSum: perMember });
  }
  for (let i = 0; i < scenario.honest; i++) {
    const pubkey = `ed25519:honest-${i}`;
    issuer(pubkey, `honest-account-${i}`);
    evidence.push({ taskClass: CLASS, issuerPubkey: pubkey, issuerAgent: pubkey, receipts: honestTasks, valueSum: 0 });
    // Before task binding there was no binding: the same receipts were ordinary owner outcomes.
    if (rules === 'after')
      for (let t = 0; t < honestTasks; t++)
        bound.push({
          receiptId: `r-${i}-${t}`,
          correlationId: randomUUID(),
          taskClass: CLASS,
          issuerPubkey: pubkey,
          issuerAgent: pubkey,
          issuedAt: '2026-11-27T00:00:00Z',
          value: 0,
          task: { status: 'completed', agentPubkey: SUBJECT, agentKeyProven: true, issuerIsRequester: true, taskClass: CLASS },
        });
  }
  const [entry] = weighEvidence(evidence, bound, registered, SUBJECT);
  if (!entry) return 0.5;
  if (rules === 'after') return entry.score;
  // The old rule: every owner party min(n, 3) x 1, an unclaimed key min(n, 3) x 0.5.
  let weight = 0;
  let value = 0;
  for (const party of entry.parties) {
    const receipts = party.taskBound.length + party.unbound.reduce((n, item) => n + item.receipts, 0);
    const sum = party.taskBound.reduce((s, r) => s + r.value, 0) + party.unbound.reduce((s, item) => s + item.valueSum, 0);
    const w = Math.min(receipts, 3) * (party.party.kind === 'owner' ? 1 : 0.5);
    weight += w;
    value += w * (sum / receipts);
  }
  return Math.round(((0.5 * 4 + value) / (4 + weight)) * 10000) / 10000;
}

const rows: string[] = ['| ring | kind | honest requesters (3 failed tasks each) | score before | score after |', '| --- | --- | --- | --- | --- |'];
for (const ringKind of ['owner', 'unclaimed'] as const)
  for (const ring of [3, 10, 30])
    for (const honest of [0, 3, 10]) {
      const scenario = { ring, ringKind, honest };
      rows.push(
        `| ${ring} | ${ringKind === 'owner' ? 'fresh accounts' : 'unclaimed keys'} | ${honest} | ${score(scenario, 'before')} | ${score(scenario, 'after')} |`,
      );
    }
console.log(rows.join('\n'));
