import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * For workers whose work lives in long-lived buffers (a model's WebAssembly heap, vector blocks)
 * rather than short-lived objects: a 4 MB young generation instead of V8's default keeps each such
 * worker about 8 MB smaller, with no measurable cost per search or per encoded text.
 */
export const SMALL_YOUNG_GENERATION = { maxYoungGenerationSizeMb: 4 } as const;

/**
 * Starts a worker thread on the module `name` next to the caller (`callerUrl`: its
 * import.meta.url). Built JavaScript loads directly. Run from TypeScript source (npm start, tests),
 * the worker needs tsx's loader, and on Node 20 `execArgv: ['--import', 'tsx']` does not reach a
 * worker's entry module, so a one-line script registers tsx first. tsc rewrites import specifiers
 * to .js but not URLs, hence the extension follows the caller's.
 */
export function startModuleWorker(name: string, callerUrl: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const fromSource = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, callerUrl);
  if (!fromSource) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`, {
    ...options,
    eval: true,
  });
}

/**
 * How long a worker that a burst of work started (receipt verification, inserts, the receipt log's
 * passes) may sit idle before it stops. A stopped worker gives back its heap, its modules and its
 * database connection's page cache: after a flood of receipts the three of them held their peak for
 * good. The next piece of work starts it again, which costs tens of milliseconds once.
 */
export const IDLE_WORKER_STOP_MS = 60_000;

/**
 * A timer that calls `stop` once nothing has called `busy` for `idleMs`: `idle` (re)starts the wait,
 * `busy` cancels it. Unreferenced: it never keeps the process alive.
 */
export function idleTimer(idleMs: number, stop: () => void) {
  let timer: NodeJS.Timeout | undefined;
  return {
    idle(): void {
      clearTimeout(timer);
      timer = setTimeout(stop, idleMs);
      timer.unref();
    },
    busy(): void {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
