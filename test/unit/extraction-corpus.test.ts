import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// Checks only that the corpus is well formed; scoring an extractor against it is the benchmark's job.

type FieldType = 'string' | 'number' | 'boolean';
type Value = string | number | boolean;

interface FieldDefinition {
  type: FieldType;
  required?: boolean;
  description?: string;
  enum?: Value[];
  default?: Value;
}

interface CorpusRequest {
  id: string;
  schema: string;
  text: string;
  expected: Record<string, unknown>;
  half: string;
}

interface Corpus {
  schemas: Record<string, Record<string, FieldDefinition>>;
  requests: CorpusRequest[];
}

const corpus = JSON.parse(readFileSync(new URL('../fixtures/extraction/corpus.json', import.meta.url), 'utf8')) as Corpus;

const FIELD_TYPES = new Set(['string', 'number', 'boolean']);
const DEFINITION_KEYS = new Set(['type', 'required', 'description', 'enum', 'default']);
const REQUEST_KEYS = ['expected', 'half', 'id', 'schema', 'text'];

const hasType = (value: unknown, type: FieldType): boolean => (type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type);

const schemaNames = Object.keys(corpus.schemas);
const allDefinitions = Object.values(corpus.schemas).flatMap((schema) => Object.entries(schema));

describe('extraction corpus: schemas', () => {
  it('has at least 10 schemas, each with fields', () => {
    assert.ok(schemaNames.length >= 10, `only ${schemaNames.length} schemas`);
    for (const name of schemaNames) {
      assert.ok(Object.keys(corpus.schemas[name] ?? {}).length > 0, `schema ${name} has no fields`);
    }
  });

  it('every field definition is a valid input schema definition', () => {
    for (const [schemaName, schema] of Object.entries(corpus.schemas)) {
      for (const [field, definition] of Object.entries(schema)) {
        const where = `${schemaName}.${field}`;
        assert.match(field, /^[A-Za-z][A-Za-z0-9_]*$/, where);
        for (const key of Object.keys(definition)) assert.ok(DEFINITION_KEYS.has(key), `${where}: unknown key ${key}`);
        assert.ok(FIELD_TYPES.has(definition.type), `${where}: bad type ${String(definition.type)}`);
        if (definition.required !== undefined) assert.equal(typeof definition.required, 'boolean', where);
        if (definition.description !== undefined) {
          assert.ok(typeof definition.description === 'string' && definition.description.length > 0, where);
        }
        if (definition.enum !== undefined) {
          assert.ok(Array.isArray(definition.enum) && definition.enum.length >= 2, `${where}: enum needs options`);
          assert.equal(new Set(definition.enum).size, definition.enum.length, `${where}: duplicate enum option`);
          for (const option of definition.enum) assert.ok(hasType(option, definition.type), `${where}: option ${String(option)}`);
        }
        if (definition.default !== undefined) {
          assert.ok(hasType(definition.default, definition.type), `${where}: default has the wrong type`);
          if (definition.enum) assert.ok(definition.enum.includes(definition.default), `${where}: default not in enum`);
        }
      }
    }
  });

  it('covers enums, numbers, booleans and image fields', () => {
    const count = (predicate: (definition: FieldDefinition) => boolean) => allDefinitions.filter(([, definition]) => predicate(definition)).length;
    assert.ok(count((d) => d.enum !== undefined) >= 4, 'fewer than 4 enum fields');
    assert.ok(count((d) => d.type === 'number') >= 4, 'fewer than 4 number fields');
    assert.ok(count((d) => d.type === 'boolean') >= 4, 'fewer than 4 boolean fields');
    assert.ok(
      allDefinitions.some(([field]) => /image/i.test(field)),
      'no field named after an image',
    );
  });
});

describe('extraction corpus: requests', () => {
  it('has at least 150 requests with unique ids', () => {
    assert.ok(corpus.requests.length >= 150, `only ${corpus.requests.length} requests`);
    const ids = new Set<string>();
    for (const request of corpus.requests) {
      assert.ok(typeof request.id === 'string' && request.id.length > 0, 'request without an id');
      assert.ok(!ids.has(request.id), `duplicate id ${request.id}`);
      ids.add(request.id);
    }
  });

  it('every request has exactly the documented keys, a known schema, text and a half', () => {
    for (const request of corpus.requests) {
      assert.deepEqual(Object.keys(request).sort(), REQUEST_KEYS, request.id);
      assert.ok(schemaNames.includes(request.schema), `${request.id}: unknown schema ${request.schema}`);
      assert.ok(typeof request.text === 'string' && request.text.trim().length > 0, `${request.id}: empty text`);
      assert.ok(request.half === 'tune' || request.half === 'holdout', `${request.id}: bad half ${request.half}`);
      assert.ok(
        request.expected !== null && typeof request.expected === 'object' && !Array.isArray(request.expected),
        `${request.id}: expected is not an object`,
      );
    }
  });

  it('every expected field exists in its schema with the right type and an allowed enum value', () => {
    for (const request of corpus.requests) {
      const schema = corpus.schemas[request.schema] ?? {};
      assert.ok(Object.keys(request.expected).length > 0, `${request.id}: states no field`);
      for (const [field, value] of Object.entries(request.expected)) {
        const where = `${request.id}: ${field}`;
        const definition = schema[field];
        assert.ok(definition, `${where} is not in schema ${request.schema}`);
        assert.ok(hasType(value, definition.type), `${where} should be a ${definition.type}, got ${JSON.stringify(value)}`);
        if (definition.enum) assert.ok(definition.enum.includes(value as Value), `${where}: ${String(value)} is not an option`);
      }
    }
  });

  it('free-text string values are spans of the request text', () => {
    for (const request of corpus.requests) {
      const schema = corpus.schemas[request.schema] ?? {};
      for (const [field, value] of Object.entries(request.expected)) {
        if (schema[field]?.type !== 'string' || schema[field]?.enum) continue;
        assert.ok(request.text.toLowerCase().includes(String(value).toLowerCase()), `${request.id}: ${field} "${String(value)}" does not appear in the text`);
      }
    }
  });

  it('every schema has at least 10 requests and both halves are non-empty', () => {
    for (const name of schemaNames) {
      const requests = corpus.requests.filter((request) => request.schema === name);
      assert.ok(requests.length >= 10, `${name}: only ${requests.length} requests`);
      const tune = requests.filter((request) => request.half === 'tune').length;
      assert.ok(tune > 0, `${name}: empty tune half`);
      assert.ok(requests.length - tune > 0, `${name}: empty holdout half`);
    }
  });
});
