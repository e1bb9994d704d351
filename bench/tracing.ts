/**
 * Tracing bench (issue 37): what OpenTelemetry tracing costs an authenticated read, off and on,
 * each against bare Fastify measured in the same run.
 *
 *   npx tsx bench/tracing.ts                       # SQLite in temporary files
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/tracing.ts
 *   BENCH_SECONDS=6 (default) sets each measurement's length, BENCH_ROUNDS=9 (default) the rounds.
 *
 * Three servers run side by side for the whole run: hello-world (bench/hello-world.ts), the service
 * with tracing off (no OTLP endpoint: the SDK is never loaded) and the service with tracing on,
 * exporting every span over OTLP/HTTP (protobuf, the default) to a local sink that reads and
 * discards them (bench/otlp-sink.ts). Each service has its own database and its own person with a
 * profile and an API key. Every round measures GET /v1/users/me with that key on both services and
 * GET / on hello-world, one after another, the order turning from round to round, so a burst of
 * other work on the machine falls on different targets in different rounds. Each round's figures
 * are ratios within that round; the result is their median, with the range over the rounds.
 *
 * Besides requests per second and latency, each measurement records the CPU time the server process
 * spent per request (from /proc, over the measured seconds). On a machine shared with other work the
 * rates say mostly how much of the cores the scheduler gave each target; CPU per request is the
 * cost itself, and moves far less with the load. The sink's own CPU is not counted: a collector
 * runs elsewhere in production.
 */
import {
  benchDatabase,
  cpuSeconds,
  benchSeconds,
  machine,
  markdownTable,
  measure,
  postJson,
  problemsOf,
  startHelloWorld,
  startNodeServer,
  startService,
  withCleanup,
  writeResult,
  type Measurement,
  type Target,
} from './lib.ts';

const HELLO = 'hello-world GET /';
const OFF = 'tracing off';
const ON = 'tracing on';

type Timed = Measurement & { cpuMsPerRequest: number };

interface Round {
  round: number;
  order: string[];
  loadavg: number[];
  results: Record<string, Timed>;
}

/** A discarded warm-up, then the measured run with the server's CPU time per request. */
async function measureWithCpu(target: Target & { pid: number }, seconds: number, connections: number): Promise<Timed> {
  await measure(target, { seconds: 2, connections, warmupSeconds: 0, settleMs: 300 });
  const before = cpuSeconds(target.pid);
  const result = await measure(target, { seconds, connections, warmupSeconds: 0, settleMs: 700 });
  return { ...result, cpuMsPerRequest: ((cpuSeconds(target.pid) - before) * 1000) / result.requests };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[], format: (n: number) => string) => `${format(median(values))} (${format(Math.min(...values))}-${format(Math.max(...values))})`;
const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

/** A person with a profile on `serviceUrl`, and an API key of theirs. */
async function apiKeyOf(serviceUrl: string): Promise<string> {
  const signup = await postJson<{ data: { token: string } }>(`${serviceUrl}/v1/auth/signup`, {
    email: 'bench@example.test',
    password: 'correct horse battery staple',
  });
  const session = signup.data.token;
  await postJson(`${serviceUrl}/v1/users`, { username: 'bench_user', displayName: 'Bench User' }, session);
  return (await postJson<{ data: { key: string } }>(`${serviceUrl}/v1/api-keys`, { name: 'bench' }, session)).data.key;
}

async function sinkStats(url: string): Promise<{ exports: number; bytes: number }> {
  return (await fetch(`${url}/stats`)).json() as Promise<{ exports: number; bytes: number }>;
}

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(6);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
  const connections = 50;

  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const sink = await startNodeServer({ name: 'otlp-sink', entry: 'bench/otlp-sink.ts' }, cleanup);
  const hello = await startHelloWorld(cleanup);
  const offDatabase = await benchDatabase(cleanup);
  const onDatabase = await benchDatabase(cleanup);
  const off = await startService(offDatabase.url, cleanup, { name: 'service-off' });
  const on = await startService(onDatabase.url, cleanup, {
    name: 'service-on',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'agentry-bench' },
  });

  const targets: (Target & { pid: number })[] = [
    { name: HELLO, url: `${hello.url}/`, pid: hello.child.pid! },
    { name: OFF, url: `${off.url}/v1/users/me`, headers: { authorization: `Bearer ${await apiKeyOf(off.url)}` }, pid: off.child.pid! },
    { name: ON, url: `${on.url}/v1/users/me`, headers: { authorization: `Bearer ${await apiKeyOf(on.url)}` }, pid: on.child.pid! },
  ];

  const done: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    const results: Record<string, Timed> = {};
    const loadavg = machine().loadavg;
    for (const target of order) {
      process.stderr.write(`round ${round + 1}/${rounds}: ${target.name} for ${seconds} s (load average ${machine().loadavg.join(' ')}) ...\n`);
      results[target.name] = await measureWithCpu(target, seconds, connections);
    }
    done.push({ round: round + 1, order: order.map((t) => t.name), loadavg, results });
  }
  const after = machine();
  const exported = await sinkStats(sink.url);

  const column = (name: string, pick: (m: Timed) => number) => done.map((r) => pick(r.results[name]!));
  const ratio = (a: string, b: string) => done.map((r) => r.results[a]!.rps / r.results[b]!.rps);
  const cpuRatio = (a: string, b: string) => done.map((r) => r.results[a]!.cpuMsPerRequest / r.results[b]!.cpuMsPerRequest);
  const ms = (n: number) => n.toFixed(3);
  const rows = [HELLO, OFF, ON].map((name) => [
    name === HELLO ? name : `GET /v1/users/me (API key), ${name}`,
    spread(
      column(name, (m) => m.rps),
      (n) => String(Math.round(n)),
    ),
    spread(
      column(name, (m) => m.p50),
      String,
    ),
    spread(
      column(name, (m) => m.p99),
      String,
    ),
    name === HELLO ? '100%' : spread(ratio(name, HELLO), percent),
    spread(
      column(name, (m) => m.cpuMsPerRequest),
      ms,
    ),
    name === HELLO ? '1' : spread(cpuRatio(name, HELLO), (n) => `${n.toFixed(2)}x`),
  ]);
  const table = markdownTable(
    ['target', 'req/s', 'p50 (ms)', 'p99 (ms)', 'req/s vs hello-world', 'CPU ms per request', 'CPU per request vs hello-world'],
    rows,
  );
  const cpuOnVsOff = cpuRatio(ON, OFF);
  const onVsOff = ratio(ON, OFF);
  const offVsHello = ratio(OFF, HELLO);
  const onVsHello = ratio(ON, HELLO);
  const roundTable = markdownTable(
    ['round', 'order', 'load average (1 min)', 'req/s off vs hello', 'req/s on vs hello', 'req/s on vs off', 'CPU per request on vs off'],
    done.map((r, i) => [
      r.round,
      r.order.join(', '),
      r.loadavg[0]!,
      percent(offVsHello[i]!),
      percent(onVsHello[i]!),
      percent(onVsOff[i]!),
      `${cpuOnVsOff[i]!.toFixed(2)}x`,
    ]),
  );

  console.log(`\n## Tracing on ${offDatabase.dialect} (${rounds} rounds, ${seconds} s each, ${connections} connections)\n`);
  console.log(`median (min-max) over the rounds\n\n${table}\n\n${roundTable}\n`);
  console.log(
    `tracing on vs off: ${spread(onVsOff, percent)} of the requests per second, ${spread(cpuOnVsOff, (n) => `${n.toFixed(2)}x`)} the CPU per request`,
  );
  console.log(`the sink took ${exported.exports} exports, ${(exported.bytes / 1e6).toFixed(1)} MB`);
  console.log(`load average before: ${before.loadavg.join(' ')}, after: ${after.loadavg.join(' ')}`);

  const problems = problemsOf(done.flatMap((r) => Object.values(r.results)));
  for (const problem of problems) console.log(`WARNING ${problem}`);
  const path = writeResult(`tracing-${offDatabase.dialect}`, {
    bench: 'tracing',
    dialect: offDatabase.dialect,
    date: new Date().toISOString(),
    machine: before,
    loadavgAfter: after.loadavg,
    settings: { seconds, rounds, connections },
    rounds: done,
    exported,
    problems,
    table,
    roundTable,
  });
  console.log(`\nwrote ${path}`);
  if (problems.length > 0) process.exitCode = 1;
});
