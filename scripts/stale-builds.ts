/**
 * Builds what `npm start`, the tests and the quickstart run when it is missing or older than its
 * sources, so everything works from a fresh clone (or after a pull) with no extra step: the web app
 * into dist/web (Vite), the SDK and CLI packages into their dist/ (tsc), and the server into dist/*.js
 * (tsc). An install without dev dependencies cannot build; it runs what was built before.
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

/** Whether `built` is missing or older than any of `sources` (files or folders, relative to the root). */
const isStale = (built: string, sources: string[]): boolean =>
  !existsSync(built) || sources.map((source) => join(root, source)).some((source) => existsSync(source) && newestChange(source) > statSync(built).mtimeMs);

export function buildWebIfStale(): void {
  const builtIndex = join(root, 'dist/web/index.html');
  const vite = join(root, 'node_modules/vite/bin/vite.js');
  if (!isStale(builtIndex, ['web', 'package-lock.json'])) return;
  if (!existsSync(vite)) {
    console.warn(
      existsSync(builtIndex)
        ? 'the web app may be out of date: vite is not installed to rebuild it'
        : 'the web app is not built and vite is not installed: serving the API alone',
    );
    return;
  }
  console.log('building the web app into dist/web…');
  execFileSync(process.execPath, [vite, 'build', '--config', join(root, 'web/vite.config.ts'), '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
}

/** The server, compiled: production runs dist/main.js, which starts faster and holds less memory than the TypeScript run through tsx. */
export function buildServerIfStale(): void {
  const builtMain = join(root, 'dist/main.js');
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  if (!isStale(builtMain, ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'])) return;
  if (!existsSync(tsc)) {
    if (existsSync(builtMain)) console.warn('the server may be out of date: typescript is not installed to rebuild it');
    else
      throw new Error(
        'the server is not built (dist/main.js) and typescript is not installed to build it: run npm run build where dev dependencies are installed',
      );
    return;
  }
  console.log('building the server into dist…');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}

/**
 * The SDK and CLI packages, so the `agentry` binary and `import '@agentry/sdk'` from outside the
 * repository (as the quickstart's commands run them), and the compiled server, never use code older
 * than the checkout. The CLI compiles against the SDK's dist, so a stale SDK rebuilds both.
 */
export function buildPackagesIfStale(): void {
  const stale = ['sdk', 'cli'].some((name) => {
    const dist = join(root, 'packages', name, 'dist');
    return !existsSync(dist) || newestChange(join(root, 'packages', name, 'src')) > oldestOutput(dist);
  });
  if (!stale) return;
  console.log('building packages/sdk and packages/cli into their dist/…');
  execFileSync('npm', ['run', '--silent', 'build:packages'], { stdio: 'inherit', cwd: root });
}
