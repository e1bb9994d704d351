import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import type { MediaTable, MediaTables } from './tables.ts';

export type MediaSummary = Omit<MediaTable, 'data'>;
const summaryColumns = [
  'id',
  'owner_id',
  'person_id',
  'content_type',
  'bytes',
  'created_at',
  'width',
  'height',
  'attached_to',
  'attached_position',
  'alt',
] as const;

export type UploadsOf = { owner_id: string } | { person_id: string };
const columnOf = (uploads: UploadsOf) => ('owner_id' in uploads ? 'owner_id' : 'person_id');
const idOf = (uploads: UploadsOf) => ('owner_id' in uploads ? uploads.owner_id : uploads.person_id);

export function createMediaStore(database: Db, dialect: DialectName) {
  const db = ownTables<MediaTables>(database);
  const usedBytes = async (executor: typeof db, personId: string) => {
    const row = await executor
      .selectFrom('media')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('bytes'), eb.lit(0)).as('used'))
      .where('person_id', '=', personId)
      .executeTakeFirstOrThrow();
    return Number(row.used);
  };
  return {
    /**
     * Stores the upload if the person's uploads stay within `quotaBytes`, checked and written in one
     * transaction that parallel uploads of the same person wait on (SQLite has one writer; PostgreSQL
     * takes a transaction lock per person), so they cannot all pass the check together.
     */
    insertWithinQuota: (row: Insertable<MediaTable> & { person_id: string; bytes: number }, quotaBytes: number): Promise<{ stored: boolean; used: number }> =>
      db.transaction().execute(async (tx) => {
        if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtext(${`media:${row.person_id}`}))`.execute(tx);
        const used = await usedBytes(tx, row.person_id);
        if (used + row.bytes > quotaBytes) return { stored: false, used };
        await tx.insertInto('media').values(row).execute();
        return { stored: true, used };
      }),
    /** The stored bytes and their type, for serving. */
    content: (id: string) => db.selectFrom('media').select(['content_type', 'data']).where('id', '=', id).executeTakeFirst(),
    find: (id: string): Promise<MediaSummary | undefined> => db.selectFrom('media').select(summaryColumns).where('id', '=', id).executeTakeFirst(),
    findMany: (ids: string[]): Promise<MediaSummary[]> =>
      ids.length === 0 ? Promise.resolve([]) : db.selectFrom('media').select(summaryColumns).where('id', 'in', ids).execute(),
    /** Attaches the upload if `ownerId` uploaded it and it is attached to nothing; answers whether it did. */
    async attach(id: string, ownerId: string, subjectId: string, position: number, alt: string): Promise<boolean> {
      const updated = await db
        .updateTable('media')
        .set({ attached_to: subjectId, attached_position: position, alt })
        .where('id', '=', id)
        .where('owner_id', '=', ownerId)
        .where('attached_to', 'is', null)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },
    /** Deletes the uploads attached to these posts and comments, which frees their bytes in their uploaders' quotas. */
    releaseAttachedTo: async (subjectIds: string[]) => {
      if (subjectIds.length > 0) await db.deleteFrom('media').where('attached_to', 'in', subjectIds).execute();
    },
    remove: (id: string) => db.deleteFrom('media').where('id', '=', id).execute(),
    /** Deletes every upload a person answers for: theirs and their agents'. */
    removeAllOf: async (personId: string) => {
      await db.deleteFrom('media').where('person_id', '=', personId).execute();
    },
    /**
     * Uploads by one account (owner_id), or all a person answers for (person_id: theirs and their
     * agents'); newest first, ties on the timestamp broken by id so pages never overlap.
     */
    list: (uploads: UploadsOf, limit: number, offset: number): Promise<MediaSummary[]> =>
      db
        .selectFrom('media')
        .select(summaryColumns)
        .where(columnOf(uploads), '=', idOf(uploads))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    count: async (uploads: UploadsOf) => {
      const row = await db
        .selectFrom('media')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where(columnOf(uploads), '=', idOf(uploads))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type MediaStore = ReturnType<typeof createMediaStore>;
