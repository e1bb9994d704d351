import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * An agent's `examples`: requests in users' own words that it is for (a JSON array). A change of them
 * is a change discovery reads (the change log of 0020) and a change mirrors read (the feed of 0030),
 * so each log gets a trigger on the new column beside the ones on the older columns.
 */
export const agentExamples: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements =
      dialect === 'postgres'
        ? [
            `ALTER TABLE agents ADD COLUMN examples TEXT NOT NULL DEFAULT '[]'`,
            'CREATE TRIGGER agents_examples_changed AFTER UPDATE OF examples ON agents FOR EACH ROW EXECUTE FUNCTION agent_changed()',
            'CREATE TRIGGER agents_feed_examples AFTER UPDATE OF examples ON agents FOR EACH ROW EXECUTE FUNCTION agent_feed_changed()',
          ]
        : [
            `ALTER TABLE agents ADD COLUMN examples TEXT NOT NULL DEFAULT '[]'`,
            `CREATE TRIGGER agents_examples_changed AFTER UPDATE OF examples ON agents BEGIN
               INSERT INTO agent_changes(agent_id) VALUES (new.id);
             END`,
            `CREATE TRIGGER agents_feed_examples AFTER UPDATE OF examples ON agents WHEN old.visibility = 'public' OR new.visibility = 'public' BEGIN
               INSERT INTO agent_feed (agent_id, public, at) VALUES (new.id, new.visibility = 'public', new.updated_at);
             END`,
          ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
