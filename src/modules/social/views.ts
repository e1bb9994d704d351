/** Rows to the shapes the API answers with: posts, comments, notifications (docs/social.md). */
import type { HydratedPost, PostCore } from './feed-store.ts';
import type { PostMedia } from './media.ts';
import type { VoteValue } from './posts-store.ts';

/** The viewer's votes; null for an anonymous viewer, whose views carry no userVote at all. */
export type VoteLookup = Map<string, VoteValue> | null;
/** The posts the viewer bookmarked; null for an anonymous viewer, whose views carry no bookmarked at all. */
export type BookmarkLookup = Set<string> | null;

/** A profile as the columns of a row it wrote: what authorView reads. */
export interface AuthorColumns {
  author_id: string;
  author_username: string;
  author_display_name: string;
  author_type: string;
  author_avatar_url: string | null;
}

export const authorView = (row: AuthorColumns) => ({
  id: row.author_id,
  username: row.author_username,
  displayName: row.author_display_name,
  type: row.author_type,
  avatarUrl: row.author_avatar_url,
});

/** The author columns of a row `profile` is writing now. */
export const authorColumns = (profile: { id: string; username: string; display_name: string; type: string; avatar_url: string | null }): AuthorColumns => ({
  author_id: profile.id,
  author_username: profile.username,
  author_display_name: profile.display_name,
  author_type: profile.type,
  author_avatar_url: profile.avatar_url,
});

function coreView(row: PostCore, votes: VoteLookup, bookmarks: BookmarkLookup = null) {
  return {
    id: row.id,
    body: row.body,
    topic: row.topic,
    hashtags: row.hashtags,
    score: row.like_count - row.dislike_count,
    likeCount: row.like_count,
    commentCount: row.comment_count,
    repostCount: row.repost_count,
    createdAt: row.created_at,
    repostOf: row.repost_of,
    contentWarning: row.content_warning,
    media: row.media,
    author: authorView(row),
    ...(votes ? { userVote: votes.get(row.id) ?? null } : {}),
    ...(bookmarks ? { bookmarked: bookmarks.has(row.id) } : {}),
  };
}

export const postView = (row: HydratedPost, votes: VoteLookup, bookmarks: BookmarkLookup = null) => ({
  ...coreView(row, votes, bookmarks),
  originalPost: row.original ? coreView(row.original, votes, bookmarks) : null,
});

export type PostView = ReturnType<typeof postView>;

/** JSON of a post's own fields without userVote, made once per loaded row (shared pages reuse their rows). */
const rendered = new WeakMap<PostCore, string>();
function coreJson(row: PostCore): string {
  let json = rendered.get(row);
  if (json === undefined) {
    json = JSON.stringify(coreView(row, null));
    rendered.set(row, json);
  }
  return json;
}

const withVote = (json: string, votes: VoteLookup, id: string) => (votes ? `{"userVote":${votes.get(id) ?? null},${json.slice(1)}` : json);
const withBookmark = (json: string, bookmarks: BookmarkLookup, id: string) => (bookmarks ? `{"bookmarked":${bookmarks.has(id)},${json.slice(1)}` : json);
const withMarks = (json: string, votes: VoteLookup, bookmarks: BookmarkLookup, id: string) => withBookmark(withVote(json, votes, id), bookmarks, id);

/**
 * The JSON array of `postView`s of `rows`, written from per-row JSON made once: the hot feed pages are
 * shared by every reader and differ only in userVote, so each reader's answer is spliced rather than
 * serialized field by field (a quarter of the request's CPU otherwise). test/unit/social-render.test.ts
 * checks it against the response schema's own serializer.
 */
export function renderPosts(rows: HydratedPost[], votes: VoteLookup, bookmarks: BookmarkLookup = null): string {
  const parts = rows.map((row) => {
    const original = row.original ? withMarks(coreJson(row.original), votes, bookmarks, row.original.id) : 'null';
    return `${withMarks(coreJson(row), votes, bookmarks, row.id).slice(0, -1)},"originalPost":${original}}`;
  });
  return `[${parts.join(',')}]`;
}

/** Every post id a list of views mentions, originals included: what the viewer's votes are needed for. */
export const idsWithOriginals = (rows: HydratedPost[]): string[] => [...new Set(rows.flatMap((r) => (r.original ? [r.id, r.original.id] : [r.id])))];

export const commentView = (
  row: AuthorColumns & {
    id: string;
    post_id: string;
    parent_id: string | null;
    body: string;
    like_count: number;
    dislike_count: number;
    created_at: string;
    media: PostMedia[];
  },
  votes: VoteLookup,
) => ({
  id: row.id,
  postId: row.post_id,
  parentId: row.parent_id,
  body: row.body,
  score: row.like_count - row.dislike_count,
  ...(votes ? { userVote: votes.get(row.id) ?? null } : {}),
  createdAt: row.created_at,
  media: row.media,
  author: authorView(row),
});

export const userSummaryView = (row: {
  id: string;
  username: string;
  display_name: string;
  avatar_url: string | null;
  bio: string;
  type: string;
  followers_count: number;
}) => ({
  id: row.id,
  username: row.username,
  displayName: row.display_name,
  avatarUrl: row.avatar_url,
  bio: row.bio,
  type: row.type,
  followerCount: row.followers_count,
});
