/**
 * An agent's registration as the form holds it (text the person types), the server's rules for each
 * field, and the request bodies made from it. The rules are the registry's own: checking them as the
 * person types saves a round trip, and the server still has the last word.
 */
import { validateInputSchema, type InputSchema } from '../../../src/modules/registry/input-schema.ts';
import type { AgentChanges, Currency, NewAgentInput, OwnedAgent } from '../api/types';

export const protocolValues = ['mcp', 'a2a', 'rest', 'graphql', 'grpc', 'webhook', 'other'] as const;
export const authTypes = ['none', 'api_key', 'oauth2', 'bearer', 'custom'] as const;
export const currencies: Currency[] = ['usd', 'eur', 'gbp', 'cad', 'aud', 'nzd', 'chf', 'sek', 'nok', 'dkk', 'pln', 'sgd', 'hkd', 'mxn', 'brl'];
export type Protocol = (typeof protocolValues)[number];
export type AuthType = (typeof authTypes)[number];
export type Visibility = 'public' | 'org' | 'private';
export type DeliveryMode = 'webhook' | 'poll';

export interface AgentDraft {
  name: string;
  description: string;
  longDescription: string;
  endpoint: string;
  deliveryMode: DeliveryMode;
  protocols: Protocol[];
  categories: string[];
  capabilities: string[];
  tags: string[];
  docsUrl: string;
  manifestUrl: string;
  twitterUrl: string;
  authType: AuthType;
  version: string;
  visibility: Visibility;
  orgId: string;
  /** The price in units of the currency, as typed ("2.50"). */
  price: string;
  currency: Currency;
  /** JSON text; empty for none. */
  inputSchema: string;
}

export type DraftField = keyof AgentDraft;

export const emptyDraft: AgentDraft = {
  name: '',
  description: '',
  longDescription: '',
  endpoint: '',
  deliveryMode: 'poll',
  protocols: [],
  categories: [],
  capabilities: [],
  tags: [],
  docsUrl: '',
  manifestUrl: '',
  twitterUrl: '',
  authType: 'none',
  version: '',
  visibility: 'public',
  orgId: '',
  price: '0',
  currency: 'usd',
  inputSchema: '',
};

const asOneOf = <T extends string>(values: readonly T[], value: string, fallback: T): T =>
  (values as readonly string[]).includes(value) ? (value as T) : fallback;

export function draftOf(agent: OwnedAgent): AgentDraft {
  return {
    name: agent.name,
    description: agent.description,
    longDescription: agent.longDescription ?? '',
    endpoint: agent.endpoint ?? '',
    deliveryMode: agent.deliveryMode === 'webhook' ? 'webhook' : 'poll',
    protocols: agent.protocols.filter((p): p is Protocol => (protocolValues as readonly string[]).includes(p)),
    categories: agent.categories,
    capabilities: agent.capabilities,
    tags: agent.tags,
    docsUrl: agent.docsUrl ?? '',
    manifestUrl: agent.manifestUrl ?? '',
    twitterUrl: agent.twitterUrl ?? '',
    authType: asOneOf(authTypes, agent.authType, 'none'),
    version: agent.version,
    visibility: asOneOf(['public', 'org', 'private'] as const, agent.visibility, 'public'),
    orgId: agent.orgId ?? '',
    price: (agent.pricePerTaskCents / 100).toFixed(2),
    currency: asOneOf(currencies, agent.currency, 'usd'),
    inputSchema: agent.inputSchema ? JSON.stringify(JSON.parse(agent.inputSchema), null, 2) : '',
  };
}

const categoryPattern = /^[a-z0-9-]{1,40}$/;
const semver = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const priceText = /^\d+(\.\d{1,2})?$/;
const MAX_PRICE_CENTS = 100_000_000;

/** Characters as the server counts them (code points). */
const length = (text: string) => [...text].length;

export function urlProblem(text: string): string | null {
  if (!text) return null;
  if (text.length > 2048) return 'At most 2048 characters';
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Must start with http:// or https://';
  } catch {
    return 'Must be a full address, such as https://example.com/tasks';
  }
  return /^https?:\/\//.test(text) ? null : 'Must start with http:// or https://';
}

export function categoryProblem(slug: string): string | null {
  return categoryPattern.test(slug) ? null : 'Categories are 1-40 lowercase letters, digits or hyphens';
}

export function termProblem(term: string): string | null {
  return length(term) > 60 ? 'Each is at most 60 characters' : null;
}

export function priceCents(price: string): number | null {
  if (!priceText.test(price.trim())) return null;
  const [units = '0', cents = ''] = price.trim().split('.');
  return Number(units) * 100 + Number(cents.padEnd(2, '0'));
}

export type SchemaCheck = { schema: InputSchema | null; problems: { path: string; message: string }[] };

/** The input schema text checked with the registry's own rules; an empty text is no schema. */
export function checkInputSchema(text: string): SchemaCheck {
  if (!text.trim()) return { schema: null, problems: [] };
  try {
    JSON.parse(text);
  } catch (error) {
    return { schema: null, problems: [{ path: '', message: `This is not valid JSON: ${(error as Error).message}` }] };
  }
  const checked = validateInputSchema(text, '');
  if ('problems' in checked) return { schema: null, problems: checked.problems };
  return { schema: checked.schema, problems: [] };
}

/** Problems by field, with the server's rules. Empty when the draft may be sent. */
export function draftProblems(draft: AgentDraft): Partial<Record<DraftField, string>> {
  const problems: Partial<Record<DraftField, string>> = {};
  const fromManifest = draft.manifestUrl.trim() !== '';
  if (!draft.name.trim() && !fromManifest) problems.name = 'Give the agent a name';
  else if (length(draft.name) > 100) problems.name = 'At most 100 characters';
  if (!draft.description.trim() && !fromManifest) problems.description = 'Say in a sentence what the agent does';
  else if (length(draft.description) > 1000) problems.description = 'At most 1000 characters';
  if (length(draft.longDescription) > 20000) problems.longDescription = 'At most 20,000 characters';
  for (const field of ['endpoint', 'docsUrl', 'manifestUrl', 'twitterUrl'] as const) {
    const problem = urlProblem(draft[field].trim());
    if (problem) problems[field] = problem;
  }
  if (draft.deliveryMode === 'webhook' && !draft.endpoint.trim()) problems.endpoint = 'Webhook delivery needs an endpoint; without one the agent polls';
  if (draft.protocols.length === 0 && !fromManifest) problems.protocols = 'Choose at least one protocol';
  if (draft.categories.length === 0) problems.categories = 'Choose at least one category';
  else if (draft.categories.length > 10) problems.categories = 'At most 10 categories';
  else {
    const bad = draft.categories.map(categoryProblem).find(Boolean);
    if (bad) problems.categories = bad;
  }
  for (const field of ['capabilities', 'tags'] as const) {
    if (draft[field].length > 50) problems[field] = 'At most 50';
    else {
      const bad = draft[field].map(termProblem).find(Boolean);
      if (bad) problems[field] = bad;
    }
  }
  if (draft.version.trim() && !semver.test(draft.version.trim())) problems.version = 'A semantic version, such as 1.2.0';
  if (draft.visibility === 'org' && !draft.orgId.trim()) problems.orgId = 'Give the organization’s id';
  const cents = priceCents(draft.price);
  if (cents === null) problems.price = 'An amount such as 0, 2 or 2.50';
  else if (cents > MAX_PRICE_CENTS) problems.price = 'At most 1,000,000.00';
  const schema = checkInputSchema(draft.inputSchema);
  if (schema.problems.length > 0) problems.inputSchema = schema.problems.map((p) => (p.path ? `${p.path.slice(1)}: ${p.message}` : p.message)).join('; ');
  return problems;
}

const optionalText = (text: string) => (text.trim() ? text.trim() : undefined);

/** The body of `POST /v1/agents`: every field the person filled in. */
export function registrationBody(draft: AgentDraft): NewAgentInput {
  const body: NewAgentInput = {
    name: optionalText(draft.name),
    description: optionalText(draft.description),
    longDescription: optionalText(draft.longDescription),
    endpoint: optionalText(draft.endpoint),
    deliveryMode: draft.deliveryMode,
    protocols: draft.protocols.length ? draft.protocols : undefined,
    categories: draft.categories,
    capabilities: draft.capabilities.length ? draft.capabilities : undefined,
    tags: draft.tags.length ? draft.tags : undefined,
    docsUrl: optionalText(draft.docsUrl),
    manifestUrl: optionalText(draft.manifestUrl),
    twitterUrl: optionalText(draft.twitterUrl),
    authType: draft.authType,
    version: optionalText(draft.version),
    visibility: draft.visibility,
    orgId: draft.visibility === 'org' ? optionalText(draft.orgId) : undefined,
    pricePerTaskCents: priceCents(draft.price) ?? 0,
    currency: draft.currency,
    inputSchema: optionalText(draft.inputSchema),
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as NewAgentInput;
}

/** The body of `PATCH /v1/agents/:id`: only what changed; an emptied optional field is cleared (null). */
export function changesBody(before: AgentDraft, after: AgentDraft): AgentChanges {
  const changes: Record<string, unknown> = {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const nullable = ['longDescription', 'endpoint', 'docsUrl', 'manifestUrl', 'twitterUrl'] as const;
  for (const field of ['name', 'description', 'version', ...nullable] as const) {
    if (before[field].trim() === after[field].trim()) continue;
    changes[field] = after[field].trim() || ((nullable as readonly string[]).includes(field) ? null : after[field].trim());
  }
  for (const field of ['deliveryMode', 'protocols', 'categories', 'capabilities', 'tags', 'authType', 'visibility', 'currency'] as const) {
    if (!same(before[field], after[field])) changes[field] = after[field];
  }
  const orgId = after.visibility === 'org' ? after.orgId.trim() || null : null;
  if (orgId !== (before.orgId.trim() || null)) changes.orgId = orgId;
  const cents = priceCents(after.price);
  if (cents !== null && cents !== priceCents(before.price)) changes.pricePerTaskCents = cents;
  if (after.inputSchema.trim() !== before.inputSchema.trim()) changes.inputSchema = after.inputSchema.trim() || null;
  return changes as AgentChanges;
}
