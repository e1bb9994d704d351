import { useState, type ReactNode } from 'react';

/**
 * A list of short terms (capabilities, tags, categories) as removable chips and one input that adds
 * what is typed on Enter, a comma or leaving the field; suggestions come from a datalist. Backspace
 * in the empty input removes the last one.
 */
export function TermsInput({
  id,
  label,
  values,
  onChange,
  onBlur,
  suggestions = [],
  normalise = (term) => term,
  describedBy,
  invalid,
  message,
}: {
  id: string;
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  onBlur?: () => void;
  suggestions?: { value: string; label?: string }[];
  normalise?: (term: string) => string;
  describedBy: string;
  invalid: boolean;
  message: ReactNode;
}) {
  const [text, setText] = useState('');
  const commit = (raw: string) => {
    const terms = raw
      .split(',')
      .map((t) => normalise(t.trim()))
      .filter((t) => t && !values.includes(t));
    if (terms.length) onChange([...values, ...new Set(terms)]);
    setText('');
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {values.length > 0 && (
        <ul className="chips terms" aria-label={`${label}: chosen`}>
          {values.map((value) => (
            <li key={value} className="chip">
              {value}
              <button type="button" className="chip-remove" aria-label={`Remove ${value}`} onClick={() => onChange(values.filter((v) => v !== value))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={id}
        value={text}
        list={suggestions.length ? `${id}-suggestions` : undefined}
        onChange={(event) => {
          const next = event.target.value;
          if (next.endsWith(',')) commit(next);
          else setText(next);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && text.trim()) {
            event.preventDefault();
            commit(text);
          }
          if (event.key === 'Backspace' && !text && values.length) onChange(values.slice(0, -1));
        }}
        onBlur={() => {
          commit(text);
          onBlur?.();
        }}
        placeholder="Type and press Enter"
        aria-describedby={describedBy}
        aria-invalid={invalid}
      />
      {suggestions.length > 0 && (
        <datalist id={`${id}-suggestions`}>
          {suggestions.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </datalist>
      )}
      {message}
    </div>
  );
}
