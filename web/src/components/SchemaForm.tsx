import { useId, useRef, useState, type DragEvent, type ReactNode } from 'react';
import {
  controlFor,
  fieldLabel,
  optionLabel,
  type FieldErrors,
  type FormValue,
  type FormValues,
  type InputFieldDefinition,
  type InputSchema,
} from '../lib/input-schema';

/**
 * Puts a file somewhere the agent can fetch it: its address, and where this page may show it from
 * (a path of this site). Throws an Error with a message people can read.
 */
export type ImageUploader = (file: File) => Promise<{ url: string; preview: string }>;

export interface SchemaFormProps {
  schema: InputSchema;
  values: FormValues;
  onChange: (name: string, value: FormValue) => void;
  errors?: FieldErrors;
  disabled?: boolean;
  /** Without it image fields take an address only. */
  uploadImage?: ImageUploader;
  /** Fields to mark, e.g. required ones a plain-language description did not give. */
  flagged?: Record<string, string | undefined>;
}

/**
 * The controls for an agent's inputSchema, one per field in schema order: text, image address
 * (with upload and drag and drop), number, dropdown for an enum, switch for a boolean. Required
 * fields are marked, descriptions are the helper text. All schema text is rendered as text.
 */
export function SchemaForm({ schema, values, onChange, errors = {}, disabled = false, uploadImage, flagged = {} }: SchemaFormProps) {
  const prefix = useId();
  return (
    <div className="schema-form">
      {Object.entries(schema).map(([name, definition]) => (
        <SchemaField
          key={name}
          id={`${prefix}-${name}`}
          name={name}
          definition={definition}
          value={values[name]}
          onChange={(value) => onChange(name, value)}
          error={errors[name] ?? flagged[name]}
          disabled={disabled}
          uploadImage={uploadImage}
        />
      ))}
    </div>
  );
}

interface FieldProps {
  id: string;
  name: string;
  definition: InputFieldDefinition;
  value: FormValue | undefined;
  onChange: (value: FormValue) => void;
  error: string | undefined;
  disabled: boolean;
  uploadImage: ImageUploader | undefined;
}

/** What every control of a field carries: its identity, state and the texts that describe it. */
interface ControlAttributes {
  id: string;
  name: string;
  disabled: boolean;
  'aria-invalid': boolean;
  'aria-describedby': string;
  'aria-required': boolean;
}

function SchemaField(props: FieldProps) {
  const { id, name, definition, value, onChange, error, disabled } = props;
  const control = controlFor(name, definition);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [definition.description ? hintId : null, errorId].filter(Boolean).join(' ');
  const text = typeof value === 'string' ? value : '';
  const common: ControlAttributes = {
    id,
    name,
    disabled,
    'aria-invalid': Boolean(error),
    'aria-describedby': describedBy,
    'aria-required': definition.required === true,
  };
  const label = (
    <label htmlFor={id}>
      {fieldLabel(name, definition)}
      {definition.required && <RequiredMark />}
    </label>
  );
  const hint = definition.description ? (
    <p id={hintId} className="field-hint">
      {definition.description}
    </p>
  ) : null;
  const errorLine = (
    <p id={errorId} className="field-error" aria-live="polite">
      {error}
    </p>
  );

  if (control === 'toggle') {
    return (
      <div className="field field-toggle">
        <div className="toggle-row">
          <input {...common} type="checkbox" role="switch" className="switch" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          {label}
        </div>
        {hint}
        {errorLine}
      </div>
    );
  }
  if (control === 'image') return <ImageField {...props} label={label} hint={hint} errorLine={errorLine} common={common} />;

  return (
    <div className="field">
      {label}
      {hint}
      {control === 'select' ? (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          {/* An enum without a default starts unchosen, so nothing is sent that the person did not pick. */}
          {(definition.default === undefined || text === '') && <option value="">Choose…</option>}
          {(definition.enum ?? []).map((option) => (
            <option key={String(option)} value={String(option)}>
              {optionLabel(definition, option)}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={control === 'number' ? 'number' : 'text'}
          step={control === 'number' ? 'any' : undefined}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {errorLine}
    </div>
  );
}

function RequiredMark() {
  return (
    <>
      <span className="required-mark" aria-hidden="true">
        {' '}
        *
      </span>
      <span className="visually-hidden"> (required)</span>
    </>
  );
}

/** Images are shown only from this site: the pages' security policy loads no image from elsewhere. */
function isOwnImage(text: string): boolean {
  try {
    const url = new URL(text);
    return url.origin === window.location.origin && url.pathname.startsWith('/media/');
  } catch {
    return false;
  }
}

function ImageField({
  id,
  name,
  definition,
  value,
  onChange,
  error,
  disabled,
  uploadImage,
  label,
  hint,
  errorLine,
  common,
}: FieldProps & { label: ReactNode; hint: ReactNode; errorLine: ReactNode; common: ControlAttributes }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [uploaded, setUploaded] = useState<{ url: string; preview: string } | null>(null);
  const text = typeof value === 'string' ? value : '';
  const preview = uploaded?.url === text ? uploaded.preview : isOwnImage(text) ? text : null;
  const statusId = `${id}-upload`;

  const upload = async (file: File | undefined) => {
    if (!file || !uploadImage || disabled) return;
    setUploading(true);
    setUploadError(null);
    try {
      const result = await uploadImage(file);
      setUploaded(result);
      onChange(result.url);
    } catch (failure) {
      setUploadError(failure instanceof Error ? failure.message : 'The upload failed.');
    } finally {
      setUploading(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void upload(event.dataTransfer.files[0]);
  };
  const dropHandlers = uploadImage
    ? {
        onDragOver: (event: DragEvent) => {
          event.preventDefault();
          setDragging(true);
        },
        onDragLeave: () => setDragging(false),
        onDrop,
      }
    : {};

  return (
    <div className={`field image-field${dragging ? ' image-field-dragging' : ''}`} {...dropHandlers}>
      {label}
      {hint}
      <div className="image-row">
        <input
          {...common}
          type="url"
          inputMode="url"
          placeholder="https://…"
          value={text}
          onChange={(e) => onChange(e.target.value)}
          aria-describedby={`${common['aria-describedby']} ${statusId}`}
        />
        {uploadImage && (
          <>
            <button type="button" className="button" disabled={disabled || uploading} onClick={() => fileInput.current?.click()}>
              {uploading ? 'Uploading…' : 'Upload image'}
            </button>
            <input
              ref={fileInput}
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              hidden
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => void upload(e.target.files?.[0])}
            />
          </>
        )}
      </div>
      <p id={statusId} className={uploadError ? 'field-error' : 'field-hint'} role={uploadError ? 'alert' : undefined}>
        {uploadError ?? (uploadImage ? 'PNG, JPEG, GIF or WebP up to 5 MB; or drop an image here. Anyone with its address can see it.' : '')}
      </p>
      {preview && !error && (
        <img className="image-preview" width={160} height={120} src={preview} alt={`Preview of the image for ${fieldLabel(name, definition)}`} />
      )}
      {errorLine}
    </div>
  );
}
