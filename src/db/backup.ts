/**
 * Online backups of a SQLite database while the service runs on it, through SQLite's backup API
 * (never a file copy, which can catch the database between a write and its WAL checkpoint), with the
 * key files a restore needs besides the database.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
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
  rmSync(partial, { force: true });
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
  const check = new SQLite(partial, { readonly: true });
  try {
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
