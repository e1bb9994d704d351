import { Type, type Static } from '@sinclair/typebox';
import { dataOf } from '../../http/schemas.ts';

export const ConsistencyQuery = Type.Object(
  {
    from: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'the older tree size' }),
    to: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'the newer tree size, at most the current size' }),
  },
  { additionalProperties: false },
);
export type ConsistencyQuery = Static<typeof ConsistencyQuery>;

export const ConsistencyProof = dataOf(
  Type.Object({
    proof: Type.Array(Type.String({ description: 'base64 SHA-256 hash' }), {
      description: 'RFC 6962 consistency proof; empty from size 0 or between equal sizes',
    }),
  }),
);

export const TilePath = Type.Object({ '*': Type.String({ maxLength: 200 }) });
