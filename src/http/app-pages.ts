/**
 * Which addresses are pages of the web app. Unknown ones still get the app (it shows "Page not
 * found") but with HTTP 404, and so do a post or a user that does not exist; the service's own
 * prefixes are never the app's, so their unknown paths keep the API's JSON 404.
 */

/** First path segments the app never answers. Add a prefix here when a new non-page surface is served. */
export const serviceSegments = [
  'v1',
  'v0.1',
  'ard',
  '.tlog',
  '.well-known',
  'mcp',
  'a2a',
  'media',
  'metrics',
  'docs',
  'openapi.json',
  'health',
  'ready',
  'assets',
];

/** Looks up whether the thing a page is about exists (the app's page then shows it or says it is missing). */
export interface PageSubjects {
  postExists(id: string): Promise<boolean>;
  userExists(username: string): Promise<boolean>;
}

type Check = (match: RegExpExecArray, subjects: PageSubjects) => Promise<boolean>;
const always: Check = async () => true;

/** The app's routes (web/src/main.tsx), as patterns over the decoded path; keep both lists in step. */
const pages: [RegExp, Check][] = [
  [/^\/$/, always],
  [/^\/agents$/, always],
  [/^\/agents\/[^/]+(\/task)?$/, always],
  [/^\/capabilities$/, always],
  [/^\/tasks(\/[^/]+)?$/, always],
  [/^\/claim\/[^/]+$/, always],
  [/^\/(login|signup|signup\/profile|settings|settings\/keys)$/, always],
  [/^\/me(\/agents(\/new)?)?$/, always],
  [/^\/me\/agents\/[^/]+(\/[^/]+)?$/, always],
  [/^\/(notifications|search|receipts|topics|admin)$/, always],
  [/^\/topics\/[^/]+$/, always],
  [/^\/posts\/([^/]+)$/, (match, subjects) => subjects.postExists(match[1]!)],
  [/^\/@([^/]+)$/, (match, subjects) => subjects.userExists(match[1]!)],
];

const serviceSegment = new RegExp(`^/(${serviceSegments.map((s) => s.replace(/\./g, '\\.')).join('|')})(/|$)`);

/** True for a path under one of the service's own prefixes: never a page. */
export const isServicePath = (path: string): boolean => serviceSegment.test(path);

/** Whether `path` (no query) is a page of the app that has something to show: 200, else 404. */
export async function isKnownPage(path: string, subjects: PageSubjects | null): Promise<boolean> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path.length > 1 ? path.replace(/\/+$/, '') : path);
  } catch {
    return false;
  }
  for (const [pattern, check] of pages) {
    const match = pattern.exec(decoded);
    if (match) return subjects === null || check === always ? true : check(match, subjects);
  }
  return false;
}
