/**
 * Discovery through a burst of registrations (issue 52, target 5): a new agent is found by its words
 * at once and by meaning once embedded, and embedding its backlog does not slow searches down.
 *
 * 1. The sentence encoder alone, in this process (its worker thread, as the service runs it):
 *    agents embedded per second, BENCH_TEXTS (default 256) agent texts, one model run per text
 *    against the same texts sent as the service's background work (runs of similar-length texts);
 *    and agents per second by model run size. Also per CPU second of the encoder's thread.
 * 2. The service (the compiled server, as npm start runs it) on a database of BENCH_AGENTS (default
 *    2,000) agents with stored sentence vectors, with searches offered open loop at BENCH_RATE per
 *    second (default 10; distinct queries, so that each runs the model as a new query does):
 *    - without a burst, for BENCH_SECONDS (default 20);
 *    - then while BENCH_BURST (default 1,000) agents are registered through the API as fast as it
 *      takes them (16 at a time), and on until the node has made every new agent's vector (its
 *      `agentry_discovery_agents_awaiting_meaning` gauge back to 0; a node without the gauge: its
 *      encoder thread below half a core for a second).
 *    Search p50/p99 in each phase and their ratios to the phase without a burst; registrations per
 *    second; seconds until every burst agent has its vector.
 *    BENCH_BASE=<folder of another checkout> runs part 2 against that checkout's src/main.ts (through
 *    tsx) as well, on a database of its own, for a side-by-side comparison.
 *
 *   npx tsx bench/discovery-burst.ts
 *   BENCH_BASE=/tmp/base npx tsx bench/discovery-burst.ts
 *
 * Last line: `discovery-burst: encoder one=<agents/s> batched=<agents/s> (x<r>); registrations=<per s>;
 * caught up=<s>; search p50 <ms> -> <ms> (x<r>), p99 <ms> -> <ms> (x<r>)`.
 */
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { buildServerIfStale } from '../scripts/stale-builds.ts';
import { createSentenceEncoder } from '../src/modules/discovery/sentence-encoder.ts';
import { fixtureQueries } from '../test/fixtures/discovery/relevance.ts';
import { benchAgentRows, seedAgents, seedSentenceVectors, textOf } from './discovery-agents.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  percentile,
  postJson,
  startService,
  threadCpuSeconds,
  waitUntilIdle,
  withCleanup,
  writeResult,
  type Cleanup,
} from './lib.ts';

const TEXTS = Number(process.env.BENCH_TEXTS ?? 256);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 2_000);
const BURST = Number(process.env.BENCH_BURST ?? 1_000);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const REGISTERING_AT_ONCE = 16;
const READY_TIMEOUT_MS = 240_000;
const CATCH_UP_TIMEOUT_MS = 30 * 60_000;
const BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64];
const ENCODER_THREAD = 'agentry-encode';

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

// ---------------------------------------------------------------------------------------------
// 1. The encoder alone.

interface EncoderFigures {
  oneAtATime: { perSecond: number; perCpuSecond: number };
  batched: { perSecond: number; perCpuSecond: number };
  byRunSize: { size: number; perSecond: number }[];
}

async function encoderThroughput(): Promise<EncoderFigures> {
  const texts = benchAgentRows(TEXTS, 'bench', 1_000_000).map(textOf);
  const encoder = createSentenceEncoder();
  try {
    // Loads the model; background work, so that no query makes the worker run the next batches one text at a time.
    await encoder.background.embed(texts.slice(0, 4));
    const encoderCpu = () => threadCpuSeconds(process.pid).get(ENCODER_THREAD) ?? 0;
    const timed = async (work: () => Promise<unknown>) => {
      const [cpu, started] = [encoderCpu(), performance.now()];
      await work();
      return { perSecond: texts.length / ((performance.now() - started) / 1000), perCpuSecond: texts.length / Math.max(encoderCpu() - cpu, 0.01) };
    };
    const batched = await timed(() => encoder.background.embed(texts));
    const oneAtATime = await timed(async () => {
      for (const text of texts) await encoder.embed([text]);
    });
    const byRunSize: EncoderFigures['byRunSize'] = [];
    for (const size of BATCH_SIZES) {
      const { perSecond } = await timed(async () => {
        for (let start = 0; start < texts.length; start += size) await encoder.embed(texts.slice(start, start + size));
      });
      byRunSize.push({ size, perSecond });
    }
    return { oneAtATime, batched, byRunSize };
  } finally {
    await encoder.close?.();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. The service through a burst.

/** Distinct queries: a fixture query and a closing phrase, never repeated within a run (a repeated query skips the model). */
const CLOSINGS = ['', 'please', 'for me', 'today', 'quickly', 'online', 'for my team', 'at work', 'this week', 'for a client'];
const queryNumber = (i: number) => {
  const base = fixtureQueries[i % fixtureQueries.length]!.q;
  const closing = CLOSINGS[Math.floor(i / fixtureQueries.length) % CLOSINGS.length]!;
  return closing ? `${base} ${closing}` : base;
};

interface Timed {
  at: number;
  ms: number;
}

/** Searches offered open loop from now until `stop()`: each sent at its time whatever the answers. */
function offerSearches(url: string, first: number) {
  const dispatcher = new Agent({ connections: 256 });
  const answered: Timed[] = [];
  let failures = 0;
  let stopped = false;
  const start = performance.now();
  const sent: Promise<void>[] = [];
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const at = start + (i * 1000) / RATE;
      const wait = at - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (stopped) break;
      sent.push(
        request(`${url}/v1/discover?q=${encodeURIComponent(queryNumber(first + i))}`, { dispatcher }).then(
          async (response) => {
            await response.body.arrayBuffer();
            if (response.statusCode === 200) answered.push({ at, ms: performance.now() - at });
            else failures++;
          },
          () => void failures++,
        ),
      );
    }
  })();
  return {
    async stop(): Promise<{ answered: Timed[]; failures: number; sent: number }> {
      stopped = true;
      await running;
      await Promise.all(sent);
      await dispatcher.close();
      return { answered, failures, sent: sent.length };
    },
  };
}

const latencies = (timed: Timed[], from: number, to: number) => {
  const ms = timed
    .filter((t) => t.at >= from && t.at < to)
    .map((t) => t.ms)
    .sort((a, b) => a - b);
  return { count: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) };
};

async function awaitingMeaning(url: string): Promise<number | null> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = /^agentry_discovery_agents_awaiting_meaning (\S+)$/m.exec(text)?.[1];
  return value === undefined ? null : Number(value);
}

/** Waits until the node has made every vector: its gauge at 0, or (without one) its encoder thread below half a core for a second. */
async function caughtUp(url: string, pid: number): Promise<void> {
  const deadline = performance.now() + CATCH_UP_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const cpu = threadCpuSeconds(pid).get(ENCODER_THREAD) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const waiting = await awaitingMeaning(url);
    if (waiting === 0) return;
    if (waiting === null && (threadCpuSeconds(pid).get(ENCODER_THREAD) ?? 0) - cpu < 0.5) return;
  }
  throw new Error(`the node had not caught up after ${CATCH_UP_TIMEOUT_MS / 1000} s`);
}

interface BurstFigures {
  variant: string;
  without: ReturnType<typeof latencies>;
  registering: ReturnType<typeof latencies>;
  catchingUp: ReturnType<typeof latencies>;
  registrationsPerSecond: number;
  registrationFailures: number;
  caughtUpSeconds: number;
  searchFailures: number;
  loadBefore: string;
  loadAfter: string;
}

async function burstRun(variant: { name: string; entry: string; cwd?: string }, seconds: number, cleanup: Cleanup): Promise<BurstFigures> {
  const database = await benchDatabase(cleanup);
  // Migrations and an owner: one start of this checkout's service.
  const setup = await startService(database.url, cleanup, { entry: 'dist/main.js', readyTimeoutMs: READY_TIMEOUT_MS });
  const signup = await postJson<{ data: { token: string; account: { id: string } } }>(`${setup.url}/v1/auth/signup`, {
    email: 'bench@example.test',
    password: 'correct horse battery',
  });
  await setup.stop();
  process.stderr.write(`${variant.name}: seeding ${AGENTS} agents and their sentence vectors ...\n`);
  await seedSentenceVectors(database.url, await seedAgents(database.url, signup.data.account.id, AGENTS));

  const service = await startService(database.url, cleanup, {
    entry: variant.entry,
    readyTimeoutMs: READY_TIMEOUT_MS,
    ...(variant.cwd ? { cwd: variant.cwd } : {}),
  });
  const pid = service.child.pid!;
  await waitUntilIdle(service, { windowMs: 1000 });
  // Warm-up, discarded: the query path's first runs.
  for (let i = 0; i < 20; i++) await (await fetch(`${service.url}/v1/discover?q=${encodeURIComponent(queryNumber(10_000 + i))}`)).arrayBuffer();

  const loadBefore = load();
  process.stderr.write(`${variant.name}: ${seconds} s of searches without a burst, then a burst of ${BURST} registrations ...\n`);
  const searches = offerSearches(service.url, 0);
  const withoutFrom = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));

  const registeringFrom = performance.now();
  const rows = benchAgentRows(BURST, 'bench', AGENTS);
  const dispatcher = new Agent({ connections: REGISTERING_AT_ONCE });
  let registrationFailures = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: REGISTERING_AT_ONCE }, async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        const response = await request(`${service.url}/v1/agents`, {
          dispatcher,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${signup.data.token}` },
          body: JSON.stringify({
            name: row.name,
            description: row.description,
            endpoint: row.endpoint,
            protocols: JSON.parse(row.protocols ?? '[]') as string[],
            categories: JSON.parse(row.categories ?? '[]') as string[],
            capabilities: JSON.parse(row.capabilities ?? '[]') as string[],
            tags: JSON.parse(row.tags ?? '[]') as string[],
          }),
        });
        await response.body.arrayBuffer();
        if (response.statusCode !== 201) registrationFailures++;
      }
    }),
  );
  await dispatcher.close();
  const catchingUpFrom = performance.now();
  await caughtUp(service.url, pid);
  const caughtUpAt = performance.now();
  const { answered, failures } = await searches.stop();
  const loadAfter = load();
  await service.stop();
  return {
    variant: variant.name,
    without: latencies(answered, withoutFrom, registeringFrom),
    registering: latencies(answered, registeringFrom, catchingUpFrom),
    catchingUp: latencies(answered, catchingUpFrom, caughtUpAt),
    registrationsPerSecond: BURST / ((catchingUpFrom - registeringFrom) / 1000),
    registrationFailures,
    caughtUpSeconds: (caughtUpAt - registeringFrom) / 1000,
    searchFailures: failures,
    loadBefore,
    loadAfter,
  };
}

const ratio = (value: number, to: number) => `${(value / to).toFixed(2)}x`;

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(20);
  const loadAtStart = load();
  buildServerIfStale();

  process.stderr.write(`encoder: ${TEXTS} agent texts ...\n`);
  const encoder = await encoderThroughput();
  const variants = [
    { name: 'this commit, dist/main.js', entry: 'dist/main.js' },
    ...(process.env.BENCH_BASE ? [{ name: `base (${process.env.BENCH_BASE}), src/main.ts`, entry: 'src/main.ts', cwd: process.env.BENCH_BASE }] : []),
  ];
  const bursts: BurstFigures[] = [];
  for (const variant of variants) bursts.push(await burstRun(variant, seconds, cleanup));
  const loadAtEnd = load();

  const gain = encoder.batched.perSecond / encoder.oneAtATime.perSecond;
  console.log(`\n## Discovery through a burst of registrations (load average ${loadAtStart} at start, ${loadAtEnd} at end)\n`);
  console.log(`Encoder alone, ${TEXTS} agent texts:\n`);
  console.log(
    markdownTable(
      ['how', 'agents/s', 'agents per CPU second of the encoder thread'],
      [
        ['one model run per text', encoder.oneAtATime.perSecond.toFixed(1), encoder.oneAtATime.perCpuSecond.toFixed(1)],
        ['background work (runs of similar-length texts)', encoder.batched.perSecond.toFixed(1), encoder.batched.perCpuSecond.toFixed(1)],
        ['ratio', `${gain.toFixed(2)}x`, `${(encoder.batched.perCpuSecond / encoder.oneAtATime.perCpuSecond).toFixed(2)}x`],
      ],
    ),
  );
  console.log(`\nBy model run size (texts in submission order): ${encoder.byRunSize.map((r) => `${r.size}: ${r.perSecond.toFixed(1)}/s`).join(', ')}\n`);
  console.log(`Service at ${AGENTS} agents, ${RATE} distinct searches/s, a burst of ${BURST} registrations:\n`);
  console.log(
    markdownTable(
      [
        'variant',
        'registrations/s',
        'all embedded after (s)',
        'p50 without / registering / catching up (ms)',
        'p99 without / registering / catching up (ms)',
        'p50 ratios',
        'p99 ratios',
        'load before → after',
      ],
      bursts.map((b) => [
        b.variant,
        b.registrationsPerSecond.toFixed(0),
        b.caughtUpSeconds.toFixed(1),
        `${b.without.p50.toFixed(0)} / ${b.registering.p50.toFixed(0)} / ${b.catchingUp.p50.toFixed(0)}`,
        `${b.without.p99.toFixed(0)} / ${b.registering.p99.toFixed(0)} / ${b.catchingUp.p99.toFixed(0)}`,
        `${ratio(b.registering.p50, b.without.p50)} / ${ratio(b.catchingUp.p50, b.without.p50)}`,
        `${ratio(b.registering.p99, b.without.p99)} / ${ratio(b.catchingUp.p99, b.without.p99)}`,
        `${b.loadBefore} → ${b.loadAfter}`,
      ]),
    ),
  );
  for (const b of bursts) {
    const counts = `${b.without.count} / ${b.registering.count} / ${b.catchingUp.count}`;
    console.log(`\n${b.variant}: searches per phase ${counts}; failed searches ${b.searchFailures}; failed registrations ${b.registrationFailures}`);
  }
  const path = writeResult('discovery-burst', { machine: machine(), encoder, bursts, loadAtStart, loadAtEnd });
  console.log(`\n(raw figures: ${path})`);
  const mine = bursts[0]!;
  const burstP50 = Math.max(mine.registering.p50, mine.catchingUp.p50);
  const burstP99 = Math.max(mine.registering.p99, mine.catchingUp.p99);
  console.log(
    `discovery-burst: encoder one=${encoder.oneAtATime.perSecond.toFixed(1)} batched=${encoder.batched.perSecond.toFixed(1)} (x${gain.toFixed(2)}); ` +
      `registrations=${mine.registrationsPerSecond.toFixed(0)}/s; caught up=${mine.caughtUpSeconds.toFixed(1)}s; ` +
      `search p50 ${mine.without.p50.toFixed(0)} -> ${burstP50.toFixed(0)} (x${(burstP50 / mine.without.p50).toFixed(2)}), ` +
      `p99 ${mine.without.p99.toFixed(0)} -> ${burstP99.toFixed(0)} (x${(burstP99 / mine.without.p99).toFixed(2)})`,
  );
});
