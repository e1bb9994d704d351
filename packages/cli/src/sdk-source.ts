/**
 * Where a project made by `agentry init` gets `@agentry/sdk` from. The SDK is not on the public npm
 * registry, so a plain `^0.1.0` fails to install (E404): the project depends on the SDK the way this
 * CLI's own copy was installed, found from where that copy lies and the lockfile that placed it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SdkSource {
  /** package.json's spec for @agentry/sdk. */
  spec: string;
  /** Where it was found, in words, for the line init prints. */
  from: string;
}

interface LockEntry {
  resolved?: string;
  link?: boolean;
}

/** The folder of the installed package `name` that holds `file`, its package.json's folder. */
function packageFolder(file: string, name: string): string | null {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return dir;
    } catch {
      return null;
    }
  }
  return null;
}

/** The lockfile entry npm wrote for the package installed in `folder`: the project's hidden lockfile, else its package-lock.json. */
function lockEntry(folder: string): { entry: LockEntry; root: string } | null {
  const marker = `${sep}node_modules${sep}`;
  const at = folder.indexOf(marker);
  if (at < 0) return null;
  const root = folder.slice(0, at);
  const key = relative(root, folder).split(sep).join('/');
  for (const lockfile of [join(root, 'node_modules', '.package-lock.json'), join(root, 'package-lock.json'), join(root, 'npm-shrinkwrap.json')]) {
    try {
      const entry = (JSON.parse(readFileSync(lockfile, 'utf8')) as { packages?: Record<string, LockEntry> }).packages?.[key];
      if (entry) return { entry, root };
    } catch {
      // No lockfile there, or not one npm wrote: try the next.
    }
  }
  return null;
}

/** `file:` spec of a lockfile's `resolved` when it is a local tarball or folder that is still there. */
function localSpec(resolved: string | undefined, root: string): string | null {
  if (!resolved) return null;
  const path = resolved.startsWith('file:') ? resolve(root, resolved.slice('file:'.length)) : /^[a-z]+:/i.test(resolved) ? null : resolve(root, resolved);
  return path && existsSync(path) ? `file:${path}` : null;
}

/**
 * How the SDK beside this CLI was installed, as a spec for another project: the tarball or folder it
 * came from, or the registry version when it came from a registry; null when nothing says.
 */
export function installedSdkSource(version: string): SdkSource | null {
  let sdkFile: string;
  try {
    sdkFile = fileURLToPath(import.meta.resolve('@agentry/sdk'));
  } catch {
    return null;
  }
  const sdk = packageFolder(sdkFile, '@agentry/sdk');
  if (!sdk) return null;
  // Node resolves symlinks: an SDK installed from a folder (`npm install <path>`, a workspace) is that folder itself.
  if (!sdk.includes(`${sep}node_modules${sep}`)) return { spec: `file:${sdk}`, from: 'the SDK folder this agentry was installed with' };
  const locked = lockEntry(sdk);
  if (locked) {
    const local = localSpec(locked.entry.resolved, locked.root);
    if (local) return { spec: local, from: 'the SDK tarball or folder this agentry was installed with' };
    if (locked.entry.resolved && /^https?:/.test(locked.entry.resolved)) return { spec: `^${version}`, from: 'the registry this agentry was installed from' };
  }
  // The CLI's own tarball, with the SDK's beside it (as `npm run pack:kit` writes them).
  const cli = packageFolder(fileURLToPath(import.meta.url), '@agentry/cli');
  const cliLocked = cli ? lockEntry(cli) : null;
  const cliTarball = cliLocked ? localSpec(cliLocked.entry.resolved, cliLocked.root) : null;
  if (cliTarball?.endsWith('.tgz')) {
    const beside = join(dirname(cliTarball.slice('file:'.length)), `agentry-sdk-${version}.tgz`);
    if (existsSync(beside)) return { spec: `file:${beside}`, from: "the SDK tarball beside this agentry's" };
  }
  return null;
}
