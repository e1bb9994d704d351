import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { MediaTable, MediaTables } from './tables.ts';

export type MediaSummary = Omit<MediaTable, 'data'>;
const summaryColumns = ['id', 'owner_id', 'content_type', 'bytes', 'created_at'] as const;

export function createMediaStore(database: Db) {
  const db = ownTables<MediaTables>(database);
  return {
    insert: (row: MediaTable) => db.insertInto('media').values(row).execute(),
    /** The stored bytes and their type, for serving. */
    content: (id: string) => db.selectFrom('media').select(['content_type', 'data']).where('id', '=', id).executeTakeFirst(),
    find: (id: string): Promise<MediaSummary | undefined> => db.selectFrom('media').select(summaryColumns).where('id', '=', id).executeTakeFirst(),
    remove: (id: string) => db.deleteFrom('media').where('id', '=', id).execute(),
    usedBytes: async (ownerId: string) => {
      const row = await db
        .selectFrom('media')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('bytes'), eb.lit(0)).as('used'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.used);
    },
    /** Newest first; ties on the timestamp broken by id so pages never overlap. */
    list: (ownerId: string, limit: number, offset: number): Promise<MediaSummary[]> =>
      db
        .selectFrom('media')
        .select(summaryColumns)
        .where('owner_id', '=', ownerId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    count: async (ownerId: string) => {
      const row = await db
        .selectFrom('media')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type MediaStore = ReturnType<typeof createMediaStore>;
