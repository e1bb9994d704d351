import { createHash } from 'node:crypto';
import { foldText } from './words.ts';

const MAX_LENGTH = 80;

/**
 * Lowercase, runs of non-alphanumerics become one hyphen, trimmed. Accents are folded first so
 * "Café Bot" becomes "cafe-bot" rather than "caf-bot". Slugs are ASCII (they go into URLs and MCP
 * server names), so letters and digits of other scripts are dropped: a name that loses some gets a
 * short hash of itself appended ("日本語 翻訳エージェント" -> "agent-<hash>"), so it neither ends
 * up without a slug nor takes the slug of the name written without them. Empty only for a name
 * with no letters or digits in any script.
 */
export function slugify(name: string): string {
  const folded = foldText(name);
  const ascii = trimmed(folded.replace(/[^a-z0-9]+/g, '-'), MAX_LENGTH);
  if (!/[^a-z0-9]/.test(folded.replace(/[^\p{L}\p{N}]+/gu, ''))) return ascii;
  const hash = createHash('sha256').update(name.normalize('NFC')).digest('hex').slice(0, 10);
  return `${trimmed(ascii, MAX_LENGTH - hash.length - 1) || 'agent'}-${hash}`;
}

const trimmed = (slug: string, length: number): string =>
  slug
    .replace(/^-+|-+$/g, '')
    .slice(0, length)
    .replace(/-+$/, '');
