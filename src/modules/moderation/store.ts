import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { AccountStandingReadModel } from '../auth/index.ts';
import type { PostAuthorsReadModel } from '../social/index.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import type { Kysely } from 'kysely';
import type { AccountApprovalsTable, AppealsTable, ModerationActionsTable, ModerationState, ModerationTables, ReportsTable, SubjectType } from './tables.ts';

/** A subject as moderation sees it: whose it is, and what is in force on it. */
export interface SubjectRecord {
  type: SubjectType;
  id: string;
  /** The account answerable for it: a post's or comment's author, an agent's owner (none for an unclaimed provisional agent), the account itself. */
  ownerAccountId: string | null;
  /** The person behind that account (an agent's service account answers for its owner). */
  ownerPersonId: string | null;
  /** A line that lets a moderator see what it is (the text's start, the agent's name, the email). */
  summary: string;
  states: { state: ModerationState; reason: string; actionId: string; since: string }[];
}

export function createModerationStore(database: Db) {
  const db = ownTables<ModerationTables & PostAuthorsReadModel & ProfilesReadModel & AccountStandingReadModel>(database);

  const statesOf = (type: SubjectType, id: string) =>
    db
      .selectFrom('moderation_states')
      .select(['state', 'reason', 'action_id as actionId', 'since'])
      .where('subject_type', '=', type)
      .where('subject_id', '=', id)
      .execute();

  const personOf = async (accountId: string) =>
    (await db.selectFrom('accounts').select(['id', 'owner_account_id']).where('id', '=', accountId).executeTakeFirst())?.owner_account_id ?? accountId;

  return {
    statesOf,

    /** The post, comment or account with its owner; agents are resolved through the registry (their visibility is its rule). */
    async socialOrAccountSubject(type: 'post' | 'comment' | 'account', id: string): Promise<Omit<SubjectRecord, 'states'> | undefined> {
      if (type === 'account') {
        const row = await db
          .selectFrom('accounts')
          .select(['id', 'kind', 'email', 'owner_account_id'])
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (!row) return undefined;
        return { type, id, ownerAccountId: row.id, ownerPersonId: row.owner_account_id ?? row.id, summary: row.email ?? `${row.kind} account` };
      }
      const row =
        type === 'post'
          ? await db
              .selectFrom('posts')
              .innerJoin('profiles', 'profiles.id', 'posts.author_id')
              .select(['posts.body', 'profiles.account_id', 'profiles.username'])
              .where('posts.id', '=', id)
              .executeTakeFirst()
          : await db
              .selectFrom('comments')
              .innerJoin('profiles', 'profiles.id', 'comments.author_id')
              .select(['comments.body', 'profiles.account_id', 'profiles.username'])
              .where('comments.id', '=', id)
              .executeTakeFirst();
      if (!row) return undefined;
      return {
        type,
        id,
        ownerAccountId: row.account_id,
        ownerPersonId: await personOf(row.account_id),
        summary: `@${row.username}: ${row.body.slice(0, 140)}`,
      };
    },

    personOf,

    /** The reason one of the accounts is suspended, or null: read on every credential look-up that misses the cache. */
    suspensionOf: async (accountIds: readonly string[]) =>
      accountIds.length === 0
        ? null
        : ((
            await db
              .selectFrom('moderation_states')
              .select('reason')
              .where('subject_type', '=', 'account')
              .where('subject_id', 'in', [...accountIds])
              .where('state', '=', 'suspended')
              .executeTakeFirst()
          )?.reason ?? null),

    /** Makes a new account wait for a moderator (sign-up under the approval policy). */
    holdForApproval: (accountId: string, since: string) =>
      db.insertInto('account_approvals').values({ account_id: accountId, state: 'pending', reason: null, since }).execute(),

    /** Whether the account waits for approval or was rejected (with the reason); null when it is in good standing. */
    approvalOf: async (accountId: string): Promise<Pick<AccountApprovalsTable, 'state' | 'reason'> | null> =>
      (await db.selectFrom('account_approvals').select(['state', 'reason']).where('account_id', '=', accountId).executeTakeFirst()) ?? null,

    /** Accounts waiting for approval, the longest-waiting first, with the email they signed up with. */
    pendingAccounts: (limit: number) =>
      db
        .selectFrom('account_approvals as w')
        .innerJoin('accounts as a', 'a.id', 'w.account_id')
        .leftJoin('profiles as p', (join) => join.onRef('p.account_id', '=', 'w.account_id').on('p.type', '=', 'human'))
        .select(['w.account_id', 'w.since', 'a.email', 'p.username'])
        .where('w.state', '=', 'pending')
        .where('a.deleted_at', 'is', null)
        .orderBy('w.since')
        .orderBy('w.account_id')
        .limit(limit)
        .execute(),

    /** The username of the account's own profile, or null when it has none. */
    usernameOf: async (accountId: string) =>
      (await db.selectFrom('profiles').select('username').where('account_id', '=', accountId).where('type', '=', 'human').executeTakeFirst())?.username ?? null,

    accountAge: async (accountId: string) =>
      (await db.selectFrom('accounts').select('created_at').where('id', '=', accountId).executeTakeFirst())?.created_at ?? null,

    insertReport: (row: ReportsTable) => db.insertInto('reports').values(row).execute(),

    openReportOf: (reporterId: string, type: SubjectType, id: string) =>
      db
        .selectFrom('reports')
        .selectAll()
        .where('reporter_id', '=', reporterId)
        .where('subject_type', '=', type)
        .where('subject_id', '=', id)
        .where('status', '=', 'open')
        .executeTakeFirst(),

    reportsSince: async (reporterId: string, since: string) =>
      Number(
        (
          await db
            .selectFrom('reports')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('reporter_id', '=', reporterId)
            .where('created_at', '>=', since)
            .executeTakeFirstOrThrow()
        ).n,
      ),

    /** A reporter's reports, newest first, with the action that resolved each (if one did). */
    reportsBy: (reporterId: string, limit: number, offset: number) =>
      db
        .selectFrom('reports as r')
        .leftJoin('moderation_actions as a', 'a.id', 'r.action_id')
        .select([
          'r.id',
          'r.subject_type',
          'r.subject_id',
          'r.reason',
          'r.note',
          'r.status',
          'r.created_at',
          'r.resolved_at',
          'a.action as outcome',
          'a.reason as outcome_reason',
        ])
        .where('r.reporter_id', '=', reporterId)
        .orderBy('r.created_at', 'desc')
        .orderBy('r.id', 'desc')
        .limit(limit + 1)
        .offset(offset)
        .execute(),

    openReportsOf: (type: SubjectType, id: string) =>
      db.selectFrom('reports').selectAll().where('subject_type', '=', type).where('subject_id', '=', id).where('status', '=', 'open').execute(),

    reportsByIds: (ids: readonly string[]) =>
      ids.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('reports')
            .selectAll()
            .where('id', 'in', [...ids])
            .execute(),

    /** Subjects with reports of `status`, oldest first report first, a page of them. */
    reportedSubjects: (status: 'open' | 'resolved', limit: number, offset: number) =>
      db
        .selectFrom('reports')
        .select(['subject_type', 'subject_id', (eb) => eb.fn.min('created_at').as('first_at')])
        .where('status', '=', status)
        .groupBy(['subject_type', 'subject_id'])
        .orderBy('first_at', status === 'open' ? 'asc' : 'desc')
        .orderBy('subject_id')
        .limit(limit + 1)
        .offset(offset)
        .execute(),

    reportsAbout: (type: SubjectType, id: string, status: 'open' | 'resolved') =>
      db
        .selectFrom('reports')
        .selectAll()
        .where('subject_type', '=', type)
        .where('subject_id', '=', id)
        .where('status', '=', status)
        .orderBy('created_at')
        .orderBy('id')
        .limit(500)
        .execute(),

    /** Earlier actions against what a person answers for, newest first. */
    actionsAgainst: (ownerPersonId: string, limit: number) =>
      db
        .selectFrom('moderation_actions')
        .selectAll()
        .where('subject_owner_id', '=', ownerPersonId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute(),

    findAction: (id: string) => db.selectFrom('moderation_actions').selectAll().where('id', '=', id).executeTakeFirst(),

    actions: (limit: number, offset: number, subject?: { type: SubjectType; id: string }) => {
      let query = db.selectFrom('moderation_actions').selectAll();
      if (subject) query = query.where('subject_type', '=', subject.type).where('subject_id', '=', subject.id);
      return query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .offset(offset)
        .execute();
    },

    /**
     * Records an action, with what it leaves in force (`set`) or ends (`clear`), and resolves the
     * reports it answers: one transaction, so the audit log never misses an action that took effect.
     */
    record: (
      action: ModerationActionsTable,
      change: { set?: ModerationState; clear?: ModerationState; approval?: 'approve' | 'reject' },
      resolveIds: readonly string[],
    ) =>
      db.transaction().execute(async (trx) => {
        const tx = trx as unknown as Kysely<ModerationTables>;
        await tx.insertInto('moderation_actions').values(action).execute();
        // An account's approval is decided with its action: approved, the account has no row left.
        if (change.approval === 'approve') await tx.deleteFrom('account_approvals').where('account_id', '=', action.subject_id).execute();
        if (change.approval === 'reject')
          await tx
            .updateTable('account_approvals')
            .set({ state: 'rejected', reason: action.reason, since: action.created_at })
            .where('account_id', '=', action.subject_id)
            .execute();
        if (change.set) {
          await tx
            .deleteFrom('moderation_states')
            .where('subject_type', '=', action.subject_type)
            .where('subject_id', '=', action.subject_id)
            .where('state', '=', change.set)
            .execute();
          await tx
            .insertInto('moderation_states')
            .values({
              subject_type: action.subject_type,
              subject_id: action.subject_id,
              state: change.set,
              action_id: action.id,
              reason: action.reason,
              since: action.created_at,
            })
            .execute();
        }
        if (change.clear)
          await tx
            .deleteFrom('moderation_states')
            .where('subject_type', '=', action.subject_type)
            .where('subject_id', '=', action.subject_id)
            .where('state', '=', change.clear)
            .execute();
        if (resolveIds.length > 0)
          await tx
            .updateTable('reports')
            .set({ status: 'resolved', resolved_at: action.created_at, action_id: action.id })
            .where('id', 'in', [...resolveIds])
            .where('status', '=', 'open')
            .execute();
      }),

    /** Records that a suspension delisted these agents, so that lifting it relists exactly them. */
    delistedWithSuspension: async (agentIds: readonly string[], suspension: ModerationActionsTable) => {
      if (agentIds.length === 0) return;
      await db
        .insertInto('moderation_states')
        .values(
          agentIds.map((id) => ({
            subject_type: 'agent' as const,
            subject_id: id,
            state: 'delisted' as const,
            action_id: suspension.id,
            reason: suspension.reason,
            since: suspension.created_at,
          })),
        )
        .onConflict((oc) => oc.columns(['subject_type', 'subject_id', 'state']).doNothing())
        .execute();
    },

    /** The agents the account's suspension delisted that are still delisted by it; their states go. */
    takeDelistedBySuspensionOf: async (accountId: string) => {
      const rows = await db
        .selectFrom('moderation_states as s')
        .innerJoin('moderation_actions as a', 'a.id', 's.action_id')
        .select('s.subject_id')
        .where('s.subject_type', '=', 'agent')
        .where('s.state', '=', 'delisted')
        .where('a.action', '=', 'suspend')
        .where('a.subject_type', '=', 'account')
        .where('a.subject_id', '=', accountId)
        .execute();
      const ids = rows.map((row) => row.subject_id);
      if (ids.length > 0)
        await db.deleteFrom('moderation_states').where('subject_type', '=', 'agent').where('state', '=', 'delisted').where('subject_id', 'in', ids).execute();
      return ids;
    },

    /** The most frequent reason of the reports, or `other`: the category a delisting shows in the public registry log. */
    categoryOf: async (reportIds: readonly string[]) => {
      if (reportIds.length === 0) return 'other';
      const rows = await db
        .selectFrom('reports')
        .select(['reason', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('id', 'in', [...reportIds])
        .groupBy('reason')
        .execute();
      return rows.sort((a, b) => Number(b.n) - Number(a.n) || a.reason.localeCompare(b.reason))[0]?.reason ?? 'other';
    },

    insertAppeal: (row: AppealsTable) => db.insertInto('appeals').values(row).execute(),
    appealOfAction: (actionId: string) => db.selectFrom('appeals').selectAll().where('action_id', '=', actionId).executeTakeFirst(),
    findAppeal: (id: string) => db.selectFrom('appeals').selectAll().where('id', '=', id).executeTakeFirst(),
    appeals: (status: AppealsTable['status'] | undefined, limit: number, offset: number) => {
      let query = db.selectFrom('appeals').selectAll();
      if (status) query = query.where('status', '=', status);
      return query
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1)
        .offset(offset)
        .execute();
    },
    /** Decides an open appeal; false when another moderator decided it first. */
    decideAppeal: async (id: string, decision: { status: 'upheld' | 'reversed'; decided_by: string; decided_at: string; decision_reason: string }) =>
      Number((await db.updateTable('appeals').set(decision).where('id', '=', id).where('status', '=', 'open').executeTakeFirst()).numUpdatedRows) === 1,
  };
}

export type ModerationStore = ReturnType<typeof createModerationStore>;
