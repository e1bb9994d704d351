/**
 * The requester's outcome receipt about a finished task, built and signed in the page exactly as the
 * SDK's `signTaskOutcome` does (packages/sdk/src/client.ts and receipts.ts): the same envelope, the
 * RFC 8785 canonical form of it without `signature` as the signed bytes, a standard base64 signature.
 * The private key stays in the page; only the signed receipt is sent.
 */
import canonicalize from 'canonicalize';
import type { Task } from '../api/types';
import type { AgentSigningKey } from './agent-key';

export const RECEIPT_VERSION = '2026-03-12';
export const outcomes = ['success', 'partial', 'failure', 'rolled_back'] as const;
export type Outcome = (typeof outcomes)[number];

const DAY_MS = 86_400_000;
/** Seconds precision, as the SDK writes times: `2026-11-01T10:00:00Z`. */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
const base64urlToBase64 = (value: string) => {
  const plain = value.replace(/-/g, '+').replace(/_/g, '/');
  return plain + '='.repeat((4 - (plain.length % 4)) % 4);
};

/** The statement an account signing key signs to prove it is held: the same text the service checks. */
export const signingKeyStatement = (accountId: string, pubkey: string) => `agentry signing key ${pubkey} for account ${accountId}`;

export interface OutcomeReceiptInput {
  task: Pick<Task, 'id' | 'taskClass' | 'createdAt' | 'updatedAt' | 'deliveredAt' | 'completedAt'>;
  /** The agent that took the task: its id and registration key. */
  subject: { id: string; pubkey: string };
  outcome: Outcome;
  key: AgentSigningKey;
  /** The id of the requester's own agent whose key this is; otherwise the key is an account signing key and the issuer is `requester`. */
  issuerAgent?: string;
  now?: Date;
}

/** The signed receipt, ready for `POST /v1/trust-receipts`. */
export async function signOutcomeReceipt(input: OutcomeReceiptInput) {
  const { task } = input;
  if (!task.taskClass) throw new Error('This task has no task class, so there is nothing to bind a receipt to.');
  const issuedAt = input.now ?? new Date();
  const started = Date.parse(task.deliveredAt ?? task.createdAt);
  const ended = Date.parse(task.completedAt ?? task.updatedAt);
  const issuerAgent = input.issuerAgent ?? 'requester';
  const envelope = {
    kind: 'outcome' as const,
    version: RECEIPT_VERSION,
    receiptId: crypto.randomUUID(),
    correlationId: task.id,
    issuedAt: isoSeconds(issuedAt),
    expiresAt: isoSeconds(new Date(issuedAt.getTime() + 30 * DAY_MS)),
    taskClass: task.taskClass,
    issuer: { agent: issuerAgent, pubkey: input.key.publicKey },
    subject: { agent: input.subject.id, pubkey: input.subject.pubkey },
    payload: { outcome: input.outcome, latencyMs: Math.max(0, ended - started) || 0 },
  };
  const text = canonicalize(envelope);
  if (text === undefined) throw new Error('The receipt could not be put in canonical form.');
  const value = base64urlToBase64(await input.key.sign(text));
  return { ...envelope, signature: { alg: 'Ed25519' as const, keyId: `${issuerAgent}#1`, value } };
}
