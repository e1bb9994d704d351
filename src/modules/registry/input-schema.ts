import type { ErrorDetail } from '../../lib/errors.ts';
import { JsonTooDeepError, parseJsonWithinDepth } from '../../lib/json-depth.ts';

/**
 * Spec "Input schema": field name -> { type, required?, description?, enum?, default? }, plus our
 * extension for people filling in the form: `label` (what the field is called on screen) and
 * `enumLabels` (enum value, as text, -> what the option is called). Values sent stay the enum values.
 */
export interface InputFieldDefinition {
  type: 'string' | 'number' | 'boolean';
  required?: boolean;
  description?: string;
  enum?: (string | number | boolean)[];
  default?: string | number | boolean;
  label?: string;
  enumLabels?: Record<string, string>;
}
export type InputSchema = Record<string, InputFieldDefinition>;

const MAX_FIELDS = 50;
const fieldName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const allowedKeys = new Set(['type', 'required', 'description', 'enum', 'default', 'label', 'enumLabels']);
const LABEL_MAX = 100;
/** Labels are one line of visible text: no control characters (tabs and newlines included). */
// eslint-disable-next-line no-control-regex -- the point is to find them
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function isLabel(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= LABEL_MAX && !controlCharacters.test(value);
}

/**
 * Checks the JSON text an agent registers as its input schema and returns the canonical text to
 * store, or the problems found (each with its path inside the schema).
 */
export function validateInputSchema(value: unknown, path = '/body/inputSchema'): { text: string; schema: InputSchema } | { problems: ErrorDetail[] } {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = parseJsonWithinDepth(value);
    } catch (error) {
      if (error instanceof JsonTooDeepError) return { problems: [{ path, message: error.message }] };
      return { problems: [{ path, message: 'must be JSON text of an object' }] };
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problems: [{ path, message: 'must be an object mapping field names to definitions' }] };
  }
  const entries = Object.entries(parsed);
  const problems: ErrorDetail[] = [];
  if (entries.length > MAX_FIELDS) problems.push({ path, message: `may define at most ${MAX_FIELDS} fields` });
  for (const [name, definition] of entries) {
    const at = `${path}/${name}`;
    if (!fieldName.test(name)) problems.push({ path: at, message: 'field names are letters, digits and underscores, starting with a letter or underscore' });
    if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
      problems.push({ path: at, message: 'must be an object with a type' });
      continue;
    }
    const d = definition as Record<string, unknown>;
    for (const key of Object.keys(d)) if (!allowedKeys.has(key)) problems.push({ path: `${at}/${key}`, message: 'is not a known property' });
    if (d.type !== 'string' && d.type !== 'number' && d.type !== 'boolean') {
      problems.push({ path: `${at}/type`, message: 'must be string, number or boolean' });
      continue;
    }
    const matchesType = (v: unknown) => typeof v === d.type && (d.type !== 'number' || Number.isFinite(v));
    if (d.required !== undefined && typeof d.required !== 'boolean') problems.push({ path: `${at}/required`, message: 'must be a boolean' });
    if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > 500)) {
      problems.push({ path: `${at}/description`, message: 'must be a string of at most 500 characters' });
    }
    if (d.enum !== undefined) {
      if (!Array.isArray(d.enum) || d.enum.length === 0 || d.enum.length > 100 || !d.enum.every(matchesType)) {
        problems.push({ path: `${at}/enum`, message: `must be a non-empty list (at most 100) of ${d.type} values` });
      } else if (new Set(d.enum).size !== d.enum.length) {
        problems.push({ path: `${at}/enum`, message: 'must not repeat a value' });
      }
    }
    if (d.label !== undefined && !isLabel(d.label)) {
      problems.push({ path: `${at}/label`, message: `must be one line of 1 to ${LABEL_MAX} characters` });
    }
    if (d.enumLabels !== undefined) problems.push(...enumLabelProblems(d.enumLabels, d.enum, `${at}/enumLabels`));
    if (d.default !== undefined) {
      if (!matchesType(d.default)) problems.push({ path: `${at}/default`, message: `must be a ${d.type}` });
      else if (Array.isArray(d.enum) && !d.enum.includes(d.default)) problems.push({ path: `${at}/default`, message: 'must be one of the enum values' });
    }
  }
  if (problems.length > 0) return { problems };
  return { text: JSON.stringify(parsed), schema: parsed as InputSchema };
}

/**
 * `enumLabels` names options the field lists: an object whose keys are enum values written as text
 * (`"2"` for the number 2, `"true"` for true) and whose values are labels.
 */
function enumLabelProblems(labels: unknown, options: unknown, path: string): ErrorDetail[] {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    return [{ path, message: 'must be an object mapping enum values to labels' }];
  }
  if (!Array.isArray(options)) return [{ path, message: 'needs an enum on the same field' }];
  const known = new Set(options.map((option) => String(option)));
  const problems: ErrorDetail[] = [];
  for (const [value, label] of Object.entries(labels)) {
    if (!known.has(value)) problems.push({ path: `${path}/${value}`, message: 'is not one of the enum values' });
    else if (!isLabel(label)) problems.push({ path: `${path}/${value}`, message: `must be one line of 1 to ${LABEL_MAX} characters` });
  }
  return problems;
}

/**
 * Checks a task's structured `input` against the schema of the agent it names: every required field
 * without a default is given, and each given field has the declared type and, when the field lists
 * values, one of them. Fields the schema does not define pass unchecked, since an agent may take more
 * than its schema describes. Each problem names its field as `/body/input/<field>`.
 */
export function checkInputAgainstSchema(schema: InputSchema, input: Record<string, unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [name, definition] of Object.entries(schema)) {
    const path = `/body/input/${name}`;
    const value = input[name];
    if (value === undefined || value === null) {
      if (definition.required && definition.default === undefined) problems.push({ path, message: 'is required by the agent' });
      continue;
    }
    if (typeof value !== definition.type || (definition.type === 'number' && !Number.isFinite(value))) {
      problems.push({ path, message: `must be a ${definition.type}` });
    } else if (definition.enum && !definition.enum.includes(value as string | number | boolean)) {
      problems.push({ path, message: `must be one of ${definition.enum.map((option) => JSON.stringify(option)).join(', ')}` });
    }
  }
  return problems;
}
