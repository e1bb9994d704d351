/**
 * The tables of the transparency-log module (migration 0029). Every log is a row of `tlog_logs`;
 * its entries, stored Merkle hashes and keys are rows keyed by the log's name. Counts and indexes
 * are BIGINT on PostgreSQL, which hands them over as strings.
 */
export interface TlogLogsTable {
  /** The log's short name (`receipts`), the path segment under /.tlog/. */
  name: string;
  /** The checkpoint origin line, fixed at the log's first start. */
  origin: string;
  size: number | string;
  /** The tree's root at `size`, as signed in `checkpoint`. */
  root: Buffer;
  /** The last signed checkpoint (a signed note), served as-is. */
  checkpoint: string;
  signed_at: string;
}

export interface TlogKeysTable {
  log: string;
  /** `<name>+<key id>+<base64 key>`, as /.tlog/keys lists it. */
  verifier_key: string;
  /** The signing seed sealed with the service's secrets key; null for a key given as LOG_SIGNING_KEY. */
  sealed_seed: string | null;
  created_at: string;
  /** Set when another key took over signing; the key stays listed so old checkpoints still verify. */
  retired_at: string | null;
}

/** Stored Merkle hashes (complete subtrees), numbered as in merkle.ts. */
export interface TlogHashesTable {
  log: string;
  idx: number | string;
  hash: Buffer;
}

export interface TlogEntriesTable {
  log: string;
  idx: number | string;
  data: Buffer;
}

export interface TlogTables {
  tlog_logs: TlogLogsTable;
  tlog_keys: TlogKeysTable;
  tlog_hashes: TlogHashesTable;
  tlog_entries: TlogEntriesTable;
}
