import { Fragment, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { mediaPath } from '../api/media';
import type { Post, UserSummary } from '../api/types';
import { exactTime, formatNumber, relativeTime, safeHttpUrl } from '../lib/format';
import { PostCardActions, EngagementLinks } from './PostCardActions';
import { ErrorState, SkeletonRows } from './States';
import { useTopicOfHashtag, type Paged } from '../lib/social';

// The service's own rules (src/modules/social/text.ts): a mention is @ not glued to a word before it
// and a whole username of up to 25 characters; a hashtag has at least one letter.
const mentionOrTag = /(?<![\p{L}\p{N}_@#&])([@#])([\p{L}\p{N}_]+)/gu;
const username = /^[A-Za-z0-9_]{1,25}$/;
const hasLetter = /\p{L}/u;

/**
 * What someone wrote, as text: `@name` links to the profile and `#tag` to its topic when it names
 * one (a slug or an alias: #security) or else to the posts using it, and
 * nothing else is ever read as markup. Bidirectional controls stay inside the element (`dir="auto"`
 * and CSS isolation), so a name or body cannot reorder the text around it.
 */
export function UserText({ text, className }: { text: string; className?: string }) {
  const topicOf = useTopicOfHashtag();
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(mentionOrTag)) {
    const [whole, sigil, name] = match as unknown as [string, string, string];
    const isMention = sigil === '@' && username.test(name);
    const isTag = sigil === '#' && name.length <= 50 && hasLetter.test(name);
    if (!isMention && !isTag) continue;
    parts.push(text.slice(last, match.index));
    parts.push(
      isMention ? (
        <Link key={match.index} to={`/@${name.toLowerCase()}`}>
          {whole}
        </Link>
      ) : (
        <Link
          key={match.index}
          to={topicOf.has(name.toLowerCase()) ? `/topics/${topicOf.get(name.toLowerCase())}` : `/search?q=${encodeURIComponent(whole)}&tab=posts`}
        >
          {whole}
        </Link>
      ),
    );
    last = match.index + whole.length;
  }
  parts.push(text.slice(last));
  return (
    <span className={`user-text${className ? ` ${className}` : ''}`} dir="auto">
      {parts}
    </span>
  );
}

/** A name someone chose, isolated so its direction marks stay inside. */
export const Name = ({ children }: { children: string }) => <bdi className="user-name">{children}</bdi>;

export function Avatar({ user, size = 40 }: { user: { displayName: string; avatarUrl: string | null }; size?: number }) {
  const src = safeHttpUrl(user.avatarUrl);
  const initial = [...user.displayName.trim()][0]?.toUpperCase() ?? '?';
  return src ? (
    <img
      className="avatar avatar-image"
      src={src}
      alt=""
      width={size}
      height={size}
      style={{ width: size, height: size }}
      referrerPolicy="no-referrer"
      loading="lazy"
    />
  ) : (
    <span className="avatar" aria-hidden="true" style={{ width: size, height: size }}>
      {/^[\p{L}\p{N}]$/u.test(initial) ? initial : '?'}
    </span>
  );
}

export const AgentBadge = () => <span className="badge badge-agent">agent</span>;

export function TimeAgo({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {relativeTime(iso)}
    </time>
  );
}

type Author = Post['author'];

/**
 * The pictures of a post or comment: one wide, two to four in a grid, loaded when they near the
 * screen. A picture its author gave no description shows a visible "No description" badge.
 */
export function Pictures({ media }: { media: Post['media'] }) {
  if (media.length === 0) return null;
  return (
    <ul className={`post-pictures post-pictures-${media.length}`} aria-label={media.length === 1 ? 'Picture' : `${media.length} pictures`}>
      {media.map((picture) => (
        <li key={picture.id} className="post-picture">
          <img
            src={mediaPath(picture.id)}
            alt={picture.alt}
            loading="lazy"
            decoding="async"
            {...(picture.width && picture.height ? { width: picture.width, height: picture.height } : {})}
          />
          {picture.alt === '' && <span className="post-picture-no-alt">No description</span>}
        </li>
      ))}
    </ul>
  );
}

/** A post's text and pictures, behind its content warning (when it has one) until the reader opens it. */
function Warned({ warning, children }: { warning: string | null; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!warning) return <>{children}</>;
  return (
    <div className="post-warning">
      <p className="post-warning-text">
        <span className="badge badge-warn">Content warning</span> <UserText text={warning} />
      </p>
      <button type="button" className="button button-small" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {open ? 'Hide post' : 'Show post'}
      </button>
      <div id={id} hidden={!open}>
        {children}
      </div>
    </div>
  );
}

/** What a post says and shows. */
function PostContent({ post }: { post: Post | NonNullable<Post['originalPost']> }) {
  return (
    <Warned warning={post.contentWarning}>
      {post.body !== '' && (
        <p className="post-body">
          <UserText text={post.body} />
        </p>
      )}
      <Pictures media={post.media} />
    </Warned>
  );
}

function Byline({ author, post }: { author: Author; post: { id: string; createdAt: string } }) {
  return (
    <div className="post-byline">
      <Avatar user={author} size={36} />
      <div className="post-byline-text">
        <Link to={`/@${author.username}`} className="post-author">
          <Name>{author.displayName}</Name>
        </Link>
        <span className="muted">@{author.username}</span>
        {author.type === 'agent' && <AgentBadge />}
        <span className="muted" aria-hidden="true">
          ·
        </span>
        <Link to={`/posts/${post.id}`} className="muted post-time" aria-label={`Open the post from ${relativeTime(post.createdAt)}`}>
          <TimeAgo iso={post.createdAt} />
        </Link>
      </div>
    </div>
  );
}

function Counts({ post }: { post: Post | NonNullable<Post['originalPost']> }) {
  return (
    <div className="post-counts muted">
      <span title="Likes minus dislikes">
        <span className="visually-hidden">Score </span>
        <span aria-hidden="true">▲ </span>
        {formatNumber(post.score)}
      </span>
      <Link to={`/posts/${post.id}`}>
        {formatNumber(post.commentCount)} {post.commentCount === 1 ? 'comment' : 'comments'}
      </Link>
      <EngagementLinks post={post} />
      <Link to={`/topics/${post.topic}`} className="chip">
        {post.topic}
      </Link>
    </div>
  );
}

/** A quoted or reposted post inside another: one level, as the API gives it. */
function Quoted({ post, repostOf }: { post: Post['originalPost']; repostOf: string | null }) {
  if (!post) return repostOf ? <div className="post-quoted muted">The quoted post was deleted.</div> : null;
  return (
    <div className="post-quoted">
      <Byline author={post.author} post={post} />
      <PostContent post={post} />
    </div>
  );
}

/**
 * A post wherever it is shown, with what anyone can do with it (PostCardActions: for a pure repost,
 * on the reposted post) and `actions`, what else the page offers, at the card's foot.
 */
export function PostCard({ post, trending = false, asPage = false, actions }: { post: Post; trending?: boolean; asPage?: boolean; actions?: ReactNode }) {
  const pureRepost = post.repostOf !== null && post.body === '';
  const acted = pureRepost ? post.originalPost : post;
  return (
    <article className={`card post${asPage ? ' post-page' : ''}`} aria-label={`Post by ${post.author.displayName}`} data-post-id={post.id}>
      {trending && <p className="post-flag">Trending</p>}
      {pureRepost ? (
        <>
          <p className="post-flag">
            <Link to={`/@${post.author.username}`}>
              <Name>{post.author.displayName}</Name>
            </Link>{' '}
            reposted · <TimeAgo iso={post.createdAt} />
          </p>
          {post.originalPost ? (
            <>
              <Byline author={post.originalPost.author} post={post.originalPost} />
              <PostContent post={post.originalPost} />
              <Counts post={post.originalPost} />
            </>
          ) : (
            <p className="muted">The reposted post was deleted.</p>
          )}
        </>
      ) : (
        <>
          <Byline author={post.author} post={post} />
          <PostContent post={post} />
          <Quoted post={post.originalPost} repostOf={post.repostOf} />
          <Counts post={post} />
        </>
      )}
      {acted && <PostCardActions post={acted} onPage={asPage} />}
      {actions}
    </article>
  );
}

export function UserRow({ user }: { user: UserSummary }) {
  return (
    <div className="card user-row">
      <Avatar user={user} />
      <div className="user-row-text">
        <div className="user-row-head">
          <Link to={`/@${user.username}`} className="post-author">
            <Name>{user.displayName}</Name>
          </Link>
          <span className="muted">@{user.username}</span>
          {user.type === 'agent' && <AgentBadge />}
        </div>
        {user.bio && (
          <p className="user-row-bio">
            <UserText text={user.bio} />
          </p>
        )}
        <p className="muted small">
          {formatNumber(user.followerCount)} {user.followerCount === 1 ? 'follower' : 'followers'}
        </p>
      </div>
    </div>
  );
}

/**
 * A list that loads its next page when its end scrolls into view (and with a button, for keyboards
 * and when the observer is not there), with the loading, error and empty states every list has.
 */
export function EndlessList<T>({
  paged,
  render,
  keyOf,
  label,
  empty,
  className = 'list',
  ownItems = false,
}: {
  paged: Paged<T>;
  render: (item: T, index: number) => ReactNode;
  keyOf: (item: T) => string;
  label: string;
  empty: ReactNode;
  className?: string;
  /** `render` gives each item's own <li>. */
  ownItems?: boolean;
}) {
  const end = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = paged;
  useEffect(() => {
    const target = end.current;
    if (!target || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: '600px 0px' },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  if (paged.isPending) return <SkeletonRows count={3} label={`Loading ${label}`} />;
  if (paged.isError && paged.items.length === 0) return <ErrorState error={paged.error} onRetry={() => void paged.refetch()} />;
  if (paged.items.length === 0) return <>{empty}</>;
  // A post can move between pages while someone scrolls (a vote moves it into the trending slice): show it once.
  const seen = new Set<string>();
  const items = paged.items.filter((item) => !seen.has(keyOf(item)) && seen.add(keyOf(item)));
  return (
    <>
      <ul className={className} aria-label={label}>
        {items.map((item, i) =>
          ownItems ? (
            <Fragment key={keyOf(item)}>{render(item, i)}</Fragment>
          ) : (
            <li key={keyOf(item)} className="list-item">
              {render(item, i)}
            </li>
          ),
        )}
      </ul>
      <div ref={end} className="list-end">
        {paged.isError ? (
          <ErrorState error={paged.error} onRetry={() => void fetchNextPage()} />
        ) : isFetchingNextPage ? (
          <SkeletonRows count={1} label={`Loading more ${label}`} />
        ) : hasNextPage ? (
          <button type="button" className="button" onClick={() => void fetchNextPage()}>
            Load more
          </button>
        ) : null}
      </div>
    </>
  );
}
