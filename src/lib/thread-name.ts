import { writeFileSync } from 'node:fs';

/**
 * Names the calling OS thread, as `top -H` and `ps -L` show it, so an operator (or a bench reading
 * /proc) can tell the service's worker threads apart: Node names every thread `node`. Linux only;
 * elsewhere, or without /proc, nothing happens. At most 15 characters are kept.
 */
export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or /proc is not mounted: the name is a convenience.
  }
}
