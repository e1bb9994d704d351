import type { Clock } from '../../lib/clock.ts';
import { isoIn, isoNow } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound, RateLimitedError, unauthorized } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { dummyPasswordHash, hashPassword, hashSecret, newSecret, verifyPassword } from '../../lib/secrets.ts';
import type { Authenticator, Principal } from '../../lib/principal.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { AgentAccountResolver } from './agent-accounts.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { OidcIdentity, OidcVerifier } from './oidc.ts';
import type { PrincipalCache } from './principal-cache.ts';
import type { AccountRow, ApiKeyRow, AuthStore, CredentialMatch } from './store.ts';

export const SESSION_PREFIX = 'ags_';
export const API_KEY_PREFIX = 'agk_';
const KEY_TOUCH_INTERVAL_MS = 60 * 60 * 1000;

export interface AuthServiceDeps {
  store: AuthStore;
  clock: Clock;
  sessionTtlHours: number;
  oidc: OidcVerifier | null;
  agentAccounts: AgentAccountResolver;
  principals: PrincipalCache;
  loginThrottle: LoginThrottle;
}

export const accountView = (row: AccountRow) => ({
  id: row.id,
  kind: row.kind,
  email: row.email,
  agentId: row.agent_id,
  createdAt: row.created_at,
});

export const apiKeyView = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  agentId: row.agent_id,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

export function createAuthService({ store, clock, sessionTtlHours, oidc, agentAccounts, principals, loginThrottle }: AuthServiceDeps) {
  const principalFrom = (match: CredentialMatch, via: Principal['via']): Principal => ({
    accountId: match.account_id,
    kind: match.kind,
    via,
    credentialId: match.credential_id,
    agentId: match.agent_id,
    personId: match.owner_account_id ?? match.account_id,
  });

  async function startSession(account: AccountRow) {
    const token = newSecret(SESSION_PREFIX);
    const expiresAt = isoIn(clock, sessionTtlHours * 3600_000);
    await store.insertSession({ id: newId(), account_id: account.id, token_hash: hashSecret(token), created_at: isoNow(clock), expires_at: expiresAt });
    return { token, expiresAt, account: accountView(account) };
  }

  /** The person's account for an issuer's (issuer, subject), made on first sight. */
  async function accountForOidc(identity: OidcIdentity): Promise<AccountRow> {
    let account = await store.findAccountByOidc(identity.issuer, identity.subject);
    if (!account) {
      const row: AccountRow = {
        id: newId(),
        kind: 'person',
        email: null,
        password_hash: null,
        oidc_issuer: identity.issuer,
        oidc_subject: identity.subject,
        agent_id: null,
        owner_account_id: null,
        created_at: isoNow(clock),
      };
      try {
        account = await store.insertAccount(row);
      } catch (error) {
        // Two first requests of the same person raced; the other one created the account.
        if (!isUniqueViolation(error)) throw error;
        account = await store.findAccountByOidc(identity.issuer, identity.subject);
        if (!account) throw error;
      }
    }
    return account;
  }

  async function oidcPrincipal(token: string): Promise<Principal | null> {
    if (!oidc || !oidc.looksLikeJwt(token)) return null;
    const identity = await oidc.verify(token);
    if (!identity) return null;
    const account = await accountForOidc(identity);
    return { accountId: account.id, kind: 'person', via: 'oidc', credentialId: null, agentId: null, personId: account.id };
  }

  async function lookUp(tokenHash: string, isKey: boolean): Promise<Principal | null> {
    const ticket = principals.ticket();
    if (isKey) {
      const match = await store.findLiveApiKey(tokenHash);
      if (!match) return null;
      const now = clock.now();
      // Recording use on every request would turn each read into a write; hourly is enough to spot dead keys.
      // A cached key is looked up again within the cache's max age, so use is still seen within the hour.
      if (!match.last_used_at || now.getTime() - Date.parse(match.last_used_at) > KEY_TOUCH_INTERVAL_MS) {
        await store.touchApiKey(match.credential_id, now.toISOString());
      }
      const principal = principalFrom(match, 'key');
      principals.remember(tokenHash, principal, null, ticket);
      return principal;
    }
    const match = await store.findLiveSession(tokenHash, isoNow(clock));
    if (!match) return null;
    const principal = principalFrom(match, 'session');
    principals.remember(tokenHash, principal, Date.parse(match.expires_at), ticket);
    return principal;
  }

  const authenticator: Authenticator = {
    authenticate(token) {
      const isKey = token.startsWith(API_KEY_PREFIX);
      if (!isKey && !token.startsWith(SESSION_PREFIX)) return oidcPrincipal(token);
      const tokenHash = hashSecret(token);
      return principals.get(tokenHash) ?? lookUp(tokenHash, isKey);
    },
  };

  return {
    authenticator,

    async signup(email: string, password: string) {
      const normalized = email.trim().toLowerCase();
      if (await store.findAccountByEmail(normalized)) throw conflict('An account with this email already exists');
      const account = await store.insertAccount({
        id: newId(),
        kind: 'person',
        email: normalized,
        password_hash: await hashPassword(password),
        oidc_issuer: null,
        oidc_subject: null,
        agent_id: null,
        owner_account_id: null,
        created_at: isoNow(clock),
      });
      return startSession(account);
    },

    /** `clientAddress`: where the attempt came from, which may have a budget of its own for this account. */
    async login(email: string, password: string, clientAddress: string) {
      const normalized = email.trim().toLowerCase();
      // Before the password is checked, so a refused guess costs no hashing and tells nothing.
      const admission = await loginThrottle.admit(normalized, clientAddress);
      if (!admission.admitted) {
        const seconds = Math.max(1, Math.ceil(admission.waitMs / 1000));
        throw new RateLimitedError(`Too many failed logins for this email address; retry in ${seconds} s`, seconds);
      }
      const account = await store.findAccountByEmail(normalized);
      const valid = await verifyPassword(password, account?.password_hash ?? dummyPasswordHash);
      if (!account || !account.password_hash || !valid) throw unauthorized('Invalid email or password');
      await loginThrottle.succeeded(normalized, clientAddress, admission.budget);
      return startSession(account);
    },

    /** A built-in session for the person an issuer vouched for in the browser sign-in (src/modules/auth/oidc-login.ts). */
    async signInWithOidc(identity: OidcIdentity) {
      return startSession(await accountForOidc(identity));
    },

    async logout(principal: Principal) {
      if (principal.via !== 'session' || !principal.credentialId) {
        throw badRequest('OIDC sessions end at the identity provider; only built-in sessions can be logged out here');
      }
      await store.revokeSession(principal.credentialId, isoNow(clock));
      await principals.forgetCredential(principal.credentialId);
    },

    async account(principal: Principal) {
      const account = await store.findAccountById(principal.accountId);
      if (!account) throw unauthorized();
      return accountView(account);
    },

    async createApiKey(principal: Principal, name: string, agentId: string | undefined) {
      if (principal.kind !== 'person') throw new AppError('FORBIDDEN', 'Only a person can create API keys');
      const accountId = agentId ? (await agentAccounts.serviceAccountFor(agentId, principal.personId)).accountId : principal.accountId;
      const key = newSecret(API_KEY_PREFIX);
      const row: ApiKeyRow = {
        id: newId(),
        account_id: accountId,
        created_by: principal.personId,
        name,
        prefix: key.slice(0, API_KEY_PREFIX.length + 8),
        key_hash: hashSecret(key),
        agent_id: agentId ?? null,
        created_at: isoNow(clock),
        last_used_at: null,
        revoked_at: null,
      };
      await store.insertApiKey(row);
      return { ...apiKeyView(row), key };
    },

    async listApiKeys(principal: Principal, limit: number, offset: number) {
      const [rows, total] = await Promise.all([store.listApiKeys(principal.personId, limit, offset), store.countApiKeys(principal.personId)]);
      return { data: rows.map(apiKeyView), pagination: { limit, offset, total, hasMore: offset + rows.length < total } };
    },

    async revokeApiKey(principal: Principal, id: string) {
      const row = await store.findApiKey(id);
      // Someone else's key answers exactly like a missing one, so ids cannot be probed.
      if (!row || row.created_by !== principal.personId) throw notFound('API key not found');
      const now = isoNow(clock);
      await store.revokeApiKey(id, now);
      await principals.forgetCredential(id);
      return apiKeyView({ ...row, revoked_at: row.revoked_at ?? now });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
