/**
 * BACKUP_DIR (SQLite): the service backs its database up itself every BACKUP_INTERVAL_HOURS, into
 * timestamped files in that folder (with the key files beside each), keeping the newest BACKUP_KEEP.
 * Each backup runs on a worker thread, so requests keep being answered while it copies.
 */
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { startModuleWorker } from '../lib/module-worker.ts';
import { pruneScheduledBackups, scheduledBackupName, type BackupResult } from './backup.ts';

export interface BackupSchedule {
  /** Takes a backup now (also what the timer does); resolves with where it went. */
  runOnce(): Promise<BackupResult>;
  start(): void;
  stop(): Promise<void>;
}

export function createBackupSchedule(options: {
  sqliteFile: string;
  dir: string;
  intervalHours: number;
  keep: number;
  log: FastifyBaseLogger;
}): BackupSchedule {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<BackupResult> | null = null;

  function backUp(): Promise<BackupResult> {
    const target = join(options.dir, scheduledBackupName(new Date()));
    const worker = startModuleWorker('backup-worker', import.meta.url, { workerData: { source: options.sqliteFile, target } });
    return new Promise<BackupResult>((resolve, reject) => {
      worker.once('message', (message: { ok: true; result: BackupResult } | { ok: false; message: string }) =>
        message.ok ? resolve(message.result) : reject(new Error(message.message)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the backup worker stopped (exit code ${code})`)));
    }).finally(() => void worker.terminate());
  }

  function runOnce(): Promise<BackupResult> {
    running ??= backUp()
      .then((result) => {
        const removed = pruneScheduledBackups(options.dir, options.keep);
        options.log.info({ file: result.file, keyFiles: result.keyFiles, removed }, 'backup: the database was backed up');
        return result;
      })
      .catch((error: unknown) => {
        options.log.error({ err: error }, 'backup: the scheduled backup failed; the next one is tried at the next interval');
        throw error;
      })
      .finally(() => (running = null));
    return running;
  }

  return {
    runOnce,
    start() {
      timer = setInterval(() => void runOnce().catch(() => {}), options.intervalHours * 3_600_000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
