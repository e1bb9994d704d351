/**
 * What the built-in rules know about the world: places, days and months, languages, currencies,
 * colours, units, and the ways people say common enum options and boolean settings. Lowercase,
 * no accents; multi-word entries are space-separated.
 */

const list = (words: string) =>
  words
    .split(/\s*\n\s*|\s*,\s*/)
    .map((w) => w.trim())
    .filter((w) => w.length > 0);

/** Countries and large or much-visited cities, for places written in lower case ("ship it to spain"). */
export const PLACES = new Set(
  list(`
  afghanistan, albania, algeria, andorra, angola, argentina, armenia, australia, austria, azerbaijan, bahamas, bahrain,
  bangladesh, barbados, belarus, belgium, belize, benin, bhutan, bolivia, bosnia, botswana, brazil, brunei, bulgaria,
  cambodia, cameroon, canada, chile, china, colombia, costa rica, croatia, cuba, cyprus, czechia, czech republic, denmark,
  dominican republic, ecuador, egypt, el salvador, england, estonia, ethiopia, fiji, finland, france, georgia, germany,
  ghana, greece, greenland, guatemala, haiti, honduras, hong kong, hungary, iceland, india, indonesia, iran, iraq, ireland,
  israel, italy, jamaica, japan, jordan, kazakhstan, kenya, korea, south korea, kosovo, kuwait, laos, latvia, lebanon,
  lithuania, luxembourg, madagascar, malaysia, maldives, mali, malta, mauritius, mexico, moldova, monaco, mongolia,
  montenegro, morocco, mozambique, myanmar, namibia, nepal, netherlands, holland, new zealand, nicaragua, niger, nigeria,
  north macedonia, norway, oman, pakistan, panama, paraguay, peru, philippines, poland, portugal, qatar, romania, russia,
  rwanda, saudi arabia, scotland, senegal, serbia, singapore, slovakia, slovenia, somalia, south africa, spain, sri lanka,
  sudan, sweden, switzerland, syria, taiwan, tanzania, thailand, tunisia, turkey, uganda, ukraine, united arab emirates,
  uae, united kingdom, uk, united states, usa, america, uruguay, uzbekistan, venezuela, vietnam, wales, yemen, zambia,
  zimbabwe,
  amsterdam, athens, atlanta, auckland, austin, bangkok, barcelona, beijing, berlin, bogota, boston, brisbane, brussels,
  budapest, buenos aires, cairo, calgary, cape town, chicago, copenhagen, dallas, delhi, denver, dubai, dublin, edinburgh,
  florence, frankfurt, geneva, glasgow, hamburg, helsinki, honolulu, houston, istanbul, jakarta, johannesburg, kyoto,
  lagos, las vegas, lima, lisbon, london, los angeles, lyon, madrid, manchester, manila, marrakech, melbourne, miami,
  milan, montreal, moscow, mumbai, munich, nairobi, naples, new york, osaka, oslo, ottawa, paris, perth, philadelphia,
  phoenix, porto, prague, reykjavik, rio de janeiro, rome, san diego, san francisco, santiago, sao paulo, seattle, seoul,
  seville, shanghai, singapore, stockholm, sydney, taipei, tallinn, tel aviv, tokyo, toronto, valencia, vancouver, venice,
  vienna, warsaw, washington, wellington, zurich
`),
);

export const WEEKDAYS = new Set(list('monday, tuesday, wednesday, thursday, friday, saturday, sunday, mon, tue, tues, wed, thu, thur, thurs, fri, sat, sun'));
export const MONTHS = new Set(
  list(
    'january, february, march, april, may, june, july, august, september, october, november, december, jan, feb, mar, apr, jun, jul, aug, sep, sept, oct, nov, dec',
  ),
);
/** Days named relative to today. */
export const RELATIVE_DAYS = new Set(list('today, tomorrow, tonight, tmrw, tmr, yesterday, weekend'));

/** Language names by ISO 639-1 code, for enums of codes ("Spanish" is `es`). */
export const LANGUAGES: Record<string, string[]> = {
  en: ['english', 'anglais'],
  es: ['spanish', 'espanol', 'castilian'],
  fr: ['french', 'francais'],
  de: ['german', 'deutsch'],
  it: ['italian', 'italiano'],
  pt: ['portuguese', 'portugues', 'brazilian'],
  nl: ['dutch', 'flemish', 'nederlands'],
  ja: ['japanese'],
  zh: ['chinese', 'mandarin', 'cantonese'],
  ko: ['korean'],
  ru: ['russian'],
  ar: ['arabic'],
  hi: ['hindi'],
  pl: ['polish'],
  sv: ['swedish'],
  tr: ['turkish'],
};
export const LANGUAGE_NAMES = new Set(Object.values(LANGUAGES).flat());

/** Currency codes and how amounts in them are written: symbols before the number, words after it. */
export const CURRENCIES: Record<string, { symbols: string[]; words: string[] }> = {
  usd: { symbols: ['$', 'us$'], words: ['dollar', 'dollars', 'buck', 'bucks', 'usd'] },
  eur: { symbols: ['€'], words: ['euro', 'euros', 'eur'] },
  gbp: { symbols: ['£'], words: ['pound', 'pounds', 'quid', 'sterling', 'gbp'] },
  jpy: { symbols: ['¥'], words: ['yen', 'jpy'] },
  cad: { symbols: ['c$', 'ca$'], words: ['cad', 'canadian dollars', 'canadian dollar', 'loonies'] },
  aud: { symbols: ['a$', 'au$'], words: ['aud', 'australian dollars', 'australian dollar', 'aussie dollars'] },
  chf: { symbols: [], words: ['franc', 'francs', 'chf'] },
  inr: { symbols: ['₹'], words: ['rupee', 'rupees', 'inr'] },
};

export const COLORS = new Set(
  list(
    'white, black, grey, gray, red, green, blue, yellow, orange, purple, pink, brown, beige, navy, teal, cyan, magenta, silver, gold, cream, ivory, maroon, turquoise, lavender, transparent',
  ),
);
/** Cuisines and the adjectives of nations that name one. */
export const CUISINES = new Set(
  list(`thai, indian, italian, mexican, chinese, japanese, french, greek, spanish, korean, vietnamese, turkish, lebanese,
  moroccan, american, british, german, ethiopian, caribbean, mediterranean, persian, indonesian, malaysian, peruvian,
  brazilian, cajun, creole, tex-mex, middle eastern, nordic, scandinavian, portuguese, filipino, sichuan, cantonese`),
);

export const COLOR_SHADES = new Set(list('light, dark, pale, bright, deep, soft, off'));

/** Units a number may be written with, by the dimension they measure and their size in its base unit. */
export const UNITS: Record<string, { dimension: 'time' | 'mass' | 'pixels' | 'characters' | 'words' | 'people'; scale: number }> = {
  minute: { dimension: 'time', scale: 1 },
  minutes: { dimension: 'time', scale: 1 },
  min: { dimension: 'time', scale: 1 },
  mins: { dimension: 'time', scale: 1 },
  hour: { dimension: 'time', scale: 60 },
  hours: { dimension: 'time', scale: 60 },
  hr: { dimension: 'time', scale: 60 },
  hrs: { dimension: 'time', scale: 60 },
  h: { dimension: 'time', scale: 60 },
  day: { dimension: 'time', scale: 1440 },
  days: { dimension: 'time', scale: 1440 },
  night: { dimension: 'time', scale: 1440 },
  nights: { dimension: 'time', scale: 1440 },
  nites: { dimension: 'time', scale: 1440 },
  week: { dimension: 'time', scale: 10080 },
  weeks: { dimension: 'time', scale: 10080 },
  fortnight: { dimension: 'time', scale: 20160 },
  fortnights: { dimension: 'time', scale: 20160 },
  kg: { dimension: 'mass', scale: 1 },
  kgs: { dimension: 'mass', scale: 1 },
  kilo: { dimension: 'mass', scale: 1 },
  kilos: { dimension: 'mass', scale: 1 },
  kilogram: { dimension: 'mass', scale: 1 },
  kilograms: { dimension: 'mass', scale: 1 },
  g: { dimension: 'mass', scale: 0.001 },
  lb: { dimension: 'mass', scale: 0.4536 },
  lbs: { dimension: 'mass', scale: 0.4536 },
  oz: { dimension: 'mass', scale: 0.02835 },
  ounces: { dimension: 'mass', scale: 0.02835 },
  gram: { dimension: 'mass', scale: 0.001 },
  grams: { dimension: 'mass', scale: 0.001 },
  px: { dimension: 'pixels', scale: 1 },
  pixel: { dimension: 'pixels', scale: 1 },
  pixels: { dimension: 'pixels', scale: 1 },
  character: { dimension: 'characters', scale: 1 },
  characters: { dimension: 'characters', scale: 1 },
  chars: { dimension: 'characters', scale: 1 },
  word: { dimension: 'words', scale: 1 },
  words: { dimension: 'words', scale: 1 },
  people: { dimension: 'people', scale: 1 },
  persons: { dimension: 'people', scale: 1 },
  person: { dimension: 'people', scale: 1 },
  guests: { dimension: 'people', scale: 1 },
  adults: { dimension: 'people', scale: 1 },
  kids: { dimension: 'people', scale: 1 },
  children: { dimension: 'people', scale: 1 },
  servings: { dimension: 'people', scale: 1 },
  portions: { dimension: 'people', scale: 1 },
  pax: { dimension: 'people', scale: 1 },
};

/**
 * Phrases that stand for a common enum option, by the option's words: "cheap" picks `low` of a
 * budget, "every week" picks `weekly`. Checked after the option's own words and before near
 * spellings.
 */
export const OPTION_PHRASES: Record<string, string[]> = {
  low: ['cheap', 'cheapest', 'budget', 'inexpensive', 'affordable', 'economy', 'low cost', 'hostel', 'nothing fancy', 'no frills', 'shoestring'],
  high: ['luxury', 'luxurious', 'high end', 'upscale', 'premium', 'money no object', 'money is no object', 'fancy', 'splurge', 'five star', '5 star'],
  medium: ['mid range', 'midrange', 'moderate', 'mid priced', 'reasonable', 'average', 'normal', 'standard', 'mid length', 'middle'],
  imperial: ['fahrenheit', 'mph', 'miles', 'us units'],
  metric: ['celsius', 'centigrade', 'kmh', 'km h'],
  jpg: ['jpeg'],
  jpeg: ['jpg'],
  javascript: ['js', 'node', 'node.js', 'nodejs', 'ecmascript'],
  typescript: ['ts'],
  python: ['py', 'python3', 'django', 'flask'],
  go: ['golang'],
  rust: ['rustlang'],
  performance: [
    'slow',
    'speed',
    'fast',
    'faster',
    'perf',
    'memory leak',
    'memory leaks',
    'latency',
    'efficiency',
    'optimisation',
    'optimization',
    'bottleneck',
    'bottlenecks',
  ],
  security: ['vulnerability', 'vulnerabilities', 'secure', 'injection', 'xss', 'exploit', 'exploits', 'auth', 'secrets'],
  style: ['readability', 'readable', 'formatting', 'naming', 'lint', 'linting', 'code style', 'conventions', 'tidy'],
  all: ['everything', 'full review', 'thorough'],
  short: ['tl', 'gist', 'brief', 'briefly', 'quick', 'concise', 'tldr', 'tl dr', 'sentence or two', 'one sentence', 'couple of sentences', 'few sentences'],
  long: ['detailed', 'in depth', 'thorough', 'comprehensive', 'extensive', 'lengthy'],
  bullets: ['bullet points', 'bullet point', 'bulleted', 'bullet', 'list', 'points'],
  paragraph: ['prose', 'running text', 'paragraphs'],
  vegan: ['plant based', 'plant-based', 'no animal products'],
  vegetarian: ['veggie', 'meatless', 'no meat', 'meat free', 'without meat'],
  gluten_free: ['coeliac', 'celiac', 'no gluten', 'without gluten'],
  dairy_free: ['lactose', 'lactose intolerant', 'no dairy', 'without dairy', 'dairy free'],
  keto: ['ketogenic', 'low carb'],
  twitter: ['tweet', 'tweets', 'x', 'x.com'],
  linkedin: ['linked in'],
  instagram: ['insta', 'ig', 'gram'],
  facebook: ['fb'],
  mastodon: ['toot', 'fediverse'],
  professional: ['formal', 'businesslike', 'corporate'],
  casual: ['informal', 'relaxed', 'chill', 'laid back', 'conversational'],
  funny: ['fun', 'humorous', 'witty', 'joke', 'jokey', 'playful', 'lighthearted', 'hilarious'],
  excited: ['pumped', 'hyped', 'thrilled', 'enthusiastic', 'exciting', 'stoked', 'excitement'],
  serious: ['sombre', 'somber', 'solemn', 'grave'],
  daily: ['every day', 'each day', 'everyday', 'every morning', 'standup'],
  weekly: [
    'every week',
    'each week',
    'once a week',
    'every monday',
    'every tuesday',
    'every wednesday',
    'every thursday',
    'every friday',
    'every saturday',
    'every sunday',
    'mondays',
    'tuesdays',
    'wednesdays',
    'thursdays',
    'fridays',
  ],
  monthly: ['every month', 'each month', 'once a month'],
  none: ['one off', 'one-off', 'one time', 'just once', 'does not repeat', 'no repeat'],
};

/**
 * Words that mention a boolean field by what it is about (`pets` by "dog"), and words that
 * mean the opposite of it (`strict` by "lenient"), keyed by a word of the field's name.
 */
const RECURRING = {
  same: ['every month', 'monthly', 'each month', 'per month', 'repeat', 'repeating', 'recurring', 'recurrent', 'subscription'],
  opposite: ['one off', 'one time', 'one-time', 'one-off', 'once'],
};

export const BOOLEAN_WORDS: Record<string, { same: string[]; opposite: string[] }> = {
  pet: { same: ['dog', 'dogs', 'cat', 'cats', 'puppy', 'kitten', 'dachshund', 'dachshunds', 'pet friendly', 'dog friendly'], opposite: [] },
  transparent: { same: ['see through', 'see-through', 'transparency', 'alpha'], opposite: ['opaque'] },
  recurring: RECURRING,
  repeat: RECURRING,
  monthly: RECURRING,
  express: { same: ['asap', 'urgent', 'urgently', 'next day', 'overnight', 'rush', 'fastest', 'quickly', 'fast'], opposite: ['standard', 'economy', 'slow'] },
  insured: { same: ['insure', 'insurance', 'insured'], opposite: [] },
  fragile: { same: ['breakable', 'handle with care', 'delicate'], opposite: [] },
  hourly: { same: ['hour by hour', 'per hour', 'each hour'], opposite: [] },
  strict: { same: ['nitpicky', 'pedantic', 'nitpick', 'picky', 'every little thing'], opposite: ['lenient', 'relaxed'] },
  formal: { same: ['polite', 'usted', 'vous', 'sie'], opposite: ['informal', 'casual', 'tu', 'du'] },
  shadow: { same: ['drop shadow'], opposite: [] },
  quote: { same: ['quotes', 'quotation', 'quotations', 'quoting'], opposite: [] },
  hashtag: { same: ['hashtags', 'tags'], opposite: [] },
  emoji: { same: ['emojis', 'emoticons', 'emoji'], opposite: [] },
  aspect: { same: ['proportions', 'aspect ratio', 'proportional'], opposite: ['squash', 'stretch', 'distort'] },
  video: { same: ['zoom', 'google meet', 'video link', 'on video', 'video call'], opposite: ['in person', 'phone call', 'face to face'] },
};
