/**
 * The bench's social network (issue 7), shared by bench/social.ts and bench/web-lcp.ts: 10,000 users,
 * 100,000 posts (30 days, 5% quotes and 3% pure reposts), 300,000 votes, 30,000 comments and 100,000
 * follows, written straight into the database in bulk transactions (with the counters they imply),
 * before the service starts. The same network on every run (a seeded random).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { postJson, seededRandom } from './lib.ts';

export const USERS = 10_000;
export const POSTS = 100_000;
export const VOTES = 300_000;
export const COMMENTS = 30_000;
export const FOLLOWS = 100_000;
export const DAYS = 30;

// The same network on every run.
const random = seededRandom(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** Skewed towards low indexes: a few accounts are followed and post far more than most. */
const skewed = (n: number) => Math.floor(n * random() ** 3);

const bodies = [
  ['Deploying kubernetes on AWS with terraform today', 'cloud'],
  ['My AI agent routes tasks to other agents over MCP', 'ai-agents'],
  ['Refactored the backend to TypeScript, the compiler found bugs', 'coding'],
  ['Baked sourdough bread this weekend, recipe in the thread', 'food'],
  ['New personal record at the gym, deadlifts are up', 'fitness'],
  ['Interest rates and inflation: my portfolio is down', 'finance'],
  ['SpaceX launched another rocket into orbit', 'space'],
  ['Hello everyone, my name is new here, nice to meet you', 'introductions'],
  ['Does anyone know a good book on product management?', 'ask'],
  ['Just some thoughts on a quiet day', 'general'],
] as const;

interface SeedPost {
  id: string;
  author: number;
  kind: 'post' | 'repost' | 'quote';
  body: string;
  topic: string;
  repostOf: string | null;
  createdAt: string;
  likes: number;
  dislikes: number;
  comments: number;
  reposts: number;
}

/** Migrates the database at `url` and writes the network into it. */
export async function seedSocialNetwork(url: string): Promise<void> {
  const database = openDatabase({ url });
  await database.migrate();
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const chunks = async <T>(rows: T[], size: number, write: (chunk: T[]) => Promise<unknown>) => {
    for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
  };

  const accountIds = Array.from({ length: USERS }, () => randomUUID());
  const profileIds = Array.from({ length: USERS }, () => randomUUID());
  const followers = new Array<number>(USERS).fill(0);
  const following = new Array<number>(USERS).fill(0);

  const follows = new Map<string, [number, number]>();
  while (follows.size < FOLLOWS) {
    const from = Math.floor(random() * USERS);
    const to = skewed(USERS);
    if (from !== to && !follows.has(`${from}:${to}`)) follows.set(`${from}:${to}`, [from, to]);
  }
  for (const [from, to] of follows.values()) {
    following[from]!++;
    followers[to]!++;
  }

  // Posts oldest first, so a repost always points at an earlier post.
  const times = Array.from({ length: POSTS }, () => now - Math.floor(random() * DAYS * 86_400_000)).sort((a, b) => a - b);
  const posts: SeedPost[] = [];
  const pureReposts = new Set<string>();
  for (const [index, time] of times.entries()) {
    const author = skewed(USERS);
    const [body, topic] = pick(bodies);
    const roll = random();
    const original = index > 100 ? posts[Math.floor(random() * index)]! : null;
    const base = { id: randomUUID(), author, createdAt: iso(time), likes: 0, dislikes: 0, comments: 0, reposts: 0 };
    if (original && original.kind !== 'repost' && roll < 0.03 && !pureReposts.has(`${author}:${original.id}`)) {
      pureReposts.add(`${author}:${original.id}`);
      original.reposts++;
      posts.push({ ...base, kind: 'repost', body: '', topic: original.topic, repostOf: original.id });
    } else if (original && roll < 0.08) {
      original.reposts++;
      posts.push({ ...base, kind: 'quote', body: `Quoting this: ${body}`, topic, repostOf: original.id });
    } else {
      posts.push({ ...base, kind: 'post', body: `${body} (${index})`, topic, repostOf: null });
    }
  }

  // Votes and comments lean towards recent posts, as engagement does.
  const recentPost = () => posts[POSTS - 1 - skewed(POSTS)]!;
  const votes = new Map<string, { post: SeedPost; voter: number; value: 1 | -1 }>();
  while (votes.size < VOTES) {
    const post = recentPost();
    const voter = Math.floor(random() * USERS);
    const key = `${post.id}:${voter}`;
    if (votes.has(key)) continue;
    const value = random() < 0.8 ? 1 : -1;
    votes.set(key, { post, voter, value });
    if (value === 1) post.likes++;
    else post.dislikes++;
  }
  const comments = Array.from({ length: COMMENTS }, () => {
    const post = recentPost();
    post.comments++;
    return { post, author: Math.floor(random() * USERS) };
  });

  const created = iso(now - DAYS * 86_400_000);
  const step = (what: string) => process.stderr.write(`seeding ${what} ...\n`);
  step('accounts and profiles');
  await database.transaction(async (tx) => {
    await chunks(accountIds, 1000, (chunk) =>
      tx
        .insertInto('accounts')
        .values(
          chunk.map((id) => ({
            id,
            kind: 'person' as const,
            email: null,
            password_hash: null,
            oidc_issuer: null,
            oidc_subject: null,
            agent_id: null,
            owner_account_id: null,
            created_at: created,
          })),
        )
        .execute(),
    );
    await chunks(
      profileIds.map((id, i) => ({ id, i })),
      1000,
      (chunk) =>
        tx
          .insertInto('profiles')
          .values(
            chunk.map(({ id, i }) => ({
              id,
              account_id: accountIds[i]!,
              username: `user${i}`,
              display_name: `User ${i}`,
              bio: i % 7 === 0 ? 'Builds agents for a living' : 'Here for the feed',
              avatar_url: null,
              type: i % 5 === 0 ? ('agent' as const) : ('human' as const),
              agent_id: null,
              followers_count: followers[i]!,
              following_count: following[i]!,
              created_at: created,
              updated_at: created,
            })),
          )
          .execute(),
    );
  });
  step('follows');
  await database.transaction(async (tx) => {
    await chunks([...follows.values()], 2000, (chunk) =>
      tx
        .insertInto('follows')
        .values(chunk.map(([from, to]) => ({ follower_id: profileIds[from]!, followee_id: profileIds[to]!, created_at: created })))
        .execute(),
    );
  });
  step('posts');
  await database.transaction(async (tx) => {
    await chunks(posts, 1000, (chunk) =>
      tx
        .insertInto('posts')
        .values(
          chunk.map((p) => ({
            id: p.id,
            author_id: profileIds[p.author]!,
            kind: p.kind,
            body: p.body,
            topic: p.topic,
            hashtags: '[]',
            repost_of: p.repostOf,
            like_count: p.likes,
            dislike_count: p.dislikes,
            comment_count: p.comments,
            repost_count: p.reposts,
            created_at: p.createdAt,
          })),
        )
        .execute(),
    );
  });
  step('votes and comments');
  await database.transaction(async (tx) => {
    await chunks([...votes.values()], 2000, (chunk) =>
      tx
        .insertInto('post_votes')
        .values(chunk.map((v) => ({ post_id: v.post.id, profile_id: profileIds[v.voter]!, value: v.value, created_at: v.post.createdAt })))
        .execute(),
    );
    await chunks(comments, 1000, (chunk) =>
      tx
        .insertInto('comments')
        .values(
          chunk.map((c) => ({
            id: randomUUID(),
            post_id: c.post.id,
            author_id: profileIds[c.author]!,
            body: 'Great point, thanks for sharing',
            created_at: c.post.createdAt,
          })),
        )
        .execute(),
    );
  });
  // What an operator does after a bulk load: fresh statistics, and on PostgreSQL a visibility map,
  // without which the planner avoids index-only scans until autovacuum gets to the tables.
  step('statistics');
  await sql.raw(database.dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE').execute(database.db);
  await database.close();
}

export const READER = { email: 'social-bench@example.test', password: 'correct horse battery staple', username: 'bench_reader' };

/**
 * The bench's reader over HTTP, like any client: signs up, makes a profile and follows 100 accounts
 * spread over the network (every 37th user). Resolves with a bearer session token; the same email
 * and password sign in a browser.
 */
export async function signUpReader(serviceUrl: string): Promise<string> {
  const session = (await postJson<{ data: { token: string } }>(`${serviceUrl}/v1/auth/signup`, { email: READER.email, password: READER.password })).data.token;
  await postJson(`${serviceUrl}/v1/users`, { username: READER.username, displayName: 'Bench Reader' }, session);
  for (let i = 0; i < 100; i++) await postJson(`${serviceUrl}/v1/social/users/user${i * 37}/follow`, {}, session);
  return session;
}
