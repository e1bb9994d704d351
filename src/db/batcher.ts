/**
 * Group commit: writes that arrive while the event loop is busy are flushed together, in one
 * transaction, so N concurrent requests cost one commit (one fsync on SQLite) instead of N.
 * Each caller still gets its own result, after its row is durable.
 */
import type { Tx } from './database.ts';

export type Batcher<T, R> = (item: T) => Promise<R>;

/**
 * `lanes` flushes may run at once, each taking what has queued when it starts: 1 where the database
 * has one connection (SQLite), more where a pool can commit several transactions side by side
 * (PostgreSQL), so a flush waiting on its round trips does not hold up the next group.
 */
export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, maxBatch = 200, lanes = 1): Batcher<T, R> {
  let queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let running = 0;
  let starting = false;

  const startLane = () => {
    if (starting || running >= lanes) return;
    starting = true;
    // setImmediate lets every request already parsed in this turn of the loop join the batch.
    setImmediate(() => void drain());
  };

  const drain = async () => {
    starting = false;
    running++;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      // What this batch left behind goes to another lane at once rather than after this flush.
      if (queue.length > 0) startLane();
      try {
        const results = await flush(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as R));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    running--;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      startLane();
    });
}

/** Runs `work` in a transaction of its own, a group's or alone: it must not assume either. */
export type GroupCommit = <R>(work: (tx: Tx) => Promise<R>) => Promise<R>;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for units of work of any kind: each unit is a function of the transaction, and the
 * units that arrive together run one after another in one transaction. A unit that throws (a unique
 * key already taken) must not fail the others, so when the group's transaction fails every unit of
 * it runs again alone, in its own transaction, and only a unit that fails alone gets its error.
 */
export function createGroupCommit(transaction: <R>(work: (tx: Tx) => Promise<R>) => Promise<R>, { maxBatch = 200, lanes = 1 } = {}): GroupCommit {
  const alone = (work: (tx: Tx) => Promise<unknown>): Promise<Outcome> =>
    transaction(work).then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  const batcher = createBatcher<(tx: Tx) => Promise<unknown>, Outcome>(
    async (units) => {
      if (units.length === 1) return [await alone(units[0]!)];
      try {
        return await transaction(async (tx) => {
          const outcomes: Outcome[] = [];
          for (const work of units) outcomes.push({ ok: true, value: await work(tx) });
          return outcomes;
        });
      } catch {
        const outcomes: Outcome[] = [];
        for (const work of units) outcomes.push(await alone(work));
        return outcomes;
      }
    },
    maxBatch,
    lanes,
  );
  return async <R>(work: (tx: Tx) => Promise<R>): Promise<R> => {
    const outcome = await batcher(work);
    if (!outcome.ok) throw outcome.error;
    return outcome.value as R;
  };
}
