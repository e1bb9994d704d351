import { isOpen, mentionsOf, take, type Context } from './context.ts';
import type { FieldProfile } from './fields.ts';
import { CURRENCIES, UNITS } from './lexicon.ts';
import { identifierWords } from '../../lib/words.ts';
import type { Token } from './text.ts';

/**
 * Numbers that carry their meaning with them: amounts of money ("£300", "2,750 dollars"),
 * quantities in a unit ("2kg", "half an hour", "a fortnight", "four of us"), and the two sides of
 * a size ("1200x630"). Each goes to the field whose name or description says it holds that kind
 * of number, converted to the field's unit ("750 grams" is 0.75 for `weight_kg`, "2 weeks" 14 for
 * `due_in_days`). Runs before the plain number rules, which then only see what is left.
 */
export function readQuantities(ctx: Context): void {
  readMoney(ctx);
  readSizes(ctx);
  const quantities = findQuantities(ctx);
  const byDimension = new Map<string, FieldProfile[]>();
  for (const field of ctx.fields) {
    if (field.kind !== 'number' || field.unit === null || !isOpen(ctx, field)) continue;
    byDimension.set(field.unit.dimension, [...(byDimension.get(field.unit.dimension) ?? []), field]);
  }
  for (const [dimension, fields] of byDimension) {
    // Two fields counting in one dimension (width and height) are told apart by their names, not here.
    const field = fields.length === 1 ? fields[0] : undefined;
    if (field === undefined || field.unit === null) continue;
    const mentions = mentionsOf(ctx, field);
    const fitting = quantities.filter((q) => q.dimension === dimension && !ctx.used.slice(q.start, q.end + 1).some(Boolean));
    const distance = (q: Quantity) => Math.min(Infinity, ...mentions.map((m) => (m.start > q.end ? m.start - q.end : q.start - m.end)));
    const best = fitting.sort((a, b) => distance(a) - distance(b) || a.start - b.start)[0];
    if (best === undefined) continue;
    const value = Math.round((best.base / field.unit.scale) * 1000) / 1000;
    if (Number.isFinite(value) && value > 0) take(ctx, field, value, best.start, best.end);
  }
}

interface Quantity {
  start: number;
  end: number;
  /** The amount in the dimension's base unit (minutes, kilograms, pixels, characters, people). */
  base: number;
  dimension: string;
}

// Words that count as one of something: "a week", "an hour", "one night".
const ONE = new Set(['a', 'an', 'one', 'per']);
const GROUPS = new Set(['family', 'party', 'group', 'team']);

function findQuantities(ctx: Context): Quantity[] {
  const t = ctx.tokens;
  const found: Quantity[] = [];
  const unitAt = (k: number) => (t[k]?.kind === 'word' && !ctx.used[k] ? UNITS[t[k]?.norm ?? ''] : undefined);
  const andAHalf = (k: number) => t[k]?.norm === 'and' && t[k + 1]?.norm === 'a' && t[k + 2]?.norm === 'half';
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (ctx.used[i]) continue;
    if (token.kind === 'number' && token.value !== undefined && !token.measure) {
      let value = token.value;
      let k = i + 1;
      if (andAHalf(k)) {
        value += 0.5;
        k += 3;
      }
      const glued = token.unit !== '' ? UNITS[token.unit] : undefined;
      const unit = glued ?? unitAt(k);
      if (unit !== undefined) {
        let end = glued !== undefined ? k - 1 : k;
        if (andAHalf(end + 1)) {
          value += 0.5;
          end += 3;
        }
        found.push({ start: i, end, base: value * unit.scale, dimension: unit.dimension });
        continue;
      }
      // Payment terms: "net 30" is 30 days.
      if (t[i - 1]?.norm === 'net' && Number.isInteger(value)) {
        found.push({ start: i - 1, end: i, base: value * 1440, dimension: 'time' });
        continue;
      }
      // "four of us", "a family of five", "serves 4", "for six": people, when nothing else is counted.
      if (['serves', 'serve', 'feeds', 'feed', 'serving'].includes(t[i - 1]?.norm ?? '')) found.push({ start: i, end: i, base: value, dimension: 'people' });
      else if (t[i + 1]?.norm === 'of' && t[i + 2]?.norm === 'us') found.push({ start: i, end: i + 2, base: value, dimension: 'people' });
      else if (t[i - 1]?.norm === 'of' && GROUPS.has(t[i - 2]?.norm ?? '')) found.push({ start: i, end: i, base: value, dimension: 'people' });
      else if (
        t[i - 1]?.norm === 'for' &&
        Number.isInteger(value) &&
        value < 100 &&
        (t[i + 1] === undefined ||
          t[i + 1]?.kind === 'punct' ||
          ['in', 'people', 'of', 'and', 'please', 'with', 'to', 'at', 'from', 'on'].includes(t[i + 1]?.norm ?? ''))
      ) {
        found.push({ start: i, end: i, base: value, dimension: 'people' });
      }
      continue;
    }
    if (token.kind !== 'word') continue;
    // "half an hour", "an hour and a half", "a fortnight", "a week".
    if (token.norm === 'half' && ONE.has(t[i + 1]?.norm ?? '') && unitAt(i + 2) !== undefined) {
      const unit = unitAt(i + 2);
      if (unit !== undefined) found.push({ start: i, end: i + 2, base: 0.5 * unit.scale, dimension: unit.dimension });
      i += 2;
    } else if (ONE.has(token.norm) && unitAt(i + 1) !== undefined && token.norm !== 'per') {
      const unit = unitAt(i + 1);
      if (unit === undefined) continue;
      const half = andAHalf(i + 2);
      found.push({ start: i, end: half ? i + 4 : i + 1, base: (half ? 1.5 : 1) * unit.scale, dimension: unit.dimension });
      i += half ? 4 : 1;
    } else if (token.norm === 'couple' && t[i - 1]?.norm === 'a' && (t[i + 1] === undefined || t[i + 1]?.kind === 'punct')) {
      found.push({ start: i, end: i, base: 2, dimension: 'people' });
    } else if (token.norm === 'me' && ['just', 'only'].includes(t[i - 1]?.norm ?? '')) {
      found.push({ start: i - 1, end: i, base: 1, dimension: 'people' });
    }
  }
  return found;
}

/**
 * An amount of money ("$45.50", "€1,250", "300 quid", "2,750 dollars") goes to the field of
 * money (amount, price, total, value...), the nearest to its mention when there are several; a
 * currency field with the amount's currency among its options takes that currency.
 */
function readMoney(ctx: Context): void {
  const t = ctx.tokens;
  const amounts: { at: number; end: number; currency: string | undefined }[] = [];
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (token.kind !== 'number' || ctx.used[i]) continue;
    const bySymbol = Object.entries(CURRENCIES).find(([, c]) => c.symbols.includes(token.unit))?.[0];
    const next = t[i + 1];
    const two = `${next?.norm ?? ''} ${t[i + 2]?.norm ?? ''}`;
    const pair = next?.kind === 'word' ? Object.entries(CURRENCIES).find(([, c]) => c.words.includes(two))?.[0] : undefined;
    const byWord = pair ?? (next?.kind === 'word' ? Object.entries(CURRENCIES).find(([, c]) => c.words.includes(next.norm))?.[0] : undefined);
    const before = t[i - 1];
    const byCode = before?.kind === 'word' && before.end <= token.start ? Object.entries(CURRENCIES).find(([code]) => code === before.norm)?.[0] : undefined;
    const currency = bySymbol ?? byWord ?? byCode;
    if (currency !== undefined) amounts.push({ at: i, end: pair !== undefined ? i + 2 : byWord !== undefined ? i + 1 : i, currency });
  }
  if (amounts.length === 0) return;
  const moneyFields = ctx.fields.filter((f) => f.kind === 'number' && f.role === 'money' && isOpen(ctx, f));
  const currencyField = ctx.fields.find(
    (f) =>
      f.kind === 'enum' &&
      isOpen(ctx, f) &&
      f.options.length > 0 &&
      f.options.every((o) => typeof o.value === 'string' && CURRENCIES[o.value.toLowerCase()] !== undefined),
  );
  for (const field of moneyFields) {
    const mentions = mentionsOf(ctx, field);
    const distance = (at: number) => Math.min(Infinity, ...mentions.map((m) => Math.abs(m.start - at)));
    const free = amounts.filter((a) => !ctx.used[a.at]);
    const best = moneyFields.length === 1 ? free[0] : free.sort((a, b) => distance(a.at) - distance(b.at))[0];
    if (best === undefined) continue;
    take(ctx, field, t[best.at]?.value ?? 0, best.at);
    for (let k = best.at + 1; k <= best.end; k++) ctx.used[k] = true;
    const option = currencyField?.options.find((o) => String(o.value).toLowerCase() === best.currency);
    if (currencyField !== undefined && isOpen(ctx, currencyField) && option !== undefined) take(ctx, currencyField, option.value, best.end);
  }
}

/** "1200x630" gives the width and the height: the fields whose names say so. */
function readSizes(ctx: Context): void {
  const sideOf = (field: FieldProfile) => {
    const words = identifierWords(field.name);
    return words.includes('width') || words.includes('w') ? 'x1' : words.includes('height') || words.includes('h') ? 'x2' : undefined;
  };
  for (const field of ctx.fields) {
    if (field.kind !== 'number' || !isOpen(ctx, field)) continue;
    const side = sideOf(field);
    const at = side === undefined ? -1 : ctx.tokens.findIndex((token, i) => token.kind === 'number' && token.unit === side && !ctx.used[i]);
    if (at >= 0) take(ctx, field, ctx.tokens[at]?.value ?? 0, at);
  }
}
