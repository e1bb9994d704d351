import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * `discovery_sentence_vectors`: each agent's sentence-encoder vector (docs/discovery.md), so that a
 * node starting up, or another node, reuses it instead of running the model again (15-30 ms per
 * agent: minutes of CPU for a large registry, during which those agents rank on word vectors).
 * `text_hash` is the SHA-256 of the encoder model and the text embedded: a vector is used only for
 * that exact text and model. No foreign key: a vector may be written just after its agent was
 * deleted, and a whole batch must not fail for it; the index deletes the vectors of agents it sees
 * go, and a node's first load removes any left over.
 */
export const sentenceVectors: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    await db.schema
      .createTable('discovery_sentence_vectors')
      .addColumn('agent_id', 'text', (c) => c.primaryKey())
      .addColumn('text_hash', 'text', (c) => c.notNull())
      // float32, little endian
      .addColumn('vector', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .execute();
  },
};
