/**
 * The one way tests wait: until something they can observe holds, never for a fixed time. A check
 * that something did NOT happen does not wait at all; it first makes the worker concerned finish a
 * pass that had the chance to do it (`settled()` on the delivery and transfer workers, a marker
 * signal behind the one that must not arrive), then asserts.
 */

export interface WaitOptions {
  /** How long the condition may take before the test fails; generous, as the machine may be loaded. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Reads `read()` until `done` holds for its value (by default: the value is truthy) and returns that
 * value; fails with `what` and the last value read after `timeoutMs`. A read that throws fails the wait.
 */
export async function waitFor<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean = Boolean,
  { timeoutMs = 10_000, intervalMs = 10 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last read ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves once every callback already queued (process.nextTick, promise reactions, I/O events
 * already delivered) has run: one turn of the event loop, not a guess at how long something takes.
 */
export const afterQueuedCallbacks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
