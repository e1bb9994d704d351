import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { api, unwrap } from '../api/client';
import type { Post } from '../api/types';
import { formatNumber } from '../lib/format';
import { useSocialSelf } from '../lib/social';
import { CommentBox, QuoteButton, QuoteForm, RepostButton } from './PostActions';

type Shown = Post | NonNullable<Post['originalPost']>;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'Something went wrong. Try again.');

/** Who liked, reposted and quoted the post: each count opens its list. */
export function EngagementLinks({ post }: { post: Shown }) {
  return (
    <>
      <Link to={`/posts/${post.id}/likes`}>
        {formatNumber(post.likeCount)} {post.likeCount === 1 ? 'like' : 'likes'}
      </Link>
      <Link to={`/posts/${post.id}/reposts`}>
        {formatNumber(post.repostCount)} {post.repostCount === 1 ? 'repost or quote' : 'reposts and quotes'}
      </Link>
    </>
  );
}

/** Like (the upvote, value 1): pressed when the reader likes the post; the count is the server's once it answers. */
function LikeButton({ post }: { post: Shown }) {
  const client = useQueryClient();
  const [state, setState] = useState({ liked: post.userVote === 1, likes: post.likeCount });
  const like = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/social/posts/{id}/vote', { params: { path: { id: post.id } }, body: { value: 1 } })),
    onMutate: () => setState((s) => ({ liked: !s.liked, likes: s.likes + (s.liked ? -1 : 1) })),
    onError: () => setState({ liked: post.userVote === 1, likes: post.likeCount }),
    // The counts under the card (and on the post's page) come from the lists that hold it.
    onSuccess: () => Promise.all(['post', 'feed', 'user-posts'].map((key) => client.invalidateQueries({ queryKey: [key] }))),
  });
  return (
    <>
      <button type="button" className="button button-small" aria-pressed={state.liked} disabled={like.isPending} onClick={() => like.mutate()}>
        <span aria-hidden="true">♥ </span>
        {state.liked ? 'Liked' : 'Like'}
        <span className="visually-hidden">, </span> <span className="action-count">{formatNumber(state.likes)}</span>
      </button>
      {like.error && (
        <span className="form-error small" role="alert">
          {messageOf(like.error)}
        </span>
      )}
    </>
  );
}

/**
 * Bookmark (private to the reader): pressed when the post is bookmarked. The Bookmarks page reads its
 * list again once the server has answered.
 */
function BookmarkButton({ post }: { post: Shown }) {
  const client = useQueryClient();
  const [bookmarked, setBookmarked] = useState(post.bookmarked === true);
  const mark = useMutation({
    mutationFn: (on: boolean) =>
      unwrap(
        on
          ? api.POST('/v1/social/posts/{id}/bookmark', { params: { path: { id: post.id } } })
          : api.DELETE('/v1/social/posts/{id}/bookmark', { params: { path: { id: post.id } } }),
      ),
    onMutate: (on) => setBookmarked(on),
    onError: () => setBookmarked(post.bookmarked === true),
    onSuccess: () => client.invalidateQueries({ queryKey: ['bookmarks'] }),
  });
  return (
    <>
      <button type="button" className="button button-small" aria-pressed={bookmarked} disabled={mark.isPending} onClick={() => mark.mutate(!bookmarked)}>
        {bookmarked ? 'Remove bookmark' : 'Bookmark'}
      </button>
      {mark.error && (
        <span className="form-error small" role="alert">
          {messageOf(mark.error)}
        </span>
      )}
    </>
  );
}

/** Copies the post's address; says so where a screen reader hears it. */
function ShareButton({ postId }: { postId: string }) {
  const [said, setSaid] = useState('');
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={async () => {
          const url = new URL(`/posts/${postId}`, window.location.origin).href;
          try {
            await navigator.clipboard.writeText(url);
            setSaid('Link copied');
          } catch {
            setSaid(`Copy this link: ${url}`);
          }
        }}
      >
        Share
      </button>
      <span className="small muted" role="status">
        {said}
      </span>
    </>
  );
}

/**
 * What anyone can do with a post wherever it is shown: like, reply (a comment box opens under the
 * card), repost or quote (one menu, whose repost state is asked for only when it opens), bookmark, share.
 * Signed out, the same places invite to log in or join. `onPage`: the post's own page, which has its
 * own comment box, votes and repost controls, so only Bookmark, Share and the invitations show there.
 */
export function PostCardActions({ post, onPage = false }: { post: Shown; onPage?: boolean }) {
  const { account, me } = useSocialSelf();
  const location = useLocation();
  const [open, setOpen] = useState<null | 'reply' | 'repost' | 'quote'>(null);
  const repostMenu = useRef<HTMLButtonElement>(null);
  const client = useQueryClient();
  if (!me) {
    if (account.isPending) return null;
    const next = encodeURIComponent(location.pathname + location.search);
    return (
      <div className="post-actions" role="group" aria-label="Act on the post">
        <Link className="button button-small" to={`/signup?next=${next}`}>
          Join to like
        </Link>
        <Link className="button button-small" to={`/login?next=${next}`}>
          Log in to reply
        </Link>
        <ShareButton postId={post.id} />
      </div>
    );
  }
  const toggle = (what: 'reply' | 'repost' | 'quote') => setOpen(open === what ? null : what);
  return (
    <>
      <div className="post-actions" role="group" aria-label={onPage ? 'Bookmark or share the post' : 'Act on the post'}>
        {!onPage && (
          <>
            <LikeButton post={post} />
            <button type="button" className="button button-small" aria-expanded={open === 'reply'} onClick={() => toggle('reply')}>
              Reply
            </button>
            <button
              ref={repostMenu}
              type="button"
              className="button button-small"
              aria-expanded={open === 'repost' || open === 'quote'}
              onClick={() => setOpen(open === 'repost' || open === 'quote' ? null : 'repost')}
            >
              Repost or quote
            </button>
          </>
        )}
        <BookmarkButton post={post} />
        <ShareButton postId={post.id} />
      </div>
      {(open === 'repost' || open === 'quote') && (
        <div className="post-actions" role="group" aria-label="Repost or quote the post">
          <RepostButton postId={post.id} />
          <QuoteButton open={open === 'quote'} onToggle={() => toggle('quote')} />
        </div>
      )}
      {open === 'quote' && (
        <QuoteForm
          postId={post.id}
          onClose={() => {
            setOpen(null);
            repostMenu.current?.focus();
          }}
        />
      )}
      {open === 'reply' && (
        <CommentBox
          postId={post.id}
          autoFocus
          onAdded={async () => {
            setOpen(null);
            await client.invalidateQueries({ queryKey: ['post', post.id] });
          }}
        />
      )}
    </>
  );
}
