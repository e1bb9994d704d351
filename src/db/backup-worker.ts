/** Runs one scheduled backup off the service's event loop (backup-schedule.ts): the copy is one synchronous step. */
import { parentPort, workerData } from 'node:worker_threads';
import { backupSqlite } from './backup.ts';

const { source, target } = workerData as { source: string; target: string };
backupSqlite(source, target).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (error: unknown) => parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
);
