import { Type, type TSchema } from '@sinclair/typebox';

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

export const dataOf = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

export const Pagination = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
  hasMore: Type.Boolean(),
});

export const listOf = <T extends TSchema>(schema: T) => Type.Object({ data: Type.Array(schema), pagination: Pagination });

export const PageQuery = (defaultLimit = 20, maxLimit = 100) =>
  Type.Object({
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
  });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
