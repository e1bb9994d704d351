import { randomUUID } from 'node:crypto';
import { signedBytes } from '../../src/modules/receipts/index.ts';
import { signMessage } from '../../src/lib/ed25519.ts';
import type { AgentKey } from './agents.ts';

export interface Party {
  agent: string;
  key: AgentKey;
}

type Kind = 'offer' | 'decision' | 'outcome';

const defaultPayload: Record<Kind, Record<string, unknown>> = {
  offer: { taskClass: 'code.review.pull_request', requiredScopes: ['repo:read'], promisedSlaMs: 60000 },
  decision: { decision: 'accept', reasonCode: 'x-none' },
  outcome: { outcome: 'success', latencyMs: 420, artifactHash: `sha256:${'ab'.repeat(32)}`, artifactUrl: 'https://example.com/a.json' },
};

/** A receipt signed by the issuer's key under the DECISIONS.md rule; `overrides` are applied before signing. */
export function makeReceipt(kind: Kind, issuer: Party, subject: Party, overrides: Record<string, unknown> = {}) {
  const unsigned: Record<string, unknown> = {
    kind,
    version: '2026-03-12',
    receiptId: randomUUID(),
    correlationId: randomUUID(),
    issuedAt: '2026-11-21T11:00:00Z',
    expiresAt: '2099-01-01T00:00:00Z',
    taskClass: 'code.review.pull_request',
    issuer: { agent: issuer.agent, pubkey: issuer.key.pubkey },
    subject: { agent: subject.agent, pubkey: subject.key.pubkey },
    payload: defaultPayload[kind],
    ...overrides,
  };
  if (kind === 'offer' && overrides.taskClass && !overrides.payload) unsigned.payload = { ...defaultPayload.offer, taskClass: overrides.taskClass };
  const value = signMessage(issuer.key.seed, signedBytes(unsigned)).toString('base64');
  return { ...unsigned, signature: { alg: 'Ed25519', keyId: `${issuer.agent}#1`, value } } as Record<string, unknown> & {
    receiptId: string;
    correlationId: string;
    signature: { alg: string; keyId: string; value: string };
  };
}
