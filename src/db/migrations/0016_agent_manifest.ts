import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/** What an agent's manifest (A2A agent card or MCP server.json) filled in, and when. */
export const agentManifest: Migration = {
  async up(db: Kysely<unknown>) {
    const statements = ['ALTER TABLE agents ADD COLUMN manifest_imported_at TEXT', 'ALTER TABLE agents ADD COLUMN manifest_fields TEXT'];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
