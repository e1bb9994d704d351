import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { literals, nullable, PageQuery, Uuid } from '../../http/schemas.ts';
import { notBoundReasons, notCountedReasons } from './trust.ts';

export const RECEIPT_VERSIONS = ['2026-03-12'] as const;
export const receiptKinds = ['offer', 'decision', 'outcome'] as const;
export type ReceiptKind = (typeof receiptKinds)[number];
export const coreReasonCodes = [
  'capacity_exceeded',
  'scope_missing',
  'sla_unachievable',
  'task_class_unsupported',
  'trust_insufficient',
  'delegate_preferred',
] as const;
export const outcomeValues = ['success', 'failure', 'partial', 'rolled_back'] as const;

const Timestamp = Type.String({ format: 'date-time', maxLength: 40 });
/** Dotted class name: `code.review.pull_request`. */
export const TaskClass = Type.String({ pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$', minLength: 1, maxLength: 200 });
const PublicKeyText = Type.String({ minLength: 1, maxLength: 200, description: 'ed25519:<base64 of the 32-byte key>' });
const Party = Type.Object({ agent: Type.String({ minLength: 1, maxLength: 200 }), pubkey: PublicKeyText }, { additionalProperties: false });
/** Receipt extensions live in `x-` members, which are signed like everything else. */
const extensions = { patternProperties: { '^x-': {} }, additionalProperties: false };

const OfferPayload = Type.Object(
  {
    taskClass: TaskClass,
    requiredScopes: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }),
    promisedSlaMs: Type.Integer({ minimum: 0, maximum: 31_536_000_000 }),
  },
  extensions,
);
const DecisionPayload = Type.Object(
  {
    decision: Type.String({ pattern: '^[a-z][a-z_]{0,39}$', description: '`accept` is the value the spec shows; others are lowercase words' }),
    reasonCode: Type.Optional(Type.Union([literals(coreReasonCodes), Type.String({ pattern: '^x-[A-Za-z0-9_.-]{1,60}$' })])),
  },
  extensions,
);
const OutcomePayload = Type.Object(
  {
    outcome: literals(outcomeValues),
    latencyMs: Type.Number({ minimum: 0, maximum: 31_536_000_000 }),
    artifactHash: Type.Optional(Type.String({ pattern: '^sha256:[0-9a-f]{64}$' })),
    artifactUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })),
  },
  extensions,
);

const payloadFor = (kind: ReceiptKind, schema: TSchema) => ({
  if: { properties: { kind: { const: kind } }, required: ['kind'] },
  then: { properties: { payload: schema } },
});

export const ReceiptEnvelope = Type.Object(
  {
    kind: literals(receiptKinds),
    version: literals(RECEIPT_VERSIONS),
    receiptId: Uuid,
    correlationId: Uuid,
    issuedAt: Timestamp,
    expiresAt: Type.Optional(Timestamp),
    taskClass: TaskClass,
    issuer: Party,
    subject: Party,
    signature: Type.Object(
      {
        alg: Type.Literal('Ed25519'),
        keyId: Type.String({ minLength: 1, maxLength: 200 }),
        value: Type.String({ minLength: 1, maxLength: 200, description: 'base64 or base64url of the 64-byte signature' }),
      },
      { additionalProperties: false },
    ),
    payload: Type.Object(
      {},
      {
        description: 'offer: taskClass, requiredScopes, promisedSlaMs; decision: decision, reasonCode; outcome: outcome, latencyMs, artifactHash, artifactUrl',
      },
    ),
  },
  {
    additionalProperties: false,
    allOf: [payloadFor('offer', OfferPayload), payloadFor('decision', DecisionPayload), payloadFor('outcome', OutcomePayload)],
  },
);
export type ReceiptEnvelope = Static<typeof ReceiptEnvelope> & { payload: Record<string, unknown> };

export const ReceiptAck = Type.Object({
  data: Type.Object({
    id: Type.String(),
    receiptId: Type.String(),
    correlationId: Type.String(),
    kind: Type.String(),
    signatureVerified: Type.Boolean(),
    counts: Type.Boolean({ description: "whether this receipt counts towards its subject's trust (docs/trust.md)" }),
    countsReason: Type.Union([literals(notCountedReasons), Type.Null()], { description: 'why it does not count; null when it counts' }),
    taskBound: Type.Boolean({
      description:
        'whether it counts bound to a task this registry routed, at full weight (docs/trust.md, "Task-bound evidence"); false when it does not count',
    }),
    taskBoundReason: Type.Union([literals(notBoundReasons), Type.Null()], {
      description: 'for a receipt that counts but is not task-bound, why not; null otherwise',
    }),
    logIndex: nullable(
      Type.Integer({ description: "The receipt's index in the receipt log (/.tlog/receipts); null until sequenced, and always for an unverified receipt" }),
    ),
  }),
  message: Type.String(),
});

export const ProofParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: "the acknowledgement's id or the receiptId" }) });

/** A stored receipt: the envelope as received, plus what the service knows about it. */
export const StoredReceipt = Type.Object(
  {
    kind: Type.String(),
    version: Type.String(),
    receiptId: Type.String(),
    correlationId: Type.String(),
    issuedAt: Type.String(),
    expiresAt: Type.Optional(Type.String()),
    taskClass: Type.String(),
    issuer: Type.Object({ agent: Type.String(), pubkey: Type.String() }),
    subject: Type.Object({ agent: Type.String(), pubkey: Type.String() }),
    signature: Type.Object({ alg: Type.String(), keyId: Type.String(), value: Type.String() }),
    payload: Type.Object({}, { additionalProperties: true }),
    signatureVerified: Type.Boolean(),
    issuerRegistered: Type.Boolean({ description: 'issuer.pubkey is the registration key of the registered agent named issuer.agent' }),
    issuerKeyHolder: Type.Union([Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'The public agent that proved it holds issuer.pubkey (found by the key alone, whatever issuer.agent says); null when none did',
    }),
    receivedAt: Type.String(),
  },
  { additionalProperties: true },
);

export const ReceiptQuery = Type.Object({
  subjectPubkey: Type.Optional(PublicKeyText),
  correlationId: Type.Optional(Uuid),
  taskClass: Type.Optional(TaskClass),
  kind: Type.Optional(literals(receiptKinds)),
  subjectAgentId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'only receipts about this agent: with subjectPubkey its key, all of them when the agent holds the key alone; when other agents share the key, those whose subject.agent names it (its id or slug)',
    }),
  ),
  ...PageQuery(20, 100, 1_000_000).properties,
});
export type ReceiptQuery = Static<typeof ReceiptQuery>;

export const ChainParams = Type.Object({ correlationId: Uuid });

export const Chain = Type.Object({
  data: Type.Object({
    correlationId: Type.String(),
    offer: Type.Union([StoredReceipt, Type.Null()]),
    decision: Type.Union([StoredReceipt, Type.Null()]),
    outcome: Type.Union([StoredReceipt, Type.Null()]),
    complete: Type.Boolean(),
  }),
});

export const TrustQuery = Type.Object({
  pubkey: PublicKeyText,
  taskClass: Type.Optional(TaskClass),
  explain: Type.Optional(Type.Boolean({ description: 'add `explanation`: the evidence that counted, with weights, and what did not and why' })),
});

export const TrustClass = Type.Object({
  taskClass: Type.String(),
  score: Type.Number({ description: '0..1; 0.5 is the prior with no evidence' }),
  receipts: Type.Integer({ description: 'verified outcome receipts that counted' }),
  issuers: Type.Integer({ description: 'distinct issuers behind them' }),
  weight: Type.Number({ description: 'evidence weight after the per-issuer cap' }),
  taskBound: Type.Integer({ description: 'counted receipts bound to tasks this registry routed' }),
});

const ExplainedParty = Type.Object({
  party: Type.Union([
    Type.Object({ kind: Type.Literal('owner'), id: Type.String({ description: 'the owning account' }) }),
    Type.Object({ kind: Type.Literal('key'), pubkey: Type.String({ description: 'an unclaimed issuer key' }) }),
  ]),
  names: Type.Array(
    Type.Union([
      Type.Object({ kind: Type.Literal('agent'), id: Type.String(), slug: Type.String(), name: Type.String() }),
      Type.Object({ kind: Type.Literal('person'), username: Type.String() }),
    ]),
    {
      description:
        "who the party is: the public agents that proved they hold its issuing keys and the person whose account signing key issued; empty for an unclaimed key and for an owner's private agents",
    },
  ),
  weight: Type.Number({ description: 'what the party weighs in the score, after the cap' }),
  value: Type.Number({ description: 'mean value of its evidence, weighted as its weight is' }),
  taskBound: Type.Array(
    Type.Object({ receiptId: Type.String(), correlationId: Type.String(), issuerPubkey: Type.String(), value: Type.Number(), weight: Type.Number() }),
  ),
  unbound: Type.Array(
    Type.Object({
      issuerPubkey: Type.String(),
      issuerAgent: Type.String(),
      receipts: Type.Integer(),
      value: Type.Number(),
      weight: Type.Number({ description: 'weight of each receipt before the cap' }),
    }),
  ),
});

export const TrustExplanation = Type.Object({
  prior: Type.Object({ score: Type.Number(), weight: Type.Number() }),
  classes: Type.Array(
    Type.Object({
      taskClass: Type.String(),
      score: Type.Number(),
      weight: Type.Number(),
      counted: Type.Array(ExplainedParty),
      notCounted: Type.Array(
        Type.Object({ issuerPubkey: Type.String(), issuerAgent: Type.String(), receipts: Type.Integer(), reason: literals(notCountedReasons) }),
      ),
      notBound: Type.Array(
        Type.Object(
          { receiptId: Type.String(), correlationId: Type.String(), issuerPubkey: Type.String(), reason: literals(notBoundReasons) },
          { description: "the requester's receipts about its tasks that counted only as ordinary outcomes, and why" },
        ),
      ),
    }),
  ),
});

export const TrustView = Type.Object({
  data: Type.Object({
    pubkey: Type.String(),
    holders: Type.Array(Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }), {
      description: 'the public agents that proved they hold this key',
    }),
    classes: Type.Array(TrustClass),
    explanation: Type.Optional(TrustExplanation),
  }),
});

export const SigningKeyBody = Type.Object(
  {
    pubkey: PublicKeyText,
    signature: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'base64 or base64url of the Ed25519 signature over the UTF-8 text "agentry signing key <pubkey> for account <account id>"',
    }),
  },
  { additionalProperties: false },
);

export const SigningKey = Type.Object({ id: Type.String(), pubkey: Type.String(), createdAt: Type.String() });
