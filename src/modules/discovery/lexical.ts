/**
 * Full-text search over the registry's `agent_search_documents`, one function per engine. Terms are plain words
 * (letters and digits, from src/lib/words.ts), so they are safe to splice into a MATCH or tsquery expression;
 * they are OR-ed: every query word may find agents, the rank decides.
 */
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { AgentSearchReadModel } from '../registry/index.ts';
import type { DiscoveryTables } from './tables.ts';

export type LexicalSearch = (terms: string[], limit: number) => Promise<Map<string, number>>;

const plainTerm = /^[\p{L}\p{N}]+$/u;

/**
 * A word found in more documents than this takes no part in the full-text rank. Ranking costs CPU
 * for every document a word is in (both engines score every match before keeping the best), so on a
 * large registry one common word made a search's cost grow with the registry; such a word weighs
 * little in the rank anyway, and semantic similarity, concepts and word coverage still count it.
 * Counting a word's documents stops here, so the check's own cost stays bounded too.
 */
export const COMMON_WORD_DOCUMENTS = 5_000;

const quoted = (word: string) => `"${word}"`;

/** The words found in at most COMMON_WORD_DOCUMENTS documents of a full-text index, in one statement. */
async function uncommonWords(
  db: QueryExecutorProvider,
  dialect: DialectName,
  words: string[],
  fts: { sqlite: string; postgres: string },
  commonFrom: number,
): Promise<string[]> {
  if (words.length === 0) return words;
  const upTo = commonFrom + 1;
  const { rows } =
    dialect === 'postgres'
      ? // One subquery per word, each with its word bound: planned with the word's own frequency, the
        // index finds a rare word, where a word only known at run time could be planned as a scan.
        await sql<{ word: string; found: number | string }>`${sql.join(
          words.map(
            (word) =>
              sql`SELECT ${word}::text AS word, (SELECT count(*) FROM (SELECT 1 FROM ${sql.table(fts.postgres)} WHERE search @@ to_tsquery('english', ${word}) LIMIT ${upTo}) s) AS found`,
          ),
          sql` UNION ALL `,
        )}`.execute(db)
      : await sql<{ word: string; found: number }>`
          SELECT j.value AS word, (SELECT count(*) FROM (SELECT 1 FROM ${sql.table(fts.sqlite)} WHERE ${sql.table(fts.sqlite)} MATCH '"' || j.value || '"' LIMIT ${upTo})) AS found
          FROM json_each(${JSON.stringify(words)}) j`.execute(db);
  const common = new Set(rows.filter((row) => Number(row.found) > commonFrom).map((row) => row.word));
  return words.filter((word) => !common.has(word));
}

const AGENT_DOCUMENTS = { sqlite: 'agent_search_fts', postgres: 'agent_search_documents' };
const WORK_DOCUMENTS = { sqlite: 'discovery_work_fts', postgres: 'discovery_work_evidence' };

/** `commonWordDocuments`: the limit above which a word is left out of the rank (tests lower it). */
export interface LexicalOptions {
  commonWordDocuments?: number;
}

export function createLexicalSearch(
  db: Kysely<AgentSearchReadModel>,
  dialect: DialectName,
  { commonWordDocuments = COMMON_WORD_DOCUMENTS }: LexicalOptions = {},
): LexicalSearch {
  return dialect === 'postgres' ? postgresSearch(db, commonWordDocuments) : sqliteSearch(db, commonWordDocuments);
}

/** FTS5 with the porter stemmer; bm25 column weights: name 3, description 1, capability terms 2. */
function sqliteSearch(db: Kysely<AgentSearchReadModel>, commonFrom: number): LexicalSearch {
  return async (terms, limit) => {
    const words = await uncommonWords(
      db,
      'sqlite',
      terms.filter((t) => plainTerm.test(t)),
      AGENT_DOCUMENTS,
      commonFrom,
    );
    if (words.length === 0) return new Map();
    const match = words.map(quoted).join(' OR ');
    const { rows } = await sql<{ agent_id: string; score: number }>`
      SELECT d.agent_id, -bm25(agent_search_fts, 3.0, 1.0, 2.0) AS score
      FROM agent_search_fts JOIN agent_search_documents d ON d.doc_id = agent_search_fts.rowid
      WHERE agent_search_fts MATCH ${match}
      ORDER BY score DESC LIMIT ${limit}`.execute(db);
    return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
  };
}

/** English text search configuration (Snowball stemmer); ts_rank with the A/B weights of the migration. */
function postgresSearch(db: Kysely<AgentSearchReadModel>, commonFrom: number): LexicalSearch {
  return async (terms, limit) => {
    const words = await uncommonWords(
      db,
      'postgres',
      terms.filter((t) => plainTerm.test(t)),
      AGENT_DOCUMENTS,
      commonFrom,
    );
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
export function createWorkLexicalSearch(
  db: Kysely<DiscoveryTables>,
  dialect: DialectName,
  { commonWordDocuments = COMMON_WORD_DOCUMENTS }: LexicalOptions = {},
): LexicalSearch {
  return async (terms, limit) => {
    const words = await uncommonWords(
      db,
      dialect,
      terms.filter((t) => plainTerm.test(t)),
      WORK_DOCUMENTS,
      commonWordDocuments,
    );
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
              WHERE discovery_work_fts MATCH ${words.map(quoted).join(' OR ')}
            )
            SELECT agent_id, max(score) AS score FROM hits GROUP BY agent_id ORDER BY score DESC LIMIT ${limit}`.execute(db);
    return new Map(rows.map((r) => [r.agent_id, Number(r.score)]));
  };
}
