/**
 * Trust receipts: build, canonicalise (RFC 8785, the bytes the service verifies), sign, verify.
 * Submitting is `AgentryClient.submitReceipt`.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { publicKeyString, signText, verifySignature } from './keys.ts';

export const RECEIPT_VERSION = '2026-03-12';

export interface Party {
  /** The agent's id (or slug) at the service. */
  agent: string;
  pubkey: string;
}

export type ReceiptPayload =
  | { taskClass: string; requiredScopes: string[]; promisedSlaMs: number; [extension: `x-${string}`]: unknown }
  | { decision: string; reasonCode?: string; [extension: `x-${string}`]: unknown }
  | {
      outcome: 'success' | 'failure' | 'partial' | 'rolled_back';
      latencyMs: number;
      artifactHash?: string;
      artifactUrl?: string;
      [extension: `x-${string}`]: unknown;
    };

export interface UnsignedReceipt {
  kind: 'offer' | 'decision' | 'outcome';
  version: string;
  receiptId: string;
  correlationId: string;
  issuedAt: string;
  expiresAt: string;
  taskClass: string;
  issuer: Party;
  subject: Party;
  payload: Record<string, unknown>;
}

export interface SignedReceipt extends UnsignedReceipt {
  signature: { alg: 'Ed25519'; keyId: string; value: string };
}

export interface ReceiptInput {
  kind: UnsignedReceipt['kind'];
  taskClass: string;
  issuer: Party;
  subject: Party;
  payload: Record<string, unknown>;
  /** Ties the offer, decision and outcome of one piece of work together; a new one when not given. */
  correlationId?: string;
  receiptId?: string;
  issuedAt?: Date;
  /** Default 30 days after `issuedAt`. */
  expiresAt?: Date;
}

const DAY_MS = 86_400_000;

/** Seconds precision, as the spec's examples: `2026-11-01T10:00:00Z`. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function buildReceipt(input: ReceiptInput): UnsignedReceipt {
  const issuedAt = input.issuedAt ?? new Date();
  const expiresAt = input.expiresAt ?? new Date(issuedAt.getTime() + 30 * DAY_MS);
  const payload = input.kind === 'offer' && input.payload.taskClass === undefined ? { taskClass: input.taskClass, ...input.payload } : input.payload;
  return {
    kind: input.kind,
    version: RECEIPT_VERSION,
    receiptId: input.receiptId ?? randomUUID(),
    correlationId: input.correlationId ?? randomUUID(),
    issuedAt: isoSeconds(issuedAt),
    expiresAt: isoSeconds(expiresAt),
    taskClass: input.taskClass,
    issuer: input.issuer,
    subject: input.subject,
    payload,
  };
}

/** The signed bytes: UTF-8 of the JCS canonical form of the envelope without its top-level `signature`. */
export function canonicalReceiptBytes(receipt: object): Uint8Array {
  const { signature: _signature, ...envelope } = receipt as Record<string, unknown>;
  const text = canonicalize(envelope);
  if (text === undefined) throw new Error('a receipt must be a JSON object');
  return new TextEncoder().encode(text);
}

/** Signs with the issuer's private key; the key must match `issuer.pubkey`. */
export function signReceipt(receipt: UnsignedReceipt, key: KeyObject, keyId = `${receipt.issuer.agent}#1`): SignedReceipt {
  if (publicKeyString(key) !== receipt.issuer.pubkey) throw new Error('the signing key is not the issuer.pubkey of the receipt');
  const { signature: _old, ...envelope } = receipt as UnsignedReceipt & { signature?: unknown };
  const value = Buffer.from(signText(key, new TextDecoder().decode(canonicalReceiptBytes(envelope))), 'base64url').toString('base64');
  return { ...envelope, signature: { alg: 'Ed25519', keyId, value } };
}

/** True when `signature.value` is the issuer key's signature over the receipt's canonical bytes. */
export function verifyReceipt(receipt: { issuer?: { pubkey?: unknown }; signature?: { alg?: unknown; value?: unknown } }): boolean {
  const pubkey = receipt.issuer?.pubkey;
  const value = receipt.signature?.value;
  if (typeof pubkey !== 'string' || typeof value !== 'string' || receipt.signature?.alg !== 'Ed25519') return false;
  return verifySignature(pubkey, canonicalReceiptBytes(receipt), value);
}
