import { sql, type Kysely } from 'kysely';
import { TLOG_LOCK_CLASS } from '../../db/advisory-locks.ts';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import type { TlogLogsTable, TlogTables } from './tables.ts';

/** The log's state: its size, root and the checkpoint signed over them. */
export interface LogState {
  origin: string;
  size: number;
  root: Buffer;
  checkpoint: string;
}

export interface LogKey {
  verifierKey: string;
  sealedSeed: string | null;
  retiredAt: string | null;
}

/** Rows per insert statement: well under either engine's limit on bound values. */
const ROWS_PER_INSERT = 2_000;

const stateOf = (row: Pick<TlogLogsTable, 'origin' | 'size' | 'root' | 'checkpoint'>): LogState => ({
  origin: row.origin,
  size: Number(row.size),
  root: Buffer.from(row.root),
  checkpoint: row.checkpoint,
});

export function createTlogStore(database: Db, dialect: DialectName, log: string) {
  const db = ownTables<TlogTables>(database);
  const on = (tx: Tx | Db): Kysely<TlogTables> => ownTables<TlogTables>(tx);

  async function insertNumbered(tx: Tx, table: 'tlog_hashes' | 'tlog_entries', start: number, values: Buffer[]): Promise<void> {
    for (let at = 0; at < values.length; at += ROWS_PER_INSERT) {
      const rows = values
        .slice(at, at + ROWS_PER_INSERT)
        .map((value, i) => ({ log, idx: start + at + i, ...(table === 'tlog_hashes' ? { hash: value } : { data: value }) }));
      await on(tx)
        .insertInto(table)
        .values(rows as never)
        .execute();
    }
  }

  return {
    /**
     * Makes this transaction the log's only writer until it ends. PostgreSQL: a transaction-scoped
     * advisory lock, tried (false: another node holds it) or, with `wait`, awaited. SQLite: a write
     * taken first, so the transaction holds the database's write lock from its start.
     */
    async lock(tx: Tx, wait: boolean): Promise<boolean> {
      if (dialect === 'postgres') {
        const fn = wait ? sql.raw('pg_advisory_xact_lock') : sql.raw('pg_try_advisory_xact_lock');
        const { rows } = await sql<{
          locked: boolean | null | string;
        }>`SELECT ${fn}(${TLOG_LOCK_CLASS}, hashtext(current_schema() || '/' || ${log}))::text AS locked`.execute(tx);
        return wait || rows[0]?.locked === 'true';
      }
      await sql`UPDATE tlog_logs SET name = name WHERE name = ${log}`.execute(tx);
      return true;
    },

    async state(tx: Tx | Db = database): Promise<LogState | undefined> {
      const row = await on(tx).selectFrom('tlog_logs').select(['origin', 'size', 'root', 'checkpoint']).where('name', '=', log).executeTakeFirst();
      return row && stateOf(row);
    },

    async createLog(tx: Tx, origin: string, root: Buffer, checkpoint: string, now: string): Promise<void> {
      await on(tx).insertInto('tlog_logs').values({ name: log, origin, size: 0, root, checkpoint, signed_at: now }).execute();
    },

    async saveCheckpoint(tx: Tx, size: number, root: Buffer, checkpoint: string, now: string): Promise<void> {
      await on(tx).updateTable('tlog_logs').set({ size, root, checkpoint, signed_at: now }).where('name', '=', log).execute();
    },

    /** Stored hashes by index, in the order asked; throws when one is missing (a corrupt log must not be signed). */
    async readHashes(indexes: number[], tx: Tx | Db = database): Promise<Buffer[]> {
      if (indexes.length === 0) return [];
      const rows = await on(tx)
        .selectFrom('tlog_hashes')
        .select(['idx', 'hash'])
        .where('log', '=', log)
        .where('idx', 'in', [...new Set(indexes)])
        .execute();
      const byIndex = new Map(rows.map((row) => [Number(row.idx), Buffer.from(row.hash)]));
      return indexes.map((index) => {
        const hash = byIndex.get(index);
        if (!hash) throw new Error(`log ${log}: stored hash ${index} is missing`);
        return hash;
      });
    },

    insertHashes: (tx: Tx, start: number, hashes: Buffer[]) => insertNumbered(tx, 'tlog_hashes', start, hashes),
    insertEntries: (tx: Tx, start: number, entries: Buffer[]) => insertNumbered(tx, 'tlog_entries', start, entries),

    async readEntries(start: number, count: number): Promise<Buffer[]> {
      const rows = await db
        .selectFrom('tlog_entries')
        .select('data')
        .where('log', '=', log)
        .where('idx', '>=', start)
        .where('idx', '<', start + count)
        .orderBy('idx')
        .execute();
      return rows.map((row) => Buffer.from(row.data));
    },

    /** The log's keys, the active one first, then retired ones newest first. */
    async keys(tx: Tx | Db = database): Promise<LogKey[]> {
      const rows = await on(tx)
        .selectFrom('tlog_keys')
        .select(['verifier_key', 'sealed_seed', 'retired_at', 'created_at'])
        .where('log', '=', log)
        .orderBy(sql`retired_at IS NULL`, 'desc')
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map((row) => ({ verifierKey: row.verifier_key, sealedSeed: row.sealed_seed, retiredAt: row.retired_at }));
    },

    async addKey(tx: Tx, verifierKey: string, sealedSeed: string | null, now: string): Promise<void> {
      await on(tx).updateTable('tlog_keys').set({ retired_at: now }).where('log', '=', log).where('retired_at', 'is', null).execute();
      // A key used before and retired signs again: it becomes the active one.
      await on(tx).deleteFrom('tlog_keys').where('log', '=', log).where('verifier_key', '=', verifierKey).execute();
      await on(tx).insertInto('tlog_keys').values({ log, verifier_key: verifierKey, sealed_seed: sealedSeed, created_at: now, retired_at: null }).execute();
    },
  };
}

export type TlogStore = ReturnType<typeof createTlogStore>;
