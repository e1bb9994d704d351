/**
 * Group commit for new posts. Posts that arrive while the event loop is busy are written together:
 * one transaction, one insert of the posts, their pictures attached, one upsert of their hashtag counts (the hashtag rows are
 * the posts' shared lock, held until the commit) and one insert of their mention notifications.
 * Each caller still gets its own outcome after its post is durable: when a group fails, its posts
 * are written again one by one, so one post's error reaches only its author.
 */
import type { Insertable } from 'kysely';
import { createBatcher } from '../../db/batcher.ts';
import type { Attachment } from '../media/index.ts';
import type { PostsTable } from './tables.ts';
import type { SocialContext, SocialStores } from './context.ts';
import { mentionsAmong } from './notify.ts';
import type { Identity } from './people-store.ts';
import { extractMentions } from './text.ts';

export interface NewPost {
  row: Insertable<PostsTable> & { id: string; body: string; created_at: string };
  hashtags: string[];
  actor: Identity;
  /** The account writing it, whose uploads `media` names: attached in the transaction that writes the post. */
  accountId: string;
  media: readonly Attachment[];
}

type Outcome = { ok: true } | { ok: false; error: unknown };

async function writePosts(tx: SocialStores, posts: NewPost[]): Promise<void> {
  const names = [...new Set(posts.flatMap((post) => extractMentions(post.row.body)))];
  const mentioned = await tx.people.identitiesByUsername(names);
  await tx.posts.insertPosts(posts.map((post) => post.row));
  for (const post of posts) if (post.media.length > 0) await tx.attachMedia(post.accountId, post.row.id, post.media);
  const newest = posts.reduce((at, post) => (post.row.created_at > at ? post.row.created_at : at), posts[0]!.row.created_at);
  await tx.posts.countHashtags(
    posts.flatMap((post) => post.hashtags),
    newest,
  );
  await tx.notifications.insert(
    posts.flatMap(({ row, actor }) => mentionsAmong(mentioned, actor, row.body, { postId: row.id, commentId: null, postText: row.body }, [], row.created_at)),
  );
}

export function createPostWriter(ctx: Pick<SocialContext, 'write'>): (post: NewPost) => Promise<void> {
  const writeOne = (post: NewPost): Promise<Outcome> =>
    ctx
      .write((tx) => writePosts(tx, [post]))
      .then(
        (): Outcome => ({ ok: true }),
        (error: unknown): Outcome => ({ ok: false, error }),
      );

  const write = createBatcher<NewPost, Outcome>(async (posts) => {
    if (posts.length === 1) return [await writeOne(posts[0]!)];
    try {
      await ctx.write((tx) => writePosts(tx, posts));
      return posts.map((): Outcome => ({ ok: true }));
    } catch {
      const outcomes: Outcome[] = [];
      for (const post of posts) outcomes.push(await writeOne(post));
      return outcomes;
    }
  });

  return async (post) => {
    const outcome = await write(post);
    if (!outcome.ok) throw outcome.error;
  };
}
