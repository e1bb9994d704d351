/**
 * The tables the receipts module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
export interface TrustReceiptsTable {
  /** The service's own id for the stored row; `receipt_id` is the issuer's. */
  id: string;
  receipt_id: string;
  correlation_id: string;
  kind: 'offer' | 'decision' | 'outcome';
  task_class: string;
  issuer_agent: string;
  issuer_pubkey: string;
  subject_agent: string;
  subject_pubkey: string;
  issued_at: string;
  expires_at: string | null;
  signature_verified: 0 | 1;
  /** Outcome receipts only: success 1, partial 0.5, failure and rolled_back 0. */
  outcome_value: number | null;
  /** RFC 8785 canonical JSON of the envelope exactly as received, signature included. */
  envelope: string;
  received_at: string;
  /** The receipt's index in the receipt log (verified receipts only); null until sequenced (migration 0029). BIGINT on PostgreSQL. */
  log_index: number | string | null;
}

/** Receipts per (subject key, task class, kind), kept by their writers (modules/receipts/sums.ts): a list's `total` (migration 0011). */
export interface TrustReceiptCountsTable {
  subject_pubkey: string;
  task_class: string;
  kind: TrustReceiptsTable['kind'];
  receipts: number | string;
}

/** Verified outcomes of one issuer about another key in one class, kept by the writers of receipts (migration 0011, sums.ts). */
export interface TrustEvidenceTable {
  subject_pubkey: string;
  task_class: string;
  issuer_pubkey: string;
  issuer_agent: string;
  /** BIGINT: PostgreSQL hands it over as a string. */
  receipts: number | string;
  value_sum: number;
}

/** One row, the sweep's watermark: a position in (expiry, id) order; receipts up to it are out of `trust_evidence` (migration 0013). */
export interface TrustEvidenceSweepTable {
  id: number;
  expired_through: string;
  expired_through_id: string;
}

/** Keys an account signs receipts with, each proven by its holder (migration 0033). */
export interface AccountSigningKeysTable {
  id: string;
  account_id: string;
  pubkey: string;
  created_at: string;
}

export interface ReceiptsTables {
  account_signing_keys: AccountSigningKeysTable;
  trust_receipts: TrustReceiptsTable;
  trust_receipt_counts: TrustReceiptCountsTable;
  trust_evidence: TrustEvidenceTable;
  trust_evidence_sweep: TrustEvidenceSweepTable;
}
