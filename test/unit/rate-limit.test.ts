import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createMemoryCounterStore, createRedisCounterStore } from '../../src/http/rate-limit.ts';
import { waitFor } from '../helpers/wait.ts';

describe('rate limit counters', () => {
  it('counts hits per key in memory and starts a new window when the old one ends', () => {
    let now = 1_000_000;
    const store = createMemoryCounterStore(() => now);
    try {
      assert.deepEqual(store.hit('a', 60_000), { count: 1, resetAt: 1_060_000 });
      assert.equal((store.hit('a', 60_000) as { count: number }).count, 2);
      assert.equal((store.hit('b', 60_000) as { count: number }).count, 1);
      now = 1_060_000;
      assert.deepEqual(store.hit('a', 60_000), { count: 1, resetAt: 1_120_000 });
    } finally {
      store.close();
    }
  });

  it('shares counts through Redis and lets the key expire with its window', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    const prefix = `agentry-rl-test:${process.pid}:${Date.now()}:`;
    const store = createRedisCounterStore(redis, { prefix });
    try {
      const first = await store.hit('client', 300);
      assert.equal(first.count, 1);
      assert.ok(first.resetAt > Date.now() && first.resetAt <= Date.now() + 300);
      assert.equal((await store.hit('client', 300)).count, 2);
      await waitFor(
        'Redis to expire the window',
        () => redis.exists(`${prefix}client`),
        (exists) => exists === 0,
      );
      assert.equal((await store.hit('client', 300)).count, 1);
    } finally {
      redis.disconnect();
    }
  });

  it('counts on this node while Redis is unreachable, and reports it once a minute, not per hit', async () => {
    // Nothing listens on port 1; without an offline queue every command fails at once.
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    const errors: unknown[] = [];
    const store = createRedisCounterStore(redis, { onError: (error) => errors.push(error) });
    try {
      for (let i = 1; i <= 5; i++) assert.equal((await store.hit('client', 60_000)).count, i);
      assert.equal(errors.length, 1);
    } finally {
      store.close();
      redis.disconnect();
    }
  });
});
