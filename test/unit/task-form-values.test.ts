import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  controlFor,
  fieldLabel,
  fieldOfPath,
  humanise,
  initialValues,
  inputFromValues,
  parseInputSchema,
  validateTaskText,
  optionLabel,
  validateValues,
  valuesFromInput,
} from '../../web/src/lib/input-schema.ts';

const schema = parseInputSchema(
  JSON.stringify({
    text: { type: 'string', required: true },
    coverImage: { type: 'string' },
    size: { type: 'number', enum: [1, 2, 4], default: 2 },
    style: { type: 'string', enum: ['flat', 'shaded'] },
    count: { type: 'number', required: true },
    draft: { type: 'boolean', default: true },
  }),
)!;

describe('the task form: controls, values and checks from an inputSchema', () => {
  it('picks the control of the spec table for each field', () => {
    assert.deepEqual(
      Object.entries(schema).map(([name, definition]) => controlFor(name, definition)),
      ['text', 'image', 'select', 'select', 'number', 'toggle'],
    );
  });

  it('starts from the defaults and reads nothing it cannot render', () => {
    assert.deepEqual(initialValues(schema), { text: '', coverImage: '', size: '2', style: '', count: '', draft: true });
    assert.equal(parseInputSchema(null), null);
    assert.equal(parseInputSchema('not json'), null);
    assert.equal(parseInputSchema('[]'), null);
    assert.deepEqual(parseInputSchema('{"a":{"type":"date"},"b":{"type":"string"}}'), { b: { type: 'string' } });
  });

  it('names the problem of each field: required, a number, one of the values, an http(s) image address', () => {
    const values = { text: ' ', coverImage: 'javascript:alert(1)', size: '3', style: 'bold', count: 'many', draft: false };
    assert.deepEqual(validateValues(schema, values), {
      text: 'This field is required.',
      coverImage: 'Enter an http or https address, or upload an image.',
      size: 'Choose one of the listed options.',
      style: 'Choose one of the listed options.',
      count: 'Enter a number.',
    });
  });

  it('turns valid values into typed input, leaving out empty optional fields', () => {
    const values = { text: ' hello ', coverImage: '', size: '4', style: '', count: '2.5', draft: false };
    assert.deepEqual(validateValues(schema, values), {});
    assert.deepEqual(inputFromValues(schema, values), { text: 'hello', size: 4, count: 2.5, draft: false });
  });

  it('fills the form from extracted input and keeps what extraction did not give', () => {
    const values = valuesFromInput(schema, { count: 3, draft: false, style: 'flat' });
    assert.deepEqual(values, { text: '', coverImage: '', size: '2', style: 'flat', count: '3', draft: false });
  });

  it("checks the task's own text as the server does, and maps the server's field paths", () => {
    assert.deepEqual(validateTaskText('', 'Do it'), {});
    assert.deepEqual(validateTaskText('x'.repeat(201), '  '), { title: 'At most 200 characters.', description: 'Say what you need done.' });
    assert.equal(fieldOfPath('/input/style'), 'style');
    assert.equal(fieldOfPath('/body/input/count'), 'count');
    assert.equal(fieldOfPath('/body/title'), undefined);
  });

  it("names fields and options as people read them, preferring the schema's own labels", () => {
    assert.deepEqual(['invoice_image', 'max_pages', 'maxPages', 'sourceText', 'pdfUrl', 'userId'].map(humanise), [
      'Invoice image',
      'Max pages',
      'Max pages',
      'Source text',
      'PDF URL',
      'User ID',
    ]);
    assert.equal(fieldLabel('max_pages', { type: 'number' }), 'Max pages');
    assert.equal(fieldLabel('max_pages', { type: 'number', label: 'Pages at most' }), 'Pages at most');
    const language = { type: 'string' as const, enum: ['de', 'fr'], enumLabels: { de: 'German' } };
    assert.equal(optionLabel(language, 'de'), 'German');
    assert.equal(optionLabel(language, 'fr'), 'fr');
    assert.equal(optionLabel({ type: 'number', enum: [1], enumLabels: { '1': 'One page' } }, 1), 'One page');
  });
});
