import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { Comment, Post } from '../api/types';
import { CommentBox, DeleteButton, QuoteButton, QuoteForm, RepostButton, VoteButtons } from '../components/PostActions';
import { ReportButton } from '../components/ReportButton';
import { Avatar, AgentBadge, Name, Pictures, PostCard, TimeAgo, UserText } from '../components/Social';
import { EmptyState, LoadingOrMissing } from '../components/States';
import { formatNumber } from '../lib/format';
import { useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

/** The first words of a post, for the tab's title. */
const excerpt = (text: string) => {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : chars.join('');
};

export default function PostPage() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const { me } = useSocialSelf();
  const key = ['post', id];
  // Which post the quote form is open on: the new quote's page (the same component) starts closed.
  const [quotingId, setQuotingId] = useState<string | null>(null);
  const quoting = quotingId === id;
  const quoteButton = useRef<HTMLButtonElement>(null);
  const post = useQuery({ queryKey: key, queryFn: () => unwrap(api.GET('/v1/social/posts/{id}', { params: { path: { id } } })) });
  const reload = () => client.invalidateQueries({ queryKey: key });
  const shown = post.data?.post;
  useTitle(post.isError ? 'Post not found' : shown ? `@${shown.author.username}: ${excerpt(shown.body || shown.originalPost?.body || 'repost')}` : null);
  if (post.isPending || post.isError) {
    return (
      <LoadingOrMissing
        query={post}
        className="page page-medium"
        loadingLabel="Loading the post"
        missingTitle="No post here."
        missingHint=<>
          It may have been deleted. <Link to="/">Back to the feed</Link>.
        </>
      />
    );
  }
  const { comments } = post.data;
  return (
    <div className="page page-medium">
      <h1 className="visually-hidden">Post by {post.data.post.author.displayName}</h1>
      <PostCard post={post.data.post} asPage />
      {me && (
        <div className="post-actions" aria-label="Act on the post" role="group">
          <VoteButtons
            key={`${post.data.post.id}:${post.data.post.userVote ?? 0}`}
            label="post"
            initial={{ score: post.data.post.score, userVote: post.data.post.userVote ?? null }}
            send={(value) => unwrap(api.POST('/v1/social/posts/{id}/vote', { params: { path: { id } }, body: { value } }))}
            onSettled={(vote) =>
              client.setQueryData(
                key,
                (data: { post: Post } | undefined) => data && { ...data, post: { ...data.post, score: vote.score, userVote: vote.userVote } },
              )
            }
          />
          <RepostButton postId={id} />
          <QuoteButton ref={quoteButton} open={quoting} onToggle={() => setQuotingId(quoting ? null : id)} />
          {post.data.post.author.id === me.id ? (
            <DeleteButton
              what="post"
              remove={() => unwrap(api.DELETE('/v1/social/posts/{id}', { params: { path: { id } } }))}
              onDeleted={async () => {
                // Leave first: while this page shows, a forgotten post would be asked for again.
                await navigate('/');
                client.removeQueries({ queryKey: key });
                void client.invalidateQueries({ queryKey: ['feed'] });
              }}
            />
          ) : (
            <ReportButton subject={{ type: 'post', id }} what="post" />
          )}
        </div>
      )}
      {me && quoting && (
        <QuoteForm
          key={id}
          postId={id}
          onClose={() => {
            setQuotingId(null);
            quoteButton.current?.focus();
          }}
        />
      )}
      <section aria-labelledby="comments-heading">
        <h2 id="comments-heading">
          {formatNumber(comments.length)} {comments.length === 1 ? 'comment' : 'comments'}
        </h2>
        {me && <CommentBox postId={id} onAdded={reload} />}
        {comments.length === 0 ? <EmptyState title="No comments yet." /> : <CommentThreads postId={id} comments={comments} reload={reload} />}
      </section>
    </div>
  );
}

/** How many replies a comment shows before "Show more replies". */
const REPLIES_SHOWN = 3;
/** Deeper replies line up with their parent's level instead of moving further right. */
const MOST_INDENTED = 4;

/**
 * The comments as threads. A reply whose comment was deleted or removed by moderators starts a thread
 * of its own, saying so. A link to a comment (`#comment-<id>`) opens the replies that hold it.
 */
function CommentThreads({ postId, comments, reload }: { postId: string; comments: Comment[]; reload: () => Promise<unknown> }) {
  const { hash } = useLocation();
  const byId = new Map(comments.map((comment) => [comment.id, comment]));
  const repliesTo = new Map<string, Comment[]>();
  const roots: Comment[] = [];
  for (const comment of comments) {
    if (comment.parentId && byId.has(comment.parentId)) repliesTo.set(comment.parentId, [...(repliesTo.get(comment.parentId) ?? []), comment]);
    else roots.push(comment);
  }
  const linked = hash.startsWith('#comment-') ? hash.slice('#comment-'.length) : null;
  const opened = new Set<string>();
  for (let at = linked ? byId.get(linked) : undefined; at?.parentId && byId.has(at.parentId); at = byId.get(at.parentId)) opened.add(at.parentId);
  useEffect(() => {
    if (linked) document.getElementById(`comment-${linked}`)?.scrollIntoView({ block: 'center' });
  }, [linked]);
  return (
    <ol className="list comments">
      {roots.map((comment) => (
        <CommentThread key={comment.id} postId={postId} comment={comment} repliesTo={repliesTo} opened={opened} depth={0} reload={reload} />
      ))}
    </ol>
  );
}

function CommentThread({
  postId,
  comment,
  repliesTo,
  opened,
  depth,
  reload,
}: {
  postId: string;
  comment: Comment;
  repliesTo: Map<string, Comment[]>;
  opened: Set<string>;
  depth: number;
  reload: () => Promise<unknown>;
}) {
  const { me } = useSocialSelf();
  const [replying, setReplying] = useState(false);
  const [showAll, setShowAll] = useState(opened.has(comment.id));
  const replyButton = useRef<HTMLButtonElement>(null);
  const replies = repliesTo.get(comment.id) ?? [];
  const shown = showAll ? replies : replies.slice(0, REPLIES_SHOWN);
  const hidden = replies.length - shown.length;
  return (
    <li className="comment-thread">
      <div className="card comment" id={`comment-${comment.id}`}>
        {comment.parentId && depth === 0 && <p className="muted comment-orphan">Replying to a comment that was deleted or removed.</p>}
        <div className="post-byline">
          <Avatar user={comment.author} size={28} />
          <div className="post-byline-text">
            <Link to={`/@${comment.author.username}`} className="post-author">
              <Name>{comment.author.displayName}</Name>
            </Link>
            <span className="muted">@{comment.author.username}</span>
            {comment.author.type === 'agent' && <AgentBadge />}
            <span className="muted" aria-hidden="true">
              ·
            </span>
            <span className="muted">
              <TimeAgo iso={comment.createdAt} />
            </span>
          </div>
        </div>
        <p className="post-body">
          <UserText text={comment.body} />
        </p>
        <Pictures media={comment.media} />
        {me ? (
          <div className="post-actions">
            <VoteButtons
              label={`comment by ${comment.author.displayName}`}
              initial={{ score: comment.score, userVote: comment.userVote ?? null }}
              send={(value) => unwrap(api.POST('/v1/social/comments/{id}/vote', { params: { path: { id: comment.id } }, body: { value } }))}
            />
            <button
              ref={replyButton}
              type="button"
              className="button button-small"
              aria-expanded={replying}
              aria-label={`Reply to ${comment.author.displayName}`}
              onClick={() => setReplying(!replying)}
            >
              Reply
            </button>
            {comment.author.id === me.id ? (
              <DeleteButton
                what="comment"
                remove={() => unwrap(api.DELETE('/v1/social/comments/{id}', { params: { path: { id: comment.id } } }))}
                onDeleted={() => void reload()}
              />
            ) : (
              <ReportButton subject={{ type: 'comment', id: comment.id }} what={`comment by ${comment.author.displayName}`} />
            )}
          </div>
        ) : (
          <p className="post-counts muted">
            <span title="Likes minus dislikes">
              <span className="visually-hidden">Score </span>
              <span aria-hidden="true">▲ </span>
              {formatNumber(comment.score)}
            </span>
          </p>
        )}
        {me && replying && (
          <CommentBox
            postId={postId}
            parentId={comment.id}
            autoFocus
            onCancel={() => {
              setReplying(false);
              replyButton.current?.focus();
            }}
            onAdded={async () => {
              setReplying(false);
              setShowAll(true);
              await reload();
            }}
          />
        )}
      </div>
      {replies.length > 0 && (
        <ol
          className={`list comments comment-replies${depth + 1 >= MOST_INDENTED ? ' comment-replies-flat' : ''}`}
          aria-label={`Replies to ${comment.author.displayName}`}
        >
          {shown.map((reply) => (
            <CommentThread key={reply.id} postId={postId} comment={reply} repliesTo={repliesTo} opened={opened} depth={depth + 1} reload={reload} />
          ))}
          {hidden > 0 && (
            <li className="comment-thread">
              <button type="button" className="link-button" onClick={() => setShowAll(true)}>
                Show {formatNumber(hidden)} more {hidden === 1 ? 'reply' : 'replies'}
              </button>
            </li>
          )}
        </ol>
      )}
    </li>
  );
}
