/**
 * Request inputs derived from a route's declared schemas (the app's `routes` table): valid ones, so
 * generated requests get past validation into handlers and the database, and hostile ones (wrong
 * types, huge numbers, deep nesting, NUL, lone surrogates, long strings, unknown fields, malformed
 * query strings). Used by the fuzz test and the authorization sweep.
 *
 * Valid path parameters are placeholders: the caller substitutes real ids where it has them.
 */
import fc from 'fast-check';
import type { RouteEntry } from '../../src/http/route-table.ts';

/** A JSON Schema as TypeBox writes it; only the keywords the routes use are read. */
export type JsonSchema = Record<string, unknown>;

export interface RouteInput {
  params: Record<string, string>;
  /** Repeated keys as arrays, as a route declaring an array reads them. */
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** undefined: no body sent. */
  body: unknown;
}

/** A request that may not be expressible as values: raw query text, raw body text. */
export interface HostileInput {
  params: Record<string, string>;
  /** Sent exactly as given after `?` (already encoded); null: built from `query`. */
  rawQuery: string | null;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string };
  /** What was made hostile, for the failure message. */
  mutation: string;
}

const schemaPart = (route: RouteEntry, part: 'params' | 'querystring' | 'headers' | 'body'): JsonSchema | undefined =>
  (route.schema as Record<string, JsonSchema | undefined> | undefined)?.[part];

const typesOf = (schema: JsonSchema): string[] => {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  return typeof type === 'string' ? [type] : [];
};

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Code points, as Ajv counts minLength and maxLength. */
const codePoints = (text: string): number => [...text].length;

/**
 * URL hosts that never resolve to anything (the reserved .test domain): a generated endpoint or
 * avatar must not make the service dial the internet.
 */
const httpUrl = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('http', 'https'), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.webPath())
    .map(([scheme, host, path]) => `${scheme}://${host}.example.test${path}`)
    .filter((url) => url.length <= maxLength);

/** Strings matching each pattern, built once per pattern: parsing a pattern into a generator costs 1-30 ms, a sample far less. */
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();

function matching(pattern: string): fc.Arbitrary<string> {
  let arbitrary = patternArbitraries.get(pattern);
  if (!arbitrary) patternArbitraries.set(pattern, (arbitrary = fc.stringMatching(new RegExp(pattern))));
  return arbitrary;
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = num(schema.maxLength) ?? 200;
  const fits = (text: string) => {
    const n = codePoints(text);
    return n >= minLength && n <= maxLength;
  };
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.stringMatching(/^[a-z0-9]{1,20}(\.[a-z0-9]{1,10})?@[a-z]{1,12}\.test$/).filter(fits);
    case 'uri':
      return httpUrl(maxLength).filter(fits);
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (typeof schema.pattern === 'string') return matching(schema.pattern).filter(fits);
  // Mostly readable text, sometimes any Unicode scalar values (never lone surrogates or NUL: those are hostile).
  const cap = Math.min(maxLength, minLength + 40);
  const key = `${minLength}-${cap}`;
  let text = textArbitraries.get(key);
  if (!text)
    textArbitraries.set(
      key,
      (text = fc
        .oneof(
          { weight: 3, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme-ascii' }) },
          { weight: 1, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme' }) },
        )
        .map((text) => text.replace(/\0/g, 'x'))),
    );
  return text.filter((text) => fits(text) && text.trim() !== '');
}

/** Free text by length bounds, built once per bounds: a grapheme generator builds a table of every grapheme. */
const textArbitraries = new Map<string, fc.Arbitrary<string>>();

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? num(schema.exclusiveMinimum)! + 1 : -1_000_000);
  const max = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? num(schema.exclusiveMaximum)! - 1 : 1_000_000);
  return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
}

function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = num(schema.minimum) ?? -1e6;
  const max = num(schema.maximum) ?? 1e6;
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
}

/** Any JSON value, shallow and small, for schemas that accept anything. */
export const anyJson = (): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0 && schema.additionalProperties !== false) {
    return fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/), anyJson(), { maxKeys: 5 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = valueArbitrary(properties[name]!);
  // A property with a default may be left out: validation fills it in.
  const requiredKeys = names.filter((name) => required.has(name) && properties[name]!.default === undefined);
  let arbitrary = fc.record(record, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
  const minProperties = num(schema.minProperties);
  if (minProperties !== undefined) arbitrary = arbitrary.filter((value) => Object.keys(value).length >= minProperties);
  return arbitrary;
}

/**
 * `allOf: [{ if: { properties: { kind: { const: k } } }, then: {...} }, ...]` (a body whose shape
 * depends on one field): one branch is chosen and merged into the object's own properties.
 */
function conditionalObjectArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  const branches = (schema.allOf as JsonSchema[]).filter((part) => part.if && part.then);
  const { allOf: _allOf, ...base } = schema;
  if (branches.length === 0) return objectArbitrary(base);
  return fc.oneof(
    ...branches.map((branch) => {
      const condition = ((branch.if as JsonSchema).properties ?? {}) as Record<string, JsonSchema>;
      const then = ((branch.then as JsonSchema).properties ?? {}) as Record<string, JsonSchema>;
      const properties = { ...(base.properties as Record<string, JsonSchema>), ...condition, ...then };
      return objectArbitrary({ ...base, properties });
    }),
  );
}

/** Values valid against `schema`. */
export function valueArbitrary(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  if (!schema || Object.keys(schema).every((key) => key === 'description' || key === 'title')) return anyJson();
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((branch) => valueArbitrary(branch)));
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as JsonSchema[]).map((branch) => valueArbitrary(branch)));
  if (Array.isArray(schema.allOf)) return conditionalObjectArbitrary(schema);
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => valueArbitrary({ ...schema, type })));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = valueArbitrary(schema.items as JsonSchema | undefined);
      const minLength = num(schema.minItems) ?? 0;
      const maxLength = Math.min(num(schema.maxItems) ?? 10, minLength + 5);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(schema);
    default:
      return anyJson();
  }
}

/** Query strings and headers carry text: numbers and booleans as their JSON spelling. */
const asText = (value: unknown): string | string[] =>
  Array.isArray(value) ? value.map((item) => String(item)) : typeof value === 'string' ? value : JSON.stringify(value);

function textRecordArbitrary(schema: JsonSchema | undefined, printableOnly: boolean): fc.Arbitrary<Record<string, string | string[]>> {
  if (!schema) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const textSchema = printableOnly
    ? Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          property.type === 'string' && !property.format && !property.pattern
            ? { ...property, pattern: `^[!-~]{${Math.max(1, num(property.minLength) ?? 1)},${Math.min(60, num(property.maxLength) ?? 60)}}$` }
            : property,
        ]),
      )
    : properties;
  return objectArbitrary({ ...schema, properties: textSchema }).map((record) =>
    Object.fromEntries(
      Object.entries(record)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, asText(v)]),
    ),
  );
}

/** Placeholder path parameters: readable ids the caller replaces with real ones where it has them. */
function paramsArbitrary(route: RouteEntry): fc.Arbitrary<Record<string, string>> {
  const schema = schemaPart(route, 'params');
  const names = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const record: Record<string, fc.Arbitrary<string>> = {};
  for (const name of names) {
    const property = properties[name] ?? { type: 'string', minLength: 1, maxLength: 100 };
    record[name] = property.format ? (valueArbitrary(property) as fc.Arbitrary<string>) : fc.stringMatching(/^[A-Za-z0-9_-]{1,36}$/);
  }
  return fc.record(record);
}

export interface ValidArbitraries {
  params: fc.Arbitrary<Record<string, string>>;
  query: fc.Arbitrary<Record<string, string | string[]>>;
  headers: fc.Arbitrary<Record<string, string>>;
  /** Always produces undefined for a route without a body schema. */
  body: fc.Arbitrary<unknown>;
}

/** Arbitraries of inputs valid against the route's declared params, querystring, headers and body. */
export function validArbitraries(route: RouteEntry): ValidArbitraries {
  const body = schemaPart(route, 'body');
  return {
    params: paramsArbitrary(route),
    query: textRecordArbitrary(schemaPart(route, 'querystring'), false),
    headers: textRecordArbitrary(schemaPart(route, 'headers'), true) as fc.Arbitrary<Record<string, string>>,
    body: body ? valueArbitrary(body) : fc.constant(undefined),
  };
}

/** One valid request for the route, as an arbitrary. */
/** Each route's arbitrary, built once: building one (its patterns parsed into generators) costs far more than a sample. */
const validRequests = new WeakMap<RouteEntry, fc.Arbitrary<RouteInput>>();

export function validRequest(route: RouteEntry): fc.Arbitrary<RouteInput> {
  let arbitrary = validRequests.get(route);
  if (!arbitrary) {
    const a = validArbitraries(route);
    arbitrary = fc.record({ params: a.params, query: a.query, headers: a.headers, body: a.body });
    validRequests.set(route, arbitrary);
  }
  return arbitrary;
}

/** One deterministic valid request for the route: the same seed gives the same request. */
export function sampleValidRequest(route: RouteEntry, seed: number): RouteInput {
  return fc.sample(validRequest(route), { seed, numRuns: 1 })[0]!;
}

/** Encodes one query component; lone surrogates, which encodeURIComponent refuses, as the UTF-8 of U+FFFD. */
export function encodeComponent(text: string): string {
  return encodeURIComponent(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}

export function queryString(query: Record<string, string | string[]>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) parts.push(`${encodeComponent(key)}=${encodeComponent(item)}`);
  }
  return parts.join('&');
}

/** The route's URL with its params substituted and its query appended. */
export function urlOf(
  route: RouteEntry,
  input: { params: Record<string, string>; query?: Record<string, string | string[]>; rawQuery?: string | null },
): string {
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeComponent(input.params[name] ?? 'x'));
  const query = input.rawQuery ?? (input.query ? queryString(input.query) : '');
  return query === '' ? path : `${path}?${query}`;
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs

/** JSON text nested `depth` levels deep, objects and arrays mixed. */
export const deepJsonText = (depth: number, kind: 'array' | 'object' = 'array'): string =>
  kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** A value nested `depth` levels deep (built without recursion). */
export function deepValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** Strings meant to break text handling: NUL, lone surrogates, very long, control and odd Unicode. */
const buildHostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '\u0000',
      'a\u0000b',
      '\uD800',
      'x\uDFFFy',
      '\uDBFF\u0000',
      '',
      ' ',
      '\t\n',
      '%00',
      '\\u0000',
      '\uFEFF',
      '\u202E',
      '../../etc/passwd',
      "' OR 1=1 --",
      '%',
      '%%',
      '_',
      '\\',
      '"',
      '<script>',
      'null',
      'true',
      '0',
      '-1',
      '1e309',
      'NaN',
    ),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: fc.constantFrom('\u0000', '\uD800', '\uDC00', 'a', '\u00e9', '\uFFFF'), maxLength: 10 }),
    fc.integer({ min: 1, max: 20 }).map((kb) => 'x'.repeat(kb * 1024)),
    fc.integer({ min: 101, max: 2000 }).map((n) => 'é'.repeat(n)),
  );

/** Numbers at and past every edge, as values. */
const buildHostileNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constantFrom(
      0,
      -0,
      -1,
      1e20,
      -1e20,
      1e308,
      -1e308,
      5e-324,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 63),
      2 ** 64,
      0.5,
      1.5,
      Number.MAX_SAFE_INTEGER,
      2 ** 31,
      -(2 ** 31) - 1,
    ),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
  );

/** Number spellings for query strings that a strict parser refuses. */
const buildHostileNumberText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '1e20',
      '1e1',
      '0x10',
      '0b1',
      '0o7',
      ' 5',
      '5 ',
      '+5',
      '-0',
      '05',
      '1.0',
      '1.5',
      '',
      'NaN',
      'Infinity',
      '-Infinity',
      '99999999999999999999',
      '9007199254740993',
      'true',
      'null',
      '[]',
      '1,2',
      '１',
      '٣',
    ),
    hostileNumber().map(String),
  );

/**
 * A JSON value of any type, sometimes huge. Deep nesting comes as text (see hostileRequest): a
 * value thousands of levels deep would overflow JSON.stringify before it could be sent.
 */
const buildHostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.oneof(fc.constant(null), fc.boolean(), hostileNumber(), hostileString()) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(60, 64).map((depth) => deepValue(depth)) },
    { weight: 1, arbitrary: fc.constantFrom([], {}, [null], { __proto__x: 1 }, { constructor: { prototype: {} } }) },
  );

const DEEP_PLACEHOLDER = '\u0000deep\u0000';

/** Raw body texts: malformed or extreme JSON. */
const buildHostileBodyText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      '',
      '{',
      '}',
      '[',
      'null',
      'true',
      '0',
      '"x"',
      '[]',
      '{"a":1,"a":2}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"a":1e400}',
      '\u0000',
      '{"a":"\\u0000"}',
      '{"a":"\\ud800"}',
      'nul',
      '{"a":NaN}',
    ),
    fc.constantFrom(65, 100, 5000, 20000).chain((depth) => fc.constantFrom(deepJsonText(depth, 'array'), deepJsonText(depth, 'object'))),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

/** Paths into an object value's properties (one level; enough to reach every declared field). */
function propertyNames(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const names = new Set(Object.keys((schema.properties ?? {}) as object));
  for (const part of (schema.allOf ?? []) as JsonSchema[]) {
    for (const name of Object.keys(((part.then as JsonSchema | undefined)?.properties ?? {}) as object)) names.add(name);
  }
  return [...names];
}

function withField(body: unknown, name: string, value: unknown): unknown {
  const base = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
  return { ...(base as object), [name]: value };
}

function withoutField(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  delete copy[name];
  return copy;
}

/**
 * Hostile requests for a route: a valid one with one part made wrong, so each reaches as deep as
 * the one mutation allows.
 */
export function hostileRequest(route: RouteEntry): fc.Arbitrary<HostileInput> {
  const bodySchema = schemaPart(route, 'body');
  const querySchema = schemaPart(route, 'querystring');
  const bodyFields = propertyNames(bodySchema);
  const queryFields = [...propertyNames(querySchema), 'limit', 'offset', 'unknown'];
  const paramNames = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

  const mutations: fc.Arbitrary<(input: RouteInput) => HostileInput>[] = [];
  const from = (input: RouteInput, mutation: string, change: Partial<HostileInput>): HostileInput => ({
    params: input.params,
    rawQuery: null,
    query: input.query,
    headers: input.headers,
    body: input.body === undefined ? { kind: 'none' } : { kind: 'json', value: input.body },
    mutation,
    ...change,
  });

  if (paramNames.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...paramNames), hostileString()).map(
        ([name, value]) =>
          (input: RouteInput) =>
            from(input, `param ${name}`, { params: { ...input.params, [name]: value } }),
      ),
    );
  }
  mutations.push(
    fc.tuple(fc.constantFrom(...queryFields), fc.oneof(hostileNumberText(), hostileString())).map(
      ([name, value]) =>
        (input: RouteInput) =>
          from(input, `query ${name}`, { query: { ...input.query, [name]: value } }),
    ),
    fc
      .tuple(fc.constantFrom(...queryFields), fc.constantFrom('repeat', 'brackets', 'bare', 'empty-key', 'encoded-nul'))
      .map(([name, shape]) => (input: RouteInput) => {
        const rest = Object.entries(input.query).filter(([key]) => key !== name);
        const base = rest.map(([key, value]) => `${encodeComponent(key)}=${encodeComponent(Array.isArray(value) ? value[0]! : value)}`);
        const extra = { repeat: `${name}=1&${name}=2`, brackets: `${name}[]=1`, bare: name, 'empty-key': '=1', 'encoded-nul': `${name}=%00` }[shape];
        return from(input, `query ${name} ${shape}`, { rawQuery: [...base, extra].join('&') });
      }),
  );
  mutations.push(
    fc.tuple(hostileBodyText()).map(
      ([text]) =>
        (input: RouteInput) =>
          from(input, 'raw body', { body: { kind: 'raw', text } }),
    ),
    hostileValue().map((value) => (input: RouteInput) => from(input, 'body replaced', { body: { kind: 'json', value } })),
    fc.tuple(matching('^[a-zA-Z_$][a-zA-Z0-9_]{0,10}$'), hostileValue()).map(
      ([name, value]) =>
        (input: RouteInput) =>
          from(input, `unknown field ${name}`, { body: { kind: 'json', value: withField(input.body, name, value) } }),
    ),
  );
  if (bodyFields.length > 0) {
    mutations.push(
      fc.tuple(fc.constantFrom(...bodyFields), hostileValue()).map(
        ([name, value]) =>
          (input: RouteInput) =>
            from(input, `body ${name}`, { body: { kind: 'json', value: withField(input.body, name, value) } }),
      ),
      fc
        .constantFrom(...bodyFields)
        .map((name) => (input: RouteInput) => from(input, `body without ${name}`, { body: { kind: 'json', value: withoutField(input.body, name) } })),
      fc
        .tuple(fc.constantFrom(...bodyFields), fc.constantFrom(63, 65, 1000, 5000, 20000), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([name, depth, kind]) => (input: RouteInput) => {
          const text = JSON.stringify(withField(input.body, name, DEEP_PLACEHOLDER)).replace(JSON.stringify(DEEP_PLACEHOLDER), deepJsonText(depth, kind));
          return from(input, `body ${name} nested ${depth} deep`, { body: { kind: 'raw', text } });
        }),
    );
  }
  return fc.tuple(validRequest(route), fc.oneof(...mutations)).map(([input, mutate]) => mutate(input));
}

/** Builds an arbitrary on first use and keeps it: building costs far more than drawing from it. */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

export const hostileNumber = once(buildHostileNumber);
export const hostileString = once(buildHostileString);
export const hostileNumberText = once(buildHostileNumberText);
export const hostileValue = once(buildHostileValue);
export const hostileBodyText = once(buildHostileBodyText);
