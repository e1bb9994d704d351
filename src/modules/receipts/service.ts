import type { Clock } from '../../lib/clock.ts';
import { parsePublicKey, tryParseSignature } from '../../lib/ed25519.ts';
import type { SignatureVerifier } from './signature-verifier.ts';
import { badRequest, conflict } from '../../lib/errors.ts';
import { newTimeOrderedId } from '../../lib/ids.ts';
import canonicalize from 'canonicalize';
import { receiptKinds, type ReceiptEnvelope, type ReceiptQuery } from './schemas.ts';
import type { NewReceiptRow, ReceiptRow, ReceiptsStore, StoredReceipt } from './store.ts';
import { findRegisteredIssuer, outcomeValue, scoreClasses, type ClassTrust } from './trust.ts';

/** How far in the future an issuedAt may lie: clocks of issuers drift. */
const ISSUED_AT_SKEW_MS = 5 * 60 * 1000;

export interface Acknowledgement {
  status: 200 | 201;
  message: string;
  data: { id: string; receiptId: string; correlationId: string; kind: string; signatureVerified: boolean };
}

/** Read by discovery and routing: every task class each key has evidence in. */
export interface TrustLookup {
  trustBySubject(pubkeys: string[]): Promise<Map<string, ClassTrust[]>>;
}

function parseTime(text: string, field: string): number {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw badRequest(`${field} is not a valid time`, [{ path: `/body/${field}`, message: 'must be an ISO 8601 date-time' }]);
  return time;
}

/**
 * RFC 8785 (JCS) text of the envelope as stored, and of what the issuer signed: the same without
 * its `signature` member. Members are canonicalised once and joined twice; JCS orders members by
 * UTF-16 code units, which is how JavaScript sorts strings.
 */
export function canonicalForms(envelope: Record<string, unknown>): { signed: string; stored: string } {
  const members = Object.keys(envelope)
    .filter((key) => envelope[key] !== undefined) // as JSON.stringify leaves them out
    .sort()
    .map((key) => ({ key, text: `${JSON.stringify(key)}:${canonicalize(envelope[key])}` }));
  return {
    signed: `{${members
      .filter((member) => member.key !== 'signature')
      .map((member) => member.text)
      .join(',')}}`,
    stored: `{${members.map((member) => member.text).join(',')}}`,
  };
}

/** The bytes the issuer signed. */
export const signedBytes = (envelope: Record<string, unknown>): Buffer => Buffer.from(canonicalForms(envelope).signed, 'utf8');

function acknowledgement(row: Pick<ReceiptRow, 'id' | 'receipt_id' | 'correlation_id' | 'kind' | 'signature_verified'>) {
  return { id: row.id, receiptId: row.receipt_id, correlationId: row.correlation_id, kind: row.kind, signatureVerified: row.signature_verified === 1 };
}

export function createReceiptsService(deps: { store: ReceiptsStore; clock: Clock; verifier: SignatureVerifier }) {
  const { store, clock, verifier } = deps;

  /** Stored receipts as the API shows them: the envelope as received plus what the service knows. */
  async function views(receipts: StoredReceipt[]) {
    const registered = await store.agentsWithKeys([...new Set(receipts.map((receipt) => receipt.issuerPubkey))]);
    return receipts.map((receipt) => ({
      ...receipt.envelope,
      signatureVerified: receipt.signatureVerified,
      issuerRegistered: findRegisteredIssuer(registered, receipt.issuerPubkey, receipt.issuerAgent) !== undefined,
      receivedAt: receipt.receivedAt,
    }));
  }

  async function trustBySubject(pubkeys: string[]): Promise<Map<string, ClassTrust[]>> {
    const subjects = [...new Set(pubkeys)];
    const evidence = await store.evidenceAbout(subjects, clock.now().toISOString());
    const issuerKeys = new Set<string>(subjects);
    for (const items of evidence.values()) for (const item of items) issuerKeys.add(item.issuerPubkey);
    const registered = await store.agentsWithKeys([...issuerKeys]);
    const result = new Map<string, ClassTrust[]>();
    for (const [subject, items] of evidence) {
      const owners = new Set((registered.get(subject) ?? []).flatMap((agent) => (agent.ownerId ? [agent.ownerId] : [])));
      const classes = scoreClasses(items, registered, owners);
      if (classes.length > 0) result.set(subject, classes);
    }
    return result;
  }

  return {
    trustBySubject,

    async ingest(envelope: ReceiptEnvelope): Promise<Acknowledgement> {
      const issuerKey = parsePublicKey(envelope.issuer.pubkey, 'issuer.pubkey');
      const subjectKey = parsePublicKey(envelope.subject.pubkey, 'subject.pubkey');
      const signature = tryParseSignature(envelope.signature.value);
      if (!signature)
        throw badRequest('signature.value must be base64 or base64url of 64 bytes', [{ path: '/body/signature/value', message: 'must encode 64 bytes' }]);

      const now = clock.now().getTime();
      const issuedAt = parseTime(envelope.issuedAt, 'issuedAt');
      if (issuedAt > now + ISSUED_AT_SKEW_MS)
        throw badRequest('issuedAt lies in the future', [{ path: '/body/issuedAt', message: 'must not be later than now' }]);
      let expiresAt: number | null = null;
      if (envelope.expiresAt !== undefined) {
        expiresAt = parseTime(envelope.expiresAt, 'expiresAt');
        if (expiresAt <= issuedAt)
          throw badRequest('expiresAt must be later than issuedAt', [{ path: '/body/expiresAt', message: 'must be later than issuedAt' }]);
        if (expiresAt <= now) throw badRequest(`Receipt expired at ${envelope.expiresAt}`, [{ path: '/body/expiresAt', message: 'has passed' }]);
      }
      if (envelope.kind === 'offer' && envelope.payload.taskClass !== envelope.taskClass) {
        throw badRequest('payload.taskClass must equal taskClass', [{ path: '/body/payload/taskClass', message: 'must equal /body/taskClass' }]);
      }

      const canonical = canonicalForms(envelope);
      const verified = await verifier.verify(issuerKey.raw, Buffer.from(canonical.signed, 'utf8'), signature);
      const row: NewReceiptRow = {
        id: newTimeOrderedId(),
        receipt_id: envelope.receiptId.toLowerCase(),
        correlation_id: envelope.correlationId.toLowerCase(),
        kind: envelope.kind,
        task_class: envelope.taskClass,
        issuer_agent: envelope.issuer.agent,
        issuer_pubkey: issuerKey.canonical,
        subject_agent: envelope.subject.agent,
        subject_pubkey: subjectKey.canonical,
        // Normalised so that text comparison orders them (offsets and fractions vary in receipts).
        issued_at: new Date(issuedAt).toISOString(),
        expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
        signature_verified: verified ? 1 : 0,
        outcome_value: envelope.kind === 'outcome' ? (outcomeValue[envelope.payload.outcome as string] ?? null) : null,
        envelope: canonical.stored,
        received_at: clock.now().toISOString(),
      };

      const result = await store.insert(row);
      if (result.inserted) {
        return {
          status: 201,
          message: verified ? 'Receipt stored; signature verified' : 'Receipt stored; signature did not verify, so it carries no weight',
          data: acknowledgement(result.row as ReceiptRow),
        };
      }
      if (result.existing.envelope !== row.envelope) throw conflict(`Receipt ${envelope.receiptId} is already stored with different content`);
      return { status: 200, message: 'Receipt already stored', data: acknowledgement(result.existing) };
    },

    async list(query: ReceiptQuery) {
      if (!query.subjectPubkey && !query.correlationId) {
        throw badRequest('Give subjectPubkey or correlationId', [{ path: '/querystring', message: 'must have subjectPubkey or correlationId' }]);
      }
      const filter = {
        ...(query.subjectPubkey ? { subjectPubkey: parsePublicKey(query.subjectPubkey, 'subjectPubkey').canonical } : {}),
        ...(query.correlationId ? { correlationId: query.correlationId.toLowerCase() } : {}),
        ...(query.taskClass ? { taskClass: query.taskClass } : {}),
        ...(query.kind ? { kind: query.kind } : {}),
      };
      const { receipts, total } = await store.list(filter, query.limit, query.offset);
      return { data: await views(receipts), pagination: { limit: query.limit, offset: query.offset, total, hasMore: query.offset + receipts.length < total } };
    },

    async chain(correlationId: string) {
      const slots = await Promise.all(receiptKinds.map((kind) => store.earliestVerified(correlationId.toLowerCase(), kind)));
      const viewed = await views(slots.filter((receipt): receipt is StoredReceipt => receipt !== undefined));
      let next = 0;
      const [offer, decision, outcome] = slots.map((receipt) => (receipt ? viewed[next++] : undefined));
      return {
        correlationId: correlationId.toLowerCase(),
        offer: offer ?? null,
        decision: decision ?? null,
        outcome: outcome ?? null,
        complete: slots.every((receipt) => receipt !== undefined),
      };
    },

    async trustOf(pubkeyText: string) {
      const pubkey = parsePublicKey(pubkeyText, 'pubkey').canonical;
      const classes = (await trustBySubject([pubkey])).get(pubkey) ?? [];
      return { pubkey, classes };
    },
  };
}

export type ReceiptsService = ReturnType<typeof createReceiptsService>;
