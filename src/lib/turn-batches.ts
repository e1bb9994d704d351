/**
 * Collects what callers hand in during one turn of the event loop and passes it on at the end of that
 * turn (setImmediate), in chunks of at most `maxChunk`: one message to a worker thread per chunk
 * instead of one per caller. Chunks stay small so that a worker's first answers come back while it
 * works on the rest (a closed-loop client's requests all arrive in the same turn).
 */
export function createTurnBatches<T>(maxChunk: number, deliver: (chunk: T[]) => void) {
  let queue: T[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const items = queue;
    queue = [];
    for (let from = 0; from < items.length; from += maxChunk) deliver(items.slice(from, from + maxChunk));
  }

  return {
    add(item: T): void {
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    /** Passes on what is queued now, without waiting for the turn to end (shutdown). */
    flush,
  };
}
