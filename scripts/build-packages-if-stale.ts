/**
 * Builds the SDK and CLI packages into their dist/ when missing or older than their sources, so the
 * `agentry` binary and `import '@agentry/sdk'` from outside the repository (as the quickstart's
 * commands run them) never use code older than the checkout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestChange(join(path, entry))), stat.mtimeMs);
}

function oldestOutput(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((oldest, entry) => Math.min(oldest, oldestOutput(join(path, entry))), Infinity);
}

// The CLI compiles against the SDK's dist, so a stale SDK rebuilds both.
const stale = ['sdk', 'cli'].some((name) => {
  const dist = join(root, 'packages', name, 'dist');
  return !existsSync(dist) || newestChange(join(root, 'packages', name, 'src')) > oldestOutput(dist);
});
if (stale) {
  console.log('building packages/sdk and packages/cli into their dist/…');
  execFileSync('npm', ['run', '--silent', 'build:packages'], { stdio: 'inherit', cwd: root });
}
