/**
 * Foundation bench (issue 2): how close the real service's authenticated read comes to bare Fastify.
 *
 *   npx tsx bench/foundation.ts                       # SQLite in a temporary file
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/foundation.ts
 *   BENCH_SECONDS=10 (default) sets each measurement's length, BENCH_ROUNDS (default 1) the rounds.
 *   BENCH_BASE=<folder of another checkout> measures that checkout's service in the same rounds,
 *   its routes right before or after this commit's (the order alternates by round).
 *
 * Target: GET /v1/users/me with a credential at >= 50% of hello-world's request rate, and by CPU per
 * request (the serving process's user + system CPU over the run, divided by its requests; steadier
 * than rates on a shared machine) hello-world's at >= 60% of the service's.
 */
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  measure,
  postJson,
  problemsOf,
  resultsTable,
  startHelloWorld,
  startService,
  withCleanup,
  writeResult,
  type Measurement,
  type Target,
} from './lib.ts';

const BASELINE = 'hello-world GET /';
const TARGET_RATIO = 0.5;
const TARGET_CPU_RATIO = 0.6;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const connections = 50;
  const pipelining = 1;
  const base = process.env.BENCH_BASE ?? null;

  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const hello = await startHelloWorld(cleanup);

  /** One person with a profile, reached through a session and through an API key, on a service of its own. */
  const startVariant = async (name: string, cwd: string | null) => {
    const database = await benchDatabase(cleanup);
    const service = await startService(database.url, cleanup, cwd ? { cwd, name: 'base' } : {});
    const signup = await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, {
      email: 'bench@example.test',
      password: 'correct horse battery staple',
    });
    const session = signup.data.token;
    await postJson(`${service.url}/v1/users`, { username: 'bench_user', displayName: 'Bench User' }, session);
    const apiKey = (await postJson<{ data: { key: string } }>(`${service.url}/v1/api-keys`, { name: 'bench' }, session)).data.key;
    const pid = service.child.pid!;
    const prefix = cwd ? 'base ' : '';
    const targets: Target[] = [
      { name: `${prefix}service GET /health`, url: `${service.url}/health`, pid },
      { name: `${prefix}service GET /v1/users/me (session)`, url: `${service.url}/v1/users/me`, headers: { authorization: `Bearer ${session}` }, pid },
      { name: `${prefix}service GET /v1/users/me (API key)`, url: `${service.url}/v1/users/me`, headers: { authorization: `Bearer ${apiKey}` }, pid },
    ];
    return { name, dialect: database.dialect, targets };
  };
  const variants = [await startVariant('this commit', null), ...(base ? [await startVariant(`base (${base})`, base)] : [])];
  const dialect = variants[0]!.dialect;
  const helloTarget: Target = { name: BASELINE, url: `${hello.url}/`, pid: hello.child.pid! };

  const options = { seconds, connections, pipelining };
  const byRound: Measurement[][] = [];
  for (let round = 1; round <= rounds; round++) {
    // Alternate which code goes first, so neither always runs in the same minute after hello-world.
    const order = round % 2 === 1 ? variants : [...variants].reverse();
    const targets = [helloTarget, ...order.flatMap((variant) => variant.targets)];
    const results: Measurement[] = [];
    for (const target of targets) {
      process.stderr.write(`round ${round}/${rounds}: measuring ${target.name} for ${seconds} s ...\n`);
      results.push(await measure(target, options));
    }
    byRound.push(results);
    console.log(`\n### Round ${round} of ${rounds} (${dialect}, ${seconds} s each, ${connections} connections, pipelining ${pipelining})\n`);
    console.log(resultsTable(results, BASELINE));
    // Where each process's CPU went: the request thread, or others (V8's helpers for garbage collection, libuv's pool, workers).
    const threads = (r: Measurement) =>
      Object.entries(r.cpuPerRequestByThreadUs ?? {})
        .filter(([, us]) => us >= 0.5)
        .sort((a, b) => b[1] - a[1])
        .map(([thread, us]) => `${thread} ${us.toFixed(1)}`)
        .join(', ');
    console.log(`\nCPU per request by thread (µs):\n${results.map((r) => `- ${r.name}: ${threads(r)}`).join('\n')}`);
  }

  // Per route, the median over the rounds of its rate and of hello-world's CPU per request as a share of its own.
  const names = byRound[0]!.map((r) => r.name);
  const summaryRows = names.map((name) => {
    const shares = byRound.map(
      (results) => results.find((r) => r.name === BASELINE)!.cpuPerRequestUs! / results.find((r) => r.name === name)!.cpuPerRequestUs!,
    );
    const rates = byRound.map((results) => results.find((r) => r.name === name)!.rps / results.find((r) => r.name === BASELINE)!.rps);
    const cpu = byRound.map((results) => results.find((r) => r.name === name)!.cpuPerRequestUs!);
    return { name, rate: median(rates), cpu: median(cpu), share: median(shares), shares };
  });
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const summary = markdownTable(
    ['route', 'req/s vs hello-world (median)', 'CPU per request, µs (median)', "hello-world's CPU as a share of this (median)", 'by round'],
    summaryRows.map((row) => [row.name, percent(row.rate), Math.round(row.cpu), percent(row.share), row.shares.map(percent).join(', ')]),
  );
  const after = machine();
  console.log(
    `\n## Foundation on ${dialect}, medians of ${rounds} round(s); load average before ${before.loadavg.join(' ')}, after ${after.loadavg.join(' ')}\n`,
  );
  console.log(summary);

  const own = (row: { name: string }) => row.name.startsWith('service GET /v1/users/me');
  const worst = Math.min(...summaryRows.filter(own).map((row) => row.rate));
  const worstCpu = Math.min(...summaryRows.filter(own).map((row) => row.share));
  console.log(
    `\nAuthenticated GET /v1/users/me: ${(worst * 100).toFixed(1)}% of hello-world at worst (target ${TARGET_RATIO * 100}%): ${worst >= TARGET_RATIO ? 'met' : 'MISSED'}`,
  );
  console.log(
    `By CPU per request, hello-world's is ${(worstCpu * 100).toFixed(1)}% of GET /v1/users/me's at worst (target ${TARGET_CPU_RATIO * 100}%): ${worstCpu >= TARGET_CPU_RATIO ? 'met' : 'MISSED'}`,
  );

  const problems = byRound.flatMap(problemsOf);
  for (const problem of problems) console.log(`WARNING ${problem}`);

  const path = writeResult(`foundation-${dialect}`, {
    bench: 'foundation',
    dialect,
    date: new Date().toISOString(),
    machine: before,
    loadavgAfter: after.loadavg,
    base,
    settings: { seconds, rounds, connections, pipelining },
    rounds: byRound,
    summary: summaryRows,
    target: { ratio: TARGET_RATIO, worstAuthenticatedRatio: worst, met: worst >= TARGET_RATIO },
    cpuTarget: { ratio: TARGET_CPU_RATIO, worstAuthenticatedRatio: worstCpu, met: worstCpu >= TARGET_CPU_RATIO },
    problems,
  });
  console.log(`\nwrote ${path}`);
  if (problems.length > 0) process.exitCode = 1;
});
