import type { Clock } from '../../lib/clock.ts';
import { isoIn, isoNow } from '../../lib/clock.ts';
import { accountRejected, accountSuspended, AppError, badRequest, conflict, forbidden, notFound, RateLimitedError, unauthorized } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { PASSWORD_COST, hashPassword, hashSecret, newSecret, verifyPassword } from '../../lib/secrets.ts';
import type { Authenticator, Principal } from '../../lib/principal.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { AccountDeletion } from './account-deletion.ts';
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
  /** The parts other modules hooked into account deletion. */
  accountDeletion: AccountDeletion;
  /** Why the account, or the person it answers to, is suspended (moderation); null when it is not. */
  suspensionOf?: (accountIds: string[]) => Promise<string | null>;
  /** The instance's sign-up policy: `closed` refuses new accounts, by password and through the identity provider alike. */
  signUpPolicy?: () => Promise<'open' | 'approval' | 'closed'>;
  /** scrypt's cost for new password hashes (default PASSWORD_COST). */
  passwordCost?: number;
  /** Sign-up approval (moderation): makes a new account wait, and tells whether one waits or was rejected. */
  approval?: {
    hold(accountId: string): Promise<unknown>;
    of(accountId: string): Promise<{ state: 'pending' | 'rejected'; reason: string | null } | null>;
  };
}

/** What a password-less account (signed in through an identity provider) types to confirm its deletion. */
export const DELETE_CONFIRMATION = 'delete my account';

const accountView = (row: AccountRow) => ({
  id: row.id,
  kind: row.kind,
  email: row.email,
  agentId: row.agent_id,
  createdAt: row.created_at,
});

/** The account as its owner sees it: with whether it still waits for a moderator's approval. */
const ownAccountView = (row: AccountRow, pending: boolean) => ({ ...accountView(row), waitingForApproval: pending });

export const apiKeyView = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  agentId: row.agent_id,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

export function createAuthService({
  store,
  clock,
  sessionTtlHours,
  oidc,
  agentAccounts,
  principals,
  loginThrottle,
  accountDeletion,
  suspensionOf = async () => null,
  signUpPolicy = async () => 'open',
  passwordCost = PASSWORD_COST,
  approval = { hold: async () => undefined, of: async () => null },
}: AuthServiceDeps) {
  /** A hash to compare against when the account does not exist, so timing does not reveal which emails exist. */
  const dummyPasswordHash = hashPassword('not-a-real-password', passwordCost);

  /** The sign-up policy, refusing when it is closed. */
  async function openSignUpPolicy() {
    const policy = await signUpPolicy();
    if (policy === 'closed') throw new AppError('SIGN_UP_CLOSED', 'This instance is not taking new accounts: sign-up is closed');
    return policy;
  }

  /** Under `approval`, the account about to be created waits: held before it exists, so it never acts unapproved. */
  async function holdIfApprovalNeeded(policy: 'open' | 'approval', accountId: string) {
    if (policy === 'approval') await approval.hold(accountId);
    return policy === 'approval';
  }

  /**
   * A rejected account is refused like a suspended one; a waiting one is marked, so the guard on
   * changes answers ACCOUNT_PENDING. Read at each look-up that misses the cache; a decision drops the
   * account's cached credentials on every node.
   */
  async function standingOf(personId: string): Promise<{ pending?: true }> {
    const found = await approval.of(personId);
    if (found?.state === 'rejected') throw accountRejected(found.reason);
    return found?.state === 'pending' ? { pending: true } : {};
  }

  /** A suspended account's credential is refused with its own code, so the client can say why (never cached, so unsuspending works at once). */
  async function refuseSuspended(accountIds: (string | null)[]) {
    const reason = await suspensionOf(accountIds.filter((id): id is string => id !== null));
    if (reason !== null) throw accountSuspended(reason);
  }

  const principalFrom = (match: CredentialMatch, via: Principal['via']): Principal => ({
    accountId: match.account_id,
    kind: match.kind,
    via,
    credentialId: match.credential_id,
    agentId: match.agent_id,
    personId: match.owner_account_id ?? match.account_id,
  });

  async function startSession(account: AccountRow, pending: boolean) {
    const token = newSecret(SESSION_PREFIX);
    const expiresAt = isoIn(clock, sessionTtlHours * 3600_000);
    await store.insertSession({ id: newId(), account_id: account.id, token_hash: hashSecret(token), created_at: isoNow(clock), expires_at: expiresAt });
    return { token, expiresAt, account: ownAccountView(account, pending) };
  }

  /** The person's account for an issuer's (issuer, subject), made on first sight. */
  async function accountForOidc(identity: OidcIdentity): Promise<AccountRow> {
    let account: AccountRow | undefined = await store.findAccountByOidc(identity.issuer, identity.subject);
    if (!account) {
      const id = newId();
      await holdIfApprovalNeeded(await openSignUpPolicy(), id);
      const row: AccountRow = {
        id,
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
    await refuseSuspended([account.id]);
    return { accountId: account.id, kind: 'person', via: 'oidc', credentialId: null, agentId: null, personId: account.id, ...(await standingOf(account.id)) };
  }

  async function lookUp(tokenHash: string, isKey: boolean): Promise<Principal | null> {
    const ticket = principals.ticket();
    if (isKey) {
      const match = await store.findLiveApiKey(tokenHash);
      if (!match) return null;
      await refuseSuspended([match.account_id, match.owner_account_id]);
      const standing = await standingOf(match.owner_account_id ?? match.account_id);
      const now = clock.now();
      // Recording use on every request would turn each read into a write; hourly is enough to spot dead keys.
      // A cached key is looked up again within the cache's max age, so use is still seen within the hour.
      if (!match.last_used_at || now.getTime() - Date.parse(match.last_used_at) > KEY_TOUCH_INTERVAL_MS) {
        await store.touchApiKey(match.credential_id, now.toISOString());
      }
      const principal = { ...principalFrom(match, 'key'), ...standing };
      principals.remember(tokenHash, principal, null, ticket);
      return principal;
    }
    const match = await store.findLiveSession(tokenHash, isoNow(clock));
    if (!match) return null;
    await refuseSuspended([match.account_id, match.owner_account_id]);
    const principal = { ...principalFrom(match, 'session'), ...(await standingOf(match.owner_account_id ?? match.account_id)) };
    principals.remember(tokenHash, principal, Date.parse(match.expires_at), ticket);
    return principal;
  }

  /**
   * The person's own password, checked under the login budget of their email (a stolen session
   * cannot guess it faster than a login could). Throws when it is wrong, naming `path`.
   */
  async function checkOwnPassword(account: AccountRow, password: string, clientAddress: string, path: string) {
    const email = account.email ?? account.id;
    const admission = await loginThrottle.admit(email, clientAddress);
    if (!admission.admitted) {
      const seconds = Math.max(1, Math.ceil(admission.waitMs / 1000));
      throw new RateLimitedError(`Too many wrong passwords for this account; retry in ${seconds} s`, seconds);
    }
    if (!account.password_hash || !(await verifyPassword(password, account.password_hash))) {
      await loginThrottle.failed(email, clientAddress, admission.budget);
      throw new AppError('FORBIDDEN', 'The current password is wrong', [{ path, message: 'This is not your current password' }]);
    }
    await loginThrottle.succeeded(email, clientAddress, admission.budget);
  }

  async function ownPersonAccount(principal: Principal): Promise<AccountRow> {
    if (principal.kind !== 'person' || principal.via === 'key') throw forbidden('Only a person signed in with a session can do this');
    const account = await store.findAccountById(principal.accountId);
    if (!account || account.deleted_at) throw unauthorized();
    return account;
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
      const policy = await openSignUpPolicy();
      const normalized = email.trim().toLowerCase();
      if (await store.findAccountByEmail(normalized))
        throw conflict('An account with this email already exists', [{ path: '/body/email', message: 'This email is already registered: log in instead' }]);
      const id = newId();
      const pending = await holdIfApprovalNeeded(policy, id);
      const account = await store.insertAccount({
        id,
        kind: 'person',
        email: normalized,
        password_hash: await hashPassword(password, passwordCost),
        oidc_issuer: null,
        oidc_subject: null,
        agent_id: null,
        owner_account_id: null,
        created_at: isoNow(clock),
      });
      return startSession(account, pending);
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
      const valid = await verifyPassword(password, account?.password_hash ?? (await dummyPasswordHash));
      if (!account || !account.password_hash || !valid) {
        await loginThrottle.failed(normalized, clientAddress, admission.budget);
        throw unauthorized('Invalid email or password');
      }
      await loginThrottle.succeeded(normalized, clientAddress, admission.budget);
      // Only after the password: whether an account is suspended or rejected is told to its owner alone.
      await refuseSuspended([account.id]);
      return startSession(account, (await standingOf(account.id)).pending === true);
    },

    /** A built-in session for the person an issuer vouched for in the browser sign-in (src/modules/auth/oidc-login.ts). */
    async signInWithOidc(identity: OidcIdentity) {
      const account = await accountForOidc(identity);
      await refuseSuspended([account.id]);
      return startSession(account, (await standingOf(account.id)).pending === true);
    },

    async logout(principal: Principal) {
      if (principal.via !== 'session' || !principal.credentialId) {
        throw badRequest('OIDC sessions end at the identity provider; only built-in sessions can be logged out here');
      }
      await store.revokeSession(principal.credentialId, isoNow(clock));
      await principals.forgetCredential(principal.credentialId);
    },

    /** Sets a new password; every other session of the account ends, the one asking stays. */
    async changePassword(principal: Principal, currentPassword: string, newPassword: string, clientAddress: string) {
      const account = await ownPersonAccount(principal);
      if (!account.password_hash) throw badRequest('This account signs in through its identity provider and has no password to change here');
      await checkOwnPassword(account, currentPassword, clientAddress, '/body/currentPassword');
      if (currentPassword === newPassword)
        throw badRequest('The new password is the current one', [{ path: '/body/newPassword', message: 'Choose a password different from the current one' }]);
      await store.setPasswordHash(account.id, await hashPassword(newPassword, passwordCost));
      const keep = principal.via === 'session' ? principal.credentialId : null;
      const revoked = await store.revokeSessionsExcept(account.id, keep, isoNow(clock));
      await Promise.all(revoked.map((id) => principals.forgetCredential(id)));
      return { changed: true as const, otherSessionsEnded: revoked.length };
    },

    /**
     * Deletes the account (docs/security.md): refused while a hooked part names something to settle;
     * otherwise each part removes its rows, then the account is closed (credentials revoked, sign-in
     * data cleared). Needs the password, or for an account without one the typed confirmation.
     */
    async deleteAccount(principal: Principal, proof: { password?: string; confirm?: string }, clientAddress: string) {
      const account = await ownPersonAccount(principal);
      if (account.password_hash) {
        if (proof.password === undefined)
          throw badRequest('Send your password to delete the account', [{ path: '/body/password', message: 'Your password is required' }]);
        await checkOwnPassword(account, proof.password, clientAddress, '/body/password');
      } else if (proof.confirm?.trim().toLowerCase() !== DELETE_CONFIRMATION) {
        throw badRequest(`Type "${DELETE_CONFIRMATION}" to delete an account that signs in through its identity provider`, [
          { path: '/body/confirm', message: `Type "${DELETE_CONFIRMATION}"` },
        ]);
      }
      const refusals = await accountDeletion.refusals(account.id);
      if (refusals.length > 0) throw conflict(`The account cannot be deleted yet. ${refusals.join(' ')}`);
      await accountDeletion.removeAll(account.id);
      const revoked = await store.closeAccount(account.id, isoNow(clock));
      await Promise.all(revoked.map((id) => principals.forgetCredential(id)));
      return { deleted: true as const };
    },

    async account(principal: Principal) {
      const account = await store.findAccountById(principal.accountId);
      if (!account) throw unauthorized();
      return ownAccountView(account, principal.pending === true);
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
