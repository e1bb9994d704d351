import type { InputSchema } from '../registry/index.ts';
import { createContext } from './context.ts';
import { readEntities } from './entities.ts';
import { readQuantities } from './quantities.ts';
import { findMentions, profileFields, type FieldProfile } from './fields.ts';
import { finish } from './finish.ts';
import { readTextAfterColon } from './free-text.ts';
import type { ExtractionResult } from './types.ts';
import { readLabels } from './labels.ts';
import { readBooleans, readNumbers, readOptions, readStrings, readAddresses } from './rules.ts';
import { tokenize } from './text.ts';

// Reading a schema (its words, roles, units, option phrases) costs more than reading a short
// request with it; agents send the same schema every time, so the last few hundred are kept.
const MAX_CACHED_SCHEMAS = 256;
const profiles = new Map<string, FieldProfile[]>();

function cachedProfiles(schema: InputSchema): FieldProfile[] {
  const key = JSON.stringify(schema);
  let fields = profiles.get(key);
  if (fields === undefined) {
    fields = profileFields(schema);
    if (profiles.size >= MAX_CACHED_SCHEMAS) profiles.delete(profiles.keys().next().value as string);
    profiles.set(key, fields);
  }
  return fields;
}

/**
 * The built-in extractor: deterministic rules over the words of the title and description, no
 * network. The rules run in a fixed order and each takes only what earlier ones left (see
 * docs/extraction.md); whatever nothing found gets its default, and a required field with
 * neither is reported missing rather than guessed.
 */
export function extractBuiltin(schema: InputSchema, task: { title?: string; description: string }): ExtractionResult {
  const text = task.title ? `${task.title}\n${task.description}` : task.description;
  const tokens = tokenize(text);
  const fields = cachedProfiles(schema);
  const ctx = createContext(tokens, fields, findMentions(tokens, fields));
  readLabels(ctx, text);
  readTextAfterColon(ctx, text);
  readAddresses(ctx);
  readEntities(ctx, text);
  readQuantities(ctx);
  readNumbers(ctx);
  readBooleans(ctx);
  readOptions(ctx);
  readStrings(ctx, text, task.description);
  return finish(schema, ctx.found);
}
