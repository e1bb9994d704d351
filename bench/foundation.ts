/**
 * Foundation bench (issue 2): how close the real service's authenticated read comes to bare Fastify.
 *
 *   npx tsx bench/foundation.ts                       # SQLite in a temporary file
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/foundation.ts
 *   BENCH_SECONDS=10 (default) sets each measurement's length.
 *
 * Target: GET /v1/users/me with a credential at >= 50% of hello-world's request rate, and by CPU per
 * request (the serving process's user + system CPU over the run, divided by its requests; steadier
 * than rates on a shared machine) hello-world's at >= 60% of the service's.
 */
import {
  benchDatabase,
  benchSeconds,
  machine,
  measureAll,
  postJson,
  problemsOf,
  resultsTable,
  startHelloWorld,
  startService,
  withCleanup,
  writeResult,
} from './lib.ts';

const BASELINE = 'hello-world GET /';
const TARGET_RATIO = 0.5;
const TARGET_CPU_RATIO = 0.6;

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const connections = 50;
  const pipelining = 1;

  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const database = await benchDatabase(cleanup);
  const hello = await startHelloWorld(cleanup);
  const service = await startService(database.url, cleanup);

  // One person with a profile, reached through a session and through an API key.
  const signup = await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, {
    email: 'bench@example.test',
    password: 'correct horse battery staple',
  });
  const session = signup.data.token;
  await postJson(`${service.url}/v1/users`, { username: 'bench_user', displayName: 'Bench User' }, session);
  const apiKey = (await postJson<{ data: { key: string } }>(`${service.url}/v1/api-keys`, { name: 'bench' }, session)).data.key;

  const results = await measureAll(
    [
      { name: BASELINE, url: `${hello.url}/`, pid: hello.child.pid! },
      { name: 'service GET /health', url: `${service.url}/health`, pid: service.child.pid! },
      {
        name: 'service GET /v1/users/me (session)',
        url: `${service.url}/v1/users/me`,
        headers: { authorization: `Bearer ${session}` },
        pid: service.child.pid!,
      },
      {
        name: 'service GET /v1/users/me (API key)',
        url: `${service.url}/v1/users/me`,
        headers: { authorization: `Bearer ${apiKey}` },
        pid: service.child.pid!,
      },
    ],
    { seconds, connections, pipelining },
  );

  const table = resultsTable(results, BASELINE);
  const baseline = results[0]!.rps;
  const authenticated = results.filter((r) => r.name.includes('/v1/users/me'));
  const worst = Math.min(...authenticated.map((r) => r.rps / baseline));
  const baselineCpu = results[0]!.cpuPerRequestUs!;
  const worstCpu = Math.min(...authenticated.map((r) => baselineCpu / r.cpuPerRequestUs!));

  console.log(`\n## Foundation on ${database.dialect} (${seconds} s each, ${connections} connections, pipelining ${pipelining})\n`);
  console.log(table);
  console.log(
    `\nAuthenticated GET /v1/users/me: ${(worst * 100).toFixed(1)}% of hello-world at worst (target ${TARGET_RATIO * 100}%): ${worst >= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
  console.log(
    `By CPU per request, hello-world's is ${(worstCpu * 100).toFixed(1)}% of GET /v1/users/me's at worst (target ${TARGET_CPU_RATIO * 100}%): ${worstCpu >= TARGET_CPU_RATIO ? 'met' : 'MISSED'}`,
  );

  const problems = problemsOf(results);
  for (const problem of problems) console.log(`WARNING ${problem}`);

  const path = writeResult(`foundation-${database.dialect}`, {
    bench: 'foundation',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: before,
    settings: { seconds, connections, pipelining },
    results: results.map((r) => ({ ...r, ratio: r.rps / baseline })),
    target: { ratio: TARGET_RATIO, worstAuthenticatedRatio: worst, met: worst >= TARGET_RATIO },
    cpuTarget: { ratio: TARGET_CPU_RATIO, worstAuthenticatedRatio: worstCpu, met: worstCpu >= TARGET_CPU_RATIO },
    problems,
    table,
  });
  console.log(`\nwrote ${path}`);
  if (problems.length > 0) process.exitCode = 1;
});
