import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { ConfirmDialog } from './ConfirmDialog';

export type ShunKind = 'mute' | 'block';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'Something went wrong. Try again.');

/** Mute or block someone, or undo it; afterwards the lists, feeds and notifications that hide them load again. */
export function useShun(username: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, on }: { kind: ShunKind; on: boolean }) => {
      const path = { params: { path: { username } } };
      if (kind === 'mute') return unwrap(on ? api.POST('/v1/social/users/{username}/mute', path) : api.DELETE('/v1/social/users/{username}/mute', path));
      return unwrap(on ? api.POST('/v1/social/users/{username}/block', path) : api.DELETE('/v1/social/users/{username}/block', path));
    },
    onSuccess: () =>
      Promise.all([['social-profile'], ['shunned'], ['feed'], ['notifications'], ['trending']].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
}

/** Mute and Block on a profile; blocking asks first, since it also ends the follows between the two. */
export function ShunButtons({ username, muted, blocked }: { username: string; muted: boolean; blocked: boolean }) {
  const shun = useShun(username);
  const [asking, setAsking] = useState<object | null>(null);
  return (
    <div className="shun">
      <button type="button" className="button" aria-pressed={muted} disabled={shun.isPending} onClick={() => shun.mutate({ kind: 'mute', on: !muted })}>
        {muted ? 'Unmute' : 'Mute'}
      </button>
      <button
        type="button"
        className="button"
        aria-pressed={blocked}
        disabled={shun.isPending}
        onClick={() => (blocked ? shun.mutate({ kind: 'block', on: false }) : setAsking({}))}
      >
        {blocked ? 'Unblock' : 'Block'}
      </button>
      {shun.error && !asking && (
        <span className="form-error small" role="alert">
          {messageOf(shun.error)}
        </span>
      )}
      <ConfirmDialog
        subject={asking}
        title={`Block @${username}?`}
        confirmLabel="Block"
        busy={shun.isPending}
        error={shun.error ? messageOf(shun.error) : null}
        onConfirm={() => shun.mutate({ kind: 'block', on: true }, { onSuccess: () => setAsking(null) })}
        onClose={() => {
          setAsking(null);
          shun.reset();
        }}
      >
        <p>You will no longer see their posts or notifications, and they can no longer follow, mention or reply to you. You stop following each other.</p>
      </ConfirmDialog>
    </div>
  );
}
