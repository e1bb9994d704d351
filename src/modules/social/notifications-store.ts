import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { ModerationStatesReadModel } from '../moderation/index.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import type { NotificationsTable, SocialTables } from './tables.ts';

export type NewNotification = Insertable<NotificationsTable>;

export function createNotificationsStore(database: Db) {
  // Profiles: notifications are listed with their actors in the same query.
  const db = ownTables<SocialTables & ProfilesReadModel & ModerationStatesReadModel>(database);
  return {
    async insert(rows: NewNotification[]): Promise<void> {
      if (rows.length > 0) await db.insertInto('notifications').values(rows).execute();
    },

    /** A like taken back (of a post, or of a comment), or a follow undone, takes its notification with it. */
    withdraw: (type: 'like' | 'follow', actorId: string, target: { postId: string } | { commentId: string } | { recipientId: string }) => {
      let query = db.deleteFrom('notifications').where('type', '=', type).where('actor_id', '=', actorId);
      if ('postId' in target) query = query.where('post_id', '=', target.postId).where('comment_id', 'is', null);
      else if ('commentId' in target) query = query.where('comment_id', '=', target.commentId);
      else query = query.where('recipient_id', '=', target.recipientId);
      return query.execute();
    },

    /**
     * Newest first, ties by id; one row more than asked, to tell whether there is a next page. Not
     * from the actors in `hidden` (muted or blocked); with `since`, only those made then or later.
     */
    list: (recipientId: string, limit: number, offset: number, hidden: readonly string[] = [], since?: string) => {
      let query = db
        .selectFrom('notifications as n')
        .innerJoin('profiles as a', 'a.id', 'n.actor_id')
        // A pure repost's notification names the repost: its original is what the grouped view merges by.
        .leftJoin('posts as repost', (join) => join.onRef('repost.id', '=', 'n.post_id').on('repost.kind', '=', 'repost'))
        .select([
          'repost.repost_of as reposted_post_id',
          'n.id',
          'n.type',
          'n.read',
          'n.post_id',
          'n.comment_id',
          'n.post_body',
          'n.created_at',
          // The actor under the author_* names, so views.ts's authorView reads it.
          'a.id as author_id',
          'a.username as author_username',
          'a.display_name as author_display_name',
          'a.type as author_type',
          'a.avatar_url as author_avatar_url',
        ])
        .where('n.recipient_id', '=', recipientId)
        // Notifications of hidden posts and comments go with them; the author's moderation notice stays.
        .where((eb) =>
          eb.or([
            eb('n.type', '=', 'moderation'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('moderation_states as m')
                  .select('m.subject_id')
                  .where('m.state', '=', 'hidden')
                  .where((inner) =>
                    inner.or([
                      inner.and([inner('m.subject_type', '=', 'post'), inner('m.subject_id', '=', inner.ref('n.post_id'))]),
                      inner.and([inner('m.subject_type', '=', 'comment'), inner('m.subject_id', '=', inner.ref('n.comment_id'))]),
                    ]),
                  ),
              ),
            ),
          ]),
        );
      if (hidden.length > 0) query = query.where('n.actor_id', 'not in', [...hidden]);
      if (since !== undefined) query = query.where('n.created_at', '>=', since);
      return query
        .orderBy('n.created_at', 'desc')
        .orderBy('n.id', 'desc')
        .limit(limit + 1)
        .offset(offset)
        .execute();
    },

    /** Not counting those from the actors in `hidden`. */
    async unreadCount(recipientId: string, hidden: readonly string[] = []) {
      let query = db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('recipient_id', '=', recipientId)
        .where('read', '=', 0);
      if (hidden.length > 0) query = query.where('actor_id', 'not in', [...hidden]);
      return Number((await query.executeTakeFirstOrThrow()).n);
    },

    /** The unread notifications that quote someone else's words (not from the actors in `hidden`): what muted words may leave out. */
    unreadTexts: (recipientId: string, hidden: readonly string[] = []) => {
      let query = db
        .selectFrom('notifications as n')
        .leftJoin('posts as repost', (join) => join.onRef('repost.id', '=', 'n.post_id').on('repost.kind', '=', 'repost'))
        .select(['n.type', 'n.post_body', 'repost.repost_of as reposted_post_id'])
        .where('n.recipient_id', '=', recipientId)
        .where('n.read', '=', 0)
        .where('n.type', 'in', ['reply', 'mention', 'repost']);
      if (hidden.length > 0) query = query.where('n.actor_id', 'not in', [...hidden]);
      return query.execute();
    },

    /** Marks the recipient's unread notifications read (only `ids`, when given); returns how many changed. */
    async markRead(recipientId: string, ids: string[] | undefined): Promise<number> {
      let query = db.updateTable('notifications').set({ read: 1 }).where('recipient_id', '=', recipientId).where('read', '=', 0);
      if (ids) query = query.where('id', 'in', ids);
      return Number((await query.executeTakeFirst()).numUpdatedRows);
    },
  };
}

export type NotificationsStore = ReturnType<typeof createNotificationsStore>;
