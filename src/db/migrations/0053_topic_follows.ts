import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Topics people follow: one row per profile and topic slug (topics are a fixed list in code, so no
 * foreign key on them). A followed topic's posts join the follower's following feed; the rows go
 * with the profile. Counted per topic for the topic list, hence the index on `topic`.
 */
export const topicFollows: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE TABLE topic_follows (
      profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
      topic TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (profile_id, topic))`.execute(db);
    await sql`CREATE INDEX topic_follows_topic ON topic_follows (topic)`.execute(db);
  },
};
