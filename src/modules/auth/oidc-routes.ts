import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setSessionCookies, type BrowserSessionCookies } from '../../http/browser-session.ts';
import { errorResponses } from '../../http/schemas.ts';
import { notFound } from '../../lib/errors.ts';
import { OIDC_CALLBACK_PATH, OIDC_TRANSACTION_COOKIE, OIDC_TRANSACTION_TTL_MS, OidcLoginError, safeNextPath, type OidcLogin } from './oidc-login.ts';
import type { AuthService } from './service.ts';

export interface OidcRoutesOptions {
  /** Null when OIDC_CLIENT_ID is not set: the routes exist, and say there is no such sign-in. */
  oidcLogin: { login: OidcLogin; issuer: string } | null;
  credentialRateLimit: { max: number; timeWindow: number };
  cookies: BrowserSessionCookies;
}

const SignInOptions = Type.Object({
  data: Type.Object({
    oidc: Type.Union([
      Type.Object({
        issuer: Type.String(),
        name: Type.String({ description: 'The issuer’s host name, for the “Sign in with …” button' }),
        startPath: Type.String({ description: 'Send the browser here (a page navigation, not a fetch), with ?next=<path of this app>' }),
      }),
      Type.Null(),
    ]),
  }),
});

const redirectResponse = { 302: Type.Null({ description: 'A redirect (Location header)' }) };

/** The login page's address that shows why an OIDC sign-in failed, and keeps where the person was going. */
function failurePage(next: string, error: OidcLoginError): string {
  const query = new URLSearchParams({ next, oidc_error: error.reason });
  if (error.providerError) query.set('oidc_detail', error.providerError);
  return `/login?${query}`;
}

export function registerOidcRoutes(root: FastifyInstance, auth: AuthService, { oidcLogin, credentialRateLimit, cookies }: OidcRoutesOptions): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['auth'];
  const transactionCookie = (request: FastifyRequest) => {
    const header = request.headers.cookie;
    return header === undefined ? undefined : request.server.parseCookie(header)[OIDC_TRANSACTION_COOKIE];
  };
  const clearTransaction = (reply: FastifyReply) =>
    reply.clearCookie(OIDC_TRANSACTION_COOKIE, { path: OIDC_CALLBACK_PATH, httpOnly: true, sameSite: 'lax', secure: cookies.secure });

  app.get('/v1/auth/sign-in-options', {
    config: { auth: 'none' },
    schema: { tags, summary: 'How people can sign in besides email and password', response: { 200: SignInOptions, ...errorResponses } },
    handler: async () => ({
      data: { oidc: oidcLogin ? { issuer: oidcLogin.issuer, name: new URL(oidcLogin.issuer).host, startPath: '/v1/auth/oidc/start' } : null },
    }),
  });

  app.get('/v1/auth/oidc/start', {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Start signing in at the OIDC issuer (browser navigation)',
      description:
        'Redirects to the issuer’s authorization endpoint (authorization code, PKCE S256, state, nonce). The issuer sends the browser back to ' +
        `${OIDC_CALLBACK_PATH}, which starts a browser session (cookies) and returns to \`next\`, a path of this app.`,
      querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }),
      response: { ...redirectResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      if (!oidcLogin) throw notFound('Signing in through an OpenID Connect issuer is not configured here');
      const started = await oidcLogin.login.start(request.query.next);
      if (!started)
        return reply.redirect(
          failurePage(safeNextPath(request.query.next), new OidcLoginError('unavailable', 'The identity provider could not be reached')),
          302,
        );
      reply.setCookie(OIDC_TRANSACTION_COOKIE, started.transaction, {
        path: OIDC_CALLBACK_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: cookies.secure,
        maxAge: OIDC_TRANSACTION_TTL_MS / 1000,
      });
      return reply.header('cache-control', 'no-store').redirect(started.location, 302);
    },
  });

  app.get(OIDC_CALLBACK_PATH, {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Where the OIDC issuer returns the browser',
      description:
        'On success, sets the browser session cookies and redirects to the path the sign-in started from; on failure, redirects to /login with oidc_error.',
      // Issuers add parameters of their own (session_state, scope, authuser, ...).
      querystring: Type.Object(
        {
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 512 })),
          error: Type.Optional(Type.String({ maxLength: 512 })),
          error_description: Type.Optional(Type.String({ maxLength: 4096 })),
          iss: Type.Optional(Type.String({ maxLength: 2000 })),
        },
        { additionalProperties: true },
      ),
      response: { ...redirectResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      if (!oidcLogin) throw notFound('Signing in through an OpenID Connect issuer is not configured here');
      const cookie = transactionCookie(request);
      clearTransaction(reply);
      reply.header('cache-control', 'no-store');
      try {
        const { identity, next } = await oidcLogin.login.finish(request.query, cookie);
        const { token, expiresAt } = await auth.signInWithOidc(identity);
        setSessionCookies(reply, cookies, token, expiresAt);
        return reply.redirect(next, 302);
      } catch (error) {
        if (!(error instanceof OidcLoginError)) throw error;
        request.log.info({ reason: error.reason, providerError: error.providerError }, `OIDC sign-in refused: ${error.message}`);
        return reply.redirect(failurePage(oidcLogin.login.nextOf(cookie), error), 302);
      }
    },
  });
}
