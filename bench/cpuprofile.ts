/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package/area, and
 * inclusive ("total") time of the functions matching a pattern.
 *
 *   BENCH_CPU_PROF=1 npx tsx bench/foundation.ts      # the service writes bench/.out/prof/CPU.*.cpuprofile
 *   npx tsx bench/cpuprofile.ts bench/.out/prof/CPU.*.cpuprofile [--top 30] [--match 'authenticate|findByAccount'] [--busy] [--between 12,20]
 *
 * --busy: percentages of the thread's busy time (idle samples left out), so start-up and the wait
 * after a run do not dilute the run. --between a,b: only samples taken a..b seconds after the
 * profile began (the timeline printed with --busy shows where the run was).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args.splice(i, 2)[1]! : fallback;
};
const top = Number(option('--top', '30'));
const match = option('--match', '');
const between = option('--between', '')
  .split(',')
  .filter(Boolean)
  .map((t) => Number(t) * 1e6);
const flag = (name: string) => args.includes(name) && args.splice(args.indexOf(name), 1).length === 1;
const busyOnly = flag('--busy');
if (args.length === 0) {
  console.error('usage: npx tsx bench/cpuprofile.ts <file.cpuprofile>... [--top N] [--match regex]');
  process.exit(2);
}
// A process with worker threads (tsx's loader has one) writes one profile per thread: keep the busiest.
const [file, profile] = args
  .map((f) => [f, JSON.parse(readFileSync(f, 'utf8')) as Profile] as const)
  .sort((a, b) => b[1].samples.length - a[1].samples.length)[0]!;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
/** Busy microseconds per second of the profile: where the load ran. */
const timeline: number[] = [];
let elapsed = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsed += delta;
  const second = Math.floor(elapsed / 1e6);
  if (!idle.has(id)) timeline[second] = (timeline[second] ?? 0) + delta;
  if (between.length === 2 && (elapsed < between[0]! || elapsed > between[1]!)) return;
  if (busyOnly && idle.has(id)) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
if (busyOnly) console.log(`busy ms per second: ${Array.from(timeline, (us = 0, s) => `${s}:${Math.round(us / 1000)}`).join(' ')}\n`);
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Which part of the stack a frame belongs to: a package, the project's own code, or V8/Node. */
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/(src|bench)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}
/** Function name and where it is: a path inside its package or the repository (lines are of the code as run). */
function label(f: CallFrame): string {
  const where = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/') || area(f);
  return `${f.functionName || '(anonymous)'} ${where}${f.url ? `:${f.lineNumber + 1}` : ''}`;
}
const pct = (us: number) => `${((us / totalUs) * 100).toFixed(1)}%`;

const sum = (key: (n: ProfileNode) => string) => {
  const acc = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const k = key(byId.get(id)!);
    acc.set(k, (acc.get(k) ?? 0) + us);
  }
  return [...acc].sort((a, b) => b[1] - a[1]);
};

console.log(`${file}: ${(totalUs / 1e6).toFixed(2)} s sampled\n`);
console.log('self time by area');
for (const [k, us] of sum((n) => area(n.callFrame)).slice(0, top)) console.log(`  ${pct(us).padStart(6)}  ${k}`);
console.log('\nself time by function');
for (const [k, us] of sum((n) => label(n.callFrame)).slice(0, top)) console.log(`  ${pct(us).padStart(6)}  ${k}`);

if (match) {
  // Inclusive time: a sample counts once for each matching function on its stack (recursion counted once).
  const re = new RegExp(match);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const frame = byId.get(n)!.callFrame;
      const k = label(frame);
      if (!seen.has(k) && re.test(k)) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + us);
      }
    }
  }
  console.log(`\ntotal (inclusive) time of functions matching /${match}/`);
  for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us).padStart(6)}  ${k}`);
}
