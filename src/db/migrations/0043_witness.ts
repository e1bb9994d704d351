import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Witnesses (c2sp.org/tlog-witness), both directions (modules/witness):
 *  - `witness_signer`: this instance's witness key, its seed sealed with the secrets key (one row).
 *  - `witnessed_logs`: the logs an admin asked this instance to witness, and for each the latest
 *    checkpoint it cosigned (size 0 and the empty root before the first). A log taken off the list
 *    keeps its row (inactive), so listing it again cannot make the witness forget what it cosigned.
 *  - `witness_peers`: the witnesses this instance sends its own checkpoints to.
 *  - `log_cosignatures`: the latest cosignature each peer returned for each of this instance's logs.
 */
export const witness: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
    const bigint = dialect === 'postgres' ? 'BIGINT' : 'INTEGER';
    await sql`CREATE TABLE witness_signer (id TEXT PRIMARY KEY, verifier_key TEXT NOT NULL, sealed_seed TEXT NOT NULL, created_at TEXT NOT NULL)`.execute(db);
    await sql
      .raw(
        `CREATE TABLE witnessed_logs (origin TEXT PRIMARY KEY, verifier_key TEXT NOT NULL, url TEXT, active INTEGER NOT NULL,
        size ${bigint} NOT NULL, root ${bytes} NOT NULL, checkpoint TEXT, updated_at TEXT NOT NULL)`,
      )
      .execute(db);
    await sql`CREATE TABLE witness_peers (verifier_key TEXT PRIMARY KEY, url TEXT NOT NULL, created_at TEXT NOT NULL)`.execute(db);
    await sql
      .raw(
        `CREATE TABLE log_cosignatures (log TEXT NOT NULL, witness_key TEXT NOT NULL, size ${bigint} NOT NULL, checkpoint_text TEXT NOT NULL,
        line TEXT NOT NULL, signed_at TEXT NOT NULL, PRIMARY KEY (log, witness_key))`,
      )
      .execute(db);
  },
};
