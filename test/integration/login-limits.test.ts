import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';

const PASSWORD = 'correct horse battery';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Five free failures, then 1 s doubling up to 8 s, so a test sees the cap within a few attempts. */
const rule = { LOGIN_FAILURES_PER_ACCOUNT: '5', LOGIN_DELAY_BASE_MS: '1000', LOGIN_DELAY_MAX_MS: '8000', LOGIN_FAILURE_WINDOW_MS: '900000' };

let addresses = 0;
/** A documentation-range address no other attempt in this file has used. */
const freshAddress = () => {
  addresses++;
  return `198.18.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

const login = (app: TestApp, email: string, password: string, remoteAddress = freshAddress()) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/auth/login',
    remoteAddress,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password }),
  });

const uniqueEmail = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.test`;

/**
 * Wrong passwords, each from a new address, waiting out each 429 on the test clock as a patient
 * attacker would. Returns the Retry-After of every 429 and how many guesses were checked.
 */
async function guessFromRotatingAddresses(app: TestApp, clock: TestClock, email: string, attempts = 60) {
  const waits: number[] = [];
  let checked = 0;
  for (let i = 0; i < attempts; i++) {
    const response = await login(app, email, `wrong guess ${i}`);
    if (response.statusCode === 401) {
      checked++;
      continue;
    }
    expectError(response, 429, 'RATE_LIMITED');
    const wait = Number(response.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait > 0, `Retry-After ${response.headers['retry-after']}`);
    waits.push(wait);
    clock.advance(wait * 1000);
  }
  return { waits, checked };
}

for (const store of ['memory', 'redis'] as const) {
  describe(`failed logins per account (${store})`, () => {
    // Sign-ups come from the test's one address. With Redis its credential-route count is shared with
    // every other test process using the same Redis at that moment, so the per-address budget (tested
    // below, on addresses of its own) is set out of these tests' way.
    const start = (clock: TestClock, env: Record<string, string> = {}) =>
      startTestApp({ ...rule, CREDENTIAL_RATE_LIMIT_MAX: '1000', ...(store === 'redis' ? { REDIS_URL: redisUrl } : {}), ...env }, { clock });

    it('slows guesses from rotating addresses with a growing Retry-After, and the owner logs in after the delay', async () => {
      const clock = new TestClock();
      const app = await start(clock);
      try {
        const owner = await app.signup(uniqueEmail('owner'));
        const other = await app.signup(uniqueEmail('other'));
        // 5 free, then a 429 and a checked guess in turn: 59 requests end on a checked guess, inside its delay.
        const { waits, checked } = await guessFromRotatingAddresses(app, clock, owner.email, 59);

        assert.deepEqual(waits.slice(0, 4), [1, 2, 4, 8], `waits double from 1 s: ${waits.join(',')}`);
        assert.ok(
          waits.every((wait) => wait <= 8),
          `capped at 8 s: ${waits.join(',')}`,
        );
        // 5 free, then one checked guess per delay: 59 requests check only about half.
        assert.equal(checked, 59 - waits.length);
        assert.ok(checked <= 33, `${checked} guesses checked`);

        // Right now the account is in a delay: even the right password is refused, unchecked.
        const refused = await login(app, owner.email, PASSWORD);
        expectError(refused, 429, 'RATE_LIMITED');
        assert.equal(refused.headers['retry-after'], '8');
        // Another account is not slowed by it.
        assert.equal((await login(app, other.email, PASSWORD)).statusCode, 200);

        clock.advance(8000);
        const back = await login(app, owner.email, PASSWORD);
        assert.equal(back.statusCode, 200, back.body);
        assert.ok(back.json().data.token);

        // The success cleared the budget: the owner's next typos are free again.
        for (let i = 0; i < 5; i++) expectError(await login(app, owner.email, 'a typo here'), 401, 'UNAUTHORIZED');
      } finally {
        await app.close();
      }
    });

    it('lets exactly LOGIN_FAILURES_PER_ACCOUNT attempts through at once, then refuses the next until the first delay has passed', async () => {
      const clock = new TestClock();
      const app = await start(clock);
      try {
        const owner = await app.signup(uniqueEmail('exact'));
        const statuses: number[] = [];
        for (let i = 0; i < 7; i++) statuses.push((await login(app, owner.email, `wrong guess ${i}`)).statusCode);
        assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
        clock.advance(999);
        expectError(await login(app, owner.email, PASSWORD), 429, 'RATE_LIMITED');
        clock.advance(1);
        assert.equal((await login(app, owner.email, PASSWORD)).statusCode, 200);
      } finally {
        await app.close();
      }
    });

    it('does not lengthen the delay for attempts refused during it', async () => {
      const clock = new TestClock();
      const app = await start(clock);
      try {
        const owner = await app.signup(uniqueEmail('hammered'));
        for (let i = 0; i < 5; i++) expectError(await login(app, owner.email, 'wrong password'), 401, 'UNAUTHORIZED');
        for (let i = 0; i < 30; i++) {
          const response = await login(app, owner.email, 'wrong password');
          expectError(response, 429, 'RATE_LIMITED');
          assert.equal(response.headers['retry-after'], '1');
        }
        clock.advance(1000);
        assert.equal((await login(app, owner.email, PASSWORD)).statusCode, 200);
      } finally {
        await app.close();
      }
    });

    it('gives an address the owner logged in from a budget of its own', async () => {
      const clock = new TestClock();
      const app = await start(clock);
      try {
        const owner = await app.signup(uniqueEmail('known'));
        const home = freshAddress();
        assert.equal((await login(app, owner.email, PASSWORD, home)).statusCode, 200);
        await guessFromRotatingAddresses(app, clock, owner.email, 15);
        expectError(await login(app, owner.email, PASSWORD), 429, 'RATE_LIMITED');
        // From home the owner is not behind the attacker's delay.
        assert.equal((await login(app, owner.email, PASSWORD, home)).statusCode, 200);
      } finally {
        await app.close();
      }
    });

    it('throttles an email without an account exactly like one with', async () => {
      const clock = new TestClock();
      const app = await start(clock);
      try {
        const { waits, checked } = await guessFromRotatingAddresses(app, clock, uniqueEmail('nobody'), 16);
        assert.deepEqual(waits.slice(0, 4), [1, 2, 4, 8]);
        assert.equal(checked, 16 - waits.length);
      } finally {
        await app.close();
      }
    });
  });
}

describe('credential routes per address', () => {
  it('still limits one address trying many accounts (CREDENTIAL_RATE_LIMIT_MAX)', async () => {
    const app = await startTestApp({ CREDENTIAL_RATE_LIMIT_MAX: '4' });
    try {
      const address = freshAddress();
      for (let i = 0; i < 4; i++) expectError(await login(app, uniqueEmail(`spray${i}`), 'wrong password', address), 401, 'UNAUTHORIZED');
      const limited = await login(app, uniqueEmail('spray'), 'wrong password', address);
      expectError(limited, 429, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Another address is not affected.
      expectError(await login(app, uniqueEmail('elsewhere'), 'wrong password'), 401, 'UNAUTHORIZED');
    } finally {
      await app.close();
    }
  });
});
