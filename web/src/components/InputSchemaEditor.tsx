import { useState, type KeyboardEvent } from 'react';
import { checkInputSchema } from '../lib/agent-rules';
import { fieldLabel, initialValues, optionLabel, type FieldType, type FormValues, type InputSchema } from '../lib/input-schema';
import { SchemaForm } from './SchemaForm';

/** Text typed for an enum value or a default, as a value of the field's type (undefined when it is not one). */
function typedValue(text: string, type: FieldType): string | number | boolean | undefined {
  const trimmed = text.trim();
  if (type === 'string') return text;
  if (type === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : undefined;
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : undefined;
}

/** The task form the schema makes, as requesters will see it; what is typed here goes nowhere. */
function SchemaPreview({ schema }: { schema: InputSchema }) {
  const [values, setValues] = useState<FormValues>({});
  return (
    <section className="schema-preview" aria-labelledby="schema-preview-title">
      <h3 id="schema-preview-title">Preview of the task form</h3>
      <p className="field-hint">What people fill in when they give this agent a task.</p>
      <SchemaForm
        schema={schema}
        values={{ ...initialValues(schema), ...values }}
        onChange={(name, value) => setValues((before) => ({ ...before, [name]: value }))}
      />
    </section>
  );
}

/**
 * The agent's input schema: JSON text checked as it is typed with the registry's rules, the fields it
 * defines, a small form that adds a field to the text, and a live preview of the task form it makes.
 */
export function InputSchemaEditor({ value, onChange, message }: { value: string; onChange: (text: string) => void; message: string | null }) {
  const checked = checkInputSchema(value);
  const [name, setName] = useState('');
  const [type, setType] = useState<FieldType>('string');
  const [required, setRequired] = useState(false);
  const [description, setDescription] = useState('');
  const [labelText, setLabelText] = useState('');
  const [enumText, setEnumText] = useState('');
  const [defaultText, setDefaultText] = useState('');
  const [addProblem, setAddProblem] = useState<string | null>(null);

  const addField = () => {
    if (value.trim() && !checked.schema) {
      setAddProblem('Fix the JSON above first');
      return;
    }
    const definition: Record<string, unknown> = { type };
    if (required) definition.required = true;
    if (labelText.trim()) definition.label = labelText.trim();
    if (description.trim()) definition.description = description.trim();
    if (enumText.trim()) {
      const values = enumText.split(',').map((v) => typedValue(type === 'string' ? v.trim() : v, type));
      if (values.some((v) => v === undefined)) {
        setAddProblem(`Every choice must be a ${type}`);
        return;
      }
      definition.enum = values;
    }
    if (defaultText.trim()) {
      const parsed = typedValue(defaultText, type);
      if (parsed === undefined) {
        setAddProblem(`The default must be a ${type}`);
        return;
      }
      definition.default = parsed;
    }
    const next = { ...(checked.schema ?? {}), [name.trim()]: definition };
    const text = JSON.stringify(next, null, 2);
    const result = checkInputSchema(text);
    if (result.problems.length > 0) {
      setAddProblem(result.problems.map((p) => `${p.path.slice(1)}: ${p.message}`).join('; '));
      return;
    }
    onChange(text);
    setAddProblem(null);
    setName('');
    setRequired(false);
    setDescription('');
    setLabelText('');
    setEnumText('');
    setDefaultText('');
  };
  // Enter in the add-field inputs adds the field instead of sending the whole registration.
  const onEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && event.target instanceof HTMLInputElement && event.target.type !== 'checkbox') {
      event.preventDefault();
      addField();
    }
  };
  const fields = Object.entries(checked.schema ?? {});

  return (
    <div className="schema-editor">
      <div className="field">
        <label htmlFor="agent-inputSchema">Input schema (JSON)</label>
        <textarea
          id="agent-inputSchema"
          className="mono"
          rows={8}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          spellCheck={false}
          aria-describedby="agent-inputSchema-message"
          aria-invalid={Boolean(message)}
          placeholder={'{\n  "language": { "type": "string", "required": true, "enum": ["de", "fr"] }\n}'}
        />
        <p id="agent-inputSchema-message" className={message ? 'field-error' : checked.schema ? 'field-ok' : 'field-hint'} aria-live="polite">
          {message ??
            (checked.schema
              ? `Valid: ${fields.length} ${fields.length === 1 ? 'field' : 'fields'}`
              : "Optional. The fields a task for this agent takes: each { type: string, number or boolean, required, description, enum, default }, and, for people filling it in, label (the field's name on screen) and enumLabels (a label per choice).")}
        </p>
      </div>
      {fields.length > 0 && (
        <ul className="list schema-fields" aria-label="Fields of the input schema">
          {fields.map(([fieldName, definition]) => (
            <li key={fieldName} className="schema-field">
              <span>
                {fieldLabel(fieldName, definition)} <span className="mono muted">{fieldName}</span>
              </span>
              <span className="muted">
                {definition.type}
                {definition.required ? ', required' : ''}
                {definition.enum ? `, one of ${definition.enum.map((option) => optionLabel(definition, option)).join(', ')}` : ''}
                {definition.default !== undefined ? `, default ${String(definition.default)}` : ''}
              </span>
              <button
                type="button"
                className="link-button"
                aria-label={`Remove the field ${fieldName}`}
                onClick={() => {
                  const rest = Object.fromEntries(fields.filter(([other]) => other !== fieldName));
                  onChange(Object.keys(rest).length ? JSON.stringify(rest, null, 2) : '');
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <fieldset className="add-field" onKeyDown={onEnter}>
        <legend>Add a field</legend>
        <div className="field-grid">
          <div className="field">
            <label htmlFor="schema-name">Field name</label>
            <input id="schema-name" value={name} onChange={(e) => setName(e.target.value)} className="mono" />
          </div>
          <div className="field">
            <label htmlFor="schema-type">Type</label>
            <select id="schema-type" value={type} onChange={(e) => setType(e.target.value as FieldType)}>
              <option value="string">string</option>
              <option value="number">number</option>
              <option value="boolean">boolean</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="schema-label">Label (optional)</label>
            <input
              id="schema-label"
              value={labelText}
              onChange={(e) => setLabelText(e.target.value)}
              placeholder={name.trim() ? fieldLabel(name.trim(), { type }) : ''}
            />
          </div>
          <div className="field">
            <label htmlFor="schema-description">Description</label>
            <input id="schema-description" value={description} onChange={(e) => setDescription(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="schema-enum">Choices (comma-separated)</label>
            <input id="schema-enum" value={enumText} onChange={(e) => setEnumText(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="schema-default">Default</label>
            <input id="schema-default" value={defaultText} onChange={(e) => setDefaultText(e.target.value)} />
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={required} onChange={(e) => setRequired(e.target.checked)} /> Required
          </label>
        </div>
        <p className="field-error" role={addProblem ? 'alert' : undefined}>
          {addProblem}
        </p>
        <button type="button" className="button" onClick={addField} disabled={!name.trim()}>
          Add field
        </button>
      </fieldset>
      {checked.schema && fields.length > 0 && <SchemaPreview schema={checked.schema} />}
    </div>
  );
}
