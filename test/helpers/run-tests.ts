/**
 * `npm test`: node's test runner, with the files that need no browser run in a few shared processes.
 *
 * Every test file node runs is a process of its own, and each such process spends about 2.5 s of CPU
 * importing the service and its dependencies through tsx before its first test: for 120 files that
 * was a third of the whole suite's CPU. Files that drive no browser do not need a process each: they
 * start their apps on databases of their own and leave no state behind, so they run one after another
 * inside a few group processes, each file as a suite named by its path (its own `before`/`after`
 * hooks stay its own). Browser files keep a process each: they are long, and a Chromium that goes
 * wrong should take down one file, not a group.
 *
 * Usage: `node --import tsx test/helpers/run-tests.ts [node test flags] <files or directories>`.
 * TEST_GROUPS (default 4) sets how many group processes share the files without a browser; 0 runs every
 * file in a process of its own, as `node --test` does.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
const groupCount = Number(process.env.TEST_GROUPS ?? 4);
const flags: string[] = [];
const files: string[] = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('-')) flags.push(arg);
  else files.push(...testFiles(resolve(arg)));
}
if (files.length === 0) {
  console.error('run-tests: no test files given');
  process.exit(2);
}

function testFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => join(path, name));
}

/** Browser test files: each needs its own Chromium and runs in a process of its own. */
const ownProcess = (file: string) => groupCount === 0 || relative(root, file).startsWith('test/e2e/');

const alone = files.filter(ownProcess);
const shared = files.filter((file) => !ownProcess(file));
const groupsDir = mkdtempSync(join(tmpdir(), 'agentry-test-groups-'));
/** Where group processes write each file's seconds, one JSON line per file, for the reporter. */
const fileSeconds = join(groupsDir, 'file-seconds.jsonl');
const groupFiles = balancedGroups(shared, groupCount).map((members, index) => {
  const path = join(groupsDir, `group-${index + 1}.test.mts`);
  const source = `import { runFiles } from ${JSON.stringify(pathToFileURL(join(root, 'test/helpers/file-group.ts')).href)};
await runFiles(${JSON.stringify(root)}, ${JSON.stringify(members)}, ${JSON.stringify(fileSeconds)});
`;
  writeFileSync(path, source);
  return path;
});

/**
 * Splits the files into `count` groups of about the same size, the largest files first (longest
 * processing time first, with a file's bytes as its weight): larger test files hold more tests.
 */
function balancedGroups(list: string[], count: number): string[][] {
  if (list.length === 0 || count === 0) return [];
  const groups = Array.from({ length: Math.min(count, list.length) }, () => ({ weight: 0, members: [] as string[] }));
  const bySize = list.map((file) => ({ file, size: statSync(file).size })).sort((a, b) => b.size - a.size);
  for (const { file, size } of bySize) {
    const lightest = groups.reduce((min, group) => (group.weight < min.weight ? group : min));
    lightest.members.push(file);
    lightest.weight += size;
  }
  // Within a group, files run in name order, as they would one process each.
  return groups.map((group) => group.members.sort());
}

// The groups start first: each is longer than any browser file, and the browser files fill the gaps.
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/helpers/fail-fast-assert.ts',
    '--test',
    '--test-reporter=./test/helpers/reporter.mjs',
    '--test-reporter-destination=stdout',
    ...flags,
    ...groupFiles,
    ...alone,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, AGENTRY_TEST_GROUPS_DIR: groupsDir, AGENTRY_TEST_FILE_SECONDS: fileSeconds } },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  rmSync(groupsDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
