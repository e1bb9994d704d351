import { foldText } from './words.ts';

/**
 * Lowercase, runs of non-alphanumerics become one hyphen, trimmed. Accents are
 * folded first so "Café Bot" becomes "cafe-bot" rather than "caf-bot".
 */
export function slugify(name: string): string {
  return foldText(name)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
}
