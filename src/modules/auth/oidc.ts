import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from 'jose';

import type { Clock } from '../../lib/clock.ts';
import { JsonTooDeepError, parseJsonWithinDepth } from '../../lib/json-depth.ts';

/**
 * External OpenID Connect sessions: a `Bearer` JWT signed by the configured issuer (keys from its
 * JWKS, found through discovery) and addressed to our audience is a session. The account is keyed
 * by (issuer, subject); the email is informational only.
 */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
}

export interface OidcVerifierOptions {
  issuer: string;
  audience: string;
  /**
   * Upper bound for one `verify()` call, and the timeout of each request to the issuer
   * (discovery, JWKS). Default 5000 ms.
   */
  fetchTimeoutMs?: number;
  /** Clock skew allowed on exp/nbf, in seconds. Default 30. */
  clockToleranceSec?: number;
  /**
   * After a failed discovery, calls within this window answer null without contacting the issuer
   * again (so an outage does not turn every request into an outgoing fetch). Default 1000 ms.
   */
  discoveryRetryMs?: number;
  /** Time source for exp/nbf checks; defaults to the system clock. */
  clock?: Clock;
  /** Told about failures to reach or understand the issuer (not about bad tokens), for logging. */
  onIssuerError?: (error: unknown) => void;
}

/** Where a browser signs in and where its code is exchanged, from the issuer's discovery document. */
export interface OidcEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

export interface OidcVerifier {
  /** The identity behind a valid token, or null for any invalid token or unreachable issuer. */
  verify(token: string): Promise<OidcIdentity | null>;
  /**
   * The identity behind an ID token from the browser sign-in: checked as `verify` checks a bearer
   * token (issuer, keys, algorithms, expiry), but addressed to our client (`audience`, and `azp` when
   * it names several audiences) and carrying the `nonce` this sign-in sent.
   */
  verifyIdToken(token: string, expected: { audience: string; nonce: string }): Promise<OidcIdentity | null>;
  /** The issuer's authorization and token endpoints; null while it cannot be reached or has none. */
  endpoints(): Promise<OidcEndpoints | null>;
  /** A cheap syntactic test (three base64url parts, JSON header with an `alg`), no signature check. */
  looksLikeJwt(token: string): boolean;
}

/** Asymmetric JWS algorithms only: an HS* token would let anyone holding a shared secret mint sessions. */
const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** JWT "typ" values we accept when the header carries one (ID tokens, RFC 9068 access tokens). */
const ACCEPTED_TYPES = new Set(['jwt', 'at+jwt', 'application/jwt', 'application/at+jwt']);

/** jose error codes that mean "this token is not acceptable", as opposed to "the issuer failed us". */
const TOKEN_ERROR_CODES = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWK_INVALID',
]);

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Far above any real JWT; keeps a huge header from reaching the decoder. */
const MAX_TOKEN_LENGTH = 16 * 1024;
const MAX_DISCOVERY_BYTES = 512 * 1024;

class IssuerError extends Error {
  override name = 'IssuerError';
}

const stripSlash = (value: string): string => value.replace(/\/+$/, '');

/** fetch()'s "could not talk to the server at all" (refused, reset, closed socket), not a timeout or an HTTP status. */
const isConnectionFailure = (error: unknown): boolean => error instanceof TypeError && error.message === 'fetch failed';

export function createOidcVerifier(opts: OidcVerifierOptions): OidcVerifier {
  const timeoutMs = opts.fetchTimeoutMs ?? 5000;
  const clockTolerance = opts.clockToleranceSec ?? 30;
  const retryMs = opts.discoveryRetryMs ?? 1000;
  const discoveryUrl = `${stripSlash(opts.issuer)}/.well-known/openid-configuration`;

  interface Discovered {
    /** The issuer exactly as the provider spells it (its tokens' `iss`). */
    issuer: string;
    keys: JWTVerifyGetKey;
    /** Absent when the issuer serves no authorization-code flow (bearer tokens only). */
    endpoints: OidcEndpoints | null;
  }
  let discovered: Discovered | null = null;
  let pending: Promise<Discovered> | null = null;
  let failedAt = -Infinity;

  const reportIssuerError = (error: unknown): void => {
    try {
      opts.onIssuerError?.(error);
    } catch {
      // a logging hook must not change the answer
    }
  };

  function httpUrl(field: string, value: unknown): URL {
    if (typeof value !== 'string') throw new IssuerError(`OIDC discovery document at ${discoveryUrl} has no ${field}`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new IssuerError(`OIDC discovery ${field} ${JSON.stringify(value)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new IssuerError(`OIDC discovery ${field} ${value} is not http(s)`);
    return url;
  }

  async function discover(): Promise<Discovered> {
    const request = () => fetch(discoveryUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    // A pooled keep-alive connection the issuer has just closed fails at once; one retry opens a new one.
    const response = await request().catch((error: unknown) => {
      if (isConnectionFailure(error)) return request();
      throw error;
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new IssuerError(`OIDC discovery at ${discoveryUrl} answered HTTP ${response.status}`);
    }
    const text = await response.text();
    if (text.length > MAX_DISCOVERY_BYTES) throw new IssuerError(`OIDC discovery document at ${discoveryUrl} is too large`);
    let metadata: unknown;
    try {
      metadata = parseJsonWithinDepth(text);
    } catch (error) {
      if (error instanceof JsonTooDeepError) throw new IssuerError(`OIDC discovery document at ${discoveryUrl}: ${error.message}`);
      throw new IssuerError(`OIDC discovery document at ${discoveryUrl} is not JSON`);
    }
    if (typeof metadata !== 'object' || metadata === null) {
      throw new IssuerError(`OIDC discovery document at ${discoveryUrl} is not an object`);
    }
    const {
      issuer,
      jwks_uri: jwksUri,
      authorization_endpoint: authorizationEndpoint,
      token_endpoint: tokenEndpoint,
    } = metadata as { issuer?: unknown; jwks_uri?: unknown; authorization_endpoint?: unknown; token_endpoint?: unknown };
    // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one we asked about.
    // Only a trailing slash may differ (the configuration strips it; some providers keep it).
    if (typeof issuer !== 'string' || stripSlash(issuer) !== stripSlash(opts.issuer)) {
      throw new IssuerError(`OIDC discovery document names issuer ${JSON.stringify(issuer)}, expected ${opts.issuer}`);
    }
    const jwksUrl = httpUrl('jwks_uri', jwksUri);
    const endpoints =
      authorizationEndpoint === undefined && tokenEndpoint === undefined
        ? null
        : {
            authorizationEndpoint: httpUrl('authorization_endpoint', authorizationEndpoint).href,
            tokenEndpoint: httpUrl('token_endpoint', tokenEndpoint).href,
          };
    // jose caches the key set (cacheMaxAge, 10 min), refetches on an unknown kid (after a 30 s
    // cooldown) and does not remember a failed fetch, so the next call simply tries again.
    return { issuer, keys: createRemoteJWKSet(jwksUrl, { timeoutDuration: timeoutMs }), endpoints };
  }

  /** The discovered issuer, fetched once; a failure is forgotten after `discoveryRetryMs`. */
  async function getDiscovered(): Promise<Discovered | null> {
    if (discovered) return discovered;
    if (!pending) {
      if (Date.now() - failedAt < retryMs) return null;
      pending = discover().then(
        (result) => {
          discovered = result;
          pending = null;
          return result;
        },
        (error: unknown) => {
          failedAt = Date.now();
          pending = null;
          reportIssuerError(error); // once per attempt, however many calls were waiting on it
          throw error;
        },
      );
    }
    try {
      return await pending;
    } catch {
      return null;
    }
  }

  function looksLikeJwt(token: string): boolean {
    if (token.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(token)) return false;
    try {
      return typeof decodeProtectedHeader(token).alg === 'string';
    } catch {
      return false;
    }
  }

  async function verifyWith(token: string, keys: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, keys, options)).payload;
    } catch (error) {
      // Several keys in the set fit the header (e.g. no kid): try each, as jose's docs show.
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        for await (const key of error) {
          try {
            return (await jwtVerify(token, key, options)).payload;
          } catch (inner) {
            if (inner instanceof errors.JWSSignatureVerificationFailed) continue;
            throw inner;
          }
        }
        throw new errors.JWSSignatureVerificationFailed();
      }
      throw error;
    }
  }

  /** `expected`: an ID token's audience and nonce; without, a bearer token for the configured audience. */
  async function verifyNow(token: string, expected?: { audience: string; nonce: string }): Promise<OidcIdentity | null> {
    if (!looksLikeJwt(token)) return null;
    const typ: unknown = decodeProtectedHeader(token).typ;
    if (typ !== undefined && !(typeof typ === 'string' && ACCEPTED_TYPES.has(typ.toLowerCase()))) return null;
    // Unverified peek: a token that does not even claim our issuer is refused without any network
    // traffic, so foreign or junk tokens cannot make us contact (or wait for) the issuer.
    let claimedIssuer: unknown;
    try {
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      return null;
    }
    if (typeof claimedIssuer !== 'string' || stripSlash(claimedIssuer) !== stripSlash(opts.issuer)) return null;

    const issuer = await getDiscovered();
    if (!issuer) return null;

    const options: JWTVerifyOptions = {
      issuer: issuer.issuer,
      audience: expected?.audience ?? opts.audience,
      algorithms: ALLOWED_ALGORITHMS,
      clockTolerance,
      requiredClaims: ['sub', 'exp'],
      ...(opts.clock ? { currentDate: opts.clock.now() } : {}),
    };
    let payload: JWTPayload;
    try {
      payload = await verifyWith(token, issuer.keys, options).catch((error: unknown) => {
        // Same stale-connection case for the key set fetch (jose does not remember a failed fetch).
        if (isConnectionFailure(error)) return verifyWith(token, issuer.keys, options);
        throw error;
      });
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (!(typeof code === 'string' && TOKEN_ERROR_CODES.has(code))) reportIssuerError(error);
      return null;
    }

    const {
      sub,
      email,
      email_verified: emailVerified,
    } = payload as JWTPayload & {
      email?: unknown;
      email_verified?: unknown;
    };
    if (typeof sub !== 'string' || sub === '' || typeof payload.iss !== 'string') return null;
    if (expected) {
      // OpenID Connect Core §3.1.3.7: the nonce we sent, and `azp` naming us when there are several audiences.
      if (payload.nonce !== expected.nonce) return null;
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== expected.audience) return null;
    }
    return {
      issuer: payload.iss,
      subject: sub,
      // An address the provider says it has not verified is not one we should show or trust.
      email: typeof email === 'string' && email !== '' && emailVerified !== false ? email : null,
    };
  }

  async function verify(token: string, expected?: { audience: string; nonce: string }): Promise<OidcIdentity | null> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
      timer.unref();
    });
    try {
      // verifyNow never rejects, so whichever loses the race is harmless; a discovery or key fetch
      // still running after the deadline completes in the background and is cached for next time.
      return await Promise.race([verifyNow(token, expected).catch(() => null), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    verify: (token) => verify(token),
    verifyIdToken: (token, expected) => verify(token, expected),
    endpoints: async () => (await getDiscovered())?.endpoints ?? null,
    looksLikeJwt,
  };
}
