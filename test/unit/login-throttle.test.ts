import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createLoginThrottle, type LoginThrottle } from '../../src/modules/auth/login-throttle.ts';
import { TestClock } from '../helpers/app.ts';

const rule = { freeFailures: 2, delayBaseMs: 1000, delayMaxMs: 4000, failureWindowMs: 60_000, knownAddressMs: 86_400_000 };

/** The waits (ms) a run of attempts sees; 0 for an admitted one. */
async function attempts(throttle: LoginThrottle, clock: TestClock, email: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) {
    const admission = await throttle.admit(email, `203.0.113.${i}`);
    seen.push(admission.admitted ? 0 : admission.waitMs);
    if (!admission.admitted) clock.advance(admission.waitMs);
  }
  return seen;
}

describe('login throttle', () => {
  for (const store of ['memory', 'redis'] as const) {
    it(`lets exactly the free attempts through, then doubles the delay, caps it, and forgets a quiet budget (${store})`, async () => {
      const clock = new TestClock();
      const redis = store === 'redis' ? new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 }) : null;
      const throttle = createLoginThrottle({ rule, clock, redis, prefix: `agentry-login-test:${process.pid}:${Date.now()}:` });
      try {
        assert.deepEqual(await attempts(throttle, clock, 'a@example.test', 10), [0, 0, 1000, 0, 2000, 0, 4000, 0, 4000, 0]);
        // The email is the account, whatever its case or spacing.
        assert.deepEqual(await throttle.admit(' A@Example.TEST ', '198.51.100.1'), { admitted: false, waitMs: 4000 });
        clock.advance(4000 + 60_000);
        assert.deepEqual(await attempts(throttle, clock, 'a@example.test', 3), [0, 0, 1000], 'forgotten after the window');
      } finally {
        throttle.close();
        redis?.disconnect();
      }
    });
  }

  for (const store of ['memory', 'redis'] as const) {
    it(`runs the delay from the answer to the last free attempt, so a slow check lets no extra guess through (${store})`, async () => {
      const clock = new TestClock();
      const redis = store === 'redis' ? new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 }) : null;
      const throttle = createLoginThrottle({ rule, clock, redis, prefix: `agentry-login-test:${process.pid}:${Date.now()}:slow:` });
      try {
        const email = 'slow@example.test';
        for (let i = 1; i <= rule.freeFailures; i++) {
          const admission = await throttle.admit(email, '203.0.113.9');
          assert.ok(admission.admitted, `free attempt ${i}`);
          // Each wrong password takes 1.5 s to check: longer than the first delay.
          clock.advance(1500);
          await throttle.failed(email, '203.0.113.9', admission.budget);
        }
        assert.deepEqual(await throttle.admit(email, '203.0.113.9'), { admitted: false, waitMs: 1000 });
        clock.advance(999);
        assert.deepEqual(await throttle.admit(email, '203.0.113.9'), { admitted: false, waitMs: 1 });
        clock.advance(1);
        const next = await throttle.admit(email, '203.0.113.9');
        assert.ok(next.admitted);
        clock.advance(1500);
        await throttle.failed(email, '203.0.113.9', next.budget);
        assert.deepEqual(await throttle.admit(email, '203.0.113.9'), { admitted: false, waitMs: 2000 });
      } finally {
        throttle.close();
        redis?.disconnect();
      }
    });
  }

  it('throttles on this node while Redis is unreachable, and reports it once a minute', async () => {
    const clock = new TestClock();
    // Nothing listens on port 1; without an offline queue every command fails at once.
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    const errors: unknown[] = [];
    const throttle = createLoginThrottle({ rule, clock, redis, onRedisError: (error) => errors.push(error) });
    try {
      assert.deepEqual(await attempts(throttle, clock, 'b@example.test', 3), [0, 0, 1000]);
      assert.equal(errors.length, 1);
      // A success counted locally clears the local budget.
      const admission = await throttle.admit('b@example.test', '198.51.100.2');
      assert.ok(admission.admitted);
      await throttle.succeeded('b@example.test', '198.51.100.2', admission.budget);
      assert.deepEqual(await attempts(throttle, clock, 'b@example.test', 3), [0, 0, 1000]);
    } finally {
      throttle.close();
      redis.disconnect();
    }
  });
});
