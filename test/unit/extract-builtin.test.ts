import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InputSchema } from '../../src/modules/registry/index.ts';
import { createBuiltinExtractor, type ExtractionResult } from '../../src/modules/extraction/index.ts';

/** Five schemas as agents register them: enums, numbers, booleans, image and page URLs, defaults, required fields. */
const summarizer: InputSchema = {
  text: { type: 'string', required: true, description: 'The text to summarise' },
  length: { type: 'string', enum: ['short', 'medium', 'long'], default: 'medium' },
  format: { type: 'string', enum: ['paragraph', 'bullets'], default: 'paragraph' },
  include_quotes: { type: 'boolean', default: false },
  max_words: { type: 'number', description: 'Upper limit on words' },
};

const imageGenerator: InputSchema = {
  prompt: { type: 'string', required: true, description: 'What the picture should show' },
  style: { type: 'string', enum: ['photo', 'watercolor', 'sketch', 'anime'], default: 'photo' },
  width: { type: 'number', default: 1024, description: 'Width in pixels' },
  height: { type: 'number', default: 1024, description: 'Height in pixels' },
  count: { type: 'number', default: 1, description: 'How many images to generate' },
  transparent_background: { type: 'boolean', default: false },
};

const captioner: InputSchema = {
  image_url: { type: 'string', required: true, description: 'The image to describe' },
  mode: { type: 'string', enum: ['caption', 'tags', 'ocr'], required: true },
  language: { type: 'string', enum: ['english', 'french', 'german', 'spanish'], default: 'english' },
  detailed: { type: 'boolean', default: false },
};

const writer: InputSchema = {
  topic: { type: 'string', required: true, description: 'Subject of the article' },
  tone: { type: 'string', enum: ['formal', 'casual', 'friendly'], default: 'friendly' },
  word_count: { type: 'number', required: true, description: 'Approximate length in words' },
  audience: { type: 'string', description: 'Who will read it' },
  include_sources: { type: 'boolean', default: false },
  title: { type: 'string' },
};

const monitor: InputSchema = {
  url: { type: 'string', required: true, description: 'Page to watch' },
  check_every_minutes: { type: 'number', default: 60, description: 'Minutes between two checks' },
  notify_email: { type: 'string', required: true, description: 'Address that receives alerts' },
  mobile: { type: 'boolean', default: true, description: 'Also check the mobile layout' },
  keyword: { type: 'string', description: 'Text that must appear on the page' },
  alert_on: { type: 'string', enum: ['down', 'slow', 'changed'], default: 'down' },
};

interface Case {
  description: string;
  title?: string;
  expected: ExtractionResult;
}

const cases: [string, InputSchema, Case[]][] = [
  [
    'summarizer',
    summarizer,
    [
      {
        // Synonym for an option ("brief"), a cue for a boolean ("with"), figures that are no word
        // limit, and the text to summarise after the request's colon.
        description:
          'Please summarise the following for my team in bullet points, brief, with a couple of direct quotes: The council approved the 2025 budget of 4.2 million after a three-hour debate.',
        expected: {
          input: {
            text: 'The council approved the 2025 budget of 4.2 million after a three-hour debate.',
            length: 'short',
            format: 'bullets',
            include_quotes: true,
          },
          missing: [],
        },
      },
      {
        description: 'Summary of this report, max words: 200, as paragraphs, no quotes. Report: Revenue rose 12% in Q3.',
        expected: {
          // The text to summarise is what follows "Report:", not the settings before it.
          input: { text: 'Revenue rose 12% in Q3.', length: 'medium', format: 'paragraph', include_quotes: false, max_words: 200 },
          missing: [],
        },
      },
      {
        // The quoted text is the text; its figures and words are not read as settings.
        description: "Length: very short. Format = bullets. Text: 'We shipped 3 features and fixed 40 long-standing bugs this sprint.'",
        expected: {
          input: { text: 'We shipped 3 features and fixed 40 long-standing bugs this sprint.', length: 'short', format: 'bullets', include_quotes: false },
          missing: [],
        },
      },
      {
        description: 'I need an in-depth summary (around 500 words) of the attached meeting notes; do not include quotes',
        expected: {
          input: {
            text: 'I need an in-depth summary (around 500 words) of the attached meeting notes; do not include quotes',
            length: 'long',
            format: 'paragraph',
            include_quotes: false,
            max_words: 500,
          },
          missing: [],
        },
      },
      {
        // "Not too long" rejects the option it names.
        description: 'Not too long, please. Bullets. Max 120 words. Quotes: yes.',
        expected: {
          input: {
            text: 'Not too long, please. Bullets. Max 120 words. Quotes: yes.',
            length: 'medium',
            format: 'bullets',
            include_quotes: true,
            max_words: 120,
          },
          missing: [],
        },
      },
      {
        // Settings in the title, the text in the description; a percentage is not a word limit.
        title: 'Short bullet-point summary',
        description: 'Our Q3 revenue grew 12% while costs fell.',
        expected: { input: { text: 'Our Q3 revenue grew 12% while costs fell.', length: 'short', format: 'bullets', include_quotes: false }, missing: [] },
      },
    ],
  ],
  [
    'image generator',
    imageGenerator,
    [
      {
        description: 'A watercolour painting of a lighthouse at dusk, width: 1920, height: 1080',
        expected: {
          input: {
            prompt: 'A watercolour painting of a lighthouse at dusk, width: 1920, height: 1080',
            style: 'watercolor',
            width: 1920,
            height: 1080,
            count: 1,
            transparent_background: false,
          },
          missing: [],
        },
      },
      {
        description: 'Generate 4 images of a red fox in the snow, anime style, transparent background please',
        expected: {
          input: {
            prompt: 'Generate 4 images of a red fox in the snow, anime style, transparent background please',
            style: 'anime',
            width: 1024,
            height: 1024,
            count: 4,
            transparent_background: true,
          },
          missing: [],
        },
      },
      {
        description: 'Three photorealistic images of a mountain cabin, no transparent background, width 800 and height 600',
        expected: {
          input: {
            prompt: 'Three photorealistic images of a mountain cabin, no transparent background, width 800 and height 600',
            style: 'photo',
            width: 800,
            height: 600,
            count: 3,
            transparent_background: false,
          },
          missing: [],
        },
      },
      {
        // "2 cats" is part of the picture, not a setting.
        description: 'A pencil drawing of my 2 cats asleep on a keyboard',
        expected: {
          input: {
            prompt: 'A pencil drawing of my 2 cats asleep on a keyboard',
            style: 'sketch',
            width: 1024,
            height: 1024,
            count: 1,
            transparent_background: false,
          },
          missing: [],
        },
      },
      {
        description: "Something cozy for a children's book cover",
        expected: {
          input: { prompt: "Something cozy for a children's book cover", style: 'photo', width: 1024, height: 1024, count: 1, transparent_background: false },
          missing: [],
        },
      },
      {
        // Three foxes in one picture: no image count. The feature named plainly is asked for.
        description: 'Paint 3 watercolor foxes on a transparent background',
        expected: {
          input: {
            prompt: 'Paint 3 watercolor foxes on a transparent background',
            style: 'watercolor',
            width: 1024,
            height: 1024,
            count: 1,
            transparent_background: true,
          },
          missing: [],
        },
      },
      {
        // A rejected option and a quoted word inside the request: the prompt is still the whole request.
        description: "A 'retro' poster, not anime, 3 of them",
        expected: {
          input: { prompt: "A 'retro' poster, not anime, 3 of them", style: 'photo', width: 1024, height: 1024, count: 1, transparent_background: false },
          missing: [],
        },
      },
      {
        description: 'Illustration of the 3 little pigs, 2 images, height of about 768 px',
        expected: {
          input: {
            prompt: 'Illustration of the 3 little pigs, 2 images, height of about 768 px',
            style: 'photo',
            width: 1024,
            height: 768,
            count: 2,
            transparent_background: false,
          },
          missing: [],
        },
      },
    ],
  ],
  [
    'captioner',
    captioner,
    [
      {
        description: 'Caption this photo in French: https://cdn.example.com/uploads/beach.jpg',
        expected: { input: { image_url: 'https://cdn.example.com/uploads/beach.jpg', mode: 'caption', language: 'french', detailed: false }, missing: [] },
      },
      {
        // The URL next to "photo" wins over a later one that merely ends in .png.
        description: 'OCR the receipt photo at https://files.example.org/scan?id=77 - ignore our logo at https://example.org/logo.png.',
        expected: { input: { image_url: 'https://files.example.org/scan?id=77', mode: 'ocr', language: 'english', detailed: false }, missing: [] },
      },
      {
        description: 'Tag this picture with detailed keywords, in German please. Image URL: https://img.example.net/p/12345',
        expected: { input: { image_url: 'https://img.example.net/p/12345', mode: 'tags', language: 'german', detailed: true }, missing: [] },
      },
      {
        // Nothing says caption, tags or OCR: the required mode is missing, not guessed.
        description: 'What is in https://example.com/cat.webp ?',
        expected: { input: { image_url: 'https://example.com/cat.webp', language: 'english', detailed: false }, missing: ['mode'] },
      },
      {
        description: 'Give me tags for the image, and describe it in spanish',
        expected: { input: { mode: 'tags', language: 'spanish', detailed: false }, missing: ['image_url'] },
      },
      {
        // Among several URLs, the one ending in an image extension.
        description: 'mode = ocr, not detailed. Docs at https://example.com/help and the scan at https://example.com/a.PNG?size=large',
        expected: { input: { image_url: 'https://example.com/a.PNG?size=large', mode: 'ocr', language: 'english', detailed: false }, missing: [] },
      },
    ],
  ],
  [
    'article writer',
    writer,
    [
      {
        description: 'Write a formal 800-word article about the history of the printing press, with sources.',
        expected: { input: { topic: 'the history of the printing press', tone: 'formal', word_count: 800, include_sources: true }, missing: [] },
      },
      {
        description: 'Topic: remote work burnout. Tone: casual. Word count: 1,200. Audience: startup founders. Title: "Logging Off"',
        expected: {
          input: { topic: 'remote work burnout', tone: 'casual', word_count: 1200, audience: 'startup founders', include_sources: false, title: 'Logging Off' },
          missing: [],
        },
      },
      {
        // "about 600" is a quantity, "about sourdough" the topic; "no sources needed" turns sources off.
        description: 'Could you write something about sourdough baking? Keep it friendly and about 600 words long, no sources needed.',
        expected: { input: { topic: 'sourdough baking', tone: 'friendly', word_count: 600, include_sources: false }, missing: [] },
      },
      {
        // A year is not a word count: the required count is missing.
        description: 'An article about the 2024 Olympics in formal tone',
        expected: { input: { topic: 'the 2024 Olympics', tone: 'formal', include_sources: false }, missing: ['word_count'] },
      },
      {
        description: "The topic is quantum computing for beginners, 1500 words, titled 'Qubits Without Tears'",
        expected: {
          input: { topic: 'quantum computing for beginners', tone: 'friendly', word_count: 1500, include_sources: false, title: 'Qubits Without Tears' },
          missing: [],
        },
      },
      {
        description: 'Casual rather than formal, please: 300 words about why cats knock things off tables',
        expected: { input: { topic: 'why cats knock things off tables', tone: 'casual', word_count: 300, include_sources: false }, missing: [] },
      },
      {
        description: "I want a casual piece on 'why we sleep' — 700 words, for teenagers",
        expected: { input: { topic: 'why we sleep', tone: 'casual', word_count: 700, include_sources: false }, missing: [] },
      },
      {
        // A rejected option leaves the default; a spelled-out count is still a count.
        description: "Don't make it formal. Subject: urban beekeeping, word count twelve hundred",
        expected: { input: { topic: 'urban beekeeping', tone: 'friendly', word_count: 1200, include_sources: false }, missing: [] },
      },
    ],
  ],
  [
    'website monitor',
    monitor,
    [
      {
        description: 'Watch https://shop.example.com/checkout every 5 minutes and email ops@example.com if it goes down',
        expected: {
          input: { url: 'https://shop.example.com/checkout', check_every_minutes: 5, notify_email: 'ops@example.com', mobile: true, alert_on: 'down' },
          missing: [],
        },
      },
      {
        description: 'Monitor our pricing page https://example.com/pricing for changes; alert me at jane.doe@example.org. Desktop only, no mobile check.',
        expected: {
          input: { url: 'https://example.com/pricing', check_every_minutes: 60, notify_email: 'jane.doe@example.org', mobile: false, alert_on: 'changed' },
          missing: [],
        },
      },
      {
        description:
          'Check https://status.example.io every 2 minutes; notify email: sre-team@example.io; keyword: "All systems operational"; alert on slow responses',
        expected: {
          input: {
            url: 'https://status.example.io',
            check_every_minutes: 2,
            notify_email: 'sre-team@example.io',
            mobile: true,
            keyword: 'All systems operational',
            alert_on: 'slow',
          },
          missing: [],
        },
      },
      {
        // A bare domain is no URL: both required fields are missing.
        description: 'Keep an eye on example.com and tell me when it changes',
        expected: { input: { check_every_minutes: 60, mobile: true, alert_on: 'changed' }, missing: ['url', 'notify_email'] },
      },
      {
        description: "Please check the site https://blog.example.net/ hourly, send alerts to me@example.net, and look for the word 'Subscribe'",
        expected: {
          input: {
            url: 'https://blog.example.net/',
            check_every_minutes: 60,
            notify_email: 'me@example.net',
            mobile: true,
            keyword: 'Subscribe',
            alert_on: 'down',
          },
          missing: [],
        },
      },
      {
        description: 'URL: https://example.com/login, check every 15 minutes, mobile: no, email me@example.com, alert when slow',
        expected: {
          input: { url: 'https://example.com/login', check_every_minutes: 15, notify_email: 'me@example.com', mobile: false, alert_on: 'slow' },
          missing: [],
        },
      },
    ],
  ],
];

const extractor = createBuiltinExtractor();

describe('built-in extractor: plain-language descriptions against five schemas', () => {
  for (const [name, schema, list] of cases) {
    describe(name, () => {
      for (const c of list) {
        it(c.description, async () => {
          const result = await extractor.extract(
            schema,
            c.title === undefined ? { description: c.description } : { title: c.title, description: c.description },
          );
          assert.deepEqual(result, c.expected);
          // Values come out in schema order, as the agent declared its fields.
          assert.deepEqual(
            Object.keys(result.input),
            Object.keys(schema).filter((key) => key in c.expected.input),
          );
        });
      }
    });
  }

  it('covers at least 20 descriptions over 5 schemas', () => {
    assert.equal(cases.length, 5);
    assert.ok(cases.reduce((sum, [, , list]) => sum + list.length, 0) >= 20);
  });
});

describe('built-in extractor: rule details', () => {
  const tone: InputSchema = { tone: { type: 'string', enum: ['formal', 'casual'], required: true } };
  const run = (schema: InputSchema, description: string) => extractor.extract(schema, { description });

  it('forgives a typo in an option but does not turn a different word into one', async () => {
    assert.deepEqual(await run(tone, 'Make it fromal, it goes to the board'), { input: { tone: 'formal' }, missing: [] });
    assert.deepEqual(await run({ length: { type: 'string', enum: ['short', 'long'], required: true } }, 'Describe this shirt for the catalogue'), {
      input: {},
      missing: ['length'],
    });
  });

  it('leaves a required enum missing when the text has nothing close to an option', async () => {
    assert.deepEqual(await run(tone, 'Write to the landlord about the broken heating'), { input: {}, missing: ['tone'] });
  });

  it('reads a labelled value that is no option as no value, and still finds the option named elsewhere', async () => {
    assert.deepEqual(await run(tone, 'Tone: sarcastic. Actually, keep it casual.'), { input: { tone: 'casual' }, missing: [] });
  });

  it('picks the nearest option of a numeric enum', async () => {
    const size: InputSchema = { size: { type: 'number', enum: [256, 512, 1024], required: true }, seed: { type: 'number' } };
    assert.deepEqual(await run(size, 'Size 500 please, seed: 42'), { input: { size: 512, seed: 42 }, missing: [] });
  });

  it('gives a lone figure to a lone number field, a negative or a decimal included', async () => {
    const offset: InputSchema = { offset: { type: 'number', required: true, description: 'Shift in degrees' }, label: { type: 'string' } };
    assert.deepEqual(await run(offset, 'Rotate it by -12.5 and call it done'), { input: { offset: -12.5 }, missing: [] });
  });

  it('fills a required field from its default and never guesses free text for two candidates', async () => {
    const schema: InputSchema = {
      query: { type: 'string', required: true },
      instructions: { type: 'string', required: true },
      region: { type: 'string', enum: ['eu', 'us'], required: true, default: 'eu' },
    };
    assert.deepEqual(await run(schema, 'Find cheap flights to Lisbon'), { input: { region: 'eu' }, missing: ['query', 'instructions'] });
  });

  it('answers an empty schema with an empty input', async () => {
    assert.deepEqual(await run({}, 'Anything at all, 42 times'), { input: {}, missing: [] });
  });
});

describe('built-in extractor: odd field names', () => {
  it('keeps a field named __proto__ as an ordinary field', async () => {
    // Parsed, as a registered schema is: a literal would set the prototype instead.
    const schema = JSON.parse('{"__proto__": {"type": "number", "required": true}}') as InputSchema;
    const result = await extractor.extract(schema, { description: '__proto__: 7' });
    assert.equal(Object.getPrototypeOf(result.input), Object.prototype);
    assert.deepEqual(Object.entries(result.input), [['__proto__', 7]]);
    assert.deepEqual(result.missing, []);
  });
});
