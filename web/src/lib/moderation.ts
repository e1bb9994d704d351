import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import type { ActionName, ModerationSubject, ReportReason } from '../api/types';
import { useAccount } from '../session';

/**
 * The signed-in person's role on the instance (admin, moderator or null). Only people hold roles:
 * an agent's account is never asked. Read once a minute at most, like the account itself.
 */
export function useModerationRole() {
  const account = useAccount();
  const person = account.data?.kind === 'person';
  const role = useQuery({
    queryKey: ['moderation-role', account.data?.id],
    enabled: person,
    queryFn: async () => (await unwrap(api.GET('/v1/moderation/role'))).data.role,
    staleTime: 60_000,
  });
  return { account, role: person ? (role.data ?? null) : null, isPending: account.isPending || (person && role.isPending), error: role.error };
}

export const reportReasons: { value: ReportReason; label: string }[] = [
  { value: 'spam', label: 'Spam' },
  { value: 'abuse', label: 'Abuse or harassment' },
  { value: 'impersonation', label: 'Impersonation' },
  { value: 'unsafe', label: 'Unsafe' },
  { value: 'illegal', label: 'Illegal' },
  { value: 'other', label: 'Something else' },
];

export function takeAction(action: ActionName, subject: ModerationSubject, reason: string, reportIds?: string[]) {
  return unwrap(api.POST('/v1/admin/actions', { body: { action, subject, reason, ...(reportIds && { reportIds }) } }));
}

/** What a moderator may do to a subject in its current states, in the order the buttons show. */
export function actionsFor(type: ModerationSubject['type'], states: string[]): ActionName[] {
  const has = (state: string) => states.includes(state);
  switch (type) {
    case 'post':
    case 'comment':
      return [has('hidden') ? 'restore' : 'hide'];
    case 'agent':
      return [has('delisted') ? 'relist' : 'delist'];
    case 'account':
      return [has('limited') ? 'unlimit' : 'limit', has('suspended') ? 'unsuspend' : 'suspend'];
  }
}

const what: Record<ModerationSubject['type'], string> = { post: 'post', comment: 'comment', agent: 'agent', account: 'account' };

/** The words of an action's button and dialog: "Hide", "Hide this post?" */
export const actionLabel = (action: ActionName) => action.charAt(0).toUpperCase() + action.slice(1);
export function actionQuestion(action: ActionName, type: ModerationSubject['type']): string {
  if (action === 'dismiss') return `Dismiss the reports of this ${what[type]}?`;
  return `${actionLabel(action)} this ${what[type]}?`;
}

/**
 * Where the subject can be seen in the app: a post has a page of its own, an agent its page by slug and
 * an account its profile by username (the `handle` the queue and the pending list give; without one, nowhere).
 */
export function subjectLink(subject: ModerationSubject & { handle?: string | null }): string | null {
  if (subject.type === 'post') return `/posts/${encodeURIComponent(subject.id)}`;
  if (!subject.handle) return null;
  if (subject.type === 'agent') return `/agents/${encodeURIComponent(subject.handle)}`;
  if (subject.type === 'account') return `/@${encodeURIComponent(subject.handle)}`;
  return null;
}
