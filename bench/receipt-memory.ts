/**
 * What a node holds after a flood of receipts (issue 51): each variant's service is started alone,
 * answers one search (which loads discovery's sentence model, as any node soon does), is sent
 * BENCH_RECEIPTS new receipts (default 100,000) at 50 connections, and, once idle, is read from
 * outside: resident memory by kind of mapping (/proc/<pid>/smaps) and, from a Node diagnostic report
 * (SIGUSR2, `--report-on-signal`), the V8 heap of every thread, the main one by space. A second
 * reading BENCH_SETTLE_SECONDS later (default 75: past the minute after which idle receipt threads
 * stop) shows what the idle process gives back.
 *
 *   npx tsx bench/receipt-memory.ts
 *   BENCH_BASE=<folder of another checkout> ...        # that checkout's service too, alone, after this one's
 *   BENCH_ENTRY=dist/main.js ...                       # the built service (npm start) instead of src/main.ts through tsx
 *   BENCH_SERVICE_ENV='MALLOC_ARENA_MAX=2' ...         # extra environment for the services
 *   BENCH_HEAP_SNAPSHOT=1 ...                          # the main thread's heap snapshot after the receipts, in bench/.out
 *                                                      # (summarise it with bench/heap-summary.ts)
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { makeReceipts } from './receipt-bodies.ts';
import { benchDatabase, machine, markdownTable, outDir, rssMb, startService, waitUntilIdle, withCleanup, writeResult } from './lib.ts';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 100_000);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 75);
const ENTRY = process.env.BENCH_ENTRY ?? 'src/main.ts';
const SERVICE_ENV = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round(bytes / MB);

/** Resident memory by kind of mapping, in bytes (from /proc/<pid>/smaps; the kinds are told apart by shape, so approximately). */
function residentByKind(pid: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  const add = (kind: string, kb: number) => (kinds[kind] = (kinds[kind] ?? 0) + kb * 1024);
  const lines = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
  type Mapping = { start: bigint; end: bigint; perms: string; path: string; rss: number };
  const mappings: Mapping[] = [];
  for (const line of lines) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) mappings.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3]!, path: head[4]!, rss: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && mappings.length > 0) mappings[mappings.length - 1]!.rss = Number(rss[1]);
  }
  const ARENA = 64n * BigInt(MB);
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i]!;
    if (m.rss === 0) continue;
    const size = m.end - m.start;
    const next = mappings[i + 1];
    if (m.path.endsWith('/node') || m.path.includes('/bin/node')) add('node binary', m.rss);
    else if (m.path.startsWith('/')) add('libraries and files', m.rss);
    else if (m.path === '[heap]') add('malloc: main arena (brk)', m.rss);
    else if (m.path.startsWith('[stack')) add('stacks', m.rss);
    else if (m.path !== '') add(`other ${m.path}`, m.rss);
    // glibc's thread arenas: 64 MB-aligned reservations, used from the start (the rest reserved, ---p).
    else if (m.start % ARENA === 0n && next && next.perms === '---p' && next.start === m.end && next.end - m.start === ARENA)
      add('malloc: thread arenas', m.rss);
    else if (m.start % ARENA === 0n && size === ARENA) add('malloc: thread arenas', m.rss);
    // V8 allocates its heap in 256 KB pages (large objects in multiples); the rest is malloc's large blocks, stacks of threads, WebAssembly memory.
    else if (m.start % 262_144n === 0n && size % 262_144n === 0n && size <= 16n * BigInt(MB)) add('V8 heap pages (and 256 KB-aligned blocks)', m.rss);
    else add('other anonymous (large malloc blocks, WebAssembly memory, thread stacks)', m.rss);
  }
  return kinds;
}

interface HeapReport {
  totalCommittedMemory: number;
  usedMemory: number;
  mallocedMemory: number;
  externalMemory: number;
  memoryLimit: number;
  heapSpaces: Record<string, { committedMemory: number; used: number }>;
}
interface NodeReport {
  header: { threadId: number };
  javascriptHeap: HeapReport;
  workers?: NodeReport[];
}

/** Asks the service for a diagnostic report (its heap and every worker's) and reads it. */
async function diagnosticReport(pid: number, directory: string): Promise<NodeReport> {
  for (const file of readdirSync(directory)) rmSync(join(directory, file));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const file = readdirSync(directory).find((name) => name.endsWith('.json'));
    if (!file) continue;
    try {
      return JSON.parse(readFileSync(join(directory, file), 'utf8')) as NodeReport;
    } catch {
      // still being written
    }
  }
  throw new Error('the service wrote no diagnostic report');
}

/** Asks the service for its main thread's heap snapshot (which collects garbage first) and copies it to bench/.out. */
async function heapSnapshot(pid: number, directory: string, name: string): Promise<string> {
  process.kill(pid, 'SIGWINCH');
  let last = -1;
  for (let i = 0; i < 1200; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const file = readdirSync(directory).find((entry) => entry.endsWith('.heapsnapshot'));
    if (!file) continue;
    // Written in pieces: done once its size stops changing and the service is idle again.
    const size = statSync(join(directory, file)).size;
    if (size === last && size > 0) {
      mkdirSync(outDir, { recursive: true });
      const target = join(outDir, `${name}.heapsnapshot`);
      copyFileSync(join(directory, file), target);
      return target;
    }
    last = size;
  }
  throw new Error('the service wrote no heap snapshot');
}

/** The service's thread names (workers name themselves), for the report's table. */
const threadNames = (pid: number) =>
  readdirSync(`/proc/${pid}/task`)
    .map((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())
    .sort();

interface Reading {
  rssMb: number;
  kinds: Record<string, number>;
  heaps: { thread: string; committedMb: number; usedMb: number; mallocedMb: number; externalMb: number }[];
  mainSpaces: Record<string, { committedMb: number; usedMb: number }>;
  threads: string[];
}

async function read(pid: number, directory: string): Promise<Reading> {
  const report = await diagnosticReport(pid, directory);
  const heapOf = (thread: string, heap: HeapReport) => ({
    thread,
    committedMb: mb(heap.totalCommittedMemory),
    usedMb: mb(heap.usedMemory),
    mallocedMb: mb(heap.mallocedMemory),
    externalMb: mb(heap.externalMemory),
  });
  return {
    rssMb: rssMb(pid),
    kinds: residentByKind(pid),
    heaps: [
      heapOf('main', report.javascriptHeap),
      ...(report.workers ?? [])
        .sort((a, b) => a.header.threadId - b.header.threadId)
        .map((worker) => heapOf(`worker ${worker.header.threadId}`, worker.javascriptHeap)),
    ],
    mainSpaces: Object.fromEntries(
      Object.entries(report.javascriptHeap.heapSpaces).map(([space, s]) => [space, { committedMb: mb(s.committedMemory), usedMb: mb(s.used) }]),
    ),
    threads: threadNames(pid),
  };
}

await withCleanup(async (cleanup) => {
  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const variants = [
    { name: 'this commit', cwd: null as string | null },
    ...(process.env.BENCH_BASE ? [{ name: `base (${process.env.BENCH_BASE})`, cwd: process.env.BENCH_BASE }] : []),
  ];
  process.stderr.write(`signing ${RECEIPTS} receipts ...\n`);
  const bodies = makeReceipts(RECEIPTS);
  const results: Record<string, { idle: Reading; afterSearch: Reading; afterReceipts: Reading; settled: Reading; stored: number; seconds: number }> = {};

  for (const variant of variants) {
    const reports = mkdtempSync(join(tmpdir(), 'agentry-report-'));
    cleanup.add(() => rmSync(reports, { recursive: true, force: true }));
    const snapshots = mkdtempSync(join(tmpdir(), 'agentry-heap-'));
    cleanup.add(() => rmSync(snapshots, { recursive: true, force: true }));
    const service = await startService((await benchDatabase(cleanup)).url, cleanup, {
      entry: ENTRY,
      ...(variant.cwd ? { cwd: variant.cwd, name: 'base' } : {}),
      nodeArgs: [
        '--report-on-signal',
        '--report-signal=SIGUSR2',
        `--report-directory=${reports}`,
        '--report-compact',
        '--heapsnapshot-signal=SIGWINCH',
        `--diagnostic-dir=${snapshots}`,
      ],
      env: SERVICE_ENV,
    });
    const pid = service.child.pid!;
    await waitUntilIdle(service, { windowMs: 2000 });
    const idle = await read(pid, reports);
    await (await fetch(`${service.url}/v1/discover?q=${encodeURIComponent('summarise my inbox')}`)).arrayBuffer();
    await waitUntilIdle(service, { windowMs: 2000 });
    const afterSearch = await read(pid, reports);
    process.stderr.write(`${variant.name}: sending ${RECEIPTS} receipts at 50 connections ...\n`);
    let next = 0;
    const started = performance.now();
    const result = await autocannon({
      url: service.url,
      connections: 50,
      amount: RECEIPTS,
      timeout: 60,
      requests: [
        {
          method: 'POST',
          path: '/v1/trust-receipts',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] as string }),
        },
      ],
    });
    const seconds = (performance.now() - started) / 1000;
    await waitUntilIdle(service, { maxCores: 0.05, windowMs: 2000 });
    const afterReceipts = await read(pid, reports);
    if (process.env.BENCH_HEAP_SNAPSHOT) {
      const file = await heapSnapshot(pid, snapshots, `receipt-memory-${variant.cwd ? 'base' : 'this'}`);
      process.stderr.write(`${variant.name}: heap snapshot in ${file}\n`);
      await waitUntilIdle(service, { maxCores: 0.05, windowMs: 2000 });
    }
    await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
    const settled = await read(pid, reports);
    results[variant.name] = { idle, afterSearch, afterReceipts, settled, stored: result.requests.total - result.non2xx - result.errors, seconds };
    await service.stop();
  }

  const after = machine();
  console.log(`\n## Memory after ${RECEIPTS} receipts (${ENTRY}${Object.keys(SERVICE_ENV).length ? `, ${JSON.stringify(SERVICE_ENV)}` : ''})`);
  console.log(`load average before ${before.loadavg.join(' ')}, after ${after.loadavg.join(' ')}\n`);
  const stages = ['idle', 'afterSearch', 'afterReceipts', 'settled'] as const;
  const kinds = [...new Set(Object.values(results).flatMap((r) => stages.flatMap((stage) => Object.keys(r[stage].kinds))))].sort();
  for (const [name, r] of Object.entries(results)) {
    console.log(`### ${name}: ${r.stored} receipts stored in ${r.seconds.toFixed(0)} s\n`);
    console.log(
      markdownTable(
        ['MB', 'idle', 'after a search', 'after the receipts', `${SETTLE_SECONDS} s later`],
        [
          ['RSS', ...stages.map((stage) => Math.round(r[stage].rssMb))],
          ...kinds.map((kind) => [kind, ...stages.map((stage) => mb(r[stage].kinds[kind] ?? 0))]),
          ['V8 heaps committed, all threads', ...stages.map((stage) => r[stage].heaps.reduce((sum, heap) => sum + heap.committedMb, 0))],
          ['V8 heaps used, all threads', ...stages.map((stage) => r[stage].heaps.reduce((sum, heap) => sum + heap.usedMb, 0))],
          ["V8's own malloc, all threads", ...stages.map((stage) => r[stage].heaps.reduce((sum, heap) => sum + heap.mallocedMb, 0))],
          ['external (Buffers, WebAssembly), all threads', ...stages.map((stage) => r[stage].heaps.reduce((sum, heap) => sum + heap.externalMb, 0))],
        ],
      ),
    );
    console.log(`\nV8 heap per thread after the receipts and ${SETTLE_SECONDS} s later (committed / used MB):\n`);
    console.log(
      markdownTable(
        ['thread', 'after the receipts', `${SETTLE_SECONDS} s later`],
        r.afterReceipts.heaps.map((heap) => {
          const later = r.settled.heaps.find((other) => other.thread === heap.thread);
          return [heap.thread, `${heap.committedMb} / ${heap.usedMb}`, later ? `${later.committedMb} / ${later.usedMb}` : 'stopped'];
        }),
      ),
    );
    console.log(`\nMain thread's heap by space after the receipts (committed / used MB):\n`);
    console.log(
      markdownTable(
        ['space', 'after the receipts', `${SETTLE_SECONDS} s later`],
        Object.entries(r.afterReceipts.mainSpaces).map(([space, s]) => [
          space,
          `${s.committedMb} / ${s.usedMb}`,
          `${r.settled.mainSpaces[space]?.committedMb} / ${r.settled.mainSpaces[space]?.usedMb}`,
        ]),
      ),
    );
    console.log(`\nthreads after the receipts: ${r.afterReceipts.threads.join(', ')}\n`);
  }
  writeResult('receipt-memory', {
    date: new Date().toISOString(),
    machine: before,
    loadavgAfter: after.loadavg,
    entry: ENTRY,
    env: SERVICE_ENV,
    receipts: RECEIPTS,
    results,
  });
});
