/**
 * The log of task status changes as each account is told of them. Triggers on `tasks` write it in the
 * transaction of every status change (migrations 0018, 0021), so no writer of a status knows of it;
 * the events module streams it (GET /v1/events) and prunes it through these functions.
 */
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { TasksTable, TasksTables } from './tables.ts';

/** One status change as one account sees it; `id` orders the log and is what a stream resumes from. */
export interface TaskStatusEvent {
  id: number;
  type: 'task.status';
  data: {
    taskId: string;
    status: TasksTable['status'];
    at: string;
    /** Whether the account asked for the task or owns the agent it is assigned to. */
    role: 'requester' | 'agent';
  };
}

export function createStatusEventsStore(database: Db) {
  const db = ownTables<TasksTables>(database);
  return {
    /** The account's events after `afterId`, oldest first. */
    async after(accountId: string, afterId: number, limit: number): Promise<TaskStatusEvent[]> {
      const rows = await db
        .selectFrom('task_status_events')
        .select(['id', 'type', 'data'])
        .where('account_id', '=', accountId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      // PostgreSQL hands BIGSERIAL values over as text.
      return rows.map((row) => ({ id: Number(row.id), type: row.type, data: JSON.parse(row.data) as TaskStatusEvent['data'] }));
    },

    /** The newest event id of any account (0 when there is none): where a stream with nothing to replay starts. */
    async latestId(): Promise<number> {
      const row = await db
        .selectFrom('task_status_events')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** Ids up to this one may have been pruned. */
    async prunedThrough(): Promise<number> {
      const row = await db.selectFrom('task_status_events_horizon').select('pruned_through').executeTakeFirst();
      return Number(row?.pruned_through ?? 0);
    },

    /**
     * Deletes events recorded before `cutoff`, up to `limit` of them, and raises the horizon to the
     * highest id deleted (never lowers it: passes on several nodes may overlap). Returns how many went.
     */
    async prune(cutoff: string, limit: number): Promise<number> {
      return db.transaction().execute(async (tx) => {
        const oldest = await tx.selectFrom('task_status_events').select('id').where('created_at', '<', cutoff).orderBy('id').limit(limit).execute();
        const through = oldest.length === 0 ? 0 : Number(oldest[oldest.length - 1]!.id);
        if (through === 0) return 0;
        const deleted = await tx.deleteFrom('task_status_events').where('id', '<=', through).executeTakeFirst();
        await tx.updateTable('task_status_events_horizon').set({ pruned_through: through }).where('pruned_through', '<', through).execute();
        return Number(deleted.numDeletedRows);
      });
    },
  };
}

export type StatusEventsStore = ReturnType<typeof createStatusEventsStore>;
