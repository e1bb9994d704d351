import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.ts';

/**
 * A hash of every row of every table of the app's database (its own PostgreSQL schema, or the
 * SQLite file): equal before and after a request means the request wrote nothing. What the node's
 * timers write by themselves is left out: the background work's schedule (`background_passes`), the
 * health prober's leases and the health it measures (written in batches, a second apart), and
 * discovery's sentence vectors (a cache of the agents' texts, embedded in the background after a
 * search has found them new).
 */
const TIMER_TABLES = new Set(['background_passes', 'agent_health_probes', 'agent_health_hours', 'discovery_sentence_vectors']);

export async function databaseFingerprint(database: DatabaseHandle): Promise<string> {
  const tables =
    database.dialect === 'sqlite'
      ? await sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts%' ORDER BY name`.execute(database.db)
      : await sql<{
          name: string;
        }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(
          database.db,
        );
  const hash = createHash('sha256');
  for (const { name } of tables.rows) {
    if (TIMER_TABLES.has(name)) continue;
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}`.execute(database.db);
    const lines = rows.rows.map((row) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))).sort();
    hash.update(`${name}\n${lines.join('\n')}\n`);
  }
  return hash.digest('hex');
}
