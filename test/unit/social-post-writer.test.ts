import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SocialStores } from '../../src/modules/social/context.ts';
import { createPostWriter, type NewPost } from '../../src/modules/social/post-writer.ts';

const actor = { id: 'p1', account_id: 'a1', username: 'alice', display_name: 'Alice', type: 'human' as const, avatar_url: null };
const post = (id: string): NewPost => ({
  row: { id, author_id: actor.id, kind: 'post', body: `post ${id}`, topic: 'general', hashtags: '[]', repost_of: null, created_at: '2026-01-01T00:00:00.000Z' },
  hashtags: [],
  actor,
  accountId: actor.account_id,
  media: [],
});

/** Stores that record each transaction's posts and refuse any transaction holding a post named "bad". */
function recordingContext() {
  const transactions: string[][] = [];
  const write = async <T>(work: (tx: SocialStores) => Promise<T>): Promise<T> => {
    const inserted: string[] = [];
    const tx = {
      people: { identitiesByUsername: async () => [] },
      posts: {
        insertPosts: async (rows: { id: string }[]) => {
          inserted.push(...rows.map((row) => row.id));
          if (inserted.includes('bad')) throw new Error('refused by the database');
        },
        countHashtags: async () => {},
      },
      notifications: { insert: async () => {} },
    } as unknown as SocialStores;
    const result = await work(tx);
    transactions.push(inserted);
    return result;
  };
  return { transactions, write };
}

describe('social post writer', () => {
  it('writes posts sent in one turn of the event loop in one transaction', async () => {
    const ctx = recordingContext();
    const writePost = createPostWriter(ctx);
    await Promise.all(['a', 'b', 'c'].map((id) => writePost(post(id))));
    assert.deepEqual(ctx.transactions, [['a', 'b', 'c']]);
  });

  it('when a group fails, writes its posts one by one so only the failing post is refused', async () => {
    const ctx = recordingContext();
    const writePost = createPostWriter(ctx);
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((id) => writePost(post(id))));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /refused by the database/);
    assert.deepEqual(ctx.transactions, [['a'], ['c']]);
  });
});
