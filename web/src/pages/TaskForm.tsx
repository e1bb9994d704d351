import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { uploadImage } from '../api/media';
import type { AgentDetail, Currency } from '../api/types';
import { RequireAccount } from '../components/RequireAccount';
import { SchemaForm } from '../components/SchemaForm';
import { LoadingOrMissing } from '../components/States';
import { formatPrice } from '../lib/format';
import {
  DESCRIPTION_MAX,
  fieldOfPath,
  initialValues,
  inputFromValues,
  parseInputSchema,
  TITLE_MAX,
  validateTaskText,
  validateValues,
  valuesFromInput,
  type FieldErrors,
  type FormValue,
  type FormValues,
} from '../lib/input-schema';

export default function TaskFormPage() {
  return (
    <RequireAccount>
      <TaskFormLoader />
    </RequireAccount>
  );
}

function TaskFormLoader() {
  const { slug = '' } = useParams();
  // The search that led to this agent (`?q=`, carried from the results through the agent's page).
  const searchWords = (useSearchParams()[0].get('q') ?? '').trim().slice(0, SEARCH_QUERY_MAX);
  const agent = useQuery({ queryKey: ['agent', slug], queryFn: () => unwrap(api.GET('/v1/discover/{slug}', { params: { path: { slug } } })) });
  useEffect(() => {
    if (agent.data) document.title = `Give ${agent.data.data.name} a task · Agentry`;
  }, [agent.data]);

  if (agent.isPending || agent.isError) {
    return (
      <LoadingOrMissing
        query={agent}
        className="page page-form"
        loadingLabel="Loading the agent"
        missingTitle="No agent here."
        missingHint=<>
          It may be private or removed. <Link to="/agents">Find another agent</Link>.
        </>
      />
    );
  }
  return <TaskForm agent={agent.data.data} searchWords={searchWords} />;
}

type Mode = 'form' | 'words';
/** The longest `searchQuery` a task takes. */
const SEARCH_QUERY_MAX = 500;
type TextErrors = { title?: string; description?: string };

/** The server's refusal, spread over the fields it names; what names no field is shown above the form. */
function splitServerError(error: ApiError): { text: TextErrors; fields: FieldErrors; general: string | null } {
  const text: TextErrors = {};
  const fields: FieldErrors = {};
  let unplaced = error.details.length === 0;
  for (const detail of error.details) {
    const field = fieldOfPath(detail.path);
    if (field) fields[field] = detail.message;
    else if (detail.path === '/body/title') text.title = detail.message;
    else if (detail.path === '/body/description') text.description = detail.message;
    else unplaced = true;
  }
  return { text, fields, general: unplaced ? error.message : null };
}

function TaskForm({ agent, searchWords }: { agent: AgentDetail; searchWords: string }) {
  const schema = useMemo(() => parseInputSchema(agent.inputSchema), [agent.inputSchema]);
  const navigate = useNavigate();
  const [mode, setMode] = useState<Mode>('form');
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [values, setValues] = useState<FormValues>(() => (schema ? initialValues(schema) : {}));
  /** After "Preview" in the own-words mode: the extracted fields are shown for editing. */
  const [previewed, setPreviewed] = useState(false);
  const [missing, setMissing] = useState<Record<string, string | undefined>>({});
  const [checked, setChecked] = useState(false);
  const [serverError, setServerError] = useState<ReturnType<typeof splitServerError> | null>(null);
  const [busy, setBusy] = useState<'preview' | 'send' | null>(null);
  /** Whether the search that led here goes with the task, as its write-only `searchQuery`. */
  const [sendSearch, setSendSearch] = useState(true);
  const [focusRequest, setFocusRequest] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  // One key per request content: a retry after a lost answer replays it, any edit makes a new task.
  const idempotencyKey = useRef<string | null>(null);

  const localText = validateTaskText(title, description);
  const localFields = schema ? validateValues(schema, values) : {};
  const showsFields = schema !== null && (mode === 'form' || previewed);
  const textErrors: TextErrors = {
    title: serverError?.text.title ?? (checked ? localText.title : undefined),
    description: serverError?.text.description ?? (checked ? localText.description : undefined),
  };
  const fieldErrors: FieldErrors = {};
  if (schema) for (const name of Object.keys(schema)) fieldErrors[name] = serverError?.fields[name] ?? (checked ? localFields[name] : undefined);

  useEffect(() => {
    if (focusRequest > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusRequest]);

  const edited = () => {
    idempotencyKey.current = null;
    setServerError(null);
  };
  const changeValue = (name: string, value: FormValue) => {
    edited();
    setValues((current) => ({ ...current, [name]: value }));
    setMissing((current) => ({ ...current, [name]: undefined }));
  };
  const changeMode = (next: Mode) => {
    edited();
    setMode(next);
    setChecked(false);
    setPreviewed(false);
    setMissing({});
  };

  const refuse = () => {
    setChecked(true);
    setFocusRequest((n) => n + 1);
  };

  const preview = async () => {
    setChecked(true);
    if (localText.title || localText.description) return refuse();
    setBusy('preview');
    setServerError(null);
    try {
      const { data } = await unwrap(
        api.POST('/v1/tasks/extract', { body: { agentId: agent.id, description: description.trim(), ...(title.trim() ? { title: title.trim() } : {}) } }),
      );
      setValues(valuesFromInput(schema!, data.input));
      setMissing(Object.fromEntries(data.missing.map((name) => [name, 'Not found in your description: fill it in.'])));
      setPreviewed(true);
      setChecked(false);
      if (data.missing.length > 0) setFocusRequest((n) => n + 1);
    } catch (error) {
      setServerError(splitServerError(error instanceof ApiError ? error : new ApiError(0, 'UNKNOWN', String(error))));
      setFocusRequest((n) => n + 1);
    } finally {
      setBusy(null);
    }
  };

  const send = async () => {
    setChecked(true);
    const fieldsOk = !showsFields || Object.values(localFields).every((e) => !e);
    if (localText.title || localText.description || !fieldsOk) return refuse();
    setBusy('send');
    setServerError(null);
    idempotencyKey.current ??= crypto.randomUUID();
    // A priced agent is chosen only by a task that agrees to its price.
    const priced = agent.pricePerTaskCents > 0 ? { maxPriceCents: agent.pricePerTaskCents, currency: agent.currency as Currency } : {};
    try {
      const { data } = await unwrap(
        api.POST('/v1/tasks', {
          params: { header: { 'idempotency-key': idempotencyKey.current } },
          body: {
            agentId: agent.id,
            description: description.trim(),
            ...(title.trim() ? { title: title.trim() } : {}),
            ...(schema && showsFields ? { input: inputFromValues(schema, values) } : {}),
            ...priced,
            ...(searchWords && sendSearch ? { searchQuery: searchWords } : {}),
          },
        }),
      );
      navigate(`/tasks/${encodeURIComponent(data.id)}`);
    } catch (error) {
      setServerError(splitServerError(error instanceof ApiError ? error : new ApiError(0, 'UNKNOWN', String(error))));
      setFocusRequest((n) => n + 1);
      setBusy(null);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void (mode === 'words' && !previewed ? preview() : send());
  };

  const describeLabel = mode === 'words' ? 'Describe the task in your own words' : 'What you need done';
  return (
    <div className="page page-form">
      <p className="muted back-link">
        <Link to={`/agents/${encodeURIComponent(agent.slug)}`}>← {agent.name}</Link>
      </p>
      <h1>Give {agent.name} a task</h1>
      <p className="muted">{agent.description}</p>
      {agent.pricePerTaskCents > 0 && (
        <p className="notice">
          {agent.name} charges {formatPrice(agent.pricePerTaskCents, agent.currency).replace(' / task', '')} per task. Sending the task agrees to pay that when
          it is completed.
        </p>
      )}

      <form ref={form} onSubmit={submit} noValidate aria-busy={busy !== null}>
        {schema && (
          <fieldset className="mode-switch">
            <legend>How do you want to give the task?</legend>
            <label>
              <input type="radio" name="mode" value="form" checked={mode === 'form'} onChange={() => changeMode('form')} disabled={busy !== null} />
              Fill in the form
            </label>
            <label>
              <input type="radio" name="mode" value="words" checked={mode === 'words'} onChange={() => changeMode('words')} disabled={busy !== null} />
              Describe it in your own words
            </label>
          </fieldset>
        )}

        {serverError?.general && (
          <p className="form-error" role="alert">
            {serverError.general}
          </p>
        )}

        <div className="field">
          <label htmlFor="task-title">Title (optional)</label>
          <input
            id="task-title"
            value={title}
            maxLength={TITLE_MAX + 50}
            onChange={(e) => {
              edited();
              setTitle(e.target.value);
            }}
            aria-invalid={Boolean(textErrors.title)}
            aria-describedby="task-title-error"
            disabled={busy !== null}
          />
          <p id="task-title-error" className="field-error">
            {textErrors.title}
          </p>
        </div>
        <div className="field">
          <label htmlFor="task-description">
            {describeLabel}
            <span className="required-mark" aria-hidden="true">
              {' '}
              *
            </span>
            <span className="visually-hidden"> (required)</span>
          </label>
          <p id="task-description-hint" className="field-hint">
            {mode === 'words'
              ? 'Say what you need and give the details the agent asks for; Preview shows what was understood before anything is sent.'
              : 'A sentence or two for the agent and for your task list.'}
          </p>
          <textarea
            id="task-description"
            value={description}
            rows={mode === 'words' ? 6 : 3}
            onChange={(e) => {
              edited();
              setDescription(e.target.value);
              if (previewed) setPreviewed(false);
            }}
            aria-invalid={Boolean(textErrors.description)}
            aria-describedby="task-description-hint task-description-error"
            aria-required="true"
            disabled={busy !== null}
          />
          <p id="task-description-error" className="field-error">
            {textErrors.description ?? (description.length > DESCRIPTION_MAX ? `At most ${DESCRIPTION_MAX.toLocaleString('en-US')} characters.` : null)}
          </p>
        </div>

        {schema && showsFields && (
          <section aria-labelledby="input-heading" className="input-section">
            <h2 id="input-heading">{mode === 'words' ? 'What was understood' : `Input for ${agent.name}`}</h2>
            <p className="muted small">
              {mode === 'words' ? 'Check and correct these before you send the task. ' : ''}Fields marked <span aria-hidden="true">*</span>
              <span className="visually-hidden">required</span> are required.
            </p>
            <SchemaForm
              schema={schema}
              values={values}
              onChange={changeValue}
              errors={fieldErrors}
              flagged={missing}
              disabled={busy !== null}
              uploadImage={uploadImage}
            />
          </section>
        )}

        {searchWords && (
          <div className="field search-words">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={sendSearch}
                onChange={(e) => {
                  edited();
                  setSendSearch(e.target.checked);
                }}
                disabled={busy !== null}
                aria-describedby="search-words-hint"
              />{' '}
              Send my search “{searchWords}” with the task
            </label>
            <p id="search-words-hint" className="field-hint">
              If the task goes well and you rate it 4 or 5, these words help search find {agent.name} for people who put it the same way. Nobody is shown them,
              not even the agent.
            </p>
          </div>
        )}

        <div className="form-actions">
          {mode === 'words' && !previewed ? (
            <button className="button button-primary" type="submit" disabled={busy !== null}>
              {busy === 'preview' ? 'Reading your description…' : 'Preview'}
            </button>
          ) : (
            <button className="button button-primary" type="submit" disabled={busy !== null}>
              {busy === 'send' ? 'Sending…' : 'Send task'}
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
