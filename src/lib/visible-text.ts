import { badRequest } from './errors.ts';

/**
 * What a name people read may contain. A name shows every character it holds: no bidirectional
 * controls (they reorder what is displayed, so "txt.exe" can read as "exe.txt"), no characters that
 * draw nothing (a zero-width space makes a second "Inbox Summarizer" that looks like the first), no
 * control characters or line breaks. The invisible set is Unicode's Default_Ignorable_Code_Point
 * plus the blank Braille pattern, with three kinds of exception that real text needs:
 *
 *  - ZWJ (U+200D) between two emoji, as in 👩‍💻 or 🏳️‍🌈 (the emoji before it may carry a skin-tone
 *    modifier or U+FE0F);
 *  - ZWJ and ZWNJ (U+200C) inside a word of a script that joins letters by context or forms
 *    conjuncts (Arabic, Syriac, N'Ko, Mongolian and the Brahmic scripts of South and Southeast
 *    Asia): the nearest letter before it (past any combining marks, such as a virama) and the
 *    character after it are letters of one of those scripts, the same one, as in Persian می‌خواهم
 *    or Hindi क्‍ष;
 *  - a variation selector (U+FE00-FE0F, U+E0100-E01EF, Mongolian FVS) right after the letter,
 *    digit, symbol or punctuation mark it selects a form of, as in ❤️; never on its own, at the
 *    start, after a space or after another selector.
 *
 * Anything else in those sets is refused wherever it stands, including tag characters (so the
 * subdivision flags built from them are refused too).
 */

const bidiControl = /\p{Bidi_Control}/u;
const controlOrSeparator = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/u;
const ignorable = /\p{Default_Ignorable_Code_Point}/u;
const variationSelector = /\p{Variation_Selector}/u;
const selectable = /[\p{L}\p{N}\p{S}\p{P}]/u;
const mark = /\p{M}/u;
const letterOrMark = /[\p{L}\p{M}]/u;
const pictographic = /\p{Extended_Pictographic}/u;
const emojiModifier = /\p{Emoji_Modifier}/u;
const BRAILLE_BLANK = 0x2800;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const EMOJI_PRESENTATION = 0xfe0f;

const joiningScripts = [
  'Arabic',
  'Syriac',
  'Nko',
  'Mongolian',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Balinese',
  'Javanese',
].map((script) => new RegExp(`\\p{Script=${script}}`, 'u'));

export interface HiddenCharacter {
  /** Index in code points. */
  position: number;
  codePoint: number;
  kind: 'bidirectional control' | 'control character' | 'invisible character' | 'joiner out of place' | 'variation selector out of place';
}

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

function scriptJoinerFits(chars: string[], at: number): boolean {
  let before = at - 1;
  while (before >= 0 && mark.test(chars[before]!)) before--;
  const base = before >= 0 ? chars[before]! : '';
  const next = chars[at + 1] ?? '';
  if (!/\p{L}/u.test(base) || !letterOrMark.test(next)) return false;
  return joiningScripts.some((script) => script.test(base) && script.test(next));
}

function emojiJoinerFits(chars: string[], at: number): boolean {
  let before = at - 1;
  while (before >= 0 && (chars[before]!.codePointAt(0) === EMOJI_PRESENTATION || emojiModifier.test(chars[before]!))) before--;
  return before >= 0 && pictographic.test(chars[before]!) && pictographic.test(chars[at + 1] ?? '');
}

/** The first character a name may not hold (see above), or null when every character shows. */
export function findHiddenCharacter(text: string): HiddenCharacter | null {
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    const codePoint = char.codePointAt(0)!;
    if (codePoint < 0x80 && codePoint >= 0x20 && codePoint !== 0x7f) continue;
    const found = (kind: HiddenCharacter['kind']): HiddenCharacter => ({ position: i, codePoint, kind });
    if (bidiControl.test(char)) return found('bidirectional control');
    if (controlOrSeparator.test(char)) return found('control character');
    if (codePoint === ZWJ) {
      if (!emojiJoinerFits(chars, i) && !scriptJoinerFits(chars, i)) return found('joiner out of place');
    } else if (codePoint === ZWNJ) {
      if (!scriptJoinerFits(chars, i)) return found('joiner out of place');
    } else if (variationSelector.test(char)) {
      if (i === 0 || !selectable.test(chars[i - 1]!)) return found('variation selector out of place');
    } else if (ignorable.test(char) || codePoint === BRAILLE_BLANK) {
      return found('invisible character');
    }
  }
  return null;
}

/** Refuses a name holding a character it would not show, with a 400 naming `path` (e.g. /body/name). */
export function assertVisibleText(text: string, path: string): void {
  const hidden = findHiddenCharacter(text);
  if (!hidden) return;
  const field = path.slice(path.lastIndexOf('/') + 1);
  const message = `contains ${hex(hidden.codePoint)}, a ${hidden.kind}, at character ${hidden.position + 1}`;
  throw badRequest(`${field} ${message}: names may not hold invisible or direction-changing characters`, [{ path, message }]);
}
