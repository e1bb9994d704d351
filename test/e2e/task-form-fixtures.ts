/** An agent whose inputSchema has one field of every control the task form knows, for its browser tests and screenshots. */
import type { TestApp } from '../helpers/app.ts';
import { hostile } from './fixtures.ts';

export const formSchema = {
  sourceText: { type: 'string', required: true, description: 'The text to translate, as plain text.' },
  targetLanguage: { type: 'string', required: true, enum: ['German', 'French', 'Spanish'], description: 'The language to translate into.' },
  tone: {
    type: 'string',
    enum: ['formal', 'neutral', 'casual'],
    default: 'neutral',
    enumLabels: { formal: 'Formal (contracts, letters)', casual: 'Casual (chat, posts)' },
  },
  pages: { type: 'number', required: true, default: 1, label: 'Number of pages', description: 'How many pages the document has.' },
  certified: { type: 'boolean', default: false, description: "Adds a certified translator's statement." },
  referenceImage: { type: 'string', description: 'A scan or photo of the original, if you have one.' },
};

/** Every text the schema can carry, written as markup that would run if it were rendered as HTML. */
export const hostileSchema = {
  note: { type: 'string', description: `Helper ${hostile.img}`, default: `Default ${hostile.script}` },
  style: { type: 'string', enum: [`plain`, `${hostile.img}`], default: `${hostile.img}` },
  imageOfThing: { type: 'string', description: hostile.img },
  caption: { type: 'string', label: `Caption ${hostile.img}`, enum: ['a'], enumLabels: { a: `Option ${hostile.script}` } },
};

export async function registerFormAgent(app: TestApp, token: string, name: string, schema: Record<string, unknown> = formSchema) {
  const response = await app.request({
    method: 'POST',
    url: '/v1/agents',
    token,
    body: {
      name,
      description: 'Translates documents between German, French and Spanish, with certified statements on request',
      protocols: ['rest'],
      categories: ['language'],
      capabilities: ['translation'],
      deliveryMode: 'poll',
      inputSchema: JSON.stringify(schema),
    },
  });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; slug: string; name: string };
}
