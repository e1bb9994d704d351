import { nearestNumber } from './enum.ts';
import type { FieldProfile, Mention } from './fields.ts';
import type { InputValue } from './types.ts';
import type { Token } from './text.ts';

/** What the rules share while reading one text: tokens, mentions, and the values taken so far. */
export interface Context {
  tokens: Token[];
  fields: FieldProfile[];
  mentions: Mention[];
  /** Tokens already given to a field: no later rule reads them again. */
  used: boolean[];
  /** For each token, the fields it mentions. */
  owners: string[][];
  found: Map<string, InputValue>;
}

export function createContext(tokens: Token[], fields: FieldProfile[], mentions: Mention[]): Context {
  const owners: string[][] = tokens.map(() => []);
  for (const m of mentions) for (let i = m.start; i <= m.end; i++) owners[i]?.push(m.field);
  return { tokens, fields, mentions, used: tokens.map(() => false), owners, found: new Map() };
}

export const isOpen = (ctx: Context, field: FieldProfile): boolean => !ctx.found.has(field.name);

export const mentionsOf = (ctx: Context, field: FieldProfile): Mention[] => ctx.mentions.filter((m) => m.field === field.name);

export function take(ctx: Context, field: FieldProfile, value: InputValue, from: number, to = from): void {
  ctx.found.set(field.name, value);
  for (let i = from; i <= to; i++) ctx.used[i] = true;
}

/** A number for a number field: itself, or the nearest option when the field is an enum. */
export function takeNumber(ctx: Context, field: FieldProfile, at: number): void {
  const value = ctx.tokens[at]?.value;
  if (value === undefined) return;
  const chosen = field.options.length > 0 ? nearestNumber(field.options, value) : value;
  if (chosen !== undefined) take(ctx, field, chosen, at);
}

/** Tokens between two ranges (1 when adjacent), or undefined when they are in different sentences. */
export function gap(ctx: Context, a: { start: number; end: number }, b: { start: number; end: number }): number | undefined {
  if (ctx.tokens[a.start]?.sentence !== ctx.tokens[b.start]?.sentence) return undefined;
  return a.end < b.start ? b.start - a.end : a.start - b.end;
}

/**
 * Gives tokens to fields closest pair first: each candidate pairs an open field with an unused
 * token at a distance; ties go to the earlier token.
 */
export function pairUp(ctx: Context, pairs: { field: FieldProfile; at: number; distance: number }[], assign: (field: FieldProfile, at: number) => void): void {
  pairs.sort((x, y) => x.distance - y.distance || x.at - y.at);
  for (const { field, at } of pairs) if (isOpen(ctx, field) && !ctx.used[at]) assign(field, at);
}

/** Mentions of open fields of the given kinds near unused tokens of a kind, within `limit` tokens. */
export function nearPairs(
  ctx: Context,
  kinds: FieldProfile['kind'][],
  tokenKind: Token['kind'],
  limit: number,
  accept: (token: Token) => boolean = () => true,
) {
  const pairs: { field: FieldProfile; at: number; distance: number }[] = [];
  for (const field of ctx.fields) {
    if (!kinds.includes(field.kind) || !isOpen(ctx, field)) continue;
    for (const m of mentionsOf(ctx, field)) {
      for (let at = Math.max(0, m.start - limit); at <= m.end + limit && at < ctx.tokens.length; at++) {
        const token = ctx.tokens[at];
        if (token?.kind !== tokenKind || ctx.used[at] || !accept(token)) continue;
        const distance = gap(ctx, m, { start: at, end: at });
        if (distance !== undefined && distance <= limit) pairs.push({ field, at, distance });
      }
    }
  }
  return pairs;
}
