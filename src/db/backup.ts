/**
 * Online backups while the service runs: of a SQLite database through SQLite's backup API (never a
 * file copy, which can catch the database between a write and its WAL checkpoint), with the key files
 * a restore needs besides the database; of a PostgreSQL database through pg_dump. Either way the
 * backup is readable by its owner only (0600): it holds webhook secrets and sealed credentials.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';

/** Key files the service keeps beside its database (made on first start when no key is configured). */
export const KEY_FILES_BESIDE_DATABASE = ['secrets.key'] as const;

export interface BackupResult {
  file: string;
  pages: number;
  /** The key files copied beside the backup (`<file>.<name>`), 0600. */
  keyFiles: string[];
}

/**
 * Copies `source` into `target` (written as `<target>.partial` and renamed once checked, so a
 * half-written backup never looks complete), then the key files beside `source` as `<target>.<name>`.
 * The copy is one step: in WAL mode it reads one consistent snapshot without blocking the service's
 * writers, where a copy in small steps would restart after every write another connection makes.
 */
export async function backupSqlite(source: string, target: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new Error(`no SQLite database at ${source}`);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const partial = `${target}.partial`;
  // A run cut short may have left these: an old -wal beside the new copy would be replayed into it.
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(leftover, { force: true });
  const database = new SQLite(source, { readonly: true, fileMustExist: true });
  let pages = 0;
  try {
    database.pragma('busy_timeout = 10000');
    const done = await database.backup(partial, { progress: ({ totalPages }) => (pages = Math.max(totalPages, 1)) });
    pages = done.totalPages;
  } finally {
    database.close();
  }
  chmodSync(partial, 0o600);
  const check = new SQLite(partial);
  try {
    // The copy keeps the source's WAL mode, whose -wal and -shm files a reader leaves beside it: as a
    // rollback-journal database it is one file (the service turns WAL back on when it opens it).
    check.pragma('journal_mode = DELETE');
    const [row] = check.pragma('quick_check') as { quick_check: string }[];
    if (row?.quick_check !== 'ok') throw new Error(`the backup failed its integrity check: ${row?.quick_check}`);
  } finally {
    check.close();
  }
  renameSync(partial, target);
  const keyFiles: string[] = [];
  for (const name of KEY_FILES_BESIDE_DATABASE) {
    const keyFile = join(dirname(source), name);
    if (!existsSync(keyFile)) continue;
    const copy = `${target}.${name}`;
    copyFileSync(keyFile, copy);
    chmodSync(copy, 0o600);
    keyFiles.push(copy);
  }
  return { file: target, pages, keyFiles };
}

/**
 * `pg_dump --format=custom` of `databaseUrl` (only `schema`, when given) into `target`, written as
 * `<target>.partial` (created 0600, whatever the umask) and renamed once pg_dump succeeded.
 */
export async function backupPostgres(databaseUrl: string, target: string, options: { schema?: string } = {}): Promise<{ file: string }> {
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  const fd = openSync(partial, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    const args = ['--format=custom', '--no-owner', ...(options.schema ? [`--schema=${options.schema}`] : []), databaseUrl];
    const child = spawn('pg_dump', args, { stdio: ['ignore', fd, 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk) => (errors += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    }).catch((error: Error) => {
      throw new Error(`pg_dump could not run: ${error.message}; is the PostgreSQL client (pg_dump) installed?`);
    });
    if (code !== 0) throw new Error(`pg_dump failed (exit code ${code}): ${errors.trim()}; is pg_dump of the server's major version or newer?`);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
  renameSync(partial, target);
  return { file: target };
}

/** A scheduled backup's file name: sortable by time, so the oldest are the first to go. */
export const scheduledBackupName = (at: Date) =>
  `agentry-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.db`;

/** Deletes scheduled backups (and their key files) in `dir` beyond the newest `keep`. */
export function pruneScheduledBackups(dir: string, keep: number): string[] {
  const backups = readdirSync(dir)
    .filter((name) => /^agentry-\d{8}T\d{6}Z\.db$/.test(name))
    .sort();
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of removed) {
    rmSync(join(dir, name), { force: true });
    for (const key of KEY_FILES_BESIDE_DATABASE) rmSync(join(dir, `${name}.${key}`), { force: true });
  }
  return removed.map((name) => join(dir, basename(name)));
}
