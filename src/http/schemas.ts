import { Type, type SchemaOptions, type Static, type TLiteral, type TSchema } from '@sinclair/typebox';
import { currencies } from '../lib/money.ts';

export const ErrorBody = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'Every error the API returns' },
);

/** Error responses every route shares, so OpenAPI documents them and serialization stays fast. */
export const errorResponses = {
  '4xx': Type.Ref('ErrorBody'),
  '5xx': Type.Ref('ErrorBody'),
};

/**
 * The error responses of a standard's routes, whose clients read the standard's own error field
 * (added beside `code` and `message` by src/http/errors.ts for the standard's path prefix).
 */
export const standardErrorResponses = (fields: Record<string, TSchema>) => {
  const body = Type.Composite([Type.Omit(ErrorBody, []), Type.Object(fields)]);
  return { '4xx': body, '5xx': body };
};

/**
 * A response whose body is not JSON (text, bytes), declared for OpenAPI so generated clients know the
 * answer's media type; the route sends it as a string or a Buffer, which is never serialized.
 */
export const bodyOf = (mediaType: string, description: string, schema: TSchema = Type.String()) => ({ description, content: { [mediaType]: { schema } } });

export const dataOf = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

export const Pagination = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
  hasMore: Type.Boolean(),
});

export const listOf = <T extends TSchema>(schema: T) => Type.Object({ data: Type.Array(schema), pagination: Pagination });

/** How deep any list may be paged unless its route says otherwise: deeper offsets are 400. */
export const MAX_PAGE_OFFSET = 100_000;

/**
 * `limit` and `offset` of a list, the one shape every paged route's query uses (spread its
 * properties into a larger query). Both are bounded: an offset past what an integer column's
 * OFFSET holds fails inside the database driver.
 */
export const PageQuery = (defaultLimit = 20, maxLimit = 100, maxOffset = MAX_PAGE_OFFSET) =>
  Type.Object({
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit }),
    offset: Type.Integer({ minimum: 0, maximum: maxOffset, default: 0 }),
  });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** One of the given strings. */
export const literals = <const T extends readonly string[]>(values: T, options?: SchemaOptions) =>
  Type.Union(values.map((v) => Type.Literal(v)) as TLiteral<T[number]>[], options);

/**
 * `type: [T, 'null']` rather than `anyOf [T, null]`: the same JSON Schema meaning (OpenAPI 3.1), but
 * the response serializer writes it directly instead of validating each value against every branch,
 * a quarter of a feed page's serialization time.
 */
export const nullable = <T extends TSchema & { type: string }>(t: T) => Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

/** A UUID in its 36-character form (any case); no `urn:uuid:` prefix. */
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });

/** A currency of lib/money.ts (lowercase ISO 4217 code). */
export const Currency = (description?: string) => literals(currencies, description === undefined ? undefined : { description });
