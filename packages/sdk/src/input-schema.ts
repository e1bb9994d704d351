/**
 * An agent's input schema, as the service takes it (field name -> definition), typed so that the
 * input a handler receives is derived from it, and checked the way the service checks a task's input.
 */

export interface InputField {
  type: 'string' | 'number' | 'boolean';
  required?: boolean;
  description?: string;
  enum?: readonly (string | number | boolean)[];
  default?: string | number | boolean;
}
export type InputSchema = Readonly<Record<string, InputField>>;

type FieldValue<F extends InputField> = F extends { enum: readonly (infer E)[] }
  ? E
  : F['type'] extends 'string'
    ? string
    : F['type'] extends 'number'
      ? number
      : boolean;
/** Only a required field is sure to be there: a structured input is delivered as the requester gave it. */
type Present<F> = F extends { required: true } ? true : false;

/** The input object a schema describes, e.g. `{ text: string; loud?: boolean }`. */
export type InputOf<S extends InputSchema> = {
  [K in keyof S as Present<S[K]> extends true ? K : never]: FieldValue<S[K]>;
} & {
  [K in keyof S as Present<S[K]> extends true ? never : K]?: FieldValue<S[K]>;
} extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

/** A schema carrying the input type it describes; `AgentRunner` derives its handler's input from it. */
export type TypedInputSchema<TInput> = InputSchema & { readonly __input?: TInput };

/**
 * Declares an input schema: `inputSchema({ text: { type: 'string', required: true } })` is the schema,
 * typed so that a runner given it hands its handler `{ text: string }`.
 */
export function inputSchema<const S extends InputSchema>(schema: S): S & TypedInputSchema<InputOf<S>> {
  return schema as S & TypedInputSchema<InputOf<S>>;
}

/**
 * The problems of an input against a schema, each as "<field>: <what is wrong>": a required field
 * without a default missing, a value of the wrong type or outside the field's enum. Fields the schema
 * does not define pass, as at the service.
 */
export function checkInput(schema: InputSchema, input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return ['input: must be an object'];
  const record = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, field] of Object.entries(schema)) {
    const value = record[name];
    if (value === undefined || value === null) {
      if (field.required && field.default === undefined) problems.push(`${name}: is required`);
      continue;
    }
    if (typeof value !== field.type || (field.type === 'number' && !Number.isFinite(value))) problems.push(`${name}: must be a ${field.type}`);
    else if (field.enum && !field.enum.includes(value as string | number | boolean))
      problems.push(`${name}: must be one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  return problems;
}
