/**
 * Registry bench (issue 3): provisional registrations per second (autocannon, a fresh name per
 * request) and claim round trips per second (challenge, sign, claim: a closed loop of workers),
 * beside bare Fastify hello-world measured in the same run.
 *
 *   npx tsx bench/registry.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/registry.ts
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { formatPublicKey, publicKeyFromSeed, signMessage } from '../src/lib/ed25519.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  measure,
  percentile,
  postJson,
  startHelloWorld,
  startService,
  statementsBetween,
  withCleanup,
  writeResult,
} from './lib.ts';

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const connections = 50;
  const database = await benchDatabase(cleanup);
  const hello = await startHelloWorld(cleanup);
  const service = await startService(database.url, cleanup, { env: { PROVISIONAL_RATE_LIMIT_MAX: '10000000' } });

  const seed = randomBytes(32);
  const pubkey = formatPublicKey(publicKeyFromSeed(seed));

  const baseline = await measure({ name: 'hello-world GET /', url: `${hello.url}/` }, { seconds, connections });

  process.stderr.write(`measuring provisional registrations for ${seconds} s ...\n`);
  let registered = 0;
  const statementsBefore = await service.statementCounts?.();
  const provisional = await autocannon({
    url: service.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/agents/provisional',
        headers: { 'content-type': 'application/json' },
        // Every registration needs a name (and so a slug) of its own.
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            name: `bench agent ${registered++}`,
            description: 'Benchmark agent',
            endpoint: 'https://bench.example.test/hook',
            pubkey,
            capabilities: ['summarize'],
          }),
        }),
      },
    ],
  });

  const statementsAfter = await service.statementCounts?.();
  const statementsPerRegistration =
    statementsBefore && statementsAfter ? statementsBetween(statementsBefore, statementsAfter).total / (provisional.requests.total - provisional.non2xx) : null;

  // Claims need one provisional agent each; they were all made with `seed`, so any can be claimed.
  const session = (
    await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, { email: 'claims@example.test', password: 'correct horse battery' })
  ).data.token;
  const pool: string[] = [];
  const fill = async () => {
    for (let i = 0; i < 100; i++) {
      const made = await postJson<{ data: { id: string } }>(`${service.url}/v1/agents/provisional`, {
        name: `claim pool ${i} ${randomBytes(6).toString('hex')}`,
        description: 'd',
        endpoint: 'https://bench.example.test/hook',
        pubkey,
      });
      pool.push(made.data.id);
    }
  };
  await Promise.all(Array.from({ length: 20 }, fill));

  process.stderr.write(`measuring claim round trips for ${seconds} s ...\n`);
  const latencies: number[] = [];
  let failures = 0;
  const deadline = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const id = pool.pop();
      if (!id) return;
      const started = performance.now();
      const challenge = (await (await fetch(`${service.url}/v1/agents/${id}/claim/challenge`)).json()) as { data: { nonce: string } };
      const signature = signMessage(seed, challenge.data.nonce).toString('base64url');
      const claimed = await fetch(`${service.url}/v1/agents/${id}/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
        body: JSON.stringify({ signature }),
      });
      await claimed.arrayBuffer();
      if (claimed.status === 200) latencies.push(performance.now() - started);
      else failures++;
    }
  };
  const claimStart = performance.now();
  await Promise.all(Array.from({ length: 20 }, worker));
  const claimSeconds = (performance.now() - claimStart) / 1000;
  latencies.sort((a, b) => a - b);

  const rows = [
    ['hello-world GET /', Math.round(baseline.rps), baseline.p50, baseline.p99, '100%'],
    [
      'POST /v1/agents/provisional',
      Math.round(provisional.requests.average),
      provisional.latency.p50,
      provisional.latency.p99,
      `${((provisional.requests.average / baseline.rps) * 100).toFixed(1)}%`,
    ],
    [
      'claim round trip (GET challenge + sign + POST claim)',
      Math.round(latencies.length / claimSeconds),
      percentile(latencies, 50).toFixed(1),
      percentile(latencies, 99).toFixed(1),
      `${((latencies.length / claimSeconds / baseline.rps) * 100).toFixed(1)}%`,
    ],
  ];
  const table = markdownTable(['operation', 'per second', 'p50 (ms)', 'p99 (ms)', 'vs hello-world'], rows);
  console.log(`\n## Registry on ${database.dialect} (${seconds} s each)\n\n${table}\n`);
  if (statementsPerRegistration !== null) console.log(`statements per provisional registration: ${statementsPerRegistration.toFixed(2)}`);
  const problems = [
    ...(provisional.non2xx + provisional.errors > 0 ? [`provisional: ${provisional.non2xx} non-2xx, ${provisional.errors} errors`] : []),
    ...(failures > 0 ? [`claims: ${failures} failed`] : []),
    ...(pool.length === 0 ? ['claim pool ran dry: raise its size for a longer run'] : []),
  ];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`registry-${database.dialect}`, {
    bench: 'registry',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    seconds,
    table,
    statementsPerRegistration,
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
