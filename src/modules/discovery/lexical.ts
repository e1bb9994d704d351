/**
 * Full-text search over the registry's `agent_search_documents`, one function per engine. Terms are plain words
 * (letters and digits, from src/lib/words.ts), so they are safe to splice into a MATCH or tsquery expression;
 * they are OR-ed: every query word may find agents, the rank decides.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { AgentSearchReadModel } from '../registry/index.ts';
import type { DiscoveryTables } from './tables.ts';

export type LexicalSearch = (terms: string[], limit: number) => Promise<Map<string, number>>;

const plainTerm = /^[\p{L}\p{N}]+$/u;

export function createLexicalSearch(db: Kysely<AgentSearchReadModel>, dialect: DialectName): LexicalSearch {
  return dialect === 'postgres' ? postgresSearch(db) : sqliteSearch(db);
}

/** FTS5 with the porter stemmer; bm25 column weights: name 3, description 1, capability terms 2. */
function sqliteSearch(db: Kysely<AgentSearchReadModel>): LexicalSearch {
  return async (terms, limit) => {
    const words = terms.filter((t) => plainTerm.test(t));
    if (words.length === 0) return new Map();
    const match = words.map((w) => `"${w}"`).join(' OR ');
    const { rows } = await sql<{ agent_id: string; score: number }>`
      SELECT d.agent_id, -bm25(agent_search_fts, 3.0, 1.0, 2.0) AS score
      FROM agent_search_fts JOIN agent_search_documents d ON d.doc_id = agent_search_fts.rowid
      WHERE agent_search_fts MATCH ${match}
      ORDER BY score DESC LIMIT ${limit}`.execute(db);
    return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
  };
}

/** English text search configuration (Snowball stemmer); ts_rank with the A/B weights of the migration. */
function postgresSearch(db: Kysely<AgentSearchReadModel>): LexicalSearch {
  return async (terms, limit) => {
    const words = terms.filter((t) => plainTerm.test(t));
    if (words.length === 0) return new Map();
    const query = words.join(' | ');
    const { rows } = await sql<{ agent_id: string; score: number }>`
      SELECT agent_id, ts_rank(search, q) AS score
      FROM agent_search_documents, to_tsquery('english', ${query}) q
      WHERE search @@ q
      ORDER BY score DESC LIMIT ${limit}`.execute(db);
    return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
  };
}

/**
 * The same over agents' completed work (migration 0034): an agent's score is its best task's. A
 * separate index, so that the registry's documents stay the agents' own words.
 */
export function createWorkLexicalSearch(db: Kysely<DiscoveryTables>, dialect: DialectName): LexicalSearch {
  return async (terms, limit) => {
    const words = terms.filter((t) => plainTerm.test(t));
    if (words.length === 0) return new Map();
    const { rows } =
      dialect === 'postgres'
        ? await sql<{ agent_id: string; score: number }>`
            SELECT agent_id, max(ts_rank(search, q)) AS score
            FROM discovery_work_evidence, to_tsquery('english', ${words.join(' | ')}) q
            WHERE search @@ q
            GROUP BY agent_id ORDER BY score DESC LIMIT ${limit}`.execute(db)
        : // bm25() may not sit under an aggregate: the hits are materialised first, then grouped.
          await sql<{ agent_id: string; score: number }>`
            WITH hits AS MATERIALIZED (
              SELECT e.agent_id AS agent_id, -bm25(discovery_work_fts) AS score
              FROM discovery_work_fts JOIN discovery_work_evidence e ON e.id = discovery_work_fts.rowid
              WHERE discovery_work_fts MATCH ${words.map((w) => `"${w}"`).join(' OR ')}
            )
            SELECT agent_id, max(score) AS score FROM hits GROUP BY agent_id ORDER BY score DESC LIMIT ${limit}`.execute(db);
    return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
  };
}
