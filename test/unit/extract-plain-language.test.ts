import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InputSchema } from '../../src/modules/registry/index.ts';
import { createBuiltinExtractor } from '../../src/modules/extraction/index.ts';

/**
 * Requests written the way people write them, one per kind of failure the built-in rules had:
 * a value plainly there but not named by the field's name. Each case states only the fields the
 * text gives; `nothing` lists fields that must be left to their default or missing.
 */
const billing: InputSchema = {
  customer: { type: 'string', required: true, description: 'Who is billed' },
  amount: { type: 'number', required: true, description: 'Amount to charge' },
  currency: { type: 'string', enum: ['usd', 'eur', 'gbp'], default: 'usd' },
  repeat_monthly: { type: 'boolean', default: false, description: 'Charge again every month' },
};
const lodging: InputSchema = {
  city: { type: 'string', required: true, description: 'Where to stay' },
  nights: { type: 'number', required: true },
  price_level: { type: 'string', enum: ['low', 'mid', 'high'], default: 'mid' },
};
const cutout: InputSchema = {
  picture_url: { type: 'string', required: true },
  transparent: { type: 'boolean', default: false },
};
const translation: InputSchema = {
  text: { type: 'string', required: true, description: 'Text to translate' },
  to: { type: 'string', enum: ['en', 'es', 'fr', 'de'], required: true, description: 'Language to translate into' },
};
const review: InputSchema = {
  code: { type: 'string', required: true, description: 'Code to review' },
  language: { type: 'string', enum: ['typescript', 'python', 'go'] },
  max_comments: { type: 'number', default: 20 },
};
const toEnglish: InputSchema = {
  text: { type: 'string', required: true, description: 'Text to translate' },
  to: { type: 'string', enum: ['en', 'fr'], default: 'en' },
};
const shout: InputSchema = { text: { type: 'string', required: true, description: 'What to shout' } };
const shipping: InputSchema = {
  weight_kg: { type: 'number', required: true },
  country: { type: 'string', required: true },
  tracking: { type: 'boolean', default: true },
};

const logo: InputSchema = {
  width: { type: 'number', description: 'Pixels' },
  background: { type: 'string', default: 'white' },
};
const cases: [string, InputSchema, string, Record<string, unknown>, string[]][] = [
  [
    'the only amount goes to the amount field, with its currency word',
    billing,
    'charge Harbour Books 300 pounds',
    { customer: 'Harbour Books', amount: 300, currency: 'gbp' },
    [],
  ],
  ['a currency symbol', billing, 'Bill Quayside Ltd €1,200 each month', { customer: 'Quayside Ltd', amount: 1200, currency: 'eur', repeat_monthly: true }, []],
  ['slang for a currency', billing, 'bill Mr Tan 40 quid for the repair', { customer: 'Mr Tan', amount: 40, currency: 'gbp' }, ['repeat_monthly']],
  ['dollars', billing, 'please charge Orbit Labs 99.50 dollars, one-off', { customer: 'Orbit Labs', amount: 99.5, currency: 'usd', repeat_monthly: false }, []],
  [
    'a place named without the field name, and a fortnight',
    lodging,
    'a room in Valencia for a fortnight, cheap as possible',
    { city: 'Valencia', nights: 14, price_level: 'low' },
    [],
  ],
  ['a budget said another way', lodging, 'three nights in lisbon, money no object', { city: 'lisbon', nights: 3, price_level: 'high' }, []],
  ['money is no object', lodging, 'two nights in Porto, money is no object', { city: 'Porto', nights: 2, price_level: 'high' }, []],
  ['nothing fancy', lodging, 'four nights in Seville, nothing fancy', { city: 'Seville', nights: 4, price_level: 'low' }, []],
  ['a transparent background named in words', logo, 'a fox logo 512 pixels wide on a transparent background', { width: 512, background: 'transparent' }, []],
  ['a background colour named before the word', logo, 'an owl logo, dark blue background', { background: 'dark blue' }, ['width']],
  [
    'see-through',
    cutout,
    'cut out https://img.example.com/dog.png and make it see-through',
    { picture_url: 'https://img.example.com/dog.png', transparent: true },
    [],
  ],
  ['the quoted part is the text', translation, "how do I say 'the train is late' in German", { text: 'the train is late', to: 'de' }, []],
  ['text after a colon', translation, 'into Spanish please: see you on Monday', { text: 'see you on Monday', to: 'es' }, []],
  // The text to work on is copied verbatim: all of what follows the request's colon, or the
  // request without its leading instruction.
  ['code after a colon, whole', review, 'please review: const a = 1', { code: 'const a = 1' }, ['max_comments']],
  ['a colon inside the code', review, 'review this python: def add(a, b): return a + b', { code: 'def add(a, b): return a + b', language: 'python' }, []],
  ['code on the next lines', review, 'Go, quick look please:\nx := 5\nfmt.Println(x)', { code: 'x := 5\nfmt.Println(x)', language: 'go' }, ['max_comments']],
  ['code in backticks', review, 'review `let n = 3` (typescript)', { code: 'let n = 3', language: 'typescript' }, ['max_comments']],
  ['a labelled text runs to the next label', translation, 'text: good night, sleep well\nto: fr', { text: 'good night, sleep well', to: 'fr' }, []],
  ['the instruction verb is not the text', toEnglish, 'translate good morning', { text: 'good morning' }, ['to']],
  ['politeness and the instruction are not the text', shout, 'please shout hello world', { text: 'hello world' }, []],
  ['a request that is no instruction stays whole', shout, 'the cake is ready', { text: 'the cake is ready' }, []],
  [
    'weight in another unit, and a country in lower case',
    shipping,
    'send 1500 grams to portugal, no tracking needed',
    { weight_kg: 1.5, country: 'portugal', tracking: false },
    [],
  ],
];

const refusals: [string, InputSchema, string, string[]][] = [
  ['a language with no option is not guessed', translation, "translate 'good night' into swahili", ['to']],
  ['a capitalised word with nothing introducing it is no customer', billing, 'Invoice 300 for March', ['customer']],
  ['a currency with no option keeps the default, it is not another option', billing, 'charge Vela Corp 2 bitcoin', []],
];

describe('built-in extractor: plain-language requests', () => {
  const extractor = createBuiltinExtractor();
  for (const [name, schema, description, expected, nothing] of cases) {
    it(`${name}: ${description}`, async () => {
      const { input, missing } = await extractor.extract(schema, { description });
      for (const [field, value] of Object.entries(expected)) assert.deepEqual(input[field], value, field);
      for (const field of nothing) assert.equal(input[field], schema[field]?.default, `${field} is not stated`);
      assert.deepEqual(missing, []);
    });
  }
  for (const [name, schema, description, missing] of refusals) {
    it(`${name}: ${description}`, async () => {
      const result = await extractor.extract(schema, { description });
      assert.deepEqual(result.missing, missing);
      for (const [field, definition] of Object.entries(schema)) {
        if (definition.enum !== undefined)
          assert.ok(result.input[field] === undefined || result.input[field] === definition.default, `${field} got ${String(result.input[field])}`);
      }
    });
  }
});
