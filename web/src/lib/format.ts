const numberFormat = new Intl.NumberFormat('en-US');

export const formatNumber = (n: number) => numberFormat.format(n);

/** An amount in cents of a two-decimal currency, e.g. "$2.00" or "€1,250.50". */
export const formatMoney = (cents: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

export function formatPrice(cents: number, currency: string): string {
  if (cents === 0) return 'free';
  return `${formatMoney(cents, currency)} / task`;
}

export function formatTrust(trust: number, receipts: number): string {
  if (receipts === 0) return 'no receipts yet';
  return `${trust.toFixed(2)} · ${formatNumber(receipts)} ${receipts === 1 ? 'receipt' : 'receipts'}`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'short' });
const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

export const exactTime = (iso: string) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

/** Only http(s) addresses become links; anything else (javascript:, data:) is shown as text. */
export function safeHttpUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Where to go after logging in: a path of this app only, never another site. */
export function safeNext(raw: string | null): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  return raw;
}
