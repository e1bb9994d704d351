/**
 * An agent's inputSchema as the form sees it: which control each field gets, the values the form
 * starts with, the checks made while typing, and the typed `input` a task carries.
 *
 * The schema rules are the server's (field definitions with type string, number or boolean;
 * required, description, enum, default), so a schema the server accepted always renders.
 */

import type { InputFieldDefinition, InputSchema } from '../../../src/modules/registry/input-schema.ts';

export type { InputFieldDefinition, InputSchema };
export type FieldType = InputFieldDefinition['type'];
export type InputValue = string | number | boolean;

/** What a control holds: text for text, image, number and dropdown fields, true/false for toggles. */
export type FormValue = string | boolean;
export type FormValues = Record<string, FormValue>;
export type FieldErrors = Record<string, string | undefined>;

export type Control = 'text' | 'image' | 'number' | 'select' | 'toggle';

const fieldTypes = new Set<unknown>(['string', 'number', 'boolean']);

/**
 * The schema from an agent's stored JSON text, or null when it has none. Definitions the form
 * cannot show (never stored by the server, which checks them at registration) are left out.
 */
export function parseInputSchema(text: string | null | undefined): InputSchema | null {
  if (!text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const schema: InputSchema = {};
  for (const [name, definition] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof definition !== 'object' || definition === null || !fieldTypes.has((definition as { type?: unknown }).type)) continue;
    schema[name] = definition as InputFieldDefinition;
  }
  return Object.keys(schema).length > 0 ? schema : null;
}

/** Short words people write in capitals, whatever case a field name gives them. */
const acronyms = new Set(['id', 'url', 'uri', 'pdf', 'csv', 'json', 'html', 'api', 'ip', 'sql', 'xml', 'svg', 'png', 'jpg']);

/**
 * A field name as people read it: `invoice_image` and `invoiceImage` are "Invoice image",
 * `maxPages` is "Max pages"; runs of capitals (`PDF_url`) stay as written.
 */
export function humanise(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => (acronyms.has(word.toLowerCase()) ? word.toUpperCase() : /^[A-Z][a-z]/.test(word) ? word.toLowerCase() : word));
  if (words.length === 0) return name;
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a field is called on screen: the schema's own `label`, or its name made readable. */
export function fieldLabel(name: string, definition: InputFieldDefinition): string {
  return definition.label?.trim() ? definition.label : humanise(name);
}

/** What an enum option is called on screen: its `enumLabels` entry, or the value itself. */
export function optionLabel(definition: InputFieldDefinition, option: string | number | boolean): string {
  return definition.enumLabels?.[String(option)] ?? String(option);
}

/** The table of controls: an enum is a dropdown, a string field named like an image takes an image. */
export function controlFor(name: string, definition: InputFieldDefinition): Control {
  if (definition.type === 'boolean') return 'toggle';
  if (Array.isArray(definition.enum) && definition.enum.length > 0) return 'select';
  if (definition.type === 'number') return 'number';
  return /image/i.test(name) ? 'image' : 'text';
}

/** Defaults pre-fill the form; everything else starts empty (a toggle starts off). */
export function initialValues(schema: InputSchema): FormValues {
  const values: FormValues = {};
  for (const [name, definition] of Object.entries(schema)) {
    if (definition.type === 'boolean') values[name] = definition.default === true;
    else values[name] = definition.default === undefined ? '' : String(definition.default);
  }
  return values;
}

/** Form values for typed input, e.g. what extraction found; fields it does not give keep their current value. */
export function valuesFromInput(schema: InputSchema, input: Record<string, unknown>, base: FormValues = initialValues(schema)): FormValues {
  const values = { ...base };
  for (const [name, definition] of Object.entries(schema)) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    values[name] = definition.type === 'boolean' ? value === true : String(value);
  }
  return values;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The typed value of one field, or the reason it has none. Empty text is "not given". */
function typedValue(name: string, definition: InputFieldDefinition, value: FormValue | undefined): { value?: InputValue; error?: string } {
  if (definition.type === 'boolean') return { value: value === true };
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') return definition.required ? { error: 'This field is required.' } : {};
  let typed: InputValue = text;
  if (definition.type === 'number') {
    const number = Number(text);
    if (!Number.isFinite(number)) return { error: 'Enter a number.' };
    typed = number;
  }
  if (Array.isArray(definition.enum) && definition.enum.length > 0) {
    const chosen = definition.enum.find((option) => String(option) === text);
    if (chosen === undefined) return { error: 'Choose one of the listed options.' };
    typed = chosen;
  }
  if (controlFor(name, definition) === 'image' && !isHttpUrl(text)) return { error: 'Enter an http or https address, or upload an image.' };
  return { value: typed };
}

/** The problem with each field, by field name; an empty object when the values can be sent. */
export function validateValues(schema: InputSchema, values: FormValues): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, definition] of Object.entries(schema)) {
    const { error } = typedValue(name, definition, values[name]);
    if (error) errors[name] = error;
  }
  return errors;
}

/** The `input` object a task carries: typed values in schema order, empty optional fields left out. */
export function inputFromValues(schema: InputSchema, values: FormValues): Record<string, InputValue> {
  const input: Record<string, InputValue> = {};
  for (const [name, definition] of Object.entries(schema)) {
    const { value } = typedValue(name, definition, values[name]);
    if (value !== undefined) input[name] = value;
  }
  return input;
}

/** The server's rules for a task's own text (POST /v1/tasks). */
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;

export function validateTaskText(title: string, description: string): { title?: string; description?: string } {
  const errors: { title?: string; description?: string } = {};
  if (title.trim().length > TITLE_MAX) errors.title = `At most ${TITLE_MAX} characters.`;
  if (description.trim() === '') errors.description = 'Say what you need done.';
  else if (description.trim().length > DESCRIPTION_MAX) errors.description = `At most ${DESCRIPTION_MAX.toLocaleString('en-US')} characters.`;
  return errors;
}

/**
 * The server names a refused input field as `/body/input/<field>` (a task's input) or
 * `/input/<field>` (a required field extraction did not find): the field's name, or undefined.
 */
export function fieldOfPath(path: string): string | undefined {
  const match = /^(?:\/body)?\/input\/([^/]+)$/.exec(path);
  return match?.[1];
}
