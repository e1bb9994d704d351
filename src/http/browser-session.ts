import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Browser sessions: the session token lives in an HttpOnly cookie the page's scripts cannot read,
 * and every state-changing request made with it must echo a CSRF token in a header. The CSRF token
 * is derived from the session token, so it is bound to that one session, needs no server-side
 * storage, and cannot be forged by a site that can plant cookies but does not know the session.
 * The page reads it from a second, readable cookie.
 */
export const SESSION_COOKIE = 'agentry_session';
export const CSRF_COOKIE = 'agentry_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', 'agentry browser session csrf').update(sessionToken).digest('base64url');
}

export function needsCsrfToken(method: string): boolean {
  return !safeMethods.has(method);
}

export function hasValidCsrfToken(request: FastifyRequest, sessionToken: string): boolean {
  const given = request.headers[CSRF_HEADER];
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The session token from the Cookie header, if any; only built-in session tokens are taken from a cookie. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = request.server.parseCookie(header)[SESSION_COOKIE];
  return value !== undefined && /^ags_[A-Za-z0-9_-]{1,200}$/.test(value) ? value : undefined;
}

export interface BrowserSessionCookies {
  /** Secure cookies when the public address is https. */
  secure: boolean;
}

export function setSessionCookies(reply: FastifyReply, options: BrowserSessionCookies, token: string, expiresAt: string): string {
  const csrfToken = csrfTokenFor(token);
  const expires = new Date(expiresAt);
  const common = { path: '/', sameSite: 'lax' as const, secure: options.secure, expires };
  reply.setCookie(SESSION_COOKIE, token, { ...common, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, csrfToken, { ...common, httpOnly: false });
  return csrfToken;
}

export function clearSessionCookies(reply: FastifyReply, options: BrowserSessionCookies): void {
  const common = { path: '/', sameSite: 'lax' as const, secure: options.secure };
  reply.clearCookie(SESSION_COOKIE, { ...common, httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, { ...common, httpOnly: false });
}

/** Clears both cookies when the session they carry is no longer valid (the attributes of the original are not known here). */
export function forgetSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  reply.clearCookie(CSRF_COOKIE, { path: '/' });
}
