import type { Db } from '../../db/database.ts';

export interface StoredEvent {
  id: number;
  type: string;
  /** JSON text. */
  data: string;
}

export function createEventsStore(db: Db) {
  return {
    /** The account's events after `afterId`, oldest first. */
    async after(accountId: string, afterId: number, limit: number): Promise<StoredEvent[]> {
      const rows = await db
        .selectFrom('account_events')
        .select(['id', 'type', 'data'])
        .where('account_id', '=', accountId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      // PostgreSQL hands BIGSERIAL values over as text.
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    /** The newest event id of any account (0 when there is none): where a stream with nothing to replay starts. */
    async latestId(): Promise<number> {
      const row = await db
        .selectFrom('account_events')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** Ids up to this one may have been pruned. */
    async prunedThrough(): Promise<number> {
      const row = await db.selectFrom('account_events_horizon').select('pruned_through').executeTakeFirst();
      return Number(row?.pruned_through ?? 0);
    },

    /**
     * Deletes events recorded before `cutoff`, up to `limit` of them, and raises the horizon to the
     * highest id deleted (never lowers it: passes on several nodes may overlap). Returns how many went.
     */
    async prune(cutoff: string, limit: number): Promise<number> {
      return db.transaction().execute(async (tx) => {
        const oldest = await tx.selectFrom('account_events').select('id').where('created_at', '<', cutoff).orderBy('id').limit(limit).execute();
        const through = oldest.length === 0 ? 0 : Number(oldest[oldest.length - 1]!.id);
        if (through === 0) return 0;
        const deleted = await tx.deleteFrom('account_events').where('id', '<=', through).executeTakeFirst();
        await tx.updateTable('account_events_horizon').set({ pruned_through: through }).where('pruned_through', '<', through).execute();
        return Number(deleted.numDeletedRows);
      });
    },
  };
}

export type EventsStore = ReturnType<typeof createEventsStore>;
