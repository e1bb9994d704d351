import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { prependOnRequest } from './route-hooks.ts';
import { AppError, unauthorized } from '../lib/errors.ts';
import type { Authenticator, Principal } from '../lib/principal.ts';
import { forgetSessionCookies, hasValidCsrfToken, needsCsrfToken, sessionCookieOf } from './browser-session.ts';

/**
 * none: no credential looked at. optional: used when present (invalid is still 401, so a client
 * never silently loses its identity). session: a person's login (built in or OIDC). key: an API key.
 * either: a session or a key. A browser session (the HttpOnly cookie) counts as a session when the
 * request carries no Authorization header; state-changing requests made with it need the CSRF token.
 */
export type AuthMode = 'none' | 'optional' | 'session' | 'key' | 'either';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /**
     * A GET that changes state (a poll takes tasks). A cross-site top-level navigation carries the
     * SameSite=Lax session cookie on a GET, so such a route never reads the cookie: it takes bearer
     * tokens, API keys and agent signatures only.
     */
    getChangesState?: true;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function bearerToken(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(header);
  return match ? match[1]! : null;
}

export function installAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);

  // The mode is fixed per route, so each route that needs a credential gets its own hook and the
  // others pay nothing. It runs before the route's own hooks, right after the rate limiter.
  app.addHook('onRoute', (route) => {
    const mode = route.config?.auth;
    // A /v1 route without a declared mode is a bug that would otherwise ship as a public endpoint.
    if (route.url.startsWith('/v1/') && mode === undefined) {
      throw new Error(`route ${route.method} ${route.url} declares no auth mode`);
    }
    if (mode === undefined || mode === 'none') return;
    prependOnRequest(route, authenticationHook(authenticator, mode, route.config?.getChangesState !== true));
  });
}

function authenticationHook(authenticator: Authenticator, mode: Exclude<AuthMode, 'none'>, acceptsCookie: boolean) {
  const admit = (request: FastifyRequest, principal: Principal | null): AppError | undefined => {
    if (!principal) return unauthorized('The credential is invalid, expired or revoked');
    if (mode === 'session' && principal.via === 'key') return unauthorized('This route needs a session token, not an API key');
    if (mode === 'key' && principal.via !== 'key') return unauthorized('This route needs an API key');
    request.principal = principal;
    return undefined;
  };
  // A stale cookie must not lock a signed-out visitor out of public pages: on optional routes it
  // counts as no credential, where a bad bearer token is still refused.
  // The dead cookie is cleared too, so the browser stops sending it and the page knows it is signed out.
  const admitCookie = (request: FastifyRequest, reply: FastifyReply, token: string, principal: Principal | null): AppError | undefined => {
    if (!principal || principal.via !== 'session') {
      forgetSessionCookies(reply);
      return mode === 'optional' ? undefined : unauthorized('The session has expired or was logged out; log in again');
    }
    if (needsCsrfToken(request.method) && !hasValidCsrfToken(request, token)) {
      return new AppError('FORBIDDEN', 'A request made with the session cookie needs the X-CSRF-Token header (the value of the agentry_csrf cookie)');
    }
    return admit(request, principal);
  };
  // Callback style: it runs on every authenticated request, and most answers come from memory.
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const token = bearerToken(request);
    if (token === undefined) {
      const cookieToken = acceptsCookie ? sessionCookieOf(request) : undefined;
      if (cookieToken === undefined) return done(mode === 'optional' ? undefined : unauthorized('Send Authorization: Bearer <session token or API key>'));
      const found = authenticator.authenticate(cookieToken);
      if (found instanceof Promise) found.then((principal) => done(admitCookie(request, reply, cookieToken, principal)), done);
      else done(admitCookie(request, reply, cookieToken, found));
      return;
    }
    if (token === null) return done(unauthorized('Authorization header must be "Bearer <token>"'));
    const found = authenticator.authenticate(token);
    if (found instanceof Promise) found.then((principal) => done(admit(request, principal)), done);
    else done(admit(request, found));
  };
}

/**
 * The token a request authenticated with (bearer, or the session cookie where the route reads it), so
 * a long-lived response can check later that it still authenticates.
 */
export function credentialTokenOf(request: FastifyRequest): string | undefined {
  const token = bearerToken(request);
  if (token !== undefined) return token ?? undefined;
  return request.routeOptions.config.getChangesState === true ? undefined : sessionCookieOf(request);
}

/** For handlers of routes whose mode guarantees a principal. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('UNAUTHORIZED', 'A valid credential is required');
  return request.principal;
}
