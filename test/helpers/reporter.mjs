/**
 * The suite's reporter: node's own TAP (spec on a terminal) as usual, then the slowest test files with
 * their seconds and the suite's total, so a slow addition shows in the next run's log. Plain
 * JavaScript because node loads reporters before any --import hook applies to them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { Readable } from 'node:stream';
import { spec, tap } from 'node:test/reporters';

const SHOWN = 15;

export default async function* reporter(source) {
  const started = Date.now();
  /**
   * Each test file's own time: for a file run in a process of its own, the event node sends when the
   * process has ended; for a file run in a group process (test/helpers/run-tests.ts), what the group
   * wrote for it.
   */
  const fileSeconds = new Map();
  const failures = [];
  const groupsDir = process.env.AGENTRY_TEST_GROUPS_DIR;
  const inGroup = (file) => groupsDir !== undefined && file.startsWith(groupsDir);
  async function* recording() {
    for await (const event of source) {
      const { file, name, details } = event.data ?? {};
      if (event.type === 'test:complete' && file && name === file && !inGroup(file) && details?.duration_ms !== undefined)
        fileSeconds.set(file, details.duration_ms / 1000);
      if (event.type === 'test:fail') {
        const failure = ownFailure(event.data);
        if (failure) failures.push(failure);
      }
      yield event;
    }
    const secondsFile = process.env.AGENTRY_TEST_FILE_SECONDS;
    if (secondsFile === undefined) return;
    const times = readFileSync(secondsFile, { encoding: 'utf8', flag: 'a+' });
    for (const line of times.split('\n').filter(Boolean)) {
      const { file, seconds } = JSON.parse(line);
      fileSeconds.set(join(process.cwd(), file), seconds);
    }
  }
  if (process.stdout.isTTY) yield* Readable.from(recording()).pipe(new spec());
  else yield* tap(recording());
  if (failures.length > 0) yield failureDigest(failures);
  yield slowestFiles(fileSeconds, (Date.now() - started) / 1000);
}

/**
 * A failure that is its own, with its cause: not a test cancelled because its suite failed, nor a
 * suite failed because a test in it did. A long log gets cut; this short list at its end says what broke.
 */
function ownFailure({ name, file, details }) {
  const error = details?.error;
  if (!error || error.failureType === 'cancelledByParent' || error.failureType === 'subtestsFailed') return null;
  const cause = error.cause ?? error;
  const message = cause instanceof Error ? `${cause.stack ?? cause.message}` : String(cause?.stack ?? cause?.message ?? cause);
  return { name, file, kind: error.failureType, message };
}

function failureDigest(failures) {
  const cwd = `${process.cwd()}/`;
  const lines = failures.flatMap(({ name, file, kind, message }) => [
    `#   ${name} (${(file ?? '').replace(cwd, '')}; ${kind})`,
    ...message
      .split('\n')
      .slice(0, 8)
      .map((line) => `#     ${line.replaceAll(cwd, '')}`),
  ]);
  return [`# failures: ${failures.length}, each with its cause`, ...lines, ''].join('\n');
}

function slowestFiles(fileSeconds, totalSeconds) {
  const cwd = `${process.cwd()}/`;
  const rows = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  const width = Math.max(0, ...rows.map(([file]) => file.replace(cwd, '').length));
  const lines = rows.map(([file, seconds]) => `#   ${file.replace(cwd, '').padEnd(width)}  ${seconds.toFixed(1).padStart(6)} s`);
  const fileTotal = [...fileSeconds.values()].reduce((sum, seconds) => sum + seconds, 0);
  return [
    `# slowest ${rows.length} of ${fileSeconds.size} test files (seconds each file ran, side by side with others):`,
    ...lines,
    `# total: ${totalSeconds.toFixed(0)} s for the suite; ${fileTotal.toFixed(0)} s of test files added up`,
    '',
  ].join('\n');
}
