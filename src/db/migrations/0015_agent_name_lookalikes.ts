import { sql, type Kysely } from 'kysely';
import { lookalikeKeys } from '../../lib/confusables.ts';
import type { Migration } from '../migration.ts';

const BATCH = 500;

interface AgentName {
  id: string;
  name: string;
  created_at: string;
}

/**
 * `agents.name_skeleton` and `agents.name_skeleton_lower`: the two lookalike keys of the agent's
 * name (src/lib/confusables.ts), each under a unique index, so that no agent can take a name that
 * looks like another's ("Inbox Summarіzer" with a Cyrillic і), even when two registrations race.
 *
 * Existing agents get their keys in registration order. Where two already look alike, the older
 * keeps the key and the newer is left without it (NULL, which a unique index allows any number of
 * times): it keeps its name, and takes the key with its next rename. The keys are computed from the
 * confusable data of the day: a later change of that data comes with a migration that recomputes
 * them.
 */
export const agentNameLookalikes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('agents').addColumn('name_skeleton', 'text').execute();
    await db.schema.alterTable('agents').addColumn('name_skeleton_lower', 'text').execute();

    const taken = { asWritten: new Set<string>(), lowercase: new Set<string>() };
    let after: AgentName | null = null;
    for (;;) {
      const position: AgentName | null = after;
      const rows: AgentName[] = (
        await sql<AgentName>`SELECT id, name, created_at FROM agents
          ${position ? sql`WHERE created_at > ${position.created_at} OR (created_at = ${position.created_at} AND id > ${position.id})` : sql``}
          ORDER BY created_at, id LIMIT ${BATCH}`.execute(db)
      ).rows;
      for (const row of rows) {
        const keys = lookalikeKeys(row.name);
        const asWritten = taken.asWritten.has(keys.asWritten) ? null : keys.asWritten;
        const lowercase = taken.lowercase.has(keys.lowercase) ? null : keys.lowercase;
        if (asWritten !== null) taken.asWritten.add(asWritten);
        if (lowercase !== null) taken.lowercase.add(lowercase);
        await sql`UPDATE agents SET name_skeleton = ${asWritten}, name_skeleton_lower = ${lowercase} WHERE id = ${row.id}`.execute(db);
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!;
    }

    await db.schema.createIndex('agents_name_skeleton').unique().on('agents').column('name_skeleton').execute();
    await db.schema.createIndex('agents_name_skeleton_lower').unique().on('agents').column('name_skeleton_lower').execute();
  },
};
