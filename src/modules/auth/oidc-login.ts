/**
 * Browser sign-in through the configured OpenID Connect issuer: the authorization-code flow with
 * PKCE (S256), `state` and `nonce` (OpenID Connect Core §3.1, RFC 7636).
 *
 * `start` makes a transaction (state, nonce, code verifier, where to return) and the address at the
 * issuer to send the browser to. The transaction travels in an HttpOnly cookie scoped to the
 * callback path, so any node can finish it and nothing is stored. `finish` checks the issuer's answer
 * against it, exchanges the code (with the verifier) at the token endpoint and verifies the ID token
 * like a bearer JWT, addressed to our client and carrying our nonce. The cookie is cleared whatever
 * the outcome, so an answer cannot be used twice from this browser, and the issuer refuses a code
 * presented twice.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.ts';
import { JsonTooDeepError, parseJsonWithinDepth } from '../../lib/json-depth.ts';
import type { OidcIdentity, OidcVerifier } from './oidc.ts';

export const OIDC_TRANSACTION_COOKIE = 'agentry_oidc';
export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback';
/** How long a person may take at the issuer's login page. */
export const OIDC_TRANSACTION_TTL_MS = 10 * 60 * 1000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
const MAX_NEXT_LENGTH = 2000;

/** Why a sign-in failed, as the login page names it (`/login?oidc_error=<reason>`). */
export type OidcLoginFailure = 'expired' | 'state' | 'issuer' | 'provider' | 'exchange' | 'token' | 'unavailable';

export class OidcLoginError extends Error {
  override name = 'OidcLoginError';
  constructor(
    readonly reason: OidcLoginFailure,
    message: string,
    /** The issuer's own error code (`access_denied`, `invalid_grant`), when it gave one. */
    readonly providerError: string | null = null,
  ) {
    super(message);
  }
}

/**
 * Where to go after signing in: a path of this app only, never another site or a scheme. It is
 * normalised as a URL parser reads it (dot segments resolved, anything outside printable ASCII
 * percent-encoded), so what is stored is exactly what the Location header will say and what the
 * browser will follow; anything that would leave the app falls back to `/`.
 */
export function safeNextPath(raw: string | undefined | null): string {
  const isAppPath = (path: string) => path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
  if (!raw || raw.length > MAX_NEXT_LENGTH || !isAppPath(raw)) return '/';
  // Control characters and backslashes have no place in an app path and confuse URL parsers.
  if ([...raw].some((c) => c < ' ' || c === '\u007f' || c === '\\')) return '/';
  const base = 'https://app.invalid';
  let parsed: URL;
  try {
    parsed = new URL(raw, base);
  } catch {
    return '/';
  }
  const normalised = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  if (parsed.origin !== base || !isAppPath(normalised) || normalised.length > MAX_NEXT_LENGTH || !/^[\x21-\x7e]+$/.test(normalised)) return '/';
  return normalised;
}

/** An issuer's error code as we repeat it on the page: its documented shape only (RFC 6749 §4.1.2.1). */
const providerErrorCode = (value: unknown): string | null => (typeof value === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(value) ? value : null);

interface Transaction {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Epoch ms. */
  createdAt: number;
}

const random = () => randomBytes(32).toString('base64url');

function encodeTransaction(transaction: Transaction): string {
  return Buffer.from(JSON.stringify(transaction)).toString('base64url');
}

function decodeTransaction(value: string | undefined): Transaction | null {
  if (!value || value.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  try {
    const parsed = parseJsonWithinDepth(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Transaction> | null;
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { state, nonce, verifier, next, createdAt } = parsed;
    const token = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);
    if (!token(state) || !token(nonce) || !token(verifier) || typeof next !== 'string' || typeof createdAt !== 'number') return null;
    return { state, nonce, verifier, next: safeNextPath(next), createdAt };
  } catch {
    return null;
  }
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const stripSlash = (value: string) => value.replace(/\/+$/, '');

export interface OidcLoginOptions {
  issuer: string;
  verifier: OidcVerifier;
  client: { id: string; secret: string | null };
  /** PUBLIC_URL + OIDC_CALLBACK_PATH, registered at the issuer. */
  redirectUri: string;
  clock: Clock;
  /** Timeout of the token request. Default 5000 ms. */
  fetchTimeoutMs?: number;
}

export interface OidcCallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
  /** RFC 9207: the issuer names itself in its answer. */
  iss?: string;
}

export function createOidcLogin(opts: OidcLoginOptions) {
  const timeoutMs = opts.fetchTimeoutMs ?? 5000;

  /** The ID token for `code`, from the token endpoint; throws OidcLoginError saying why not. */
  async function exchange(tokenEndpoint: string, code: string, verifier: string): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: opts.redirectUri, code_verifier: verifier });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (opts.client.secret === null) {
      form.set('client_id', opts.client.id);
    } else {
      // client_secret_basic: each part form-encoded first (RFC 6749 §2.3.1).
      const basic = `${encodeURIComponent(opts.client.id)}:${encodeURIComponent(opts.client.secret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    let response: Response;
    try {
      // The token endpoint comes from the issuer the operator configured, as its keys do.
      response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form.toString(), redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      throw new OidcLoginError('unavailable', 'The identity provider could not be reached to finish the sign-in');
    }
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      const parsed = text.length <= MAX_TOKEN_RESPONSE_BYTES ? parseJsonWithinDepth(text) : null;
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof JsonTooDeepError) && !(error instanceof SyntaxError)) throw error;
    }
    if (!response.ok) {
      const providerError = providerErrorCode(body.error);
      throw new OidcLoginError(
        'exchange',
        `The identity provider refused the sign-in code (HTTP ${response.status}${providerError ? `, ${providerError}` : ''})`,
        providerError,
      );
    }
    if (typeof body.id_token !== 'string') throw new OidcLoginError('token', 'The identity provider answered without an ID token');
    return body.id_token;
  }

  return {
    /** The transaction cookie's value and the issuer's address to send the browser to; null while the issuer is unreachable. */
    async start(next: string | undefined): Promise<{ location: string; transaction: string } | null> {
      const endpoints = await opts.verifier.endpoints();
      if (!endpoints) return null;
      const transaction: Transaction = {
        state: random(),
        nonce: random(),
        verifier: random(),
        next: safeNextPath(next),
        createdAt: opts.clock.now().getTime(),
      };
      const location = new URL(endpoints.authorizationEndpoint);
      const params = location.searchParams;
      params.set('response_type', 'code');
      params.set('client_id', opts.client.id);
      params.set('redirect_uri', opts.redirectUri);
      params.set('scope', 'openid');
      params.set('state', transaction.state);
      params.set('nonce', transaction.nonce);
      params.set('code_challenge', createHash('sha256').update(transaction.verifier).digest('base64url'));
      params.set('code_challenge_method', 'S256');
      return { location: location.href, transaction: encodeTransaction(transaction) };
    },

    /** Where the sign-in that `transactionCookie` belongs to should return; `/` when it is unreadable. */
    nextOf(transactionCookie: string | undefined): string {
      return decodeTransaction(transactionCookie)?.next ?? '/';
    },

    /** The person the issuer vouches for, and where to return; throws OidcLoginError saying why not. */
    async finish(query: OidcCallbackQuery, transactionCookie: string | undefined): Promise<{ identity: OidcIdentity; next: string }> {
      const transaction = decodeTransaction(transactionCookie);
      if (!transaction || opts.clock.now().getTime() - transaction.createdAt > OIDC_TRANSACTION_TTL_MS) {
        throw new OidcLoginError('expired', 'No sign-in was started in this browser, or it took too long');
      }
      if (!query.state || !sameText(query.state, transaction.state))
        throw new OidcLoginError('state', 'The answer does not belong to the sign-in this browser started');
      if (query.iss !== undefined && stripSlash(query.iss) !== stripSlash(opts.issuer)) {
        throw new OidcLoginError('issuer', 'The answer names another identity provider than the configured one');
      }
      if (query.error !== undefined) {
        const providerError = providerErrorCode(query.error);
        throw new OidcLoginError('provider', `The identity provider did not sign the person in (${providerError ?? 'no reason given'})`, providerError);
      }
      if (!query.code) throw new OidcLoginError('provider', 'The identity provider answered without a code');
      const endpoints = await opts.verifier.endpoints();
      if (!endpoints) throw new OidcLoginError('unavailable', 'The identity provider could not be reached to finish the sign-in');
      const idToken = await exchange(endpoints.tokenEndpoint, query.code, transaction.verifier);
      const identity = await opts.verifier.verifyIdToken(idToken, { audience: opts.client.id, nonce: transaction.nonce });
      if (!identity) throw new OidcLoginError('token', 'The ID token did not verify (signature, issuer, audience, expiry or nonce)');
      return { identity, next: transaction.next };
    },
  };
}

export type OidcLogin = ReturnType<typeof createOidcLogin>;
