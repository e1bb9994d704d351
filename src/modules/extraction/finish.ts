import type { InputFieldDefinition, InputSchema } from '../registry/index.ts';
import type { ExtractionResult, InputValue } from './types.ts';

// A value longer than any task description could not have come from one.
const MAX_STRING = 10_000;

/**
 * The value as the field accepts it, or undefined: the right type, a finite number, a non-empty
 * string, one of the enum options (a string option matched regardless of case, returned as
 * declared). Anything else is dropped, never converted.
 */
export function acceptValue(definition: InputFieldDefinition, value: unknown): InputValue | undefined {
  if (definition.type === 'number' && (typeof value !== 'number' || !Number.isFinite(value))) return undefined;
  if (definition.type === 'boolean' && typeof value !== 'boolean') return undefined;
  if (definition.type === 'string') {
    if (typeof value !== 'string') return undefined;
    value = value.trim();
    if (value === '' || (value as string).length > MAX_STRING) return undefined;
  }
  const accepted = value as InputValue;
  if (definition.enum === undefined) return accepted;
  if (definition.enum.includes(accepted)) return accepted;
  if (typeof accepted !== 'string') return undefined;
  const lower = accepted.toLowerCase();
  return definition.enum.find((option) => typeof option === 'string' && option.toLowerCase() === lower);
}

/** Keeps the acceptable values, fills defaults and lists the required fields still empty. */
export function finish(schema: InputSchema, found: ReadonlyMap<string, unknown>): ExtractionResult {
  const input: Record<string, InputValue> = {};
  const missing: string[] = [];
  for (const [name, definition] of Object.entries(schema)) {
    const value = acceptValue(definition, found.get(name)) ?? definition.default;
    // defineProperty, so a field called __proto__ is a field like any other.
    if (value !== undefined) Object.defineProperty(input, name, { value, enumerable: true, writable: true, configurable: true });
    else if (definition.required === true) missing.push(name);
  }
  return { input, missing };
}
