/**
 * A real OpenID Provider (`oidc-provider` v9) on 127.0.0.1, for tests of external OIDC sessions.
 *
 * Tokens are genuine: the helper talks HTTP to the provider's own endpoints.
 *  1. Dynamic Client Registration (`POST /reg`, guarded by an initial access token) registers one
 *     confidential client per subject, with `grant_types: ['client_credentials']`. The provider's
 *     `idFactory` uses the requested `client_name` as the client_id.
 *  2. The token endpoint (`POST /token`, `grant_type=client_credentials`, `resource=<audience>`)
 *     issues a JWT access token (RFC 9068, `typ: at+jwt`) signed with this provider's own keys.
 *     For client credentials the provider sets `sub` to the client_id, i.e. our subject.
 * Per-call extras (email claim, lifetime, backdating for expired tokens) go through the provider's
 * `extraTokenClaims`, `ttl.ClientCredentials` and `formats.customizers.jwt` hooks; calls are
 * serialised so each token request sees its own extras.
 *
 * With `webClient`, it also serves the authorization-code flow for a web app (the service's browser
 * sign-in): that one client with its redirect URI, PKCE required, consent taken as given, and a
 * minimal login page of its own at `/interaction/<uid>` (a "Subject" field, "Sign in" and "Cancel",
 * the latter answering `access_denied`). `signIn()` walks that page over HTTP as a browser would.
 */
import { generateKeyPair as generateKeyPairCallback, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

export interface IssueOptions {
  /** Adds an `email` claim. */
  email?: string;
  /** Adds `email_verified`. */
  emailVerified?: boolean;
  /** Token lifetime in seconds (a positive integer). Default 600. */
  ttlSeconds?: number;
  /** The `aud` to ask for (as the RFC 8707 resource). Default: the provider's audience. */
  audience?: string;
}

export interface WebClient {
  clientId: string;
  /** Where the provider sends the browser back with `code` and `state`. */
  redirectUri: string;
  /** A confidential client (client_secret_basic at the token endpoint); without, a public one (PKCE only). */
  secret?: string;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`, exactly the `iss` of its tokens. */
  issuer: string;
  /**
   * Follows an authorization request (`start`: the provider's /auth URL with its query) through the
   * login page as a browser would, signing in as `subject` (or pressing "Cancel"), and answers the
   * address the provider finally sends the browser to: the web client's redirect URI with its query.
   */
  signIn(start: string, subject: string, options?: { cancel?: boolean }): Promise<string>;
  /** A genuine JWT access token with `sub` = subject and `aud` = the audience. */
  issueToken(subject: string, claims?: IssueOptions): Promise<string>;
  /** Same, but issued with `iat`/`exp` moved into the past: expired by `expiredForSeconds` (default 300). */
  issueExpiredToken(subject: string, claims?: Omit<IssueOptions, 'ttlSeconds'> & { expiredForSeconds?: number }): Promise<string>;
  /** How many HTTP requests reached this path (e.g. `/.well-known/openid-configuration`, `/jwks`). */
  requestCount(path: string): number;
  close(): Promise<void>;
}

/** Minimal shape of what we use from oidc-provider, which ships no type declarations. */
interface ProviderInstance {
  callback(): RequestListener;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}
/** The parts of the provider's interaction API the login page uses. */
interface InteractionApi {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
}
interface GrantInstance {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
/** What `loadExistingGrant` reads from the provider's context. */
interface GrantContext {
  oidc: {
    result?: { consent?: { grantId?: string } };
    session: { accountId: string; grantIdFor(clientId: string): string | undefined };
    client: { clientId: string };
    provider: { Grant: { new (init: { clientId: string; accountId: string }): GrantInstance; find(id: string): Promise<GrantInstance | undefined> } };
  };
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
interface OidcProviderModule {
  default: ProviderConstructor;
  errors: { InvalidTarget: new (description?: string) => Error };
}

interface CallExtras {
  email?: string;
  emailVerified?: boolean;
  ttlSeconds?: number;
  backdateSeconds?: number;
}

let modulePromise: Promise<OidcProviderModule> | undefined;

/**
 * oidc-provider 9 prints "Unsupported runtime. Use Node.js v22.x LTS" when imported on Node 20 (it
 * works, it is just not a supported target). Import it once with that line filtered out.
 */
function loadOidcProvider(): Promise<OidcProviderModule> {
  modulePromise ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
      warn(...args);
    };
    try {
      // A non-literal specifier: the package has no .d.ts, and the shape above is all we rely on.
      const specifier = 'oidc-provider';
      return (await import(specifier)) as OidcProviderModule;
    } finally {
      console.warn = warn;
    }
  })();
  return modulePromise;
}

/**
 * One POST on its own connection (no keep-alive pool): the global fetch() pool would keep a socket
 * to the provider that turns stale on close() and could then trip up the code under test.
 */
function httpPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return httpCall('POST', url, body, headers);
}

interface HttpAnswer {
  status: number;
  text: string;
  location: string | undefined;
  setCookies: string[];
}

function httpCall(method: 'GET' | 'POST', url: string, body: string | null, headers: Record<string, string>): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const sized = body === null ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest(url, { method, agent: false, headers: sized }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          location: res.headers.location,
          setCookies: res.headers['set-cookie'] ?? [],
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.end(body ?? undefined);
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The provider's login page: plain HTML, one field, two buttons, labelled for a screen reader. */
function loginPage(uid: string, clientId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider: sign in</title></head>
<body><main><h1>Sign in to continue to ${escapeHtml(clientId)}</h1>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="subject">Subject</label> <input id="subject" name="subject" autocomplete="username" required>
<button type="submit">Sign in</button>
<button type="submit" name="cancel" value="1" formnovalidate>Cancel</button>
</form></main></body></html>`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** RFC 8707 resource indicators must be absolute URIs; any other audience travels inside a URN. */
const RESOURCE_URN_PREFIX = 'urn:x-test-audience:';
function resourceFor(audience: string): string {
  try {
    const url = new URL(audience);
    if (url.hash === '' && !audience.endsWith('#')) return audience;
  } catch {
    // not a URL
  }
  return `${RESOURCE_URN_PREFIX}${encodeURIComponent(audience)}`;
}
function audienceFor(resource: string): string {
  return resource.startsWith(RESOURCE_URN_PREFIX) ? decodeURIComponent(resource.slice(RESOURCE_URN_PREFIX.length)) : resource;
}

/** oidc-provider's adapter contract, in memory (the built-in one announces itself on stderr). */
function memoryAdapter(): new (model: string) => object {
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry?.payload;
  };
  return class MemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
      store.set(this.key(id), { payload: { ...payload }, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    }
    async find(id: string) {
      return live(this.key(id));
    }
    async findByUserCode() {
      return undefined;
    }
    /** Sessions by uid: codes bound to a session look it up at the token endpoint. */
    async findByUid(uid: string) {
      for (const key of store.keys()) {
        if (!key.startsWith(`${this.model}:`)) continue;
        const payload = live(key);
        if (payload?.uid === uid) return payload;
      }
      return undefined;
    }
    async consume(id: string) {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, entry] of store) if (entry.payload.grantId === grantId) store.delete(key);
    }
  };
}

const generateKeyPair = promisify(generateKeyPairCallback);

/** Fresh keys per provider (the built-in development keys are the same for every instance). */
async function signingKeys(): Promise<object[]> {
  const suffix = randomBytes(6).toString('base64url');
  const [rsa, ec, ed] = await Promise.all([
    generateKeyPair('rsa', { modulusLength: 2048 }),
    generateKeyPair('ec', { namedCurve: 'P-256' }),
    generateKeyPair('ed25519'),
  ]);
  const sig = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid: `${kid}-${suffix}`, use: 'sig' });
  return [sig(rsa.privateKey, 'rsa'), sig(ec.privateKey, 'ec'), sig(ed.privateKey, 'ed')];
}

export async function startOidcProvider(opts: {
  audience: string;
  /** JWS algorithm of the access tokens. Default RS256. */
  signingAlg?: 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
  /** Listen on this port (e.g. to bring an issuer back after `close()`). Default: a random free port. */
  port?: number;
  /** A web app client for the authorization-code flow (see the top of this file). */
  webClient?: WebClient;
}): Promise<TestOidcProvider> {
  const [{ default: Provider, errors }, keys] = await Promise.all([loadOidcProvider(), signingKeys()]);

  // The issuer URL needs the port, so the server listens before the provider exists.
  const app: { handler?: RequestListener; interaction?: RequestListener } = {};
  const requests = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (app.interaction && path.startsWith('/interaction/')) return app.interaction(req, res);
    // A browser on the login page asks for one; a 404 there would read as an error of the page.
    if (app.interaction && path === '/favicon.ico') {
      res.statusCode = 204;
      res.end();
      return;
    }
    if (app.handler) return app.handler(req, res);
    res.statusCode = 503;
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const registrationSecret = randomBytes(24).toString('base64url');
  let extras: CallExtras = {};
  let lastServerError: unknown;

  const web = opts.webClient;
  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    jwks: { keys },
    clients: web
      ? [
          {
            client_id: web.clientId,
            ...(web.secret ? { client_secret: web.secret, token_endpoint_auth_method: 'client_secret_basic' } : { token_endpoint_auth_method: 'none' }),
            redirect_uris: [web.redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
          },
        ]
      : [],
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    // The web client is first-party: whoever signs in has consented to the scopes it asks for.
    loadExistingGrant: async (ctx: GrantContext) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid');
      await grant.save();
      return grant;
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: {
        enabled: true,
        initialAccessToken: registrationSecret,
        issueRegistrationAccessToken: false,
        // The client_id is the requested client_name: that is the `sub` of its client_credentials tokens.
        idFactory: (ctx: { oidc: { body?: { client_name?: unknown } } }) => {
          const name = ctx.oidc.body?.client_name;
          if (typeof name !== 'string' || name === '') throw new Error('client_name (the subject) is required');
          return name;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resourceFor(opts.audience),
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (typeof resource !== 'string') throw new errors.InvalidTarget();
          return {
            scope: '',
            audience: audienceFor(resource),
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: opts.signingAlg ?? 'RS256' } },
          };
        },
      },
    },
    // Every lifetime set, so the provider does not announce its defaults on stderr.
    ttl: {
      ClientCredentials: () => extras.ttlSeconds ?? 600,
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
    },
    extraTokenClaims: () => {
      const claims: Record<string, unknown> = {};
      if (extras.email !== undefined) claims.email = extras.email;
      if (extras.emailVerified !== undefined) claims.email_verified = extras.emailVerified;
      return Object.keys(claims).length > 0 ? claims : undefined;
    },
    formats: {
      customizers: {
        jwt: (_ctx: unknown, _token: unknown, jwt: { payload: { iat?: number; exp?: number } }) => {
          const back = extras.backdateSeconds;
          if (back) {
            if (typeof jwt.payload.iat === 'number') jwt.payload.iat -= back;
            if (typeof jwt.payload.exp === 'number') jwt.payload.exp -= back;
          }
        },
      },
    },
  });
  provider.on('server_error', (_ctx: unknown, error: unknown) => {
    lastServerError = error;
  });
  app.handler = provider.callback();
  if (web) {
    const interactions = provider as unknown as InteractionApi;
    app.interaction = (req, res) => {
      const fail = (error: unknown) => {
        res.statusCode = 400;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      };
      (async () => {
        const details = await interactions.interactionDetails(req, res);
        if (req.method === 'GET') {
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(loginPage(details.uid, web.clientId));
          return;
        }
        const form = await readForm(req);
        const subject = form.get('subject') ?? '';
        if (form.get('cancel') === '1' || subject === '') {
          await interactions.interactionFinished(
            req,
            res,
            { error: 'access_denied', error_description: 'The person cancelled the sign-in' },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        await interactions.interactionFinished(req, res, { login: { accountId: subject } }, { mergeWithLastSubmission: false });
      })().catch(fail);
    };
  }

  const post = async (path: string, body: URLSearchParams | object, headers: Record<string, string> = {}) => {
    const json = !(body instanceof URLSearchParams);
    const { status, text } = await httpPost(`${issuer}${path}`, json ? JSON.stringify(body) : body.toString(), {
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...headers,
    });
    const payload = JSON.parse(text) as Record<string, unknown>;
    if (status < 200 || status > 299) {
      const detail = lastServerError instanceof Error ? ` (server error: ${lastServerError.message})` : '';
      throw new Error(`oidc-provider ${path} answered ${status}: ${text}${detail}`);
    }
    return payload;
  };

  const clients = new Map<string, Promise<{ id: string; secret: string }>>();
  const clientFor = (subject: string) => {
    let client = clients.get(subject);
    if (!client) {
      client = post(
        '/reg',
        {
          client_name: subject,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_post',
        },
        { authorization: `Bearer ${registrationSecret}` },
      ).then((registered) => ({ id: String(registered.client_id), secret: String(registered.client_secret) }));
      client.catch(() => clients.delete(subject));
      clients.set(subject, client);
    }
    return client;
  };

  // Token requests run one at a time so the hooks above read this call's extras.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const requestToken = (subject: string, audience: string | undefined, callExtras: CallExtras) =>
    exclusive(async () => {
      const client = await clientFor(subject);
      extras = callExtras;
      try {
        const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret });
        form.set('resource', resourceFor(audience ?? opts.audience));
        const response = await post('/token', form);
        if (typeof response.access_token !== 'string') throw new Error('oidc-provider returned no access_token');
        return response.access_token;
      } finally {
        extras = {};
      }
    });

  /** Cookies by name, as a browser would keep them for this one host. */
  async function signIn(start: string, subject: string, options: { cancel?: boolean } = {}): Promise<string> {
    const jar = new Map<string, string>();
    const remember = (setCookies: string[]) => {
      for (const line of setCookies) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        const name = pair!.slice(0, at).trim();
        const value = pair!.slice(at + 1).trim();
        if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') jar.delete(name);
        else jar.set(name, value);
      }
    };
    const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let url = new URL(start, issuer).href;
    for (let hop = 0; hop < 10; hop++) {
      if (!url.startsWith(issuer)) return url;
      const path = new URL(url).pathname;
      let answer: HttpAnswer;
      if (/^\/interaction\/[^/]+$/.test(path)) {
        // The login page: submit its form.
        const form = new URLSearchParams(options.cancel ? { subject: '', cancel: '1' } : { subject });
        answer = await httpCall('POST', `${url}/login`, form.toString(), { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() });
      } else {
        answer = await httpCall('GET', url, null, { cookie: cookieHeader() });
      }
      remember(answer.setCookies);
      if (!answer.location) throw new Error(`the provider answered ${answer.status} at ${url} without a redirect: ${answer.text.slice(0, 300)}`);
      url = new URL(answer.location, url).href;
    }
    throw new Error('the provider redirected more than 10 times');
  }

  let closed = false;
  return {
    issuer,
    signIn,
    requestCount: (path) => requests.get(path) ?? 0,
    issueToken(subject, claims = {}) {
      return requestToken(subject, claims.audience, {
        email: claims.email,
        emailVerified: claims.emailVerified,
        ttlSeconds: claims.ttlSeconds,
      });
    },
    issueExpiredToken(subject, claims = {}) {
      const ttlSeconds = 60;
      return requestToken(subject, claims.audience, {
        email: claims.email,
        emailVerified: claims.emailVerified,
        ttlSeconds,
        backdateSeconds: ttlSeconds + (claims.expiredForSeconds ?? 300),
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
