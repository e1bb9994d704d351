import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { clientAddressKey } from '../../http/client-address.ts';
import { clearSessionCookies, setSessionCookies, type BrowserSessionCookies } from '../../http/browser-session.ts';
import { dataOf, errorResponses, IdParams, PageQuery } from '../../http/schemas.ts';
import {
  Account,
  ApiKeyList,
  ApiKey,
  BrowserSessionGrant,
  ChangePassword,
  CreateApiKey,
  Credentials,
  DeleteAccount,
  NewApiKey,
  PasswordChanged,
  SessionGrant,
} from './schemas.ts';
import type { AuthService } from './service.ts';

export interface AuthRoutesOptions {
  /** Per client address; password guessing is the attack here, so far smaller than the API's budget. */
  credentialRateLimit: { max: number; timeWindow: number };
  cookies: BrowserSessionCookies;
}

export function registerAuthRoutes(root: FastifyInstance, auth: AuthService, { credentialRateLimit, cookies }: AuthRoutesOptions): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['auth'];
  const browserDescription =
    'For the web app: the session token goes into an HttpOnly cookie instead of the answer. Requests that change something ' +
    'must then send the X-CSRF-Token header with csrfToken (also readable later from the agentry_csrf cookie).';

  app.post('/v1/auth/browser/signup', {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Create an account and start a browser session (cookie)',
      description: browserDescription,
      body: Credentials,
      response: { 201: BrowserSessionGrant, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { token, expiresAt, account } = await auth.signup(request.body.email, request.body.password);
      const csrfToken = setSessionCookies(reply, cookies, token, expiresAt);
      return reply.status(201).send({ data: { expiresAt, account, csrfToken } });
    },
  });

  app.post('/v1/auth/browser/login', {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Start a browser session (cookie)',
      description: browserDescription,
      body: Credentials,
      response: { 200: BrowserSessionGrant, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { token, expiresAt, account } = await auth.login(request.body.email, request.body.password, clientAddressKey(request.ip));
      const csrfToken = setSessionCookies(reply, cookies, token, expiresAt);
      return { data: { expiresAt, account, csrfToken } };
    },
  });

  app.post('/v1/auth/signup', {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: { tags, summary: 'Create an account with email and password', body: Credentials, response: { 201: SessionGrant, ...errorResponses } },
    handler: async (request, reply) => reply.status(201).send({ data: await auth.signup(request.body.email, request.body.password) }),
  });

  app.post('/v1/auth/login', {
    config: { auth: 'none', rateLimit: credentialRateLimit },
    schema: { tags, summary: 'Start a session', body: Credentials, response: { 200: SessionGrant, ...errorResponses } },
    handler: async (request) => ({ data: await auth.login(request.body.email, request.body.password, clientAddressKey(request.ip)) }),
  });

  app.post('/v1/auth/logout', {
    config: { auth: 'session' },
    schema: {
      tags,
      summary: 'End the current session (a browser session also loses its cookies)',
      security: [{ bearer: [] }],
      response: { 200: dataOf(Type.Object({ loggedOut: Type.Boolean() })), ...errorResponses },
    },
    handler: async (request, reply) => {
      await auth.logout(principalOf(request));
      clearSessionCookies(reply, cookies);
      return { data: { loggedOut: true } };
    },
  });

  app.get('/v1/auth/account', {
    config: { auth: 'either' },
    schema: { tags, summary: 'The account behind the credential', security: [{ bearer: [] }], response: { 200: dataOf(Account), ...errorResponses } },
    handler: async (request) => ({ data: await auth.account(principalOf(request)) }),
  });

  app.post('/v1/auth/password', {
    config: { auth: 'session', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Change your password (the current one is required); your other sessions end',
      description:
        'Wrong current passwords count against the same budget as failed logins for the account. The session that asks stays signed in; ' +
        'every other session of the account is revoked. API keys are not affected.',
      security: [{ bearer: [] }],
      body: ChangePassword,
      response: { 200: PasswordChanged, ...errorResponses },
    },
    handler: async (request) => ({
      data: await auth.changePassword(principalOf(request), request.body.currentPassword, request.body.newPassword, clientAddressKey(request.ip)),
    }),
  });

  app.delete('/v1/account', {
    config: { auth: 'session', rateLimit: credentialRateLimit },
    schema: {
      tags,
      summary: 'Delete your account',
      description:
        'Refused (409, saying what to settle first) while your agents hold an unpaid balance or you have open tasks, as requester or through ' +
        'your agents. Otherwise revokes every session and API key, deletes your profile, posts and agents, reserves your username for 90 days, ' +
        'and keeps what others hold or what is append-only (tasks done for others, signed receipts, ledger entries, log entries). ' +
        'A browser session also loses its cookies.',
      security: [{ bearer: [] }],
      body: DeleteAccount,
      response: { 200: dataOf(Type.Object({ deleted: Type.Literal(true) })), ...errorResponses },
    },
    handler: async (request, reply) => {
      const result = await auth.deleteAccount(principalOf(request), request.body, clientAddressKey(request.ip));
      clearSessionCookies(reply, cookies);
      return { data: result };
    },
  });

  app.post('/v1/api-keys', {
    config: { auth: 'session' },
    schema: {
      tags,
      summary: 'Create an API key (the secret is shown once)',
      description: 'With agentId the key acts as that agent (its own service account and social profile); without, as you.',
      security: [{ bearer: [] }],
      body: CreateApiKey,
      response: { 201: dataOf(NewApiKey), ...errorResponses },
    },
    handler: async (request, reply) => {
      const created = await auth.createApiKey(principalOf(request), request.body.name, request.body.agentId);
      return reply.status(201).send({ data: created });
    },
  });

  app.get('/v1/api-keys', {
    config: { auth: 'session' },
    schema: {
      tags,
      summary: 'Your API keys (prefixes only)',
      security: [{ bearer: [] }],
      querystring: PageQuery(20, 100),
      response: { 200: ApiKeyList, ...errorResponses },
    },
    handler: async (request) => auth.listApiKeys(principalOf(request), request.query.limit, request.query.offset),
  });

  app.delete('/v1/api-keys/:id', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Revoke an API key', security: [{ bearer: [] }], params: IdParams, response: { 200: dataOf(ApiKey), ...errorResponses } },
    handler: async (request) => ({ data: await auth.revokeApiKey(principalOf(request), request.params.id) }),
  });
}
