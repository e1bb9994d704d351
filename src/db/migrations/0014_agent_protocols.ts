import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.ts';

/**
 * What an agent's manifest (A2A agent card or MCP server.json) filled in and when, the credential
 * the service presents to an agent it calls over A2A (encrypted with SECRETS_KEY), and the A2A task
 * a delivery job follows once the agent has accepted the message.
 */
export const agentProtocols: Migration = {
  async up(db: Kysely<unknown>) {
    const statements = [
      'ALTER TABLE agents ADD COLUMN manifest_imported_at TEXT',
      'ALTER TABLE agents ADD COLUMN manifest_fields TEXT',
      'ALTER TABLE agents ADD COLUMN auth_credential TEXT',
      'ALTER TABLE task_deliveries ADD COLUMN remote_task_id TEXT',
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
