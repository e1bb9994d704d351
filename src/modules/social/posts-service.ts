/** Posts, comments, votes and reposts: who may do what, and what each action writes with it. */
import { isUniqueViolation } from '../../db/errors.ts';
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { isUuid, newId } from '../../lib/ids.ts';
import type { Attachment } from '../media/index.ts';
import { votesOf, type SocialContext, type SocialStores, type Viewer } from './context.ts';
import { mentionNotifications, notification } from './notify.ts';
import { createPostWriter } from './post-writer.ts';
import { nextVote, voteDeltas, type Post, type VoteValue } from './posts-store.ts';
import type { Identity } from './people-store.ts';
import { extractHashtags, extractMentions, isBlank } from './text.ts';
import { assertTopic, FALLBACK_TOPIC, inferTopic } from './topics.ts';
import { authorColumns, commentView, postView, userSummaryView } from './views.ts';

function checkText(text: string, path: string): void {
  if (isBlank(text)) throw badRequest(`${path} must not be blank`, [{ path, message: 'must not be blank' }]);
}

/** What a notification quotes for a post: its text, or for a pure repost the text it reposts. */
async function textOf(tx: SocialStores, post: Post): Promise<string> {
  if (post.kind !== 'repost' || !post.repost_of) return post.body;
  return (await tx.posts.findPost(post.repost_of))?.body ?? '';
}

/**
 * Deletes a post its author wrote, with what hangs on it: votes, comments and notifications (by
 * foreign key), the pictures of the post and its comments (freeing their uploaders' quotas), pure reposts of it, its hashtag counts and its place in the original's repost count.
 * Returns the authors who lost posts (the author, and whoever had reposted it), or null when
 * `authorId` has no such post.
 */
async function removePost(tx: SocialStores, post: Post, authorId: string): Promise<string[] | null> {
  // The comments go with the post (foreign key), so their ids are read first: their pictures go too.
  const commentIds = await tx.posts.commentIdsOf(post.id);
  if (!(await tx.posts.deletePost(post.id, authorId))) return null;
  await tx.releaseMedia([post.id, ...commentIds]);
  await tx.posts.uncountHashtags(post.hashtags);
  if (post.repost_of) await tx.posts.addReposts(post.repost_of, -1);
  const reposters = post.kind === 'repost' ? [] : await tx.posts.deletePureRepostsOf(post.id);
  return [authorId, ...reposters];
}

export function createPostsService(ctx: SocialContext) {
  const { stores, clock } = ctx;
  const writePost = createPostWriter(ctx);

  /** Someone who blocked the actor cannot be mentioned by them, nor (`replyTo`, a profile id) replied to. */
  async function refuseBlocked(actor: Identity, text: string, path: string, replyTo?: string, answering: 'post' | 'comment' = 'post'): Promise<void> {
    const mentioned = (await stores.people.identitiesByUsername(extractMentions(text))).filter((person) => person.id !== actor.id);
    const asked = [...mentioned.map((person) => person.id), ...(replyTo && replyTo !== actor.id ? [replyTo] : [])];
    const blockers = new Set(await stores.shuns.blockersAmong(asked, actor.id));
    if (blockers.size === 0) return;
    if (replyTo && blockers.has(replyTo)) throw forbidden(`The author of this ${answering} has blocked you: you cannot reply to them`);
    const names = mentioned.filter((person) => blockers.has(person.id)).map((person) => `@${person.username}`);
    throw new AppError('FORBIDDEN', `${names.join(', ')} blocked you: you cannot mention ${names.length === 1 ? 'them' : 'these accounts'}`, [
      { path, message: `mentions ${names.join(', ')}, who blocked you` },
    ]);
  }

  /** Someone who blocked the actor keeps them from liking, disliking and reposting what they wrote. */
  async function refuseIfBlockedBy(tx: Pick<SocialStores, 'shuns'>, authorId: string, actor: Identity, what: string): Promise<void> {
    if (authorId === actor.id) return;
    if ((await tx.shuns.blockersAmong([authorId], actor.id)).length > 0)
      throw forbidden(`The author of this ${what} has blocked you: you cannot vote on or repost it`);
  }

  async function findPost(id: string): Promise<Post> {
    const post = await stores.posts.findPost(id);
    if (!post) throw notFound('Post not found');
    return post;
  }

  /** A post shown to everyone: neither missing nor hidden by moderators. */
  async function visiblePost(id: string): Promise<void> {
    if (!isUuid(id) || (await stores.feed.hydrate([id.toLowerCase()])).length === 0) throw notFound('Post not found');
  }

  /** Reposting (or asking about a repost of) a pure repost means its original. */
  async function repostTarget(id: string): Promise<Post> {
    const post = await findPost(id);
    return post.kind === 'repost' && post.repost_of ? findPost(post.repost_of) : post;
  }

  /** A hidden post as its author and moderators see it: marked removed, with the moderators' reason. Anyone else: undefined (404). */
  async function hiddenPostFor(principal: Principal, id: string, viewer: Viewer) {
    if (!isUuid(id)) return undefined;
    const reason = await stores.feed.hiddenReason(id.toLowerCase());
    if (reason === null) return undefined;
    const [post] = await ctx.viewsOf(await stores.feed.hydrate([id], true), viewer);
    if (!post) return undefined;
    const maySee = (viewer !== null && viewer.profileId !== null && post.author.id === viewer.profileId) || (await ctx.isModerator(principal));
    return maySee ? { ...post, removed: { reason } } : undefined;
  }

  /** The pictures a new post or comment will show, checked before anything is written (see the media service's attachable). */
  const picturesOf = (principal: Principal, attachments: readonly Attachment[]) =>
    attachments.length === 0 ? Promise.resolve([]) : ctx.media.attachable(principal.accountId, attachments);

  return {
    /** After moderators hide or restore a post or comment: cached pages and trending are stale. */
    moderationChanged: () => ctx.postsChanged(),

    async createPost(principal: Principal, input: { body: string; topic?: string; media?: Attachment[]; contentWarning?: string }) {
      const actor = await ctx.actorOf(principal);
      checkText(input.body, '/body/body');
      assertTopic(input.topic, '/body/topic');
      await refuseBlocked(actor, input.body, '/body/body');
      const attachments = input.media ?? [];
      const media = await picturesOf(principal, attachments);
      const hashtags = extractHashtags(input.body);
      const now = isoNow(clock);
      const row = {
        id: newId(),
        author_id: actor.id,
        kind: 'post' as const,
        body: input.body,
        topic: input.topic ?? inferTopic(input.body, hashtags),
        hashtags: JSON.stringify(hashtags),
        repost_of: null,
        created_at: now,
        content_warning: input.contentWarning?.trim() || null,
      };
      await writePost({ row, hashtags, actor, accountId: principal.accountId, media: attachments });
      ctx.postsChanged([actor.id], [row.topic]);
      const counts = { like_count: 0, dislike_count: 0, comment_count: 0, repost_count: 0 };
      return { post: postView({ ...row, hashtags, ...counts, media, ...authorColumns(actor), original: null }, new Map(), new Set()) };
    },

    async getPost(principal: Principal | null, id: string) {
      const viewer = await ctx.viewerOf(principal);
      const [[found], comments] = await Promise.all([ctx.postsFor([id], viewer), stores.posts.commentsOf(id)]);
      const post = found ?? (principal ? await hiddenPostFor(principal, id, viewer) : undefined);
      if (!post) throw notFound('Post not found');
      const commentVotes = await votesOf(viewer, (profileId) =>
        stores.posts.commentVotesOf(
          profileId,
          comments.map((c) => c.id),
        ),
      );
      return { post, comments: comments.map((c) => commentView(c, commentVotes)) };
    },

    /** Who liked or purely reposted a post anyone may see (a hidden or missing post: 404). */
    async engagedUsers(which: 'likes' | 'reposts', id: string, limit: number, offset: number) {
      await visiblePost(id);
      const rows = await stores.posts.likersOrReposters(which, id, limit + 1, offset);
      return { users: rows.slice(0, limit).map(userSummaryView), pagination: { limit, offset, hasMore: rows.length > limit } };
    },

    /** The quote posts of a post anyone may see, newest first; hidden quotes are left out. */
    async quotes(principal: Principal | null, id: string, limit: number, offset: number) {
      const [viewer] = await Promise.all([ctx.viewerOf(principal), visiblePost(id)]);
      const ids = await stores.posts.quoteIdsOf(id, limit + 1, offset);
      return { posts: await ctx.postsFor(ids.slice(0, limit), viewer), pagination: { limit, offset, hasMore: ids.length > limit } };
    },

    /** Whether a post with this id exists (any string: an id that is no UUID exists nowhere). */
    exists: async (id: string) => isUuid(id) && (await stores.feed.postExists(id.toLowerCase())),

    async deletePost(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      const post = await findPost(id);
      if (post.author_id !== actor.id) throw forbidden('Only the author can delete a post');
      const removedFrom = await ctx.write((tx) => removePost(tx, post, actor.id));
      if (!removedFrom) throw notFound('Post not found');
      ctx.postsChanged(removedFrom, [post.topic]);
      return { id, deleted: true };
    },

    async votePost(principal: Principal, id: string, value: VoteValue) {
      const actor = await ctx.actorOf(principal);
      const now = isoNow(clock);
      const result = await ctx.write(async (tx) => {
        const post = await tx.posts.lockPost(id);
        if (!post) throw notFound('Post not found');
        const before = await tx.posts.postVoteOf(id, actor.id);
        const after = nextVote(before, value);
        // Taking back a vote made before the block stays possible.
        if (after !== null) await refuseIfBlockedBy(tx, post.author_id, actor, 'post');
        await tx.posts.setPostVote(id, actor.id, before, after, now);
        const counts = await tx.posts.addPostVotes(id, voteDeltas(before, after));
        if (before === 1) await tx.notifications.withdraw('like', actor.id, { postId: id });
        if (after === 1) {
          await tx.notifications.insert(notification('like', post.author_id, actor, { postId: id, commentId: null, postText: await textOf(tx, post) }, now));
        }
        return { score: counts.like_count - counts.dislike_count, userVote: after };
      });
      ctx.postsChanged();
      return result;
    },

    async voteComment(principal: Principal, id: string, value: VoteValue) {
      const actor = await ctx.actorOf(principal);
      const now = isoNow(clock);
      return ctx.write(async (tx) => {
        const comment = await tx.posts.lockComment(id);
        if (!comment) throw notFound('Comment not found');
        const before = await tx.posts.commentVoteOf(id, actor.id);
        const after = nextVote(before, value);
        if (after !== null) await refuseIfBlockedBy(tx, comment.author_id, actor, 'comment');
        await tx.posts.setCommentVote(id, actor.id, before, after, now);
        const counts = await tx.posts.addCommentVotes(id, voteDeltas(before, after));
        // A like on a comment tells its author, as one on a post does; the excerpt is the comment's.
        if (before === 1) await tx.notifications.withdraw('like', actor.id, { commentId: id });
        if (after === 1) {
          await tx.notifications.insert(
            notification('like', comment.author_id, actor, { postId: comment.post_id, commentId: id, postText: comment.body }, now),
          );
        }
        return { score: counts.like_count - counts.dislike_count, userVote: after };
      });
    },

    /** `parentId`: the comment of the same post this one answers, or null for a comment on the post. */
    async addComment(principal: Principal, postId: string, body: string, parentId: string | null = null, attachments: Attachment[] = []) {
      const actor = await ctx.actorOf(principal);
      checkText(body, '/body/body');
      const post = await findPost(postId);
      const parent = parentId === null ? null : await stores.posts.findVisibleComment(parentId.toLowerCase());
      if (parentId !== null && (!parent || parent.post_id !== post.id))
        throw badRequest('parentId must name a comment of this post', [{ path: '/body/parentId', message: 'no such comment on this post' }]);
      await refuseBlocked(actor, body, '/body/body', post.author_id);
      if (parent) await refuseBlocked(actor, '', '/body/parentId', parent.author_id, 'comment');
      const media = await picturesOf(principal, attachments);
      const now = isoNow(clock);
      const row = { id: newId(), post_id: post.id, parent_id: parent?.id ?? null, author_id: actor.id, body, created_at: now };
      await ctx.write(async (tx) => {
        const counted = await tx.posts.countComment(post.id);
        if (!counted) throw notFound('Post not found');
        await tx.posts.insertComment(row);
        if (attachments.length > 0) await tx.attachMedia(principal.accountId, row.id, attachments);
        // What the reply says, so the notification shows the words written, not the post they answer.
        const subject = { postId: post.id, commentId: row.id, postText: body };
        const answered = [...new Set([counted.author_id, ...(parent ? [parent.author_id] : [])])];
        const replies = answered.flatMap((recipient) => notification('reply', recipient, actor, subject, now));
        await tx.notifications.insert([...replies, ...(await mentionNotifications(tx, actor, body, subject, answered, now))]);
      });
      ctx.postsChanged();
      return { comment: commentView({ ...row, like_count: 0, dislike_count: 0, media, ...authorColumns(actor) }, new Map()) };
    },

    async deleteComment(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      const found = await stores.posts.findComment(id);
      if (!found) throw notFound('Comment not found');
      if (found.author_id !== actor.id) throw forbidden('Only the author can delete a comment');
      const deleted = await ctx.write(async (tx) => {
        if (!(await tx.posts.deleteComment(found.id, actor.id))) return false;
        await tx.posts.uncountComment(found.post_id);
        await tx.releaseMedia([found.id]);
        return true;
      });
      if (!deleted) throw notFound('Comment not found');
      ctx.postsChanged();
      return { id, deleted: true };
    },

    async repost(principal: Principal, id: string, quote: string | undefined) {
      const actor = await ctx.actorOf(principal);
      if (quote !== undefined) checkText(quote, '/body/body');
      const target = await repostTarget(id);
      await refuseIfBlockedBy(stores, target.author_id, actor, 'post');
      if (quote !== undefined) await refuseBlocked(actor, quote, '/body/body');
      const duplicate = () => conflict('You have already reposted this post (quote posts are unlimited)');
      if (quote === undefined && (await stores.posts.findPureRepost(actor.id, target.id))) throw duplicate();
      const hashtags = quote === undefined ? [] : extractHashtags(quote);
      const inferred = quote === undefined ? FALLBACK_TOPIC : inferTopic(quote, hashtags);
      const now = isoNow(clock);
      const row = {
        id: newId(),
        author_id: actor.id,
        kind: quote === undefined ? ('repost' as const) : ('quote' as const),
        body: quote ?? '',
        // A quote with no topic of its own, and a pure repost, are about what they repost.
        topic: inferred === FALLBACK_TOPIC ? target.topic : inferred,
        hashtags: JSON.stringify(hashtags),
        repost_of: target.id,
        created_at: now,
      };
      try {
        await ctx.write(async (tx) => {
          if (!(await tx.posts.addReposts(target.id, 1))) throw notFound('Post not found');
          await tx.posts.insertPost(row);
          await tx.posts.countHashtags(hashtags, now);
          const subject = { postId: row.id, commentId: null, postText: quote ?? target.body };
          const reposted = notification('repost', target.author_id, actor, subject, now);
          const mentions = quote === undefined ? [] : await mentionNotifications(tx, actor, quote, subject, [target.author_id], now);
          await tx.notifications.insert([...reposted, ...mentions]);
        });
      } catch (error) {
        // Two pure reposts raced past the check above; the unique index let one through.
        if (isUniqueViolation(error)) throw duplicate();
        throw error;
      }
      ctx.postsChanged([actor.id], [row.topic]);
      const [post] = await ctx.postsFor([row.id], { profileId: actor.id });
      return { post: post! };
    },

    async repostStatus(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      const target = await repostTarget(id);
      const repost = await stores.posts.findPureRepost(actor.id, target.id);
      return { reposted: repost !== undefined, repostId: repost?.id ?? null };
    },

    async removeRepost(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      const target = await repostTarget(id);
      const repost = await stores.posts.findPureRepost(actor.id, target.id);
      const removedFrom = repost ? await ctx.write((tx) => removePost(tx, repost, actor.id)) : null;
      if (!removedFrom) throw notFound('You have not reposted this post');
      ctx.postsChanged(removedFrom, [target.topic]);
      return { reposted: false, repostId: null };
    },

    async hashtags(limit: number, offset: number) {
      const [rows, total] = await Promise.all([stores.posts.topHashtags(limit, offset), stores.posts.countAllHashtags()]);
      return { data: rows.map((r) => ({ tag: r.tag, count: r.post_count })), pagination: { limit, offset, total, hasMore: offset + rows.length < total } };
    },
  };
}

export type PostsService = ReturnType<typeof createPostsService>;
