/**
 * Search params with `changes` applied: a value sets its key, an empty value removes it, and any change
 * but the page's own goes back to the first page. Event handlers leave `from` to the address bar, not
 * the params of the render they belong to: the router renders a navigation as a transition, so a second
 * change made before the first had rendered would merge into stale params and undo the first.
 */
export function changedSearch(changes: Record<string, string>, from: URLSearchParams | string = window.location.search): URLSearchParams {
  const next = new URLSearchParams(from);
  for (const [key, value] of Object.entries(changes)) {
    if (value) next.set(key, value);
    else next.delete(key);
  }
  if (!('page' in changes)) next.delete('page');
  return next;
}

/** The change that goes to a page of results: the first page has no `page` param. */
export const toPage = (page: number): Record<string, string> => ({ page: page > 1 ? String(page) : '' });
