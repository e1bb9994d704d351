/**
 * The compiled SDK and CLI, as an installed package runs them: built first when missing or older
 * than their sources, so a test never exercises stale output; and packed into tarballs by the
 * documented `npm run pack:kit`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../', import.meta.url));
let checked = false;

/** The path of the `agentry` binary, with its dist/ up to date. */
export function builtAgentryBin(): string {
  if (!checked) {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-if-stale.ts', 'packages'], { cwd: root, stdio: 'inherit' });
    checked = true;
  }
  return `${root}packages/cli/bin/agentry.js`;
}

/**
 * Runs `npm run pack:kit` (the documented command) with the tarballs sent to a fresh folder outside
 * the repository; the build it starts with does nothing here, as builtAgentryBin built already.
 */
export async function packKit(): Promise<{ folder: string; sdk: string; cli: string }> {
  builtAgentryBin();
  const folder = mkdtempSync(join(tmpdir(), 'agentry-kit-'));
  await promisify(execFile)('npm', ['run', 'pack:kit', '--', '--pack-destination', folder], { cwd: root });
  return { folder, sdk: join(folder, 'agentry-sdk-0.1.0.tgz'), cli: join(folder, 'agentry-cli-0.1.0.tgz') };
}

/**
 * The environment of a shell in a fresh folder outside the repository: plain Node and system tools on
 * the PATH (nothing from the repository's node_modules), its own HOME and CLI settings, and npm
 * installing from its cache where it can (the registry is asked only for what the cache lacks).
 */
export function freshShellEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${join(process.execPath, '..')}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}
