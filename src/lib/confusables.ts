import { createRequire } from 'node:module';

/**
 * Unicode's confusable mappings (UTS #39 confusables.txt, as shipped by the `unhomoglyph`
 * package): each character that can be mistaken for another maps to the prototype it looks like,
 * e.g. Cyrillic "а" to "a", "0" to "O", "m" to "rn".
 */
const prototypes = new Map<string, string>(Object.entries(createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>));

const ignorable = /\p{Default_Ignorable_Code_Point}/gu;
const separators = /[^\p{L}\p{N}\p{M}]+/gu;

/** The UTS #39 skeleton: NFD, without default-ignorable characters, each character mapped to its prototype, NFD again. */
export function skeleton(text: string): string {
  let mapped = '';
  for (const char of text.normalize('NFD').replace(ignorable, '')) mapped += prototypes.get(char) ?? char;
  return mapped.normalize('NFD');
}

const lookalikeForm = (text: string) =>
  skeleton(skeleton(text.normalize('NFKC')).toLowerCase())
    .replace(separators, ' ')
    .trim();

/**
 * The two keys by which names are compared; two names look alike when either key is the same.
 *  - `asWritten`: the skeleton of the name as written. Uppercase I and lowercase l share a
 *    prototype, so this key is taken before any lowercasing, which would turn I into i.
 *  - `lowercase`: the skeleton of the name lowercased, so names that differ in case (as slugs
 *    ignore it) agree even where the uppercase letter has another prototype.
 * Each is made after NFKC (fullwidth and other compatibility forms read as what they stand for),
 * then lowercased after mapping ("0", "O" and "o" agree), with every run of spaces, punctuation
 * and symbols read as one space, as slugs read them. Neither is meant to be shown.
 */
export function lookalikeKeys(name: string): { asWritten: string; lowercase: string } {
  return { asWritten: lookalikeForm(name), lowercase: lookalikeForm(name.normalize('NFKC').toLowerCase()) };
}
