import type { Db, Tx } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { AccountsTable, ApiKeysTable, AuthTables } from './tables.ts';

export type AccountRow = AccountsTable;
export type ApiKeyRow = ApiKeysTable;

export interface CredentialMatch {
  credential_id: string;
  account_id: string;
  kind: 'person' | 'agent';
  agent_id: string | null;
  owner_account_id: string | null;
  last_used_at?: string | null;
}

export function createAuthStore(database: Db) {
  const db = ownTables<AuthTables>(database);
  return {
    findAccountById: (id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst(),
    findAccountByEmail: (email: string) => db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst(),
    findAccountByOidc: (issuer: string, subject: string) =>
      db.selectFrom('accounts').selectAll().where('oidc_issuer', '=', issuer).where('oidc_subject', '=', subject).executeTakeFirst(),
    insertAccount: async (row: AccountRow) => {
      await db.insertInto('accounts').values(row).execute();
      return row;
    },
    /** Whether the account exists and is a person's (not an agent's service account). */
    isPerson: async (accountId: string) =>
      !!(await db.selectFrom('accounts').select('id').where('id', '=', accountId).where('kind', '=', 'person').executeTakeFirst()),
    emailOf: async (accountId: string) => (await db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst())?.email ?? null,

    serviceAccountOf: (agentId: string) =>
      db.selectFrom('accounts').select('id').where('agent_id', '=', agentId).where('kind', '=', 'agent').executeTakeFirst(),
    insertServiceAccount: (row: { id: string; agent_id: string; owner_account_id: string; created_at: string }) =>
      db
        .insertInto('accounts')
        .values({ ...row, kind: 'agent', email: null, password_hash: null, oidc_issuer: null, oidc_subject: null })
        .execute(),
    /** Deletes the agent's service account (its keys and profile go with it) in the caller's transaction, which deletes the agent. */
    deleteServiceAccount: (tx: Tx, agentId: string) =>
      ownTables<AuthTables>(tx).deleteFrom('accounts').where('agent_id', '=', agentId).where('kind', '=', 'agent').execute(),

    insertSession: (row: { id: string; account_id: string; token_hash: string; created_at: string; expires_at: string }) =>
      db
        .insertInto('sessions')
        .values({ ...row, revoked_at: null })
        .execute(),
    findLiveSession: (tokenHash: string, now: string): Promise<(CredentialMatch & { expires_at: string }) | undefined> =>
      db
        .selectFrom('sessions')
        .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
        .select([
          'sessions.id as credential_id',
          'accounts.id as account_id',
          'accounts.kind',
          'accounts.agent_id',
          'accounts.owner_account_id',
          'sessions.expires_at',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .where('sessions.revoked_at', 'is', null)
        .where('sessions.expires_at', '>', now)
        .executeTakeFirst(),
    revokeSession: (id: string, now: string) =>
      db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute(),

    setPasswordHash: (accountId: string, hash: string) => db.updateTable('accounts').set({ password_hash: hash }).where('id', '=', accountId).execute(),
    /** Revokes the account's live sessions but `keep`; answers the revoked ids, for the principal cache. */
    revokeSessionsExcept: async (accountId: string, keep: string | null, now: string) => {
      let query = db.updateTable('sessions').set({ revoked_at: now }).where('account_id', '=', accountId).where('revoked_at', 'is', null);
      if (keep) query = query.where('id', '!=', keep);
      return (await query.returning('id').execute()).map((row) => row.id);
    },
    /**
     * Empties a deleted account: its email, password and identity-provider link go (nothing can sign
     * in as it again), every session and every key it made (its agents' included) is revoked. The
     * row stays, because tasks, receipts and ledger postings others hold still name it. Answers the
     * revoked credential ids, for the principal cache.
     */
    closeAccount: (accountId: string, now: string) =>
      db.transaction().execute(async (tx) => {
        await tx
          .updateTable('accounts')
          .set({ email: null, password_hash: null, oidc_issuer: null, oidc_subject: null, deleted_at: now })
          .where('id', '=', accountId)
          .execute();
        const sessions = await tx
          .updateTable('sessions')
          .set({ revoked_at: now })
          .where('account_id', '=', accountId)
          .where('revoked_at', 'is', null)
          .returning('id')
          .execute();
        const keys = await tx
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where((eb) => eb.or([eb('account_id', '=', accountId), eb('created_by', '=', accountId)]))
          .where('revoked_at', 'is', null)
          .returning('id')
          .execute();
        return [...sessions, ...keys].map((row) => row.id);
      }),

    insertApiKey: (row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),
    findLiveApiKey: (keyHash: string): Promise<CredentialMatch | undefined> =>
      db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select([
          'api_keys.id as credential_id',
          'accounts.id as account_id',
          'accounts.kind',
          'accounts.agent_id',
          'accounts.owner_account_id',
          'api_keys.last_used_at',
        ])
        .where('api_keys.key_hash', '=', keyHash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst(),
    touchApiKey: (id: string, now: string) => db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute(),
    listApiKeys: (createdBy: string, limit: number, offset: number) =>
      db
        .selectFrom('api_keys')
        .selectAll()
        .where('created_by', '=', createdBy)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute(),
    countApiKeys: async (createdBy: string) => {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('created_by', '=', createdBy)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    findApiKey: (id: string) => db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst(),
    revokeApiKey: (id: string, now: string) =>
      db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute(),
  };
}

export type AuthStore = ReturnType<typeof createAuthStore>;
