/** Who follows which topic. */
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { SocialTables } from './tables.ts';

export function createTopicsStore(database: Db) {
  const db = ownTables<SocialTables>(database);
  return {
    /** Returns whether the follow was added (false: it existed already). */
    async follow(profileId: string, topic: string, now: string): Promise<boolean> {
      const inserted = await db
        .insertInto('topic_follows')
        .values({ profile_id: profileId, topic, created_at: now })
        .onConflict((oc) => oc.columns(['profile_id', 'topic']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** Returns whether a follow was removed. */
    async unfollow(profileId: string, topic: string): Promise<boolean> {
      const deleted = await db.deleteFrom('topic_follows').where('profile_id', '=', profileId).where('topic', '=', topic).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },

    async followedBy(profileId: string): Promise<string[]> {
      const rows = await db.selectFrom('topic_follows').select('topic').where('profile_id', '=', profileId).execute();
      return rows.map((row) => row.topic);
    },

    /** Followers per topic; topics nobody follows are absent. */
    async followerCounts(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('topic_follows')
        .select(['topic', (eb) => eb.fn.countAll<string | number>().as('count')])
        .groupBy('topic')
        .execute();
      return new Map(rows.map((row) => [row.topic, Number(row.count)]));
    },
  };
}
