/**
 * Start-up bench: CPU seconds (user + system, the whole process) and wall time from the spawn of the
 * compiled server (dist/main.js, as npm start runs it) to its first `/health` answer, on an empty
 * database that a first start (not counted) has migrated. BENCH_BASE=<folder of another checkout,
 * built> starts that checkout's dist/main.js alternately with this one's (each on a database of its
 * own: their migrations may differ), BENCH_ROUNDS times each (default 7), so both see the same
 * machine. Each start then settles, and sends one search (which starts discovery's workers and loads
 * the sentence model): the process's resident memory idle and after that first search, as the
 * README's first run sees them. Prints the median and the range of each.
 *
 *   npm run build && BENCH_BASE=/path/to/base npx tsx bench/start.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test ... (PostgreSQL)
 */
import { benchDatabase, rssMb, startService, waitUntilIdle, withCleanup } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const summary = (values: number[]) => `${Math.round(median(values))} (${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))})`;

await withCleanup(async (cleanup) => {
  const variants = [
    { name: 'this commit', cwd: undefined as string | undefined, database: await benchDatabase(cleanup) },
    ...(process.env.BENCH_BASE ? [{ name: `base (${process.env.BENCH_BASE})`, cwd: process.env.BENCH_BASE, database: await benchDatabase(cleanup) }] : []),
  ];
  const at = (variant: (typeof variants)[number]) => ({ entry: 'dist/main.js', readyTimeoutMs: 180_000, ...(variant.cwd ? { cwd: variant.cwd } : {}) });
  // The first start migrates the empty database; it is not counted.
  for (const variant of variants) await (await startService(variant.database.url, cleanup, at(variant))).stop();
  const figures = new Map(
    variants.map((variant) => [variant.name, { cpuMs: [] as number[], wallMs: [] as number[], idleRssMb: [] as number[], searchRssMb: [] as number[] }]),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of variants) {
      const node = await startService(variant.database.url, cleanup, at(variant));
      await waitUntilIdle(node, { windowMs: 1000 });
      const idleRssMb = rssMb(node.child.pid!);
      await (await fetch(`${node.url}/v1/discover?q=${encodeURIComponent('summarise my inbox')}`)).arrayBuffer();
      const searchRssMb = rssMb(node.child.pid!);
      await node.stop();
      const seen = figures.get(variant.name)!;
      seen.cpuMs.push(node.readyCpuSeconds * 1000);
      seen.wallMs.push(node.readyMs);
      seen.idleRssMb.push(idleRssMb);
      seen.searchRssMb.push(searchRssMb);
      process.stderr.write(
        `round ${round}/${ROUNDS} ${variant.name}: CPU ${Math.round(node.readyCpuSeconds * 1000)} ms, ${Math.round(node.readyMs)} ms, RSS idle ${Math.round(idleRssMb)} MB, after a search ${Math.round(searchRssMb)} MB\n`,
      );
    }
  }
  console.log(`| variant (${variants[0]!.database.dialect}) | CPU to /health (ms) | wall to /health (ms) | idle RSS (MB) | RSS after a search (MB) |`);
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, seen] of figures)
    console.log(`| ${name} | ${summary(seen.cpuMs)} | ${summary(seen.wallMs)} | ${summary(seen.idleRssMb)} | ${summary(seen.searchRssMb)} |`);
});
