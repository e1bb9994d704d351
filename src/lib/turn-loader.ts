import { createTurnBatches } from './turn-batches.ts';

/**
 * Looks values up by key, collecting the keys asked for during one turn of the event loop into one
 * `load` of at most `maxKeys` distinct keys: concurrent requests that each need a row or two share
 * a query instead of sending one each. A key `load` does not answer resolves to undefined.
 */
export function createTurnLoader<K, V>(maxKeys: number, load: (keys: K[]) => Promise<ReadonlyMap<K, V>>) {
  interface Waiting {
    key: K;
    resolve(value: V | undefined): void;
    reject(error: unknown): void;
  }
  const batches = createTurnBatches<Waiting>(maxKeys, (chunk) => {
    load([...new Set(chunk.map((waiting) => waiting.key))]).then(
      (found) => chunk.forEach((waiting) => waiting.resolve(found.get(waiting.key))),
      (error: unknown) => chunk.forEach((waiting) => waiting.reject(error)),
    );
  });
  return {
    load: (key: K): Promise<V | undefined> => new Promise((resolve, reject) => batches.add({ key, resolve, reject })),
  };
}
