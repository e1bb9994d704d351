import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, Tx } from '../../db/database.ts';
import { containsPattern, lowerLike } from '../../db/like.ts';
import type { AgentsTable, ClaimChallengesTable } from '../../db/schema.ts';

export type AgentRow = Selectable<AgentsTable>;
export type ChallengeRow = Selectable<ClaimChallengesTable>;

/**
 * Records that the agent's registration key is proven. Only the first proof is kept: the key cannot
 * change, and leaving proven rows untouched keeps later signed heartbeats from firing discovery's
 * change trigger (migration 0008).
 */
const markKeyProven = (executor: Db | Tx, agentId: string, now: string) =>
  executor.updateTable('agents').set({ key_verified_at: now }).where('id', '=', agentId).where('key_verified_at', 'is', null).execute();

export function createRegistryStore(db: Db) {
  return {
    insert: (row: Insertable<AgentsTable>) => db.insertInto('agents').values(row).execute(),
    find: (id: string) => db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst(),
    findMany: (ids: string[]) => (ids.length === 0 ? Promise.resolve([]) : db.selectFrom('agents').selectAll().where('id', 'in', ids).execute()),
    slugTaken: async (slug: string) => !!(await db.selectFrom('agents').select('id').where('slug', '=', slug).executeTakeFirst()),
    /** An agent other than `exceptId` whose name has either lookalike key: one probe of each unique index. */
    findLookalike: (keys: { asWritten: string; lowercase: string }, exceptId: string | null) =>
      db
        .selectFrom('agents')
        .selectAll()
        .where((eb) => eb.or([eb('name_skeleton', '=', keys.asWritten), eb('name_skeleton_lower', '=', keys.lowercase)]))
        .$if(exceptId !== null, (qb) => qb.where('id', '!=', exceptId!))
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst(),
    listOwned: (ownerId: string, limit: number, offset: number) =>
      db.selectFrom('agents').selectAll().where('owner_id', '=', ownerId).orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    countOwned: async (ownerId: string) =>
      Number((await db.selectFrom('agents').select((eb) => eb.fn.countAll<number | string>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow()).n),
    update: (id: string, changes: Updateable<AgentsTable>) => db.updateTable('agents').set(changes).where('id', '=', id).returningAll().executeTakeFirst(),
    /** Deletes the agent and its service account (whose keys and profile go with it). */
    async remove(id: string) {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('accounts').where('agent_id', '=', id).where('kind', '=', 'agent').execute();
        await tx.deleteFrom('agents').where('id', '=', id).execute();
      });
    },

    /**
     * Agents whose capability tags contain any of the terms (loosely: `-` matches any one character,
     * so "text summarization" and "text_summarization" are found too). Callers compare exactly.
     */
    withAnyCapability: (terms: string[], limit: number) => {
      if (terms.length === 0) return Promise.resolve([]);
      const patterns = terms.map((term) => containsPattern(term).replace(/-/g, '_'));
      return db
        .selectFrom('agents')
        .selectAll()
        .where((eb) => eb.or(patterns.map((pattern) => lowerLike('capabilities', pattern))))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    saveChallenge: async (row: { agent_id: string; nonce: string; expires_at: string; created_at: string }) => {
      // One challenge per agent: a new one replaces the old.
      await db
        .insertInto('claim_challenges')
        .values(row)
        .onConflict((oc) => oc.column('agent_id').doUpdateSet({ nonce: row.nonce, expires_at: row.expires_at, created_at: row.created_at }))
        .execute();
    },
    findChallenge: (agentId: string) => db.selectFrom('claim_challenges').selectAll().where('agent_id', '=', agentId).executeTakeFirst(),
    /**
     * Consumes the challenge and activates the agent in one transaction. Both statements are
     * conditional, so of any number of concurrent claims exactly one sees a row change. The claim's
     * signature proved the registration key.
     */
    async claim(agentId: string, nonce: string, ownerId: string, now: string): Promise<'claimed' | 'challenge_gone' | 'not_provisional'> {
      return db.transaction().execute(async (tx: Tx) => {
        const consumed = await tx.deleteFrom('claim_challenges').where('agent_id', '=', agentId).where('nonce', '=', nonce).executeTakeFirst();
        if (Number(consumed.numDeletedRows) !== 1) return 'challenge_gone';
        const activated = await tx
          .updateTable('agents')
          .set({ status: 'active', owner_id: ownerId, claimed_at: now, updated_at: now })
          .where('id', '=', agentId)
          .where('status', '=', 'provisional')
          .executeTakeFirst();
        if (Number(activated.numUpdatedRows) !== 1) return 'not_provisional';
        await markKeyProven(tx, agentId, now);
        return 'claimed';
      });
    },

    markKeyProven: (agentId: string, now: string) => markKeyProven(db, agentId, now),
    /**
     * Consumes the key challenge and records the proof in one transaction; null when the challenge
     * was already consumed (a concurrent proof). Answers when the key was first proven.
     */
    async proveKey(agentId: string, nonce: string, now: string): Promise<string | null> {
      return db.transaction().execute(async (tx: Tx) => {
        const consumed = await tx.deleteFrom('claim_challenges').where('agent_id', '=', agentId).where('nonce', '=', nonce).executeTakeFirst();
        if (Number(consumed.numDeletedRows) !== 1) return null;
        await markKeyProven(tx, agentId, now);
        const row = await tx.selectFrom('agents').select('key_verified_at').where('id', '=', agentId).executeTakeFirst();
        return row?.key_verified_at ?? null;
      });
    },

    serviceAccountOf: (agentId: string) => db.selectFrom('accounts').select('id').where('agent_id', '=', agentId).where('kind', '=', 'agent').executeTakeFirst(),
    insertServiceAccount: (row: { id: string; agent_id: string; owner_account_id: string; created_at: string }) =>
      db
        .insertInto('accounts')
        .values({ ...row, kind: 'agent', email: null, password_hash: null, oidc_issuer: null, oidc_subject: null })
        .execute(),
  };
}

export type RegistryStore = ReturnType<typeof createRegistryStore>;
