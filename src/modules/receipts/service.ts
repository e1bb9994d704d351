import type { Clock } from '../../lib/clock.ts';
import { parsePublicKey, tryParseSignature } from '../../lib/ed25519.ts';
import type { SignatureVerifier } from './signature-verifier.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import type { Principal } from '../../lib/principal.ts';
import { MAX_ENTRY_BYTES, type TransparencyLog } from '../tlog/index.ts';
import { newTimeOrderedId } from '../../lib/ids.ts';
import { createTurnLoader } from '../../lib/turn-loader.ts';
import canonicalize from 'canonicalize';
import { receiptKinds, type ReceiptEnvelope, type ReceiptQuery } from './schemas.ts';
import type { NewReceiptRow, ReceiptRow, ReceiptsStore, StoredReceipt } from './store.ts';
import {
  findRegisteredIssuer,
  isAccountKey,
  outcomeValue,
  ownersOf,
  receiptCounts,
  scoreClasses,
  taskBinding,
  weighEvidence,
  PRIOR_WEIGHT,
  TASK_BOUND_FACTOR,
  TRUST_PRIOR,
  type ClassTrust,
  type NotBoundReason,
  type NotCountedReason,
  type RegisteredIssuer,
} from './trust.ts';
import { parseSignature, verifyStrict } from '../../lib/ed25519.ts';

/** A name an explanation gives a party: a public agent that holds one of its keys, or the person whose signing key it is. */
type PartyName = { kind: 'agent'; id: string; slug: string; name: string } | { kind: 'person'; username: string };

/**
 * What a key signs to be registered as an account's signing key: it names the account, so the
 * signature proves possession for that account only and is useless to anyone else.
 */
export const signingKeyStatement = (accountId: string, pubkey: string) => `agentry signing key ${pubkey} for account ${accountId}`;

/** How far in the future an issuedAt may lie: clocks of issuers drift. */
const ISSUED_AT_SKEW_MS = 5 * 60 * 1000;

export interface Acknowledgement {
  status: 200 | 201;
  message: string;
  data: {
    id: string;
    receiptId: string;
    correlationId: string;
    kind: string;
    signatureVerified: boolean;
    counts: boolean;
    countsReason: NotCountedReason | null;
    taskBound: boolean;
    taskBoundReason: NotBoundReason | null;
    logIndex: number | null;
  };
}

/** A receipt's proof from the receipt log, or how long to wait for one. */
export type ReceiptProof = { proof: string } | { retryAfterSeconds: number };

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

type AcknowledgedRow = Pick<
  ReceiptRow,
  'id' | 'receipt_id' | 'correlation_id' | 'kind' | 'signature_verified' | 'issuer_pubkey' | 'issuer_agent' | 'subject_pubkey' | 'task_class'
> & { log_index?: ReceiptRow['log_index'] };

/** The message's second half: whether the receipt counts towards its subject's trust, and if not, why. */
const countsMessage = (data: Pick<Acknowledgement['data'], 'countsReason' | 'taskBound' | 'taskBoundReason'>) =>
  data.countsReason !== null
    ? `it does not count towards trust: ${data.countsReason}`
    : data.taskBound
      ? "it counts towards the subject's trust, bound to the task it names"
      : `it counts towards the subject's trust, not bound to a task: ${data.taskBoundReason}`;

export function createReceiptsService(deps: {
  store: ReceiptsStore;
  clock: Clock;
  verifier: SignatureVerifier;
  log: TransparencyLog;
  sequenceIntervalMs: number;
  /** Told of each receipt newly stored, and whether its signature verified (the metrics). */
  onIngested?: (signatureVerified: boolean) => void;
  /**
   * Told of each outcome receipt stored, or sent again, that is bound to a task (docs/trust.md,
   * "Task-bound evidence"), with its outcome: discovery's completed work, which counts a task once.
   * Awaited before the receipt is answered.
   */
  onTaskBoundOutcome?: (bound: { taskId: string; outcome: string }) => Promise<unknown>;
}) {
  const { store, clock, verifier, log } = deps;
  // Each acknowledgement needs the registered holders of two keys: receipts answered in the same turn read them in one query.
  const keyHolders = createTurnLoader(128, (pubkeys: string[]) => store.agentsWithKeys(pubkeys));

  /** Stored receipts as the API shows them: the envelope as received plus what the service knows. */
  async function views(receipts: StoredReceipt[]) {
    const registered = await store.agentsWithKeys([...new Set(receipts.map((receipt) => receipt.issuerPubkey))]);
    return receipts.map((receipt) => {
      // Named by its key, never by the agent text the signer wrote: only an agent that proved it holds the key speaks for it.
      const holder = registered.get(receipt.issuerPubkey)?.find((agent) => agent.provenPublic);
      return {
        ...receipt.envelope,
        signatureVerified: receipt.signatureVerified,
        issuerRegistered: findRegisteredIssuer(registered, receipt.issuerPubkey, receipt.issuerAgent) !== undefined,
        issuerKeyHolder: holder ? { id: holder.id, slug: holder.slug, name: holder.name } : null,
        receivedAt: receipt.receivedAt,
      };
    });
  }

  /**
   * Receipts about one agent: when it holds its key alone, every receipt about the key (whatever
   * name the signer wrote); when other agents share the key, those whose subject.agent names it.
   */
  async function subjectAgentFilter(agentId: string, subjectPubkey: string | undefined): Promise<{ subjectAgents?: string[] }> {
    const holders = subjectPubkey ? ((await keyHolders.load(subjectPubkey)) ?? []).filter((holder) => !isAccountKey(holder)) : [];
    if (holders.length === 1 && holders[0]!.id === agentId) return {};
    return { subjectAgents: await store.agentNames(agentId) };
  }

  async function trustBySubject(pubkeys: string[]): Promise<Map<string, ClassTrust[]>> {
    const subjects = [...new Set(pubkeys)];
    const now = clock.now().toISOString();
    const [evidence, bound] = await Promise.all([store.evidenceAbout(subjects, now), store.boundCandidates(subjects, now)]);
    const issuerKeys = new Set<string>(subjects);
    for (const items of evidence.values()) for (const item of items) issuerKeys.add(item.issuerPubkey);
    const registered = await store.agentsWithKeys([...issuerKeys]);
    const result = new Map<string, ClassTrust[]>();
    for (const [subject, items] of evidence) {
      const classes = scoreClasses(items, bound.get(subject) ?? [], registered, subject);
      if (classes.length > 0) result.set(subject, classes);
    }
    return result;
  }

  /** The acknowledgement's data: the stored receipt and whether it counts (receiptCounts, as the trust score decides). */
  async function acknowledgement(row: AcknowledgedRow): Promise<Acknowledgement['data']> {
    const standing = {
      kind: row.kind,
      signatureVerified: row.signature_verified === 1,
      issuerPubkey: row.issuer_pubkey,
      issuerAgent: row.issuer_agent,
      subjectPubkey: row.subject_pubkey,
    };
    // Who holds the keys matters only once the receipt is a verified outcome about another key.
    const needsRegistry = standing.signatureVerified && standing.kind === 'outcome' && standing.issuerPubkey !== standing.subjectPubkey;
    const registered = new Map<string, readonly RegisteredIssuer[]>();
    if (needsRegistry) {
      const pubkeys = [standing.issuerPubkey, standing.subjectPubkey];
      const holders = await Promise.all(pubkeys.map(keyHolders.load));
      pubkeys.forEach((pubkey, i) => holders[i] && registered.set(pubkey, holders[i]));
    }
    const { counts, countsReason } = receiptCounts(standing, registered, ownersOf(registered, standing.subjectPubkey));
    // Binding to a task matters only for a receipt that counts.
    const binding = counts
      ? taskBinding(
          { correlationId: row.correlation_id, subjectPubkey: row.subject_pubkey, taskClass: row.task_class },
          await store.taskOfReceipt(row.correlation_id, row.issuer_pubkey),
        )
      : { taskBound: false, taskBoundReason: null };
    return {
      id: row.id,
      receiptId: row.receipt_id,
      correlationId: row.correlation_id,
      kind: row.kind,
      signatureVerified: standing.signatureVerified,
      counts,
      countsReason,
      taskBound: binding.taskBound,
      taskBoundReason: binding.taskBoundReason,
      logIndex: row.log_index === null || row.log_index === undefined ? null : Number(row.log_index),
    };
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
      if (Buffer.byteLength(canonical.stored, 'utf8') > MAX_ENTRY_BYTES)
        throw badRequest(`The receipt's canonical form is longer than ${MAX_ENTRY_BYTES} bytes, the most a log entry holds`);
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
      // Told again when the same receipt comes back: a node that stopped between storing it and
      // telling discovery left its issuer unanswered, and the issuer's resend is the chance to finish.
      const tellBound = async (data: { taskBound: boolean; correlationId: string }) => {
        if (data.taskBound && deps.onTaskBoundOutcome) await deps.onTaskBoundOutcome({ taskId: data.correlationId, outcome: String(envelope.payload.outcome) });
      };
      if (result.inserted) {
        deps.onIngested?.(verified);
        const data = await acknowledgement(result.row as ReceiptRow);
        await tellBound(data);
        return {
          status: 201,
          message: `Receipt stored; ${verified ? 'signature verified' : 'signature did not verify'}; ${countsMessage(data)}`,
          data,
        };
      }
      if (result.existing.envelope !== row.envelope) throw conflict(`Receipt ${envelope.receiptId} is already stored with different content`);
      const data = await acknowledgement(result.existing);
      await tellBound(data);
      return { status: 200, message: `Receipt already stored; ${countsMessage(data)}`, data };
    },

    async list(query: ReceiptQuery) {
      if (!query.subjectPubkey && !query.correlationId) {
        throw badRequest('Give subjectPubkey or correlationId', [{ path: '/querystring', message: 'must have subjectPubkey or correlationId' }]);
      }
      const subjectPubkey = query.subjectPubkey ? parsePublicKey(query.subjectPubkey, 'subjectPubkey').canonical : undefined;
      const filter = {
        ...(subjectPubkey ? { subjectPubkey } : {}),
        ...(query.correlationId ? { correlationId: query.correlationId.toLowerCase() } : {}),
        ...(query.taskClass ? { taskClass: query.taskClass } : {}),
        ...(query.kind ? { kind: query.kind } : {}),
        ...(query.subjectAgentId ? await subjectAgentFilter(query.subjectAgentId, subjectPubkey) : {}),
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

    /** The proof that a verified receipt is in the receipt log (c2sp.org/tlog-proof@v1), or how long until it is. */
    async proof(idOrReceiptId: string): Promise<ReceiptProof> {
      const position = await store.logPosition(idOrReceiptId);
      if (!position?.verified) throw notFound(`No verified receipt ${idOrReceiptId}`);
      // The log's entry is the stored text: no need to read it again from the log.
      const proof = position.logIndex === null ? null : await log.inclusionProof(position.logIndex, Buffer.from(position.envelope, 'utf8'));
      return proof ? { proof } : { retryAfterSeconds: Math.max(1, Math.ceil(deps.sequenceIntervalMs / 1000)) };
    },

    async trustOf(pubkeyText: string, taskClass?: string) {
      const pubkey = parsePublicKey(pubkeyText, 'pubkey').canonical;
      const [trust, registered] = await Promise.all([trustBySubject([pubkey]), keyHolders.load(pubkey)]);
      const classes = (trust.get(pubkey) ?? []).filter((entry) => !taskClass || entry.taskClass === taskClass);
      // Named as receipts name their issuers: only public agents that proved they hold the key.
      const holders = (registered ?? []).filter((agent) => agent.provenPublic).map((agent) => ({ id: agent.id, slug: agent.slug, name: agent.name }));
      return { pubkey, holders, classes };
    },

    /**
     * Why a key's score is what it is: per class, the parties that counted with their weights and
     * receipts, and the evidence that did not count and why. Read from the same weighing as the score
     * (weighEvidence), so the two agree; of the unregistered issuers it lists the largest EXPLAINED_ISSUERS.
     */
    async explain(pubkeyText: string, taskClass?: string) {
      const pubkey = parsePublicKey(pubkeyText, 'pubkey').canonical;
      const now = clock.now().toISOString();
      const [evidence, unregistered, bound] = await Promise.all([
        store.evidenceAbout([pubkey], now),
        store.evidenceAbout([pubkey], now, { unregistered: true }),
        store.boundCandidates([pubkey], now),
      ]);
      const items = [...(evidence.get(pubkey) ?? []), ...(unregistered.get(pubkey) ?? [])].filter((item) => !taskClass || item.taskClass === taskClass);
      const candidates = (bound.get(pubkey) ?? []).filter((item) => !taskClass || item.taskClass === taskClass);
      const registered = await store.agentsWithKeys([...new Set([pubkey, ...items.map((item) => item.issuerPubkey)])]);
      const classes = weighEvidence(items, candidates, registered, pubkey);
      const signers = [...registered.values()].flat().filter(isAccountKey);
      const usernames = await store.usernamesOf([...new Set(signers.map((issuer) => issuer.ownerId as string))]);
      /**
       * Who a party is, as pages may name it: the public agents that proved they hold its issuing keys
       * (by name), then the person (by username) whose account signing key issued; none for a private agent.
       */
      const namesOf = (keys: string[]) => {
        const names = new Map<string, PartyName>();
        for (const issuer of keys.flatMap((key) => registered.get(key) ?? [])) {
          if (isAccountKey(issuer)) {
            const username = usernames.get(issuer.ownerId as string);
            if (username) names.set(issuer.id, { kind: 'person', username });
          } else if (issuer.provenPublic) names.set(issuer.id, { kind: 'agent', id: issuer.id, slug: issuer.slug, name: issuer.name });
        }
        const label = (name: PartyName) => (name.kind === 'agent' ? `0 ${name.name}` : `1 ${name.username}`);
        return [...names.values()].sort((a, b) => label(a).localeCompare(label(b)));
      };
      return {
        pubkey,
        prior: { score: TRUST_PRIOR, weight: PRIOR_WEIGHT },
        classes: classes.map((entry) => ({
          taskClass: entry.taskClass,
          score: entry.parties.length > 0 ? entry.score : TRUST_PRIOR,
          weight: entry.weight,
          counted: entry.parties.map((party) => ({
            party: party.party,
            names: party.party.kind === 'owner' ? namesOf([...party.taskBound, ...party.unbound].map((item) => item.issuerPubkey)) : [],
            weight: party.weight,
            value: party.value,
            taskBound: party.taskBound.map((receipt) => ({ ...receipt, weight: TASK_BOUND_FACTOR })),
            unbound: party.unbound.map((item) => ({
              issuerPubkey: item.issuerPubkey,
              issuerAgent: item.issuerAgent,
              receipts: item.receipts,
              value: Math.round((item.valueSum / item.receipts) * 10000) / 10000,
              weight: item.factor,
            })),
          })),
          notCounted: entry.uncounted,
          notBound: entry.unboundTaskReceipts,
        })),
      };
    },

    /** Registers a key the account signs receipts with: `signatureText` is the key's signature over signingKeyStatement. */
    async addSigningKey(principal: Principal, pubkeyText: string, signatureText: string) {
      refuseAgentKey(principal);
      const accountId = principal.accountId;
      const pubkey = parsePublicKey(pubkeyText, 'pubkey');
      const signature = parseSignature(signatureText, 'signature');
      if (!verifyStrict(pubkey.raw, Buffer.from(signingKeyStatement(accountId, pubkey.canonical), 'utf8'), signature))
        throw badRequest(`The signature does not verify with pubkey over "${signingKeyStatement(accountId, pubkey.canonical)}"`, [
          { path: '/body/signature', message: "must be the key's signature over the statement" },
        ]);
      const row = { id: newTimeOrderedId(), account_id: accountId, pubkey: pubkey.canonical, created_at: clock.now().toISOString() };
      if (!(await store.addSigningKey(row))) {
        const own = (await store.signingKeysOf(accountId)).find((key) => key.pubkey === pubkey.canonical);
        if (own) return { key: signingKeyView(own), created: false };
        throw conflict('This key is already registered on another account');
      }
      return { key: signingKeyView(row), created: true };
    },

    signingKeys: async (accountId: string) => (await store.signingKeysOf(accountId)).map(signingKeyView),

    async removeSigningKey(principal: Principal, id: string) {
      refuseAgentKey(principal);
      if (!(await store.removeSigningKey(principal.accountId, id))) throw notFound('No such signing key on this account');
    },
  };
}

/** Which keys sign for an account is its owner's decision, never one of an agent's own key. */
function refuseAgentKey(principal: Principal): void {
  if (principal.kind === 'agent') throw forbidden("This is for the account's owner; a key acting as an agent cannot do it");
}

const signingKeyView = (row: { id: string; pubkey: string; created_at: string }) => ({ id: row.id, pubkey: row.pubkey, createdAt: row.created_at });

export type ReceiptsService = ReturnType<typeof createReceiptsService>;
