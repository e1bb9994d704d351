import { extractBuiltin } from './builtin.ts';
import type { FieldExtractor } from './types.ts';

export type { ExtractionResult, FieldExtractor, InputValue } from './types.ts';
export { createModelExtractor, type FetchLike, type ModelExtractorOptions } from './model.ts';

export function createBuiltinExtractor(): FieldExtractor {
  return { extract: async (schema, text) => extractBuiltin(schema, text) };
}
export { outboundFetch } from './outbound-fetch.ts';
