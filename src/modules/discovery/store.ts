import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import { agentRecordOf, type AgentRecord, type AgentSearchReadModel, type AgentRowsReadModel } from '../registry/index.ts';
import { createLexicalSearch, createWorkLexicalSearch } from './lexical.ts';
import type { DiscoveryTables } from './tables.ts';

/** An agent's last signs of life and its last heartbeat's report. */
export interface Heartbeat {
  id: string;
  lastSeenAt: string | null;
  lastPolledAt: string | null;
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

/** One completed task's evidence for an agent, as the index holds it (its words stay in the database). */
export interface WorkEvidence {
  taskId: string;
  agentId: string;
  text: string;
  searchQuery: string | null;
  audience: string;
  vectorModel: string | null;
  vector: Float32Array | null;
  queryVector: Float32Array | null;
}

/** A completed task given to discovery as evidence (before its caps are applied). */
export interface NewWorkEvidence extends WorkEvidence {
  requesterId: string;
  ratedAt: string;
}

/** How much of an agent's completed work counts: per requester account, and in all (the most recent). */
export const WORK_CAPS = { perRequester: 3, perAgent: 50 } as const;

const nullableVector = (bytes: Uint8Array | null): Float32Array | null => (bytes && bytes.byteLength > 0 ? vectorOf(bytes) : null);

/** A change log's rows: which agent changed, in commit-independent sequence order. */
export interface ChangeLog {
  /** The log's end (0 when empty). */
  last(): Promise<number>;
  /** Changes after `after`, plus any of `gaps` (numbers skipped earlier that may have committed since). */
  since(after: number, gaps: number[]): Promise<{ seq: number; agentId: string }[]>;
}

function changeLog(
  db: ReturnType<typeof ownTables<DiscoveryTables & AgentRowsReadModel & AgentSearchReadModel>>,
  table: 'agent_changes' | 'discovery_work_changes',
): ChangeLog {
  return {
    // BIGSERIAL comes back from pg as text.
    last: async () => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    since: async (after, gaps) => {
      const rows = await db
        .selectFrom(table)
        .select(['seq', 'agent_id'])
        .where((eb) => (gaps.length > 0 ? eb.or([eb('seq', '>', after), eb('seq', 'in', gaps)]) : eb('seq', '>', after)))
        .orderBy('seq')
        .execute();
      return rows.map((r) => ({ seq: Number(r.seq), agentId: r.agent_id }));
    },
  };
}

export function createDiscoveryStore(database: Db, dialect: DialectName) {
  const db = ownTables<DiscoveryTables & AgentRowsReadModel & AgentSearchReadModel>(database);
  return {
    lexical: createLexicalSearch(ownTables<AgentSearchReadModel>(database), dialect),
    /** Full-text rank of agents by their completed work's words: each agent's best task. */
    workLexical: createWorkLexicalSearch(ownTables<DiscoveryTables>(database), dialect),

    /** The agents' change log (written by triggers on agents) and the completed-work evidence's. */
    agentChanges: changeLog(db, 'agent_changes'),
    workChanges: changeLog(db, 'discovery_work_changes'),
    /** Evidence of every agent (a node's first load), or of some. */
    workEvidence: async (agentIds?: string[]): Promise<WorkEvidence[]> => {
      const query = db
        .selectFrom('discovery_work_evidence')
        .select(['task_id', 'agent_id', 'text', 'search_query', 'audience', 'vector_model', 'vector', 'query_vector'])
        .orderBy('rated_at', 'desc')
        .orderBy('id', 'desc');
      const rows = [];
      if (!agentIds) rows.push(...(await query.execute()));
      else for (const chunk of chunksOf(agentIds, ID_CHUNK)) rows.push(...(await query.where('agent_id', 'in', chunk).execute()));
      return rows.map((row) => ({
        taskId: row.task_id,
        agentId: row.agent_id,
        text: row.text,
        searchQuery: row.search_query,
        audience: row.audience,
        vectorModel: row.vector_model,
        vector: nullableVector(row.vector),
        queryVector: nullableVector(row.query_vector),
      }));
    },
    saveWorkVectors: async (rows: { taskId: string; model: string; vector: Float32Array; queryVector: Float32Array | null }[]): Promise<void> => {
      for (const row of rows)
        await db
          .updateTable('discovery_work_evidence')
          .set({ vector_model: row.model, vector: vectorBytes(row.vector), query_vector: row.queryVector ? vectorBytes(row.queryVector) : null })
          .where('task_id', '=', row.taskId)
          .execute();
    },
    /**
     * Adds a task's evidence, then keeps only the most recent WORK_CAPS.perRequester of its
     * requester's tasks for the agent and WORK_CAPS.perAgent of all, in one transaction. A task
     * already recorded is left as it is.
     */
    recordWork: async (evidence: NewWorkEvidence): Promise<void> => {
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('discovery_work_evidence')
          .values({
            task_id: evidence.taskId,
            agent_id: evidence.agentId,
            requester_id: evidence.requesterId,
            text: evidence.text,
            search_query: evidence.searchQuery,
            audience: evidence.audience,
            vector_model: evidence.vector ? evidence.vectorModel : null,
            vector: evidence.vector ? vectorBytes(evidence.vector) : null,
            query_vector: evidence.vector && evidence.queryVector ? vectorBytes(evidence.queryVector) : null,
            rated_at: evidence.ratedAt,
          })
          .onConflict((oc) => oc.column('task_id').doNothing())
          .execute();
        const newest = (limit: number, requesterId?: string) => {
          let query = tx.selectFrom('discovery_work_evidence').select('id').where('agent_id', '=', evidence.agentId);
          if (requesterId) query = query.where('requester_id', '=', requesterId);
          return query.orderBy('rated_at', 'desc').orderBy('id', 'desc').limit(limit);
        };
        // The ids kept are read first (at most 50), then the rest deleted: one plain statement on both engines.
        const keptOfRequester = (await newest(WORK_CAPS.perRequester, evidence.requesterId).execute()).map((row) => row.id);
        await tx
          .deleteFrom('discovery_work_evidence')
          .where('agent_id', '=', evidence.agentId)
          .where('requester_id', '=', evidence.requesterId)
          .where('id', 'not in', keptOfRequester)
          .execute();
        const kept = (await newest(WORK_CAPS.perAgent).execute()).map((row) => row.id);
        await tx.deleteFrom('discovery_work_evidence').where('agent_id', '=', evidence.agentId).where('id', 'not in', kept).execute();
      });
    },

    /** Whether a task is evidence already. */
    hasWork: async (taskId: string): Promise<boolean> =>
      (await db.selectFrom('discovery_work_evidence').select('id').where('task_id', '=', taskId).executeTakeFirst()) !== undefined,
    /** A task's evidence, taken back (its requester rated it poorly after a success receipt). */
    forgetTask: async (taskId: string): Promise<void> => {
      await db.deleteFrom('discovery_work_evidence').where('task_id', '=', taskId).execute();
    },

    /** Whether the account turned "let my completed tasks improve search" off. */
    optedOut: async (accountId: string): Promise<boolean> =>
      (await db.selectFrom('discovery_search_opt_outs').select('account_id').where('account_id', '=', accountId).executeTakeFirst()) !== undefined,
    /** Turning it off removes the evidence the account's tasks gave; on applies to tasks rated from then on. */
    setImprovesSearch: async (accountId: string, on: boolean, at: string): Promise<void> => {
      await db.transaction().execute(async (tx) => {
        if (on) await tx.deleteFrom('discovery_search_opt_outs').where('account_id', '=', accountId).execute();
        else {
          await tx
            .insertInto('discovery_search_opt_outs')
            .values({ account_id: accountId, at })
            .onConflict((oc) => oc.column('account_id').doNothing())
            .execute();
          await tx.deleteFrom('discovery_work_evidence').where('requester_id', '=', accountId).execute();
        }
      });
    },

    /** A deleted account's evidence and setting. */
    forgetAccount: async (accountId: string): Promise<void> => {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('discovery_work_evidence').where('requester_id', '=', accountId).execute();
        await tx.deleteFrom('discovery_search_opt_outs').where('account_id', '=', accountId).execute();
      });
    },

    /** At most `limit` agents by id, after `afterId` (null: from the first): a node's first load, page by page. */
    agentsPage: async (afterId: string | null, limit: number): Promise<AgentRecord[]> => {
      let query = db.selectFrom('agents').selectAll().orderBy('id').limit(limit);
      if (afterId !== null) query = query.where('id', '>', afterId);
      return (await query.execute()).map(agentRecordOf);
    },
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

    /** The stored sentence vectors of these agents. */
    sentenceVectors: async (ids: string[]): Promise<StoredSentenceVector[]> => {
      const query = db.selectFrom('discovery_sentence_vectors').select(['agent_id', 'text_hash', 'vector']);
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
      (
        await db
          .selectFrom('agents')
          .select(['id', 'last_seen_at', 'last_polled_at', 'reported_status', 'reported_load'])
          .where('last_seen_at', '>', since)
          .execute()
      ).map((row) => ({
        id: row.id,
        lastSeenAt: row.last_seen_at,
        lastPolledAt: row.last_polled_at,
        reportedStatus: row.reported_status,
        reportedLoad: row.reported_load,
      })),
  };
}

export type DiscoveryStore = ReturnType<typeof createDiscoveryStore>;
