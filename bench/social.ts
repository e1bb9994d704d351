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
 * The network (bench/social-network.ts) is written straight into the database in bulk transactions
 * before the service starts; the bench user signs up, makes a profile and follows 100
 * accounts over HTTP, like any client.
 *
 * Target (SQLite): the authenticated foryou feed keeps >= 10% of hello-world's rate with p99 < 50 ms.
 */
import { benchDatabase, benchSeconds, machine, measureAll, problemsOf, resultsTable, startHelloWorld, startService, withCleanup, writeResult } from './lib.ts';
import { COMMENTS, DAYS, FOLLOWS, POSTS, seedSocialNetwork, signUpReader, USERS, VOTES } from './social-network.ts';

const BASELINE = 'hello-world GET /';
const FORYOU = 'GET /v1/social/posts (foryou, authenticated)';
const TARGET_RATIO = 0.1;
const TARGET_P99_MS = 50;

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(5);
  const connections = 50;
  const pipelining = 1;

  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const database = await benchDatabase(cleanup);
  const seedStarted = performance.now();
  await seedSocialNetwork(database.url);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`seeded ${USERS} users, ${POSTS} posts, ${VOTES} votes, ${COMMENTS} comments, ${FOLLOWS} follows in ${seedSeconds.toFixed(1)} s`);

  const hello = await startHelloWorld(cleanup);
  const service = await startService(database.url, cleanup);

  const session = await signUpReader(service.url);

  const auth = { authorization: `Bearer ${session}` };
  const feed = await fetch(`${service.url}/v1/social/posts`, { headers: auth });
  const votedPost = ((await feed.json()) as { posts: { id: string }[] }).posts[0]!.id;
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
        statementCounts: service.statementCounts,
      },
      {
        // The same value again takes the vote back: every request is a vote or its removal.
        name: 'POST /v1/social/posts/:id/vote',
        url: `${service.url}/v1/social/posts/${votedPost}/vote`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ value: 1 }),
        statementCounts: service.statementCounts,
      },
      {
        // Following someone already followed: the answer is the same, nothing new is stored.
        name: 'POST /v1/social/users/:username/follow',
        url: `${service.url}/v1/social/users/user1/follow`,
        method: 'POST',
        headers: auth,
        statementCounts: service.statementCounts,
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
