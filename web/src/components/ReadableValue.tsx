import { useState } from 'react';
import { fieldLabel, humanise, optionLabel, type InputSchema } from '../lib/input-schema';
import { safeHttpUrl } from '../lib/format';

const imagePath = /\.(png|jpe?g|gif|webp|avif)$/i;
/** Deeper than this, or longer lists than this, the rest is left to "Show JSON". */
const MAX_DEPTH = 6;
const MAX_ITEMS = 100;

/** An https address of an image, which the page's security policy lets it show; null for anything else. */
function imageUrl(text: string): string | null {
  const url = safeHttpUrl(text);
  return url && url.startsWith('https:') && imagePath.test(new URL(url).pathname) ? url : null;
}

interface ValueProps {
  value: unknown;
  /** Where the value is, as `result.pages[2]`: alt text for images. */
  path: string;
  depth: number;
}

/**
 * One value as people read it: text wrapped, an address as a link, an image address as the image,
 * yes/no for booleans, a list as a list, an object as labelled fields (nested ones indented).
 * Everything is rendered as text or as attributes React escapes; nothing in the value runs.
 */
function Value({ value, path, depth }: ValueProps) {
  if (value === null || value === undefined) return <span className="muted">empty</span>;
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  if (typeof value === 'number') return <span>{String(value)}</span>;
  if (typeof value === 'string') {
    if (value === '') return <span className="muted">empty text</span>;
    const image = imageUrl(value);
    if (image) {
      return (
        <a href={image} target="_blank" rel="noopener noreferrer nofollow" className="readable-image">
          <img src={image} alt={`Image in the ${path.split(/[.[]/)[0]} (${path})`} width={320} height={240} loading="lazy" referrerPolicy="no-referrer" />
        </a>
      );
    }
    const link = safeHttpUrl(value);
    if (link && link === value.trim()) {
      return (
        <a href={link} target="_blank" rel="noopener noreferrer nofollow" className="readable-link">
          {value}
        </a>
      );
    }
    return (
      <span className="readable-text" dir="auto">
        {value}
      </span>
    );
  }
  if (depth >= MAX_DEPTH) return <span className="muted">more inside: see the JSON</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">an empty list</span>;
    return (
      <>
        <ol className="readable-list">
          {value.slice(0, MAX_ITEMS).map((item, index) => (
            <li key={index}>
              <Value value={item} path={`${path}[${index}]`} depth={depth + 1} />
            </li>
          ))}
        </ol>
        {value.length > MAX_ITEMS && <p className="muted">and {value.length - MAX_ITEMS} more: see the JSON</p>}
      </>
    );
  }
  if (typeof value === 'object') return <Fields value={value as Record<string, unknown>} path={path} depth={depth + 1} />;
  return <span>{String(value)}</span>;
}

function Fields({ value, path, depth, schema }: { value: Record<string, unknown>; path: string; depth: number; schema?: InputSchema | null }) {
  const entries = Object.entries(value);
  if (entries.length === 0) return <span className="muted">no fields</span>;
  return (
    <dl className={depth > 1 ? 'readable-fields readable-nested' : 'readable-fields'}>
      {entries.slice(0, MAX_ITEMS).map(([key, item]) => {
        const definition = schema?.[key];
        // An enum value the schema names is shown by its label, the value itself beside it in the JSON.
        const shown =
          definition && (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') && definition.enumLabels
            ? optionLabel(definition, item)
            : item;
        return (
          <div key={key} className="readable-field">
            <dt dir="auto">{definition ? fieldLabel(key, definition) : humanise(key)}</dt>
            <dd>
              <Value value={shown} path={`${path}.${key}`} depth={depth} />
            </dd>
          </div>
        );
      })}
      {entries.length > MAX_ITEMS && <p className="muted">and {entries.length - MAX_ITEMS} more fields: see the JSON</p>}
    </dl>
  );
}

/**
 * A task's input or result, readable: the value laid out as fields, lists, links and images, with
 * "Show JSON" for the raw form and "Copy" to take it. With the agent's input schema, fields and
 * options carry the names the task form gave them.
 */
export function ReadableValue({ value, name, schema }: { value: unknown; name: 'input' | 'result'; schema?: InputSchema | null }) {
  const [showJson, setShowJson] = useState(false);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const json = JSON.stringify(value, null, 2);
  const jsonId = `${name}-json`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(json);
      setCopied('yes');
    } catch {
      setCopied('failed');
      setShowJson(true);
    }
  };
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  return (
    <div className="readable">
      <div className="readable-body" data-testid={`${name}-readable`}>
        {isObject ? <Fields value={value as Record<string, unknown>} path={name} depth={1} schema={schema} /> : <Value value={value} path={name} depth={1} />}
      </div>
      <div className="readable-actions">
        <button type="button" className="link-button" aria-expanded={showJson} aria-controls={jsonId} onClick={() => setShowJson((shown) => !shown)}>
          {showJson ? 'Hide JSON' : 'Show JSON'}
        </button>
        <button type="button" className="link-button" onClick={() => void copy()}>
          Copy
        </button>
        <span className="muted" role="status">
          {copied === 'yes' ? 'Copied the JSON.' : copied === 'failed' ? 'The browser did not allow copying; select the JSON instead.' : ''}
        </span>
      </div>
      <pre id={jsonId} className="json readable-json" tabIndex={0} aria-label={`${name === 'input' ? 'Input' : 'Result'} as JSON`} hidden={!showJson}>
        {json}
      </pre>
    </div>
  );
}
