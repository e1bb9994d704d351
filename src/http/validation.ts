import { KindGuard, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { findUnstorableText } from '../lib/storable-text.ts';

/**
 * Every request part is checked as sent: a body's string is not a number, unknown fields are
 * refused where a schema says so, nothing is silently dropped. Query strings, path parameters and
 * headers are text by nature, so before validation each declared field is read as its declared type
 * by a strict reading of its text (see readText); Ajv's own coercion is not used because it takes
 * whatever `Number()` takes (`0x10`, `1e1`, ` 5`, the empty string).
 *
 * Text anywhere in a request, including keys, must not contain U+0000 or a lone surrogate: PostgreSQL
 * refuses NUL in text, and drivers store a lone surrogate as U+FFFD, so the same request would be
 * stored differently (or fail) depending on the database. Both are refused here, for every part of
 * every route, before a handler runs.
 */
function createAjv(): Ajv {
  // allErrors: a request missing three fields is told all three at once, not one per retry. It costs
  // nothing on valid input (the checks run anyway); an invalid body is walked to its end.
  const ajv = new Ajv({ strict: false, useDefaults: true, removeAdditional: false, allErrors: true, coerceTypes: false });
  addFormats.default(ajv);
  return ajv;
}

type Schema = Record<string, unknown>;
type TextPart = 'querystring' | 'params' | 'headers';

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The first string or key in `value` that holds NUL or a lone surrogate, as a validation error. */
function findBadText(value: unknown): ErrorObject | null {
  const found = findUnstorableText(value);
  return found ? { instancePath: found.path, schemaPath: '#', keyword: 'text', params: {}, message: found.problem } : null;
}

/** The JSON types a schema admits (`type`, `const`, or those of its `anyOf` branches); empty: any. */
function typesOf(schema: Schema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  if (typeof schema.type === 'string') types.add(schema.type);
  if (Array.isArray(schema.type)) for (const type of schema.type) types.add(String(type));
  if ('const' in schema && schema.type === undefined) types.add(schema.const === null ? 'null' : typeof schema.const);
  for (const branch of [...((schema.anyOf ?? []) as Schema[]), ...((schema.oneOf ?? []) as Schema[])]) for (const type of typesOf(branch)) types.add(type);
  return types;
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * One text value read as the declared type. Integers and numbers are plain decimals (no sign `+`,
 * no exponent, no hexadecimal, no spaces, no leading zeros); booleans are `true` or `false`. Text
 * that does not read as a declared type stays text, and validation then says what was expected.
 */
function readText(text: string, schema: Schema | undefined): unknown {
  const types = typesOf(schema);
  if (types.size === 0 || types.has('string')) return text;
  if (types.has('integer') && INTEGER_TEXT.test(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : text;
  }
  if (types.has('number') && NUMBER_TEXT.test(text)) {
    const value = Number(text);
    return Number.isFinite(value) ? value : text;
  }
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * Reads the declared fields of a query string, path or header set in place (Fastify hands the
 * validated object to the handler). A repeated query key arrives as an array: kept as a list where
 * the schema declares one, refused anywhere else.
 */
function readTextFields(data: Record<string, unknown>, schema: Schema): ErrorObject | null {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(properties)) {
    const value = data[name];
    if (value === undefined) continue;
    const declaredList = typesOf(property).has('array');
    if (declaredList) {
      const items: unknown[] = Array.isArray(value) ? value : [value];
      data[name] = items.map((item) => (typeof item === 'string' ? readText(item, property.items as Schema | undefined) : item));
    } else if (Array.isArray(value)) {
      return { instancePath: `/${escapePointer(name)}`, schemaPath: '#', keyword: 'repeated', params: {}, message: 'must be given once' };
    } else if (typeof value === 'string') {
      data[name] = readText(value, property);
    }
  }
  return null;
}

/** A validation function that reports `errors` the way Fastify reads them from Ajv's. */
function withErrors(check: (data: unknown) => ErrorObject[] | null): ValidateFunction {
  let errors: ErrorObject[] | null = null;
  const validate = (data: unknown) => {
    errors = check(data);
    return errors === null;
  };
  return Object.defineProperty(validate, 'errors', { get: () => errors }) as unknown as ValidateFunction;
}

/**
 * Query schemas refuse parameters they do not declare (`limit[]=1`, a misspelt `offest`): a
 * parameter the service ignores would otherwise look accepted.
 */
function closedQuerySchema(schema: Schema): Schema {
  return schema.type === 'object' && schema.additionalProperties === undefined ? { ...schema, additionalProperties: false } : schema;
}

/**
 * Fastify compiles every route's schemas before the server listens, though most routes of a fresh
 * node see no request for a while: compiling each on its first use instead brings the first answer
 * sooner.
 */
export function madeOnFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const ajv = createAjv();
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') {
      const compiled = madeOnFirstUse(() => ajv.compile(schema as object));
      // A body declared `Type.Optional(...)` may also be absent (Fastify hands the validator null for
      // no body; JSON Schema itself has no notion of an optional root).
      const optional = KindGuard.IsOptional(schema as TSchema);
      return withErrors((data) => {
        if (optional && data === null) return null;
        const bad = findBadText(data);
        if (bad) return [bad];
        const validate = compiled();
        return validate(data) ? null : (validate.errors ?? []);
      });
    }
    const part = httpPart as TextPart;
    const declared = (part === 'querystring' ? closedQuerySchema(schema as Schema) : schema) as Schema;
    const compiled = madeOnFirstUse(() => ajv.compile(declared));
    return withErrors((data) => {
      // Headers hold every header the client sent; only the declared ones are this route's concern.
      const bad = findBadText(part === 'headers' ? pick(data as Record<string, unknown>, declared) : data);
      if (bad) return [bad];
      if (data !== null && typeof data === 'object') {
        const unreadable = readTextFields(data as Record<string, unknown>, declared);
        if (unreadable) return [unreadable];
      }
      const validate = compiled();
      return validate(data) ? null : (validate.errors ?? []);
    });
  };
}

function pick(data: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of Object.keys((schema.properties ?? {}) as object)) if (data[name] !== undefined) picked[name] = data[name];
  return picked;
}
