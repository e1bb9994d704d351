/**
 * Group commit: writes that arrive while the event loop is busy are flushed together, in one
 * transaction, so N concurrent requests cost one commit (one fsync on SQLite) instead of N.
 * Each caller still gets its own result, after its row is durable.
 */
export type Batcher<T, R> = (item: T) => Promise<R>;

export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, maxBatch = 200): Batcher<T, R> {
  let queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let running = false;

  const drain = async () => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await flush(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as R));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    running = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // setImmediate lets every request already parsed in this turn of the loop join the batch.
      if (!running && queue.length === 1) setImmediate(() => void drain());
    });
}
