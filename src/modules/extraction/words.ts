/** The small English vocabulary the built-in rules read: fillers, cues, boolean values, synonyms. */

const set = (words: string) => new Set(words.split(/\s+/).filter((w) => w.length > 0));

/** Words allowed between a label and its number: "a width of about 20", "no more than 300 words". */
export const NUMBER_FILLERS = set(`
  is are be should must will would set to equal equals of as around about roughly approximately approx exactly at most least
  max maximum min minimum up under over below above no more less than a an the please just only near nearly almost some
  maybe like between
`);

/** Words allowed between a label and a boolean, URL or string value. */
export const LINK_FILLERS = set('is are be should must will set to equal equals as at of from here please the');

/** Words that after a name make it a label for the string that follows ("the topic is ..."). */
export const STRING_LINKS = set('is are be should must will set to equals called named');

export const TRUE_WORDS = set('yes y true on enabled enable include included required needed wanted please');
export const FALSE_WORDS = set('no n not false off disabled disable none excluded omitted skip');

/** Before a mention of a boolean field: "with captions", "include sources", "make it public". */
export const POSITIVE_CUES = set(`
  with include includes including add adding enable enabled show showing use using want need needs make keep plus also
  require requires allow put apply cite citing provide give list attach insert
`);
/** Before a mention of a boolean field: "without captions", "no watermark", "skip the sources". */
export const NEGATIVE_CUES = set(`
  no not without never don't dont doesn't shouldn't won't can't cannot skip skipping exclude excluding omit omitting disable
  hide remove removing drop avoid off none nor neither
`);
/** Words that undo a positive cue just before it: "don't add", "do not include". */
export const NEGATORS = set("not no never don't dont doesn't shouldn't won't can't cannot without");

/** After a mention of a boolean field: "captions are not needed". */
export const AFTER_FALSE = set('off disabled excluded omitted unnecessary removed');
export const AFTER_TRUE = set('on enabled included needed required wanted please');

/** Before an enum option, these reject it: "not formal", "casual rather than formal", "instead of long". */
export const OPTION_REJECTORS = set("not no never avoid without don't dont than instead nothing");

/**
 * Words that stand for a common enum option: "make it brief" picks `short`. Each group is one
 * meaning; an option in a group accepts the other words of the group as a weaker match than its
 * own name. Stems (plural endings removed), lowercase, no accents.
 */
const SYNONYM_GROUPS = [
  'short brief concise succinct terse compact',
  'long lengthy detailed extended comprehensive thorough depth',
  'medium moderate average normal standard regular mid',
  'formal professional businesslike official',
  'casual informal relaxed conversational',
  'friendly warm approachable',
  'funny humorous witty playful',
  'small tiny little mini',
  'large big huge giant massive',
  'fast quick rapid speedy',
  'high highest best maximum',
  'low lowest minimum',
  'positive upbeat optimistic',
  'negative pessimistic',
  'photo photograph photorealistic realistic photographic',
  'sketch drawing pencil',
  'watercolor watercolour',
  'anime manga',
  'english anglais',
  'french francais',
  'german deutsch',
  'spanish espanol',
  'italian italiano',
  'portuguese portugues',
  'summary summarize summarise overview tldr digest',
  'bullet bulleted list point',
  'paragraph prose',
  'daily everyday',
  'dark night',
  'light bright',
].map((group) => group.split(' '));

const SYNONYMS = new Map<string, Set<string>>();
for (const group of SYNONYM_GROUPS) {
  for (const word of group) {
    const existing = SYNONYMS.get(word) ?? new Set<string>();
    for (const other of group) if (other !== word) existing.add(other);
    SYNONYMS.set(word, existing);
  }
}

/** The words that may stand for the one-word option `option` (a stem). */
export function synonymsOf(option: string): Iterable<string> {
  return SYNONYMS.get(option) ?? [];
}
