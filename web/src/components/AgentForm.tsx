import { useMemo, useState, type ReactNode } from 'react';
import { capabilityClassOf, catalogueFinder } from '../../../src/modules/catalog/class-names.ts';
import type { ApiError } from '../api/client';
import { useCatalogue } from '../catalogue';
import { authTypes, currencies, draftProblems, protocolValues, type AgentDraft, type DraftField } from '../lib/agent-rules';
import { InputSchemaEditor } from './InputSchemaEditor';
import { TermsInput } from './TermsInput';

/** Where the server names a draft field in `details[].path`. */
const bodyField: Partial<Record<DraftField, string>> = { price: 'pricePerTaskCents' };

/** The server's message for a field: its own path or anything inside it (`/body/inputSchema/size/default`). */
export function serverMessage(error: ApiError | null, field: DraftField): string | undefined {
  if (!error) return undefined;
  const path = `/body/${bodyField[field] ?? field}`;
  const found = error.details.filter((d) => d.path === path || d.path.startsWith(`${path}/`));
  return found.length ? found.map((d) => (d.path === path ? d.message : `${d.path.slice(path.length + 1)}: ${d.message}`)).join('; ') : undefined;
}

/** True when the server's refusal names none of the form's fields: it is shown above the form instead. */
export function isGeneralError(error: ApiError, fields: DraftField[]): boolean {
  return fields.every((field) => serverMessage(error, field) === undefined);
}

export const draftFields = Object.keys({
  name: 0,
  description: 0,
  longDescription: 0,
  endpoint: 0,
  deliveryMode: 0,
  protocols: 0,
  categories: 0,
  capabilities: 0,
  tags: 0,
  docsUrl: 0,
  manifestUrl: 0,
  twitterUrl: 0,
  authType: 0,
  version: 0,
  visibility: 0,
  orgId: 0,
  price: 0,
  currency: 0,
  inputSchema: 0,
} satisfies Record<DraftField, 0>) as DraftField[];

const protocolLabels: Record<(typeof protocolValues)[number], string> = {
  mcp: 'MCP',
  a2a: 'A2A',
  rest: 'REST',
  graphql: 'GraphQL',
  grpc: 'gRPC',
  webhook: 'Webhook',
  other: 'Other',
};

const authLabels: Record<(typeof authTypes)[number], string> = {
  none: 'None',
  api_key: 'API key',
  oauth2: 'OAuth 2',
  bearer: 'Bearer token',
  custom: 'Custom',
};

/**
 * Every field of an agent's registration, checked as the person types with the server's rules; the
 * server's refusal is shown under the field it names. Used to register an agent and to edit one.
 */
export function AgentFields({
  draft,
  onChange,
  serverError,
  showAll,
  mode,
}: {
  draft: AgentDraft;
  onChange: (patch: Partial<AgentDraft>) => void;
  serverError: ApiError | null;
  /** After a submit, every problem shows, not only those of fields the person has touched. */
  showAll: boolean;
  mode: 'create' | 'edit';
}) {
  const catalogue = useCatalogue();
  const findCapability = useMemo(() => catalogueFinder(catalogue.data?.data ?? []), [catalogue.data]);
  // The class the service gives this agent's tasks when their requester names none (its first capability's).
  const trustClass = catalogue.data && draft.capabilities[0] !== undefined ? capabilityClassOf(draft.capabilities[0], findCapability) : null;
  const [touched, setTouched] = useState<Set<DraftField>>(new Set());
  const touch = (field: DraftField) => setTouched((before) => (before.has(field) ? before : new Set(before).add(field)));
  const problems = draftProblems(draft);
  const messageOf = (field: DraftField) => serverMessage(serverError, field) ?? (showAll || touched.has(field) ? problems[field] : undefined);
  const set = <F extends DraftField>(field: F, value: AgentDraft[F]) => {
    touch(field);
    const patch = { [field]: value } as Partial<AgentDraft>;
    // Until the person picks a delivery mode, it follows the endpoint as the server's default does.
    if (field === 'endpoint' && mode === 'create' && !touched.has('deliveryMode')) patch.deliveryMode = String(value).trim() ? 'webhook' : 'poll';
    onChange(patch);
  };
  const message = (field: DraftField, hint?: ReactNode) => {
    const text = messageOf(field);
    return (
      <p id={`agent-${field}-message`} className={text ? 'field-error' : 'field-hint'}>
        {text ?? hint}
      </p>
    );
  };
  const a11y = (field: DraftField) => ({ 'aria-describedby': `agent-${field}-message`, 'aria-invalid': Boolean(messageOf(field)) });
  const text = (
    field: 'name' | 'description' | 'endpoint' | 'docsUrl' | 'manifestUrl' | 'twitterUrl' | 'version' | 'orgId',
    label: string,
    hint?: ReactNode,
    extra: { type?: string; placeholder?: string } = {},
  ) => (
    <div className="field">
      <label htmlFor={`agent-${field}`}>{label}</label>
      <input id={`agent-${field}`} value={draft[field]} onChange={(e) => set(field, e.target.value)} onBlur={() => touch(field)} {...extra} {...a11y(field)} />
      {message(field, hint)}
    </div>
  );
  const catalogueCategories = catalogue.data?.categories ?? [];

  return (
    <>
      <fieldset className="form-section">
        <legend>About</legend>
        {text(
          'name',
          'Name',
          mode === 'edit' ? 'Its address stays the same when you rename it.' : 'People pick an agent by its name; it also makes its address.',
        )}
        <div className="field">
          <label htmlFor="agent-description">One-line description</label>
          <input
            id="agent-description"
            value={draft.description}
            onChange={(e) => set('description', e.target.value)}
            onBlur={() => touch('description')}
            {...a11y('description')}
          />
          {message('description', 'What it does, in a sentence. Shown on its card.')}
        </div>
        <div className="field">
          <label htmlFor="agent-longDescription">Long description (markdown, optional)</label>
          <textarea
            id="agent-longDescription"
            rows={6}
            value={draft.longDescription}
            onChange={(e) => set('longDescription', e.target.value)}
            {...a11y('longDescription')}
          />
          {message('longDescription', 'Shown on its page: what it is good at, formats, limits.')}
        </div>
        {text('version', 'Version (optional)', 'A semantic version, such as 1.2.0.', { placeholder: '1.0.0' })}
      </fieldset>

      <fieldset className="form-section">
        <legend>How it gets tasks</legend>
        {text('endpoint', 'Endpoint (optional)', 'Where tasks are sent by webhook. Leave it empty for an agent that polls for them.', {
          type: 'url',
          placeholder: 'https://',
        })}
        <div className="field" role="radiogroup" aria-labelledby="agent-deliveryMode-label" aria-describedby="agent-deliveryMode-message">
          <span id="agent-deliveryMode-label" className="label">
            Delivery
          </span>
          <label className="checkbox">
            <input
              type="radio"
              name="deliveryMode"
              value="webhook"
              checked={draft.deliveryMode === 'webhook'}
              onChange={() => set('deliveryMode', 'webhook')}
            />{' '}
            Webhook: tasks are sent to the endpoint, signed with a secret
          </label>
          <label className="checkbox">
            <input type="radio" name="deliveryMode" value="poll" checked={draft.deliveryMode === 'poll'} onChange={() => set('deliveryMode', 'poll')} /> Poll:
            the agent asks for its tasks
          </label>
          {message('deliveryMode')}
        </div>
        <fieldset className="field checkbox-group" aria-describedby="agent-protocols-message">
          <legend className="label">Protocols</legend>
          <div className="checkbox-row">
            {protocolValues.map((protocol) => (
              <label key={protocol} className="checkbox">
                <input
                  type="checkbox"
                  checked={draft.protocols.includes(protocol)}
                  onChange={(e) => set('protocols', e.target.checked ? [...draft.protocols, protocol] : draft.protocols.filter((p) => p !== protocol))}
                />{' '}
                {protocolLabels[protocol]}
              </label>
            ))}
          </div>
          {message('protocols', 'What the agent speaks.')}
        </fieldset>
        <div className="field">
          <label htmlFor="agent-authType">Authentication</label>
          <select id="agent-authType" value={draft.authType} onChange={(e) => set('authType', e.target.value as AgentDraft['authType'])} {...a11y('authType')}>
            {authTypes.map((t) => (
              <option key={t} value={t}>
                {authLabels[t]}
              </option>
            ))}
          </select>
          {message('authType', 'What callers of the agent itself must present.')}
        </div>
        {text(
          'manifestUrl',
          'Manifest URL (optional)',
          'An A2A agent card or MCP server.json: name, description, capabilities and protocols left empty here are read from it.',
          { type: 'url', placeholder: 'https://' },
        )}
      </fieldset>

      <fieldset className="form-section">
        <legend>What it does</legend>
        <fieldset className="field checkbox-group" aria-describedby="agent-categories-message">
          <legend className="label">Categories</legend>
          <div className="checkbox-grid">
            {catalogueCategories.map((category) => (
              <label key={category.slug} className="checkbox">
                <input
                  type="checkbox"
                  checked={draft.categories.includes(category.slug)}
                  onChange={(e) =>
                    set('categories', e.target.checked ? [...draft.categories, category.slug] : draft.categories.filter((c) => c !== category.slug))
                  }
                />{' '}
                {category.name}
              </label>
            ))}
          </div>
          {message('categories', 'One to ten, from the catalogue.')}
        </fieldset>
        <TermsInput
          id="agent-capabilities"
          label="Capabilities"
          values={draft.capabilities}
          onChange={(values) => set('capabilities', values)}
          suggestions={(catalogue.data?.data ?? []).map((c) => ({ value: c.slug, label: c.name }))}
          describedBy="agent-capabilities-message"
          invalid={Boolean(messageOf('capabilities'))}
          message={message(
            'capabilities',
            <>
              What tasks it takes; the catalogue’s names are suggested as you type, so people and routing find it.
              {trustClass && (
                <>
                  {' '}
                  Trust for this agent will be counted under <span className="mono">{trustClass}</span>, the class of its first capability.
                </>
              )}
            </>,
          )}
        />
        <TermsInput
          id="agent-tags"
          label="Tags"
          values={draft.tags}
          onChange={(values) => set('tags', values)}
          describedBy="agent-tags-message"
          invalid={Boolean(messageOf('tags'))}
          message={message('tags', 'Free words that help search.')}
        />
      </fieldset>

      <fieldset className="form-section">
        <legend>Input</legend>
        <InputSchemaEditor
          value={draft.inputSchema}
          onChange={(value) => set('inputSchema', value)}
          message={serverMessage(serverError, 'inputSchema') ?? problems.inputSchema ?? null}
        />
      </fieldset>

      <fieldset className="form-section">
        <legend>Price and visibility</legend>
        <div className="field-grid">
          <div className="field">
            <label htmlFor="agent-price">Price per task</label>
            <input
              id="agent-price"
              inputMode="decimal"
              value={draft.price}
              onChange={(e) => set('price', e.target.value)}
              onBlur={() => touch('price')}
              {...a11y('price')}
            />
            {message('price', '0 is free. Charged only when a task completes.')}
          </div>
          <div className="field">
            <label htmlFor="agent-currency">Currency</label>
            <select
              id="agent-currency"
              value={draft.currency}
              onChange={(e) => set('currency', e.target.value as AgentDraft['currency'])}
              {...a11y('currency')}
            >
              {currencies.map((c) => (
                <option key={c} value={c}>
                  {c.toUpperCase()}
                </option>
              ))}
            </select>
            {message('currency')}
          </div>
        </div>
        <div className="field">
          <label htmlFor="agent-visibility">Visibility</label>
          <select
            id="agent-visibility"
            value={draft.visibility}
            onChange={(e) => set('visibility', e.target.value as AgentDraft['visibility'])}
            {...a11y('visibility')}
          >
            <option value="public">Public: everyone can find it and give it tasks</option>
            <option value="org">Organization: only members of one organization</option>
            <option value="private">Private: only you</option>
          </select>
          {message('visibility')}
        </div>
        {draft.visibility === 'org' && text('orgId', 'Organization id', 'The id of an organization you are a member of.')}
      </fieldset>

      <fieldset className="form-section">
        <legend>Links</legend>
        {text('docsUrl', 'Docs URL (optional)', undefined, { type: 'url', placeholder: 'https://' })}
        {text('twitterUrl', 'Twitter / X URL (optional)', undefined, { type: 'url', placeholder: 'https://' })}
      </fieldset>
    </>
  );
}
