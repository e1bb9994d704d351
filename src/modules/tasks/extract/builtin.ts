import type { InputSchema } from '../../registry/index.ts';
import { createContext } from './context.ts';
import { readEntities } from './entities.ts';
import { readQuantities } from './quantities.ts';
import { findMentions, profileFields } from './fields.ts';
import { finish } from './finish.ts';
import type { ExtractionResult } from './types.ts';
import { readLabels } from './labels.ts';
import { readBooleans, readNumbers, readOptions, readStrings, readAddresses } from './rules.ts';
import { tokenize } from './text.ts';

/**
 * The built-in extractor: deterministic rules over the words of the title and description, no
 * network. The rules run in a fixed order and each takes only what earlier ones left (see
 * docs/extraction.md); whatever nothing found gets its default, and a required field with
 * neither is reported missing rather than guessed.
 */
export function extractBuiltin(schema: InputSchema, task: { title?: string; description: string }): ExtractionResult {
  const text = task.title ? `${task.title}\n${task.description}` : task.description;
  const tokens = tokenize(text);
  const fields = profileFields(schema);
  const ctx = createContext(tokens, fields, findMentions(tokens, fields));
  readLabels(ctx, text);
  readAddresses(ctx);
  readEntities(ctx, text);
  readQuantities(ctx);
  readNumbers(ctx);
  readBooleans(ctx);
  readOptions(ctx);
  readStrings(ctx, text, task.description);
  return finish(schema, ctx.found);
}
