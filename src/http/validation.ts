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

export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
}
