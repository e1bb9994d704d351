import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../packages/sdk/src/openapi';

export type Schemas = components['schemas'];
export type ErrorBody = { code: string; message: string; details?: { path: string; message: string }[] };

/** The API's error, as the one JSON shape it always answers with. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server's message for one field (`details[].path`, e.g. `/body/username`). */
  forField(field: string): string | undefined {
    return this.details.find((d) => d.path === `/body/${field}` || d.path === `/querystring/${field}`)?.message;
  }
}

const CSRF_COOKIE = 'agentry_csrf';

export function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

// The session cookie is HttpOnly: scripts never see it. Every request that changes something
// echoes the CSRF token the server derived from that session.
const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const token = csrfToken();
      if (token) request.headers.set('x-csrf-token', token);
    }
    return request;
  },
};

/** Fired on `window` when the API answers 401 outside /v1/auth/: the session is gone (SessionExpiry handles it). */
export const SESSION_EXPIRED = 'agentry:session-expired';

// /v1/auth/* answers 401 for a wrong password or to say "signed out"; anywhere else it means the session ended.
const sessionWatch: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/v1/auth/')) window.dispatchEvent(new Event(SESSION_EXPIRED));
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(csrf, sessionWatch);

/** Turns openapi-fetch's `{ data, error, response }` into the data, or a thrown ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service could not be reached. Check your connection and try again.');
  }
  const { data, error, response } = result;
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as Partial<ErrorBody>;
    throw new ApiError(response.status, body.code ?? 'UNKNOWN', body.message ?? `The service answered ${response.status}`, body.details ?? []);
  }
  return data as T;
}
