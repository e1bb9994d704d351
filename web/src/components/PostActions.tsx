import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type Ref } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { formatNumber } from '../lib/format';
import { codePoints, MAX_POST } from './Composer';
import { ConfirmDialog } from './ConfirmDialog';
import { MentionField } from './MentionField';
import { AddImageButton, ChosenPictures, usePictures } from './PicturePicker';

type VoteValue = 1 | -1;
interface VoteState {
  score: number;
  userVote: VoteValue | null;
}

/** The server's rule: the same value again takes the vote back, the opposite one switches it. */
const nextVote = (before: VoteValue | null, sent: VoteValue): VoteValue | null => (before === sent ? null : sent);
const scoreOf = (vote: VoteValue | null) => vote ?? 0;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'Something went wrong. Try again.');

/**
 * Like and dislike, shown at once. Clicks are sent one after the other in the order they were made,
 * so the server applies them as the person did; once the last answer is in, what shows is the
 * server's own score and vote (also after a refused click, which so rolls back).
 */
export function VoteButtons({
  initial,
  send,
  label,
  onSettled,
}: {
  initial: VoteState;
  send: (value: VoteValue) => Promise<VoteState>;
  /** What is voted on, for the buttons' names ("post", "comment by Ada"). */
  label: string;
  onSettled?: (state: VoteState) => void;
}) {
  const [shown, setShown] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const confirmed = useRef(initial);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);

  function click(value: VoteValue) {
    setError(null);
    setShown((before) => {
      const after = nextVote(before.userVote, value);
      return { score: before.score - scoreOf(before.userVote) + scoreOf(after), userVote: after };
    });
    pending.current += 1;
    queue.current = queue.current
      .then(async () => {
        confirmed.current = await send(value);
      })
      .catch((refused: unknown) => setError(messageOf(refused)))
      .finally(() => {
        pending.current -= 1;
        if (pending.current === 0) {
          setShown(confirmed.current);
          onSettled?.(confirmed.current);
        }
      });
  }

  return (
    <div className="vote-buttons" role="group" aria-label={`Vote on the ${label}`}>
      <button type="button" className="button button-small" aria-pressed={shown.userVote === 1} onClick={() => click(1)}>
        <span aria-hidden="true">▲ </span>Like
      </button>
      <span className="vote-score" title="Likes minus dislikes">
        <span className="visually-hidden">Score </span>
        {formatNumber(shown.score)}
      </span>
      <button type="button" className="button button-small" aria-pressed={shown.userVote === -1} onClick={() => click(-1)}>
        <span aria-hidden="true">▼ </span>Dislike
      </button>
      {error && (
        <span className="form-error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** Repost and undo, for a signed-in person with a profile. */
export function RepostButton({ postId }: { postId: string }) {
  const client = useQueryClient();
  const key = ['repost', postId];
  const status = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/v1/social/posts/{id}/repost', { params: { path: { id: postId } } })),
  });
  const toggle = useMutation({
    mutationFn: async (reposted: boolean) => {
      const path = { params: { path: { id: postId } } };
      if (reposted) await unwrap(api.DELETE('/v1/social/posts/{id}/repost', path));
      else await unwrap(api.POST('/v1/social/posts/{id}/repost', { ...path, body: {} }));
    },
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: key }), client.invalidateQueries({ queryKey: ['post'] })]),
  });
  if (!status.data) return null;
  const reposted = status.data.reposted;
  return (
    <>
      <button type="button" className="button button-small" aria-pressed={reposted} disabled={toggle.isPending} onClick={() => toggle.mutate(reposted)}>
        {reposted ? 'Undo repost' : 'Repost'}
      </button>
      {toggle.error && (
        <span className="form-error small" role="alert">
          {messageOf(toggle.error)}
        </span>
      )}
    </>
  );
}

/** A button that deletes something of one's own after a confirmation; the server's refusal shows in the dialog. */
export function DeleteButton({ what, remove, onDeleted }: { what: 'post' | 'comment'; remove: () => Promise<unknown>; onDeleted: () => void }) {
  const [asking, setAsking] = useState<object | null>(null);
  const deletion = useMutation({ mutationFn: remove, onSuccess: onDeleted });
  return (
    <>
      <button type="button" className="button button-small button-danger" onClick={() => setAsking({})}>
        Delete {what}
      </button>
      <ConfirmDialog
        subject={asking}
        title={`Delete this ${what}?`}
        confirmLabel={`Delete ${what}`}
        busy={deletion.isPending}
        error={deletion.error ? messageOf(deletion.error) : null}
        onConfirm={() => deletion.mutate()}
        onClose={() => {
          setAsking(null);
          deletion.reset();
        }}
      >
        <p>{what === 'post' ? 'Its comments, votes and reposts go with it.' : 'Its votes go with it.'} This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

/**
 * The comment box under a post (on its page, or opened by Reply under a card): a comment on the post,
 * or (`parentId`) a reply to one of its comments, with up to four pictures.
 */
export function CommentBox({
  postId,
  parentId,
  onAdded,
  onCancel,
  autoFocus = false,
}: {
  postId: string;
  parentId?: string;
  onAdded: () => Promise<unknown>;
  onCancel?: () => void;
  autoFocus?: boolean;
}) {
  const id = useId();
  const [body, setBody] = useState('');
  const pictures = usePictures(id);
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/social/posts/{id}/comments', {
          params: { path: { id: postId } },
          body: { body, ...(parentId ? { parentId } : {}), ...pictures.requestMedia() },
        }),
      ),
    onSuccess: async () => {
      setBody('');
      pictures.clear();
      await onAdded();
    },
  });
  const refusal = add.error instanceof ApiError ? (add.error.forField('body') ?? add.error.message) : add.error ? messageOf(add.error) : null;
  return (
    <form
      className="comment-box"
      onSubmit={(event) => {
        event.preventDefault();
        if (pictures.described()) add.mutate();
      }}
    >
      <label htmlFor={`${id}-body`}>{parentId ? 'Your reply' : 'Your comment'}</label>
      <textarea
        id={`${id}-body`}
        rows={3}
        autoFocus={autoFocus}
        value={body}
        onChange={(event) => setBody(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && onCancel) onCancel();
        }}
      />
      {refusal && (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      )}
      <ChosenPictures choice={pictures} label={parentId ? 'Images in your reply' : 'Images in your comment'} />
      <div className="comment-box-buttons">
        <span className="comment-box-extras">
          <AddImageButton choice={pictures} />
        </span>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="button button-primary" disabled={add.isPending || body.trim() === '' || pictures.uploading}>
          {parentId ? 'Reply' : 'Comment'}
        </button>
      </div>
    </form>
  );
}

/**
 * Follow and unfollow, shown at once (the button and the follower count); on a refusal both go back
 * to what they were and the service's message shows beside the button.
 */
export function FollowButton({ username, following, profileKey }: { username: string; following: boolean; profileKey: readonly unknown[] }) {
  const client = useQueryClient();
  type Profile = { user: { isFollowing?: boolean; followersCount: number } };
  const toggle = useMutation({
    mutationFn: async (follow: boolean) => {
      const path = { params: { path: { username } } };
      return unwrap(follow ? api.POST('/v1/social/users/{username}/follow', path) : api.DELETE('/v1/social/users/{username}/follow', path));
    },
    onMutate: async (follow) => {
      await client.cancelQueries({ queryKey: profileKey });
      const before = client.getQueryData<Profile>(profileKey);
      client.setQueryData<Profile>(
        profileKey,
        (p) => p && { ...p, user: { ...p.user, isFollowing: follow, followersCount: p.user.followersCount + (follow ? 1 : -1) } },
      );
      return { before };
    },
    onError: (_error, _follow, context) => client.setQueryData(profileKey, context?.before),
    onSuccess: () => client.invalidateQueries({ queryKey: profileKey }),
  });
  return (
    <div className="follow">
      <button
        type="button"
        className={following ? 'button' : 'button button-primary'}
        aria-pressed={following}
        disabled={toggle.isPending}
        onClick={() => toggle.mutate(!following)}
      >
        {following ? 'Unfollow' : 'Follow'}
      </button>
      {toggle.error && (
        <span className="form-error small" role="alert">
          {messageOf(toggle.error)}
        </span>
      )}
    </div>
  );
}

/** Quote: opens (and closes) the quote form under a post, on the post's page and in the feeds alike. */
export function QuoteButton({ open, onToggle, ref }: { open: boolean; onToggle: () => void; ref?: Ref<HTMLButtonElement> }) {
  return (
    <button ref={ref} type="button" className="button button-small" aria-expanded={open} onClick={onToggle}>
      Quote
    </button>
  );
}

/**
 * Writing a quote of a post (POST /v1/social/posts/:id/repost with a body): the new post, with the
 * quoted one inside it, opens once the service has it; a refusal shows its message under the text.
 */
export function QuoteForm({ postId, onClose }: { postId: string; onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const [body, setBody] = useState('');
  const length = codePoints(body);
  const quote = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/social/posts/{id}/repost', { params: { path: { id: postId } }, body: { body } })),
    onSuccess: async ({ post }) => {
      void client.invalidateQueries({ queryKey: ['feed'] });
      void client.invalidateQueries({ queryKey: ['user-posts'] });
      void client.invalidateQueries({ queryKey: ['post', postId] });
      await navigate(`/posts/${post.id}`);
    },
  });
  const refusal = quote.error instanceof ApiError ? (quote.error.forField('body') ?? quote.error.message) : quote.error ? messageOf(quote.error) : null;
  return (
    <form
      className="card composer quote-form"
      aria-label="Quote this post"
      onSubmit={(event) => {
        event.preventDefault();
        quote.mutate();
      }}
    >
      <label htmlFor={`${id}-body`}>Your quote</label>
      <MentionField
        id={`${id}-body`}
        rows={3}
        autoFocus
        value={body}
        aria-describedby={`${id}-count${refusal ? ` ${id}-error` : ''}`}
        aria-invalid={length > MAX_POST || undefined}
        onValueChange={(text) => {
          setBody(text);
          quote.reset();
        }}
      />
      {refusal && (
        <p className="form-error" id={`${id}-error`} role="alert">
          {refusal}
        </p>
      )}
      <div className="composer-bar">
        <span id={`${id}-count`} className={length > MAX_POST ? 'composer-count composer-over' : 'composer-count muted'} aria-live="polite">
          {length} / {MAX_POST}
          <span className="visually-hidden"> characters</span>
        </span>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={quote.isPending || body.trim() === ''}>
          Post quote
        </button>
      </div>
    </form>
  );
}
