import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, unauthorized } from '../lib/errors.ts';

/**
 * none: no credential looked at. optional: used when present (invalid is still 401, so a client
 * never silently loses its identity). session: a person's login (built in or OIDC). key: an API key.
 * either: a session or a key.
 */
export type AuthMode = 'none' | 'optional' | 'session' | 'key' | 'either';

export interface Principal {
  accountId: string;
  kind: 'person' | 'agent';
  via: 'session' | 'oidc' | 'key';
  /** The session or API key id that authenticated this request (null for OIDC tokens). */
  credentialId: string | null;
  /** Set when the credential acts as a registered agent. */
  agentId: string | null;
  /** The person answerable for this principal: itself, or the owner of the agent it acts for. */
  personId: string;
}

export interface Authenticator {
  authenticate(token: string): Promise<Principal | null>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
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

  // A /v1 route without a declared mode is a bug that would otherwise ship as a public endpoint.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/v1/') && route.config?.auth === undefined) {
      throw new Error(`route ${route.method} ${route.url} declares no auth mode`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config.auth ?? 'none';
    if (mode === 'none') return;
    const token = bearerToken(request);
    if (token === undefined) {
      if (mode === 'optional') return;
      throw unauthorized('Send Authorization: Bearer <session token or API key>');
    }
    if (token === null) throw unauthorized('Authorization header must be "Bearer <token>"');
    const principal = await authenticator.authenticate(token);
    if (!principal) throw unauthorized('The credential is invalid, expired or revoked');
    if (mode === 'session' && principal.via === 'key') throw unauthorized('This route needs a session token, not an API key');
    if (mode === 'key' && principal.via !== 'key') throw unauthorized('This route needs an API key');
    request.principal = principal;
  });
}

/** For handlers of routes whose mode guarantees a principal. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('UNAUTHORIZED', 'A valid credential is required');
  return request.principal;
}
