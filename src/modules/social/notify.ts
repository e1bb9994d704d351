/**
 * Spec "Events": notifications are written by the action that causes them, in its transaction.
 * Nobody is notified of their own action, and one action notifies a person once: someone who
 * gets a reply or repost notification is not also notified of being mentioned in it.
 */
import { newId } from '../../lib/ids.ts';
import type { SocialStores } from './context.ts';
import type { NewNotification } from './notifications-store.ts';
import type { Identity } from './people-store.ts';
import { extractMentions, firstCodePoints, NOTIFICATION_EXCERPT } from './text.ts';

export interface NotificationSubject {
  postId: string | null;
  commentId: string | null;
  /** The post's text (for a pure repost, the text it reposts). */
  postText: string | null;
}

export function notification(
  type: NewNotification['type'],
  recipientId: string,
  actor: Identity,
  subject: NotificationSubject,
  now: string,
): NewNotification[] {
  if (recipientId === actor.id) return [];
  return [
    {
      id: newId(),
      recipient_id: recipientId,
      actor_id: actor.id,
      type,
      post_id: subject.postId,
      comment_id: subject.commentId,
      post_body: subject.postText === null ? null : firstCodePoints(subject.postText, NOTIFICATION_EXCERPT),
      created_at: now,
    },
  ];
}

/** One mention notification per existing user named with @ in `text`, except the actor and `alreadyNotified`. */
export async function mentionNotifications(
  tx: SocialStores,
  actor: Identity,
  text: string,
  subject: NotificationSubject,
  alreadyNotified: string[],
  now: string,
): Promise<NewNotification[]> {
  const mentioned = await tx.people.identitiesByUsername(extractMentions(text));
  return mentionsAmong(mentioned, actor, text, subject, alreadyNotified, now);
}

/** mentionNotifications() with the people it may name already loaded (`known`, which may hold others too). */
export function mentionsAmong(
  known: readonly Identity[],
  actor: Identity,
  text: string,
  subject: NotificationSubject,
  alreadyNotified: string[],
  now: string,
): NewNotification[] {
  const named = new Set(extractMentions(text));
  const skip = new Set(alreadyNotified);
  return known
    .filter((person) => named.has(person.username) && !skip.has(person.id))
    .flatMap((person) => notification('mention', person.id, actor, subject, now));
}
