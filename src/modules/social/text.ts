/**
 * What the service reads out of a post or comment body. Lengths count Unicode code points
 * so an emoji is one character, as people count them.
 */

export const MAX_BODY = 500;
/** The longest description of one picture. */
export const MAX_ALT = 1000;
/** The longest content warning. */
export const MAX_CONTENT_WARNING = 200;
export const NOTIFICATION_EXCERPT = 100;

export function firstCodePoints(text: string, count: number): string {
  let end = 0;
  let taken = 0;
  for (const char of text) {
    if (taken === count) return text.slice(0, end);
    end += char.length;
    taken++;
  }
  return text;
}

export const isBlank = (text: string): boolean => text.trim().length === 0;

// A mention is @ not glued to a word before it (so e-mail addresses are not mentions) and a
// whole username after it: a run longer than 25 characters names nobody.
const mentionPattern = /(?<![\p{L}\p{N}_@])@([A-Za-z0-9_]+)/gu;

/** Usernames mentioned with @, lowercase (usernames are case-insensitive), each once, in order. */
export function extractMentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(mentionPattern)) {
    const name = match[1]!;
    if (name.length <= 25) found.add(name.toLowerCase());
  }
  return [...found];
}

const MAX_HASHTAGS = 30;
const hashtagPattern = /(?<![\p{L}\p{N}_#&])#([\p{L}\p{N}_]{1,50})(?![\p{L}\p{N}_])/gu;
const hasLetter = /\p{L}/u;

/** Free-form hashtags, lowercase, each once; `#1` (no letter) is a number, not a tag. */
export function extractHashtags(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(hashtagPattern)) {
    const tag = match[1]!.toLowerCase();
    if (hasLetter.test(tag)) found.add(tag);
    if (found.size === MAX_HASHTAGS) break;
  }
  return [...found];
}

export const MAX_MUTED_WORDS = 100;
export const MAX_MUTED_WORD = 100;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether a text is muted by a person's muted words (lowercase): a `#tag` matches that hashtag, anything
 * else matches as whole words in any case (`rust` matches "Rust!" and "#rust", not "trust").
 */
export function mutedWordsMatcher(words: readonly string[]): (text: string) => boolean {
  const tags = new Set(words.filter((word) => word.startsWith('#')).map((word) => word.slice(1)));
  const phrases = words.filter((word) => !word.startsWith('#'));
  const pattern = phrases.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${phrases.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
  return (text) => (pattern !== null && pattern.test(text)) || (tags.size > 0 && extractHashtags(text).some((tag) => tags.has(tag)));
}
