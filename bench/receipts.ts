/**
 * Receipt ingestion bench (issue 4): signed receipts stored per second through
 * POST /v1/trust-receipts, against the bare `crypto.verify` rate of this machine measured in the
 * same run (one core, a prepared KeyObject: the cheapest a verification gets). Every request is a
 * new, validly signed receipt from one of a few issuers.
 *
 *   npx tsx bench/receipts.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/receipts.ts
 */
import { createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import autocannon from 'autocannon';
import { formatPublicKey, publicKeyFromSeed, signMessage } from '../src/lib/ed25519.ts';
import { signedBytes } from '../src/modules/receipts/index.ts';
import { benchDatabase, benchSeconds, machine, markdownTable, startService, withCleanup, writeResult } from './lib.ts';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function bareVerifyRate(seconds: number): number {
  const seed = randomBytes(32);
  const raw = publicKeyFromSeed(seed);
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  const message = Buffer.from(JSON.stringify({ a: 'typical receipt-sized message'.repeat(20) }));
  const signature = signMessage(seed, message);
  let count = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < 200; i++) if (verify(null, message, key, signature)) count++;
  }
  return count / ((performance.now() - started) / 1000);
}

function makeReceipts(count: number): string[] {
  const issuers = Array.from({ length: 8 }, (_, i) => {
    const seed = randomBytes(32);
    return { seed, agent: `issuer-${i}`, pubkey: formatPublicKey(publicKeyFromSeed(seed)) };
  });
  const subject = { agent: 'subject', pubkey: formatPublicKey(publicKeyFromSeed(randomBytes(32))) };
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const issuer = issuers[i % issuers.length] as (typeof issuers)[number];
    const unsigned = {
      kind: 'outcome',
      version: '2026-03-12',
      receiptId: randomUUID(),
      correlationId: randomUUID(),
      issuedAt: new Date().toISOString(),
      expiresAt: '2099-01-01T00:00:00Z',
      taskClass: 'code.review.pull_request',
      issuer: { agent: issuer.agent, pubkey: issuer.pubkey },
      subject,
      payload: { outcome: 'success', latencyMs: 420, artifactHash: `sha256:${randomBytes(32).toString('hex')}`, artifactUrl: 'https://example.com/a.json' },
    };
    const value = signMessage(issuer.seed, signedBytes(unsigned)).toString('base64');
    bodies.push(JSON.stringify({ ...unsigned, signature: { alg: 'Ed25519', keyId: `${issuer.agent}#1`, value } }));
  }
  return bodies;
}

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const database = await benchDatabase(cleanup);
  const service = await startService(database.url, cleanup);

  process.stderr.write('measuring bare crypto.verify ...\n');
  const bare = bareVerifyRate(Math.min(seconds, 5));

  const bodies = makeReceipts(Math.ceil(bare * (seconds + 2)));
  let next = 0;
  const run = (duration: number) =>
    autocannon({
      url: service.url,
      connections,
      duration,
      requests: [{ method: 'POST', path: '/v1/trust-receipts', headers: { 'content-type': 'application/json' }, setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] as string }) }],
    });
  await run(2);
  process.stderr.write(`measuring receipt ingestion for ${seconds} s ...\n`);
  const result = await run(seconds);
  await new Promise((r) => setTimeout(r, 1000));

  const ratio = result.requests.average / bare;
  const table = markdownTable(
    ['operation', 'per second', 'p50 (ms)', 'p99 (ms)', 'vs bare verify'],
    [
      ['bare crypto.verify (one core, prepared key)', Math.round(bare), '', '', '100%'],
      ['POST /v1/trust-receipts (verified, stored)', Math.round(result.requests.average), result.latency.p50, result.latency.p99, `${(ratio * 100).toFixed(1)}%`],
    ],
  );
  console.log(`\n## Receipt ingestion on ${database.dialect} (${seconds} s, ${connections} connections)\n\n${table}\n`);
  const problems = [
    ...(result.non2xx + result.errors > 0 ? [`${result.non2xx} non-2xx, ${result.errors} errors`] : []),
    ...(next > bodies.length ? ['receipts were reused (answered 200): generate more'] : []),
  ];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`receipts-${database.dialect}`, { bench: 'receipts', dialect: database.dialect, date: new Date().toISOString(), machine: machine(), seconds, bare, table, problems });
  if (problems.length > 0) process.exitCode = 1;
});
