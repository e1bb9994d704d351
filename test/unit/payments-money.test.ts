import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { MAX_AMOUNT_CENTS, platformFee } from '../../src/lib/money.ts';

describe('platform fee', () => {
  it('is floor(price × bps / 10000): the platform never takes more than its rate', () => {
    const cases: [number, number, number][] = [
      [0, 250, 0],
      [1, 250, 0],
      [39, 250, 0],
      [40, 250, 1],
      [41, 250, 1],
      [119, 250, 2],
      [120, 250, 3],
      [MAX_AMOUNT_CENTS - 1, 250, 2_499_999],
      [MAX_AMOUNT_CENTS, 250, 2_500_000],
      [MAX_AMOUNT_CENTS, 10_000, MAX_AMOUNT_CENTS],
      [MAX_AMOUNT_CENTS, 1, 10_000],
      [9_999, 1, 0],
      [12_345, 0, 0],
    ];
    for (const [price, bps, fee] of cases) assert.equal(platformFee(price, bps), fee, `${price} at ${bps} bps`);
  });

  it('is the exact rate rounded down to a whole cent, and never more than the price', () => {
    for (let price = 0; price <= 2000; price++) {
      for (const bps of [0, 1, 250, 333, 9_999, 10_000]) {
        const fee = platformFee(price, bps);
        assert.ok(Number.isInteger(fee) && fee >= 0 && fee <= price, `${price} at ${bps} bps: ${fee}`);
        // In integers, without the division: fee ≤ price × bps / 10,000 < fee + 1.
        assert.ok(fee * 10_000 <= price * bps && price * bps < (fee + 1) * 10_000, `${price} at ${bps} bps: ${fee}`);
      }
    }
  });

  it('refuses amounts that are not whole cents in range, and rates outside 0..10000', () => {
    for (const price of [-1, 1.5, MAX_AMOUNT_CENTS + 1, Number.NaN]) assert.throws(() => platformFee(price, 250), RangeError);
    for (const bps of [-1, 10_001, 2.5]) assert.throws(() => platformFee(100, bps), RangeError);
  });
});

describe('payments configuration', () => {
  it('defaults: 2.5% fee, no Stripe, no operators', () => {
    const config = loadConfig({});
    assert.equal(config.platformFeeBps, 250);
    assert.equal(config.stripe, null);
    assert.deepEqual(config.operators, { emails: [], accountIds: [] });
  });

  it('reads Stripe and the operator lists', () => {
    const config = loadConfig({
      PLATFORM_FEE_BPS: '0',
      STRIPE_SECRET_KEY: 'sk_live_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_y',
      OPERATOR_EMAILS: ' Ops@Example.com,, b@example.com ',
      OPERATOR_ACCOUNT_IDS: 'a1, b2',
    });
    assert.equal(config.platformFeeBps, 0);
    assert.deepEqual(config.stripe, { secretKey: 'sk_live_x', webhookSecret: 'whsec_y', apiBase: null });
    assert.deepEqual(config.operators, { emails: ['ops@example.com', 'b@example.com'], accountIds: ['a1', 'b2'] });
  });

  it('names bad payment settings', () => {
    assert.throws(() => loadConfig({ PLATFORM_FEE_BPS: '-1' }), /PLATFORM_FEE_BPS/);
    assert.throws(() => loadConfig({ PLATFORM_FEE_BPS: '10001' }), /PLATFORM_FEE_BPS/);
    assert.throws(() => loadConfig({ OPERATOR_EMAILS: 'not-an-email' }), /OPERATOR_EMAILS/);
    assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: 'sk' }), /STRIPE_WEBHOOK_SECRET is required/);
    assert.throws(() => loadConfig({ STRIPE_API_BASE: 'http://localhost:12111' }), /STRIPE_SECRET_KEY is required/);
  });
});
