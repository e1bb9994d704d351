import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import { agentRecordOf, type AgentRecord, type AgentSearchReadModel, type AgentRowsReadModel } from '../registry/index.ts';
import { createLexicalSearch } from './lexical.ts';
import type { DiscoveryTables } from './tables.ts';

/** An agent's last heartbeat. */
export interface Heartbeat {
  id: string;
  lastSeenAt: string | null;
  reportedStatus: string | null;
  reportedLoad: number | null;
}

/** An agent's stored sentence vector, and the hash of the model and text it was made from. */
export interface StoredSentenceVector {
  agentId: string;
  textHash: string;
  vector: Float32Array;
}

/** Both engines cap the number of bound parameters: ids go in chunks of 500, vector rows (3 parameters each) of 100. */
const ID_CHUNK = 500;
const ROW_CHUNK = 100;
const chunksOf = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const vectorBytes = (vector: Float32Array): Buffer => {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
};
const vectorOf = (bytes: Uint8Array): Float32Array => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float32Array.from({ length: buffer.length >> 2 }, (_, i) => buffer.readFloatLE(i * 4));
};
const storedVector = (row: { agent_id: string; text_hash: string; vector: Uint8Array }): StoredSentenceVector => ({
  agentId: row.agent_id,
  textHash: row.text_hash,
  vector: vectorOf(row.vector),
});

export function createDiscoveryStore(database: Db, dialect: DialectName) {
  const db = ownTables<DiscoveryTables & AgentRowsReadModel & AgentSearchReadModel>(database);
  return {
    lexical: createLexicalSearch(ownTables<AgentSearchReadModel>(database), dialect),

    /** The change log's end; BIGSERIAL comes back from pg as text. */
    lastChange: async (): Promise<number> => {
      const row = await db
        .selectFrom('agent_changes')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /** Changes after `after`, plus any of `gaps` (sequence numbers skipped earlier that may have committed since). */
    changesSince: async (after: number, gaps: number[]): Promise<{ seq: number; agentId: string }[]> => {
      const rows = await db
        .selectFrom('agent_changes')
        .select(['seq', 'agent_id'])
        .where((eb) => (gaps.length > 0 ? eb.or([eb('seq', '>', after), eb('seq', 'in', gaps)]) : eb('seq', '>', after)))
        .orderBy('seq')
        .execute();
      return rows.map((r) => ({ seq: Number(r.seq), agentId: r.agent_id }));
    },

    allAgents: async (): Promise<AgentRecord[]> => (await db.selectFrom('agents').selectAll().execute()).map(agentRecordOf),
    agentsByIds: async (ids: string[]): Promise<AgentRecord[]> => {
      const agents: AgentRecord[] = [];
      for (const chunk of chunksOf(ids, ID_CHUNK))
        for (const row of await db.selectFrom('agents').selectAll().where('id', 'in', chunk).execute()) agents.push(agentRecordOf(row));
      return agents;
    },
    agentBySlug: async (slug: string): Promise<AgentRecord | undefined> => {
      const row = await db.selectFrom('agents').selectAll().where('slug', '=', slug).executeTakeFirst();
      return row && agentRecordOf(row);
    },

    /** Stored sentence vectors: every one (a node's first load), or those of some agents. */
    sentenceVectors: async (ids?: string[]): Promise<StoredSentenceVector[]> => {
      const query = db.selectFrom('discovery_sentence_vectors').select(['agent_id', 'text_hash', 'vector']);
      if (!ids) return (await query.execute()).map(storedVector);
      const found: StoredSentenceVector[] = [];
      for (const chunk of chunksOf(ids, ID_CHUNK)) found.push(...(await query.where('agent_id', 'in', chunk).execute()).map(storedVector));
      return found;
    },
    saveSentenceVectors: async (vectors: StoredSentenceVector[]): Promise<void> => {
      for (const chunk of chunksOf(vectors, ROW_CHUNK)) {
        await db
          .insertInto('discovery_sentence_vectors')
          .values(chunk.map((v) => ({ agent_id: v.agentId, text_hash: v.textHash, vector: vectorBytes(v.vector) })))
          .onConflict((oc) => oc.column('agent_id').doUpdateSet((eb) => ({ text_hash: eb.ref('excluded.text_hash'), vector: eb.ref('excluded.vector') })))
          .execute();
      }
    },
    deleteSentenceVectors: async (ids: string[]): Promise<void> => {
      for (const chunk of chunksOf(ids, ID_CHUNK)) await db.deleteFrom('discovery_sentence_vectors').where('agent_id', 'in', chunk).execute();
    },
    /** Vectors of agents that no longer exist (deleted while no node saw it, or written just after). */
    deleteOrphanSentenceVectors: async (): Promise<void> => {
      await db.deleteFrom('discovery_sentence_vectors').where('agent_id', 'not in', db.selectFrom('agents').select('id')).execute();
    },

    /** Heartbeats after `since` (indexed on last_seen_at). */
    seenSince: async (since: string): Promise<Heartbeat[]> =>
      (await db.selectFrom('agents').select(['id', 'last_seen_at', 'reported_status', 'reported_load']).where('last_seen_at', '>', since).execute()).map(
        (row) => ({ id: row.id, lastSeenAt: row.last_seen_at, reportedStatus: row.reported_status, reportedLoad: row.reported_load }),
      ),
  };
}

export type DiscoveryStore = ReturnType<typeof createDiscoveryStore>;
