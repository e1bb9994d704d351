/**
 * Social bench (issue 7): a seeded network of 10,000 users, 100,000 posts (30 days, 5% quotes and
 * 3% pure reposts), 300,000 votes, 30,000 comments and 100,000 follows, then autocannon on the
 * feeds, trending and post creation, beside bare Fastify hello-world measured in the same run.
 *
 *   npx tsx bench/social.ts                       # SQLite in a temporary file
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/social.ts
 *   BENCH_SECONDS=5 (default) sets each measurement's length.
 *   BENCH_ONLY=following measures only the routes whose name contains it (beside hello-world).
 *
 * The network is written straight into the database in bulk transactions (with the counters it
 * implies) before the service starts; the bench user signs up, makes a profile and follows 100
 * accounts over HTTP, like any client.
 *
 * Target (SQLite): the authenticated foryou feed keeps >= 10% of hello-world's rate with p99 < 50 ms.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  measureAll,
  postJson,
  problemsOf,
  resultsTable,
  seededRandom,
  startHelloWorld,
  startService,
  withCleanup,
  writeResult,
} from './lib.ts';

const USERS = 10_000;
const POSTS = 100_000;
const VOTES = 300_000;
const COMMENTS = 30_000;
const FOLLOWS = 100_000;
const DAYS = 30;
const BASELINE = 'hello-world GET /';
const FORYOU = 'GET /v1/social/posts (foryou, authenticated)';
const TARGET_RATIO = 0.1;
const TARGET_P99_MS = 50;

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

async function seed(url: string): Promise<void> {
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

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(5);
  const connections = 50;
  const pipelining = 1;

  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const database = await benchDatabase(cleanup);
  const seedStarted = performance.now();
  await seed(database.url);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`seeded ${USERS} users, ${POSTS} posts, ${VOTES} votes, ${COMMENTS} comments, ${FOLLOWS} follows in ${seedSeconds.toFixed(1)} s`);

  const hello = await startHelloWorld(cleanup);
  const service = await startService(database.url, cleanup);

  const session = (
    await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, {
      email: 'social-bench@example.test',
      password: 'correct horse battery staple',
    })
  ).data.token;
  await postJson(`${service.url}/v1/users`, { username: 'bench_reader', displayName: 'Bench Reader' }, session);
  for (let i = 0; i < 100; i++) await postJson(`${service.url}/v1/social/users/user${i * 37}/follow`, {}, session);

  const auth = { authorization: `Bearer ${session}` };
  const only = process.env.BENCH_ONLY;
  const results = await measureAll(
    [
      { name: BASELINE, url: `${hello.url}/` },
      { name: FORYOU, url: `${service.url}/v1/social/posts`, headers: auth },
      { name: 'GET /v1/social/posts (foryou, anonymous)', url: `${service.url}/v1/social/posts` },
      { name: 'GET /v1/social/posts?feed=following', url: `${service.url}/v1/social/posts?feed=following`, headers: auth },
      { name: 'GET /v1/social/trending', url: `${service.url}/v1/social/trending`, headers: auth },
      {
        name: 'POST /v1/social/posts',
        url: `${service.url}/v1/social/posts`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'Benchmarking the feed: kubernetes on AWS again #bench' }),
      },
    ].filter((route) => !only || route.name === BASELINE || route.name.includes(only)),
    { seconds, connections, pipelining },
  );

  const table = resultsTable(results, BASELINE);
  const baseline = results[0]!.rps;
  const foryou = results.find((r) => r.name === FORYOU) ?? { rps: Number.NaN, p99: Number.NaN };
  const ratio = foryou.rps / baseline;
  const met = ratio >= TARGET_RATIO && foryou.p99 < TARGET_P99_MS;
  console.log(`\n## Social on ${database.dialect} (${seconds} s each, ${connections} connections, pipelining ${pipelining})\n`);
  console.log(table);
  console.log(
    `\nAuthenticated foryou: ${(ratio * 100).toFixed(1)}% of hello-world, p99 ${foryou.p99} ms (target >= ${TARGET_RATIO * 100}%, p99 < ${TARGET_P99_MS} ms): ${met ? 'met' : 'MISSED'}`,
  );

  const problems = problemsOf(results);
  for (const problem of problems) console.log(`WARNING ${problem}`);
  const path = writeResult(`social-${database.dialect}`, {
    bench: 'social',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: before,
    seed: { users: USERS, posts: POSTS, votes: VOTES, comments: COMMENTS, follows: FOLLOWS, days: DAYS, seconds: seedSeconds },
    settings: { seconds, connections, pipelining },
    results: results.map((r) => ({ ...r, ratio: r.rps / baseline })),
    target: { ratio: TARGET_RATIO, p99Ms: TARGET_P99_MS, foryouRatio: ratio, foryouP99: foryou.p99, met },
    problems,
    table,
  });
  console.log(`\nwrote ${path}`);
  if (problems.length > 0) process.exitCode = 1;
});
