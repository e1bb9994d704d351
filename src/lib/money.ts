/**
 * Money is integer cents (hundredths of the currency's unit) everywhere: no floats ever hold an
 * amount. Only currencies with two decimal places are accepted, so "cents" means the same thing
 * for every one of them (docs/payments.md).
 */
export const currencies = ['usd', 'eur', 'gbp', 'cad', 'aud', 'nzd', 'chf', 'sek', 'nok', 'dkk', 'pln', 'sgd', 'hkd', 'mxn', 'brl'] as const;
export type Currency = (typeof currencies)[number];
export const DEFAULT_CURRENCY: Currency = 'usd';

/** The largest price or payout: 1,000,000.00. price × 10,000 bps stays far inside exact integer range. */
export const MAX_AMOUNT_CENTS = 100_000_000;

/**
 * The platform's fee on a price: floor(price × bps / 10,000). Rounding down means the platform never
 * takes more than its rate; the fraction of a cent goes to the agent, whose credit is price − fee,
 * so charge, credit and fee always sum to zero exactly.
 */
export function platformFee(priceCents: number, feeBps: number): number {
  if (!Number.isSafeInteger(priceCents) || priceCents < 0 || priceCents > MAX_AMOUNT_CENTS)
    throw new RangeError(`price must be whole cents from 0 to ${MAX_AMOUNT_CENTS}`);
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 10_000) throw new RangeError('fee must be 0 to 10,000 basis points');
  return Math.floor((priceCents * feeBps) / 10_000);
}
