import type { InputSchema } from '../registry/index.ts';

export type InputValue = string | number | boolean;

export interface ExtractionResult {
  /** Fields in schema order: the values found, then defaults. */
  input: Record<string, InputValue>;
  /** Required fields with neither a value nor a default, in schema order; the task fails naming them. */
  missing: string[];
}

/** Turns a task written in plain language into the structured input an agent's schema asks for. */
export interface FieldExtractor {
  extract(schema: InputSchema, text: { title?: string; description: string }): Promise<ExtractionResult>;
}
