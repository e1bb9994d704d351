/**
 * What a person typed into the page's forms, kept in this tab's sessionStorage while they log in again
 * after their session expired, and put back when they return to the same address. Passwords, keys,
 * secrets, tokens and signatures are never kept: not by type, not by name.
 */

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
type Saved = Record<string, string | boolean>;

const storageKey = (path: string) => `agentry:form-draft:${path}`;
const NEVER_KEPT = /pass|secret|key|token|signature|credential|pem/i;
const NEVER_KEPT_TYPES = new Set(['password', 'file', 'hidden', 'submit', 'button']);

const isChoice = (field: Field): field is HTMLInputElement => field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio');

/** How a field is found again: its id, or for a checkbox or radio without one, its label. */
function keyOf(field: Field): string | null {
  if (field.id) return field.id;
  const label = field.labels?.[0]?.textContent?.trim();
  return isChoice(field) && label ? `label:${label}` : null;
}

function keepable(field: Field): boolean {
  if (field.disabled || keyOf(field) === null) return false;
  if (field instanceof HTMLInputElement && NEVER_KEPT_TYPES.has(field.type)) return false;
  const label = field.labels?.[0]?.textContent ?? '';
  return ![field.id, field.name, field.autocomplete, label].some((text) => NEVER_KEPT.test(text));
}

const fieldsOf = (root: ParentNode) =>
  new Map([...root.querySelectorAll<Field>('form input, form textarea, form select')].filter(keepable).map((field) => [keyOf(field)!, field] as const));

/** Keeps what the forms on the page hold, for `path` (the page's address). */
export function saveFormDraft(path: string): void {
  const saved: Saved = {};
  for (const [key, field] of fieldsOf(document)) {
    if (isChoice(field)) saved[key] = field.checked;
    else if (field.value) saved[key] = field.value;
  }
  if (Object.keys(saved).length > 0) sessionStorage.setItem(storageKey(path), JSON.stringify(saved));
}

/** Sets a field the way typing does, so React's state follows. */
function setValue(field: Field, value: string | boolean) {
  if (typeof value === 'boolean') {
    if (isChoice(field) && field.checked !== value) field.click();
    return;
  }
  const prototype = Object.getPrototypeOf(field) as object;
  Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, value);
  field.dispatchEvent(new Event(field instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

/**
 * Puts back a draft kept for `path`, once its form has rendered (it may wait for data), then forgets
 * it. Returns a function that stops waiting.
 */
export function restoreFormDraft(path: string): () => void {
  const text = sessionStorage.getItem(storageKey(path));
  if (!text) return () => undefined;
  const saved = JSON.parse(text) as Saved;
  let tries = 0;
  const timer = setInterval(() => {
    const fields = fieldsOf(document);
    const ready = Object.keys(saved).some((id) => fields.has(id));
    if (ready) {
      for (const [id, value] of Object.entries(saved)) {
        const field = fields.get(id);
        if (field) setValue(field, value);
      }
    }
    if (ready || ++tries > 50) {
      clearInterval(timer);
      sessionStorage.removeItem(storageKey(path));
    }
  }, 100);
  return () => clearInterval(timer);
}

const SESSION_ENDED = 'agentry:session-ended';

/** Remembers, for the log-in page, that the person arrives there because their session ended. */
export const markSessionEnded = () => sessionStorage.setItem(SESSION_ENDED, '1');

/** Whether the person came to log in because their session ended (the mark stays until `forgetSessionEnded`). */
export const sessionEnded = () => sessionStorage.getItem(SESSION_ENDED) !== null;

export const forgetSessionEnded = () => sessionStorage.removeItem(SESSION_ENDED);
