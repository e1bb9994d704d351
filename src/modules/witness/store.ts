import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { WitnessTables } from './tables.ts';

export interface WitnessedLog {
  origin: string;
  verifierKey: string;
  url: string | null;
  size: number;
  root: Buffer;
  checkpoint: string | null;
}

export interface WitnessPeer {
  verifierKey: string;
  url: string;
}

export function createWitnessStore(database: Db) {
  const db: Kysely<WitnessTables> = ownTables<WitnessTables>(database);

  return {
    async signer(): Promise<{ verifierKey: string; sealedSeed: string } | undefined> {
      const row = await db.selectFrom('witness_signer').select(['verifier_key', 'sealed_seed']).where('id', '=', 'witness').executeTakeFirst();
      return row && { verifierKey: row.verifier_key, sealedSeed: row.sealed_seed };
    },

    /** Keeps a new key unless another node kept one first. */
    async offerSigner(verifierKey: string, sealedSeed: string, now: string): Promise<void> {
      await db
        .insertInto('witness_signer')
        .values({ id: 'witness', verifier_key: verifierKey, sealed_seed: sealedSeed, created_at: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },

    async activeLogs(): Promise<WitnessedLog[]> {
      const rows = await db.selectFrom('witnessed_logs').selectAll().where('active', '=', 1).orderBy('origin').execute();
      return rows.map((row) => ({
        origin: row.origin,
        verifierKey: row.verifier_key,
        url: row.url,
        size: Number(row.size),
        root: Buffer.from(row.root),
        checkpoint: row.checkpoint,
      }));
    },

    async activeLog(origin: string): Promise<WitnessedLog | undefined> {
      return (await this.activeLogs()).find((log) => log.origin === origin);
    },

    /** The list an admin gives: these logs active (state kept for those seen before), every other one inactive. */
    async replaceLogs(logs: { origin: string; verifierKey: string; url: string | null }[], emptyRoot: Buffer, now: string): Promise<void> {
      await database.transaction().execute(async (tx) => {
        const own = ownTables<WitnessTables>(tx);
        await own.updateTable('witnessed_logs').set({ active: 0, updated_at: now }).execute();
        for (const log of logs)
          await own
            .insertInto('witnessed_logs')
            .values({ origin: log.origin, verifier_key: log.verifierKey, url: log.url, active: 1, size: 0, root: emptyRoot, checkpoint: null, updated_at: now })
            .onConflict((oc) => oc.column('origin').doUpdateSet({ verifier_key: log.verifierKey, url: log.url, active: 1, updated_at: now }))
            .execute();
      });
    },

    /**
     * Records a newly cosigned checkpoint if the log's state is still the one it was checked against
     * (compare and set): two requests checked against the same state cannot both move it.
     */
    async advance(origin: string, from: { size: number; root: Buffer }, to: { size: number; root: Buffer; checkpoint: string }, now: string): Promise<boolean> {
      const result = await db
        .updateTable('witnessed_logs')
        .set({ size: to.size, root: to.root, checkpoint: to.checkpoint, updated_at: now })
        .where('origin', '=', origin)
        .where('active', '=', 1)
        .where('size', '=', from.size)
        .where('root', '=', from.root)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async peers(): Promise<WitnessPeer[]> {
      const rows = await db.selectFrom('witness_peers').select(['verifier_key', 'url']).orderBy('created_at').orderBy('verifier_key').execute();
      return rows.map((row) => ({ verifierKey: row.verifier_key, url: row.url }));
    },

    async replacePeers(peers: WitnessPeer[], now: string): Promise<void> {
      await database.transaction().execute(async (tx) => {
        const own = ownTables<WitnessTables>(tx);
        await own.deleteFrom('witness_peers').execute();
        if (peers.length > 0)
          await own
            .insertInto('witness_peers')
            .values(peers.map((peer) => ({ verifier_key: peer.verifierKey, url: peer.url, created_at: now })))
            .execute();
        // Cosignatures of witnesses no longer asked are no longer served.
        const kept = peers.map((peer) => peer.verifierKey);
        await (kept.length > 0 ? own.deleteFrom('log_cosignatures').where('witness_key', 'not in', kept) : own.deleteFrom('log_cosignatures')).execute();
      });
    },

    async cosignatures(log: string): Promise<{ witnessKey: string; size: number; checkpointText: string; line: string }[]> {
      const rows = await db.selectFrom('log_cosignatures').select(['witness_key', 'size', 'checkpoint_text', 'line']).where('log', '=', log).execute();
      return rows.map((row) => ({ witnessKey: row.witness_key, size: Number(row.size), checkpointText: row.checkpoint_text, line: row.line }));
    },

    async saveCosignature(log: string, witnessKey: string, size: number, checkpointText: string, line: string, now: string): Promise<void> {
      await db
        .insertInto('log_cosignatures')
        .values({ log, witness_key: witnessKey, size, checkpoint_text: checkpointText, line, signed_at: now })
        // A late answer about an older checkpoint never replaces a newer cosignature.
        .onConflict((oc) =>
          oc
            .columns(['log', 'witness_key'])
            .doUpdateSet({ size, checkpoint_text: checkpointText, line, signed_at: now })
            .where('log_cosignatures.size', '<=', size),
        )
        .execute();
    },
  };
}

export type WitnessStore = ReturnType<typeof createWitnessStore>;
