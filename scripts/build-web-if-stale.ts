/**
 * Builds the web app into dist/web when it is missing or older than its sources, so `npm start`
 * on a fresh clone serves a working app with no extra step and a rebuilt one after a pull.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtIndex = join(root, 'dist/web/index.html');

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestChange(join(path, entry))), stat.mtimeMs);
}

const sources = [join(root, 'web'), join(root, 'package-lock.json')];
const vite = join(root, 'node_modules/vite/bin/vite.js');
const stale = !existsSync(builtIndex) || sources.some((source) => newestChange(source) > statSync(builtIndex).mtimeMs);
if (stale && !existsSync(vite)) {
  // An install without dev dependencies cannot build; it serves what was built before, or the API alone.
  console.warn(existsSync(builtIndex) ? 'the web app may be out of date: vite is not installed to rebuild it' : 'the web app is not built and vite is not installed: serving the API alone');
} else if (stale) {
  console.log('building the web app into dist/web…');
  execFileSync(process.execPath, [vite, 'build', '--config', join(root, 'web/vite.config.ts'), '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
}
