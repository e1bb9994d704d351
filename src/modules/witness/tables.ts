/** The tables of the witness module (migration 0043). Sizes are BIGINT on PostgreSQL, handed over as strings. */
export interface WitnessSignerTable {
  /** Always `witness`: one key per instance. */
  id: string;
  verifier_key: string;
  /** The Ed25519 seed, sealed with the service's secrets key. */
  sealed_seed: string;
  created_at: string;
}

export interface WitnessedLogsTable {
  origin: string;
  /** The log's verifier key (signed-note Ed25519, type 0x01). */
  verifier_key: string;
  /** Where the log is published, for people reading the list; the witness never fetches it. */
  url: string | null;
  /** 1 while an admin lists the log; 0 once taken off (its state is kept). */
  active: number;
  /** The size and root of the latest checkpoint cosigned (0 and the empty root before the first). */
  size: number | string;
  root: Buffer;
  /** That checkpoint with the log's signatures and this witness's cosignature; null before the first. */
  checkpoint: string | null;
  updated_at: string;
}

export interface WitnessPeersTable {
  /** The witness's cosignature verifier key (type 0x04). */
  verifier_key: string;
  /** Its submission prefix: add-checkpoint is POSTed to `<url>/add-checkpoint`. */
  url: string;
  created_at: string;
}

export interface LogCosignaturesTable {
  log: string;
  witness_key: string;
  size: number | string;
  /** The checkpoint body the cosignature signs (without signature lines). */
  checkpoint_text: string;
  /** The cosignature's note signature line, with its newline. */
  line: string;
  signed_at: string;
}

export interface WitnessTables {
  witness_signer: WitnessSignerTable;
  witnessed_logs: WitnessedLogsTable;
  witness_peers: WitnessPeersTable;
  log_cosignatures: LogCosignaturesTable;
}
