/**
 * Receipt ingestion bench (issue 4): signed receipts stored per second through
 * POST /v1/trust-receipts, against the bare `crypto.verify` rate of this machine measured in the
 * same run (one core, a prepared KeyObject: the yardstick). The service verifies with
 * libsodium, about twice as fast here, so its bare rate is measured and reported beside it: the
 * ratio to it says how much a receipt costs beyond its verification. Every request is a
 * new, validly signed receipt from one of a few issuers. BENCH_ROUNDS rounds (default 3); in each,
 * one ingestion run per client count of BENCH_CONNECTIONS (default 50 and 200), each between two
 * bare-verify runs. The result per client count is the median ratio of its rounds; the ingestion
 * rate the service sustains is the best of those (how many clients it takes is reported beside it).
 * Each run also reports the CPU each of the service's threads spent per stored receipt (request
 * thread, signature verifier, SQLite insert worker, the rest) and autocannon's own, from /proc: on
 * these two-core machines every thread, the load generator's included, competes for the same cores.
 *
 * At the end it reports each service's resident memory once idle, after everything it was sent.
 *
 *   npx tsx bench/receipts.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/receipts.ts
 *   BENCH_BASE=/path/to/older/checkout npx tsx bench/receipts.ts   # that commit beside this one, run by run
 */
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import autocannon from 'autocannon';
import sodium from 'sodium-native';
import { publicKeyFromSeed, signMessage, SPKI_PREFIX } from '../src/lib/ed25519.ts';
import { makeReceipts } from './receipt-bodies.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  rssMb,
  startService,
  statementsBetween,
  threadCpuSeconds,
  waitUntilIdle,
  withCleanup,
  writeResult,
} from './lib.ts';

/** Verifications per second on one core with `crypto.verify` and with libsodium, same message and key. */
function bareVerifyRates(seconds: number): { openssl: number; libsodium: number } {
  const seed = randomBytes(32);
  const raw = publicKeyFromSeed(seed);
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  const message = Buffer.from(JSON.stringify({ a: 'typical receipt-sized message'.repeat(20) }));
  const signature = signMessage(seed, message);
  const rate = (verifyOnce: () => boolean) => {
    let count = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (performance.now() < deadline) {
      for (let i = 0; i < 200; i++) if (verifyOnce()) count++;
    }
    return count / ((performance.now() - started) / 1000);
  };
  return {
    openssl: rate(() => verify(null, message, key, signature)),
    libsodium: rate(() => sodium.crypto_sign_verify_detached(signature, message, raw)),
  };
}

const CPU_PARTS = ['request thread', 'verifier', 'insert worker', 'log sequencer', 'other service threads', 'load generator'] as const;
type CpuPart = (typeof CPU_PARTS)[number];
/** The service's threads by the names its workers give themselves (lib/thread-name.ts). */
const partOfThread = (name: string): CpuPart =>
  name === 'request thread'
    ? name
    : name === 'agentry-verify'
      ? 'verifier'
      : name === 'agentry-insert'
        ? 'insert worker'
        : name === 'agentry-tlog'
          ? 'log sequencer'
          : 'other service threads';

/** Microseconds of CPU per stored receipt over one run, per part. */
function cpuPerReceipt(before: Map<string, number>, after: Map<string, number>, loadGenerator: NodeJS.CpuUsage, stored: number): Record<CpuPart, number> {
  const parts = Object.fromEntries(CPU_PARTS.map((part) => [part, 0])) as Record<CpuPart, number>;
  for (const [name, seconds] of after) parts[partOfThread(name)] += ((seconds - (before.get(name) ?? 0)) * 1e6) / stored;
  parts['load generator'] = (loadGenerator.user + loadGenerator.system) / stored;
  return parts;
}

/** Median of a non-empty list. */
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const levels = (process.env.BENCH_CONNECTIONS ?? '50,200').split(',').map(Number);
  if (levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_CONNECTIONS: comma-separated client counts');
  // The machine's speed drifts by a third over tens of seconds (a shared VM): a bare-verify figure
  // taken once, before the run, can be measured in a fast minute and the ingestion in a slow one.
  // So each ingestion run is bracketed by bare-verify runs, client counts take turns within a round,
  // and the rounds' median ratio is the result.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const bareSeconds = Number(process.env.BENCH_BARE_SECONDS ?? 2);
  // With BENCH_BASE (another checkout, its node_modules linked in), its service is measured in the
  // same rounds, each run right after this commit's: a before-and-after pair on the same machine.
  const base = process.env.BENCH_BASE ?? null;
  const variants = [
    { name: 'this commit', service: await startService((await benchDatabase(cleanup)).url, cleanup), next: 0 },
    ...(base
      ? [{ name: `base (${base})`, service: await startService((await benchDatabase(cleanup)).url, cleanup, { cwd: base, name: 'base' }), next: 0 }]
      : []),
  ];
  const dialect = process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite';

  process.stderr.write('generating signed receipts ...\n');
  // More than this machine stores per second; the run warns if receipts had to be reused. Each
  // variant has a database of its own, so each sends the same receipts.
  const bodies = makeReceipts(8_000 * (levels.length * (rounds * seconds + 2)));
  const run = (variant: (typeof variants)[number], connections: number, duration: number) =>
    autocannon({
      url: variant.service.url,
      connections,
      duration,
      requests: [
        {
          method: 'POST',
          path: '/v1/trust-receipts',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: bodies[variant.next++ % bodies.length] as string }),
        },
      ],
    });
  for (const variant of variants) for (const connections of levels) await run(variant, connections, 2);

  type Measured = {
    variant: string;
    connections: number;
    bare: number;
    bareLibsodium: number;
    stored: number;
    p50: number;
    p99: number;
    failures: number;
    cpu: Record<CpuPart, number>;
    /** PostgreSQL: statements the service sent per stored receipt (bench/pg-statement-counter.mjs). */
    statementsPerReceipt: number | null;
  };
  const measured: Measured[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const connections of levels) {
      for (const variant of variants) {
        // The other variant's log sequencer may still be logging what it was sent: it would take CPU from this run.
        for (const other of variants) await waitUntilIdle(other.service, { maxCores: 0.05, windowMs: 1000 });
        const { service } = variant;
        process.stderr.write(
          `round ${round}/${rounds}, ${variant.name}, ${connections} connections: bare verify (OpenSSL, libsodium: ${bareSeconds} s each), ingestion ${seconds} s, bare verify again ...\n`,
        );
        const before = bareVerifyRates(bareSeconds);
        const threadsBefore = threadCpuSeconds(service.child.pid!);
        const loadBefore = process.cpuUsage();
        const statementsBefore = await service.statementCounts?.();
        const result = await run(variant, connections, seconds);
        const statementsAfter = await service.statementCounts?.();
        const cpu = cpuPerReceipt(threadsBefore, threadCpuSeconds(service.child.pid!), process.cpuUsage(loadBefore), result.requests.total);
        await new Promise((r) => setTimeout(r, 500));
        const after = bareVerifyRates(bareSeconds);
        measured.push({
          variant: variant.name,
          connections,
          bare: (before.openssl + after.openssl) / 2,
          bareLibsodium: (before.libsodium + after.libsodium) / 2,
          stored: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          failures: result.non2xx + result.errors,
          cpu,
          statementsPerReceipt:
            statementsBefore && statementsAfter && result.requests.total > result.non2xx
              ? statementsBetween(statementsBefore, statementsAfter).total / (result.requests.total - result.non2xx)
              : null,
        });
      }
    }
  }
  // What each service holds once it has logged everything it was sent (the whole process, every thread).
  const memory = new Map<string, { receiptsSent: number; rssMb: number }>();
  for (const variant of variants) {
    await waitUntilIdle(variant.service, { maxCores: 0.05, windowMs: 1000 });
    memory.set(variant.name, { receiptsSent: variant.next, rssMb: rssMb(variant.service.child.pid!) });
  }

  const ratio = (m: Measured) => m.stored / m.bare;
  const ratioLibsodium = (m: Measured) => m.stored / m.bareLibsodium;
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const byLevel = variants.flatMap((variant) =>
    levels.map((connections) => {
      const runs = measured.filter((m) => m.variant === variant.name && m.connections === connections);
      return { variant: variant.name, connections, runs, median: median(runs.map(ratio)), medianLibsodium: median(runs.map(ratioLibsodium)) };
    }),
  );
  const bestOf = (name: string) => byLevel.filter((level) => level.variant === name).reduce((a, b) => (b.median > a.median ? b : a));
  const table = markdownTable(
    [
      'code',
      'connections',
      'round',
      'bare crypto.verify/s',
      'bare libsodium verify/s',
      'receipts stored/s',
      'p50 (ms)',
      'p99 (ms)',
      'vs crypto.verify',
      'vs libsodium',
    ],
    byLevel.flatMap(({ variant, connections, runs, median: levelMedian, medianLibsodium }) => [
      ...runs.map((m, i) => [
        variant,
        String(connections),
        String(i + 1),
        Math.round(m.bare),
        Math.round(m.bareLibsodium),
        Math.round(m.stored),
        m.p50,
        m.p99,
        percent(ratio(m)),
        percent(ratioLibsodium(m)),
      ]),
      [variant, String(connections), '**median**', '', '', '', '', '', `**${percent(levelMedian)}**`, `**${percent(medianLibsodium)}**`],
    ]),
  );
  console.log(`\n## Receipt ingestion on ${dialect} (${rounds} rounds of ${seconds} s)\n\n${table}\n`);
  for (const variant of variants) {
    const best = bestOf(variant.name);
    console.log(
      `${variant.name}: sustained ingestion ${percent(best.median)} of bare crypto.verify (${percent(best.medianLibsodium)} of bare libsodium verify), at ${best.connections} connections.`,
    );
  }
  const cpuTable = markdownTable(
    ['code', 'connections', 'round', ...CPU_PARTS, 'service total', 'total'],
    byLevel.flatMap(({ variant, connections, runs }) =>
      runs.map((m, i) => [
        variant,
        String(connections),
        String(i + 1),
        ...CPU_PARTS.map((part) => m.cpu[part].toFixed(0)),
        CPU_PARTS.reduce((sum, part) => (part === 'load generator' ? sum : sum + m.cpu[part]), 0).toFixed(0),
        CPU_PARTS.reduce((sum, part) => sum + m.cpu[part], 0).toFixed(0),
      ]),
    ),
  );
  console.log(`\nCPU per stored receipt, µs, by thread (the service's, then autocannon's process):\n\n${cpuTable}\n`);
  for (const [name, held] of memory) console.log(`${name}: RSS ${held.rssMb.toFixed(0)} MB after ${held.receiptsSent} receipts sent, once idle`);
  const counted = measured.map((m) => m.statementsPerReceipt).filter((n): n is number => n !== null);
  if (counted.length > 0) console.log(`statements per stored receipt: ${median(counted).toFixed(2)} (median of the runs)\n`);
  const failures = measured.reduce((sum, m) => sum + m.failures, 0);
  const problems = [
    ...(failures > 0 ? [`${failures} non-2xx or errors`] : []),
    ...(variants.some((variant) => variant.next > bodies.length) ? ['receipts were reused (answered 200): generate more'] : []),
  ];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  const best = bestOf(variants[0]!.name);
  writeResult(`receipts-${dialect}`, {
    bench: 'receipts',
    dialect,
    date: new Date().toISOString(),
    machine: machine(),
    seconds,
    rounds,
    base,
    measured,
    memory: Object.fromEntries(memory),
    ratioByConnections: Object.fromEntries(byLevel.filter((level) => level.variant === variants[0]!.name).map((level) => [level.connections, level.median])),
    ratio: best.median,
    ratioLibsodiumByConnections: Object.fromEntries(
      byLevel.filter((level) => level.variant === variants[0]!.name).map((level) => [level.connections, level.medianLibsodium]),
    ),
    table,
    cpuTable,
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
