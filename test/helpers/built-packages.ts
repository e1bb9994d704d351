/**
 * The compiled SDK and CLI, as `npx agentry` and an installed package run them: built first when
 * missing or older than their sources, so a test never exercises stale output.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
