import { KindGuard, type TSchema } from '@sinclair/typebox';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: request bodies are checked as sent (a string is not a number, unknown fields
 * are refused where a schema says so, nothing is silently dropped), while query strings and path
 * parameters, which are text by nature, are coerced to the declared types.
 */
function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, useDefaults: true, removeAdditional: false, allErrors: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

/**
 * A route body declared `Type.Optional(...)` may also be absent (Fastify hands the validator null for
 * no body; JSON Schema itself has no notion of an optional root).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => {
    if (httpPart !== 'body') return textAjv.compile(schema as object);
    const validate = bodyAjv.compile(schema as object);
    if (!KindGuard.IsOptional(schema as TSchema)) return validate;
    const validateUnlessAbsent = (data: unknown) => data === null || validate(data);
    // Fastify reads the failure from the function's `errors`, as Ajv leaves it.
    return Object.defineProperty(validateUnlessAbsent, 'errors', { get: () => validate.errors });
  };
}
