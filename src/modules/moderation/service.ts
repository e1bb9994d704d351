import type { Principal } from '../../lib/principal.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, conflict, forbidden, notFound, RateLimitedError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { RolesStore } from './roles.ts';
import type { InstancePolicies, Policies } from './policies.ts';
import type { ModerationStore, SubjectRecord } from './store.ts';
import type { AppealsTable, ModerationActionName, ModerationActionsTable, ModerationState, ModeratorRole, ReportReason, SubjectType } from './tables.ts';

export interface ModerationDeps {
  roles: RolesStore;
  store: ModerationStore;
  clock: Clock;
  /**
   * The agent's owner and name, if `reader` may see it by the registry's visibility rule (a person,
   * or null for anyone); `all` finds any agent (moderators act on private ones too).
   */
  agentFor(id: string, reader: string | null | 'all'): Promise<{ ownerId: string | null; name: string; slug: string; listing: AgentListingState } | undefined>;
  /** The registry's listing of agents: what a delisting, relisting, approval or rejection changes. */
  listing: {
    /**
     * Sets an agent's listing (only if it is one of `from`, when given); a delisting or relisting is
     * recorded in the public registry log with `logged`. False when it was not changed.
     */
    set(
      agentId: string,
      listing: { state: AgentListingState; reason: string | null },
      options?: { from?: readonly AgentListingState[]; logged?: { event: 'delisted' | 'relisted'; values: Record<string, unknown> } },
    ): Promise<boolean>;
    /** The agents the account owns. */
    ownedBy(accountId: string): Promise<string[]>;
    /** Agents waiting for approval, the longest-waiting first. */
    pending(
      limit: number,
    ): Promise<{ id: string; name: string; slug: string; owner_id: string | null; listing_reason: string | null; listing_since: string | null }[]>;
  };
  policies: Policies;
  reportsPerAccountPerHour: number;
  /** Tells the person an action concerns what happened and why (a `moderation` notification). */
  notify(ownerAccountId: string, subject: { type: SubjectType; id: string }, text: string): Promise<unknown>;
  /** What must follow an action at once beyond this module's tables (credentials dropped, caches refreshed, the registry log). */
  applied(action: ActionView): Promise<unknown>;
}

/** Which subjects each action applies to, and the state it sets or clears. */
const ACTIONS: Record<ModerationActionName, { subjects: readonly SubjectType[]; set?: ModerationState; clear?: ModerationState }> = {
  dismiss: { subjects: ['post', 'comment', 'agent', 'account'] },
  hide: { subjects: ['post', 'comment'], set: 'hidden' },
  restore: { subjects: ['post', 'comment'], clear: 'hidden' },
  limit: { subjects: ['account'], set: 'limited' },
  unlimit: { subjects: ['account'], clear: 'limited' },
  suspend: { subjects: ['account'], set: 'suspended' },
  unsuspend: { subjects: ['account'], clear: 'suspended' },
  delist: { subjects: ['agent'], set: 'delisted' },
  relist: { subjects: ['agent'], clear: 'delisted' },
  // Decisions on what waits for approval: the registry's listing holds them, not a moderation state.
  approve: { subjects: ['agent', 'account'] },
  reject: { subjects: ['agent', 'account'] },
};

type AgentListingState = 'listed' | 'pending' | 'rejected' | 'delisted';
/** What the automatic hold does to each kind of subject. */
const HOLDS: Record<SubjectType, 'hide' | 'delist' | 'limit'> = { post: 'hide', comment: 'hide', agent: 'delist', account: 'limit' };
/** The action that undoes each appealable one (a reversed appeal takes it). */
const UNDO: Partial<Record<ModerationActionName, ModerationActionName>> = { hide: 'restore', limit: 'unlimit', suspend: 'unsuspend', delist: 'relist' };

const NOTICE: Partial<Record<ModerationActionName, (subject: SubjectRecord) => string>> = {
  hide: (s) => `Your ${s.type} was hidden by the moderators`,
  restore: (s) => `Your ${s.type} was restored by the moderators`,
  limit: () => 'Your account was limited by the moderators',
  unlimit: () => 'The limit on your account was lifted by the moderators',
  suspend: () => 'Your account was suspended by the moderators',
  unsuspend: () => 'Your account was reinstated by the moderators',
  delist: (s) => `Your agent "${s.summary}" was delisted by the moderators`,
  relist: (s) => `Your agent "${s.summary}" was listed again by the moderators`,
  approve: (s) =>
    s.type === 'account' ? 'Your account was approved by the moderators: welcome' : `Your agent "${s.summary}" was approved by the moderators and is listed`,
  reject: (s) => (s.type === 'account' ? 'Your account was not approved by the moderators' : `Your agent "${s.summary}" was not approved by the moderators`),
};

type ActionRow = ModerationActionsTable;
export const actionView = (row: ActionRow) => ({
  id: row.id,
  action: row.action,
  subject: { type: row.subject_type, id: row.subject_id },
  subjectOwnerId: row.subject_owner_id,
  moderatorId: row.moderator_id,
  reason: row.reason,
  reportIds: JSON.parse(row.report_ids) as string[],
  createdAt: row.created_at,
});
export type ActionView = ReturnType<typeof actionView>;

const appealView = (row: AppealsTable) => ({
  id: row.id,
  actionId: row.action_id,
  appellantId: row.appellant_id,
  note: row.note,
  status: row.status,
  createdAt: row.created_at,
  decidedBy: row.decided_by,
  decidedAt: row.decided_at,
  decisionReason: row.decision_reason,
});

type RoleRow = Awaited<ReturnType<RolesStore['list']>>[number];
const roleView = (row: RoleRow) => ({
  accountId: row.account_id,
  email: row.email ?? null,
  role: row.role,
  grantedBy: row.granted_by,
  grantedAt: row.granted_at,
});

type ReportRow = Awaited<ReturnType<ModerationStore['reportsBy']>>[number];
const ownReportView = (row: ReportRow) => ({
  id: row.id,
  subject: { type: row.subject_type, id: row.subject_id },
  reason: row.reason,
  note: row.note,
  status: row.status,
  createdAt: row.created_at,
  resolvedAt: row.resolved_at,
  outcome: row.outcome ?? null,
});

const HOUR_MS = 3600_000;
/** The `moderatorId` of the actions the automatic hold takes. */
export const AUTOMATIC_HOLD = 'automatic-hold';

export function createModerationService({ roles, store, clock, agentFor, reportsPerAccountPerHour, notify, applied, listing, policies }: ModerationDeps) {
  const isModerator = async (principal: Principal | null) =>
    principal !== null && principal.kind === 'person' && (await roles.roleOf(principal.accountId)) !== null;

  /**
   * The subject as `viewer` may see it: what is missing and what is hidden from them are the same
   * answer, so nobody learns of a hidden post by reporting it. Moderators see everything.
   */
  /** The subject whatever is in force on it (the queue shows hidden posts and delisted agents too). */
  async function subjectAsModerator(type: SubjectType, id: string): Promise<SubjectRecord | undefined> {
    const found =
      type === 'agent'
        ? await agentFor(id, 'all').then(async (agent) =>
            agent
              ? {
                  type,
                  id,
                  ownerAccountId: agent.ownerId,
                  ownerPersonId: agent.ownerId === null ? null : await store.personOf(agent.ownerId),
                  summary: agent.name,
                }
              : undefined,
          )
        : await store.socialOrAccountSubject(type, id);
    return found ? { ...found, states: await store.statesOf(type, id) } : undefined;
  }

  async function subjectFor(viewer: Principal | null, type: SubjectType, id: string): Promise<SubjectRecord | undefined> {
    const moderator = await isModerator(viewer);
    let found: Omit<SubjectRecord, 'states'> | undefined;
    if (type === 'agent') {
      const reader = viewer && viewer.kind === 'person' ? viewer.personId : null;
      const agent = await agentFor(id, moderator ? 'all' : reader);
      if (agent)
        found = {
          type,
          id,
          ownerAccountId: agent.ownerId,
          ownerPersonId: agent.ownerId === null ? null : await store.personOf(agent.ownerId),
          summary: agent.name,
        };
    } else found = await store.socialOrAccountSubject(type, id);
    if (!found) return undefined;
    const states = await store.statesOf(type, id);
    const ownsIt = viewer !== null && (found.ownerPersonId === viewer.personId || found.ownerAccountId === viewer.accountId);
    const withdrawn = states.some((s) => s.state === 'hidden' || s.state === 'delisted');
    if (withdrawn && !ownsIt && !moderator) return undefined;
    return { ...found, states };
  }

  /** Where a moderator finds the subject in the app: an agent's slug, an account's username (null without a profile). */
  async function handleOf(type: SubjectType, id: string): Promise<string | null> {
    if (type === 'agent') return (await agentFor(id, 'all'))?.slug ?? null;
    if (type === 'account') return store.usernameOf(id);
    return null;
  }

  type ReportRecord = Awaited<ReturnType<ModerationStore['reportsAbout']>>[number];
  const reportItem = (r: ReportRecord) => ({ id: r.id, reporterId: r.reporter_id, reason: r.reason, note: r.note, createdAt: r.created_at });

  async function act(
    moderator: Principal,
    input: { action: ModerationActionName; subject: { type: SubjectType; id: string }; reason: string; reportIds?: string[] },
  ) {
    const rule = ACTIONS[input.action];
    const { type, id } = input.subject;
    if (!rule.subjects.includes(type))
      throw badRequest(`"${input.action}" applies to ${rule.subjects.join(' or ')}, not ${type}`, [
        { path: '/body/subject/type', message: `Not a subject of ${input.action}` },
      ]);
    const subject = await subjectFor(moderator, type, id);
    if (!subject) throw notFound(`No ${type} with this id`);
    const inForce = new Set(subject.states.map((s) => s.state));
    if (rule.set && inForce.has(rule.set)) throw conflict(`This ${type} is already ${rule.set}`);
    if (rule.clear && !inForce.has(rule.clear)) throw conflict(`This ${type} is not ${rule.clear}`);
    let resolve: string[];
    if (input.reportIds) {
      const named = await store.reportsByIds(input.reportIds);
      const usable = new Set(named.filter((r) => r.subject_type === type && r.subject_id === id && r.status === 'open').map((r) => r.id));
      const wrong = input.reportIds.filter((r) => !usable.has(r));
      if (wrong.length > 0)
        throw badRequest(`Not open reports of this ${type}: ${wrong.join(', ')}`, [{ path: '/body/reportIds', message: 'Name open reports of the subject' }]);
      resolve = [...usable];
    } else resolve = rule.clear ? [] : (await store.openReportsOf(type, id)).map((r) => r.id);
    if (input.action === 'dismiss' && resolve.length === 0) throw conflict(`This ${type} has no open reports to dismiss`);
    if (input.action === 'approve' || input.action === 'reject') {
      const waiting = type === 'agent' ? (await agentFor(id, 'all'))?.listing === 'pending' : (await store.approvalOf(id))?.state === 'pending';
      if (!waiting) throw conflict(`This ${type} is not waiting for approval`);
    }
    const row: ModerationActionsTable = {
      id: newId(),
      moderator_id: moderator.accountId,
      action: input.action,
      subject_type: type,
      subject_id: id,
      subject_owner_id: subject.ownerPersonId,
      reason: input.reason,
      report_ids: JSON.stringify(resolve),
      created_at: isoNow(clock),
    };
    const approval = type === 'account' && (input.action === 'approve' || input.action === 'reject') ? { approval: input.action } : {};
    await store.record(row, { ...(rule.set ? { set: rule.set } : {}), ...(rule.clear ? { clear: rule.clear } : {}), ...approval }, resolve);
    await changeListings(row, resolve);
    const view = actionView(row);
    await applied(view);
    const notice = NOTICE[input.action];
    if (notice && subject.ownerAccountId) await notify(subject.ownerAccountId, { type, id }, `${notice(subject)}. Reason: ${input.reason}`);
    return view;
  }

  /**
   * What an action changes in the registry's listing: a delisting or relisting (public, in the
   * registry log with the reason's category), an approval or rejection, and a suspension's
   * delisting of every listed agent the account owns, which lifting the suspension undoes.
   */
  async function changeListings(action: ModerationActionsTable, resolved: readonly string[]) {
    const id = action.subject_id;
    switch (action.action) {
      case 'delist':
        await listing.set(
          id,
          { state: 'delisted', reason: action.reason },
          { logged: { event: 'delisted', values: { category: await store.categoryOf(resolved) } } },
        );
        break;
      case 'relist':
        await listing.set(id, { state: 'listed', reason: null }, { from: ['delisted'], logged: { event: 'relisted', values: {} } });
        break;
      case 'approve':
        if (action.subject_type === 'agent') await listing.set(id, { state: 'listed', reason: null }, { from: ['pending'] });
        break;
      case 'reject':
        if (action.subject_type === 'agent') await listing.set(id, { state: 'rejected', reason: action.reason }, { from: ['pending'] });
        break;
      case 'suspend': {
        const delisted: string[] = [];
        for (const agentId of await listing.ownedBy(id)) {
          const done = await listing.set(
            agentId,
            { state: 'delisted', reason: `The owner's account is suspended: ${action.reason}` },
            { from: ['listed'], logged: { event: 'delisted', values: { category: 'owner_suspended' } } },
          );
          if (done) delisted.push(agentId);
        }
        await store.delistedWithSuspension(delisted, action);
        break;
      }
      case 'unsuspend':
        for (const agentId of await store.takeDelistedBySuspensionOf(id))
          await listing.set(agentId, { state: 'listed', reason: null }, { from: ['delisted'], logged: { event: 'relisted', values: {} } });
        break;
    }
  }

  /**
   * The automatic hold: a subject reported by `autoHoldReports` distinct accounts (open reports) is
   * held until a moderator looks: a post or comment hidden, an agent delisted, an account limited
   * (never suspended: reports alone must not lock a person out). The hold is an action of its own in
   * the audit log, taken by no moderator (`AUTOMATIC_HOLD`); its reports stay open in the queue.
   */
  async function holdIfReportedEnough(subject: SubjectRecord) {
    const hold = HOLDS[subject.type];
    const { autoHoldReports } = await policies.current();
    if (autoHoldReports === 0 || subject.states.some((s) => s.state === ACTIONS[hold].set)) return;
    const open = await store.openReportsOf(subject.type, subject.id);
    const reporters = new Set(open.map((r) => r.reporter_id)).size;
    if (reporters < autoHoldReports) return;
    const row: ModerationActionsTable = {
      id: newId(),
      moderator_id: AUTOMATIC_HOLD,
      action: hold,
      subject_type: subject.type,
      subject_id: subject.id,
      subject_owner_id: subject.ownerPersonId,
      reason: `Held automatically pending review: reported by ${reporters} people`,
      report_ids: '[]',
      created_at: isoNow(clock),
    };
    try {
      await store.record(row, { set: ACTIONS[hold].set! }, []);
    } catch (error) {
      // Two reports crossed the threshold at once; the other one's hold stands.
      if (isUniqueViolation(error)) return;
      throw error;
    }
    // A held agent leaves the listings publicly, its category taken from the reports that held it.
    await changeListings(
      row,
      open.map((r) => r.id),
    );
    const view = actionView(row);
    await applied(view);
    if (subject.ownerAccountId)
      await notify(subject.ownerAccountId, { type: subject.type, id: subject.id }, `${NOTICE[hold]!(subject)}. Reason: ${row.reason}`);
  }

  return {
    roles,
    subjectFor,
    act,

    policies: () => policies.current(),
    updatePolicies: (admin: Principal, changes: Partial<InstancePolicies>) => policies.update(changes, admin.accountId),

    /** What waits for a moderator's approval (agents and accounts together), the longest-waiting first. */
    async pending(limit: number) {
      const [agents, accounts] = await Promise.all([listing.pending(limit), store.pendingAccounts(limit)]);
      const items = [
        ...agents.map((agent) => ({
          subject: { type: 'agent' as const, id: agent.id },
          name: agent.name,
          handle: agent.slug,
          owner: agent.owner_id,
          since: agent.listing_since,
          reason: agent.listing_reason === 'changed' ? ('changed' as const) : ('new' as const),
        })),
        ...accounts.map((account) => ({
          subject: { type: 'account' as const, id: account.account_id },
          name: account.email ?? 'an account signed in through the identity provider',
          handle: account.username,
          owner: account.account_id,
          since: account.since,
          reason: 'new' as const,
        })),
      ];
      // An agent waiting since an unknown time sorts first: it has waited at least as long as any.
      items.sort((a, b) => (a.since ?? '').localeCompare(b.since ?? '') || a.subject.id.localeCompare(b.subject.id));
      return { items: items.slice(0, limit) };
    },

    async queue(status: 'open' | 'resolved', limit: number, offset: number) {
      const subjects = await store.reportedSubjects(status, limit, offset);
      const data = [];
      for (const { subject_type: type, subject_id: id } of subjects.slice(0, limit)) {
        const [reports, seen] = await Promise.all([store.reportsAbout(type, id, status), subjectAsModerator(type, id)]);
        const reasons: Record<string, number> = {};
        for (const r of reports) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
        const owner = seen?.ownerPersonId
          ? {
              accountId: seen.ownerPersonId,
              createdAt: await store.accountAge(seen.ownerPersonId),
              earlierActions: (await store.actionsAgainst(seen.ownerPersonId, 10)).map(actionView),
            }
          : null;
        data.push({
          subject: {
            type,
            id,
            exists: seen !== undefined,
            summary: seen?.summary ?? null,
            handle: seen ? await handleOf(type, id) : null,
            states: seen?.states.map((s) => ({ state: s.state, reason: s.reason, since: s.since })) ?? [],
          },
          reporters: new Set(reports.map((r) => r.reporter_id)).size,
          reasons,
          reports: reports.map(reportItem),
          owner,
        });
      }
      return { data, pagination: { limit, offset, hasMore: subjects.length > limit } };
    },

    async auditLog(limit: number, offset: number, subject?: { type: SubjectType; id: string }) {
      const rows = await store.actions(limit, offset, subject);
      return { data: rows.slice(0, limit).map(actionView), pagination: { limit, offset, hasMore: rows.length > limit } };
    },

    async appeal(principal: Principal, actionId: string, note: string) {
      const action = await store.findAction(actionId);
      // Only the person an action concerns may see it here; to anyone else it does not exist.
      if (!action || action.subject_owner_id !== principal.personId) throw notFound('No action against you with this id');
      if (!UNDO[action.action]) throw badRequest(`A "${action.action}" cannot be appealed; only hide, limit, suspend and delist can`);
      if (await store.appealOfAction(actionId)) throw conflict('This action was already appealed; an action is appealed once');
      const row: AppealsTable = {
        id: newId(),
        action_id: actionId,
        appellant_id: principal.personId,
        note,
        status: 'open',
        created_at: isoNow(clock),
        decided_by: null,
        decided_at: null,
        decision_reason: null,
      };
      try {
        await store.insertAppeal(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('This action was already appealed; an action is appealed once');
        throw error;
      }
      return appealView(row);
    },

    async appeals(status: AppealsTable['status'] | undefined, limit: number, offset: number) {
      const rows = await store.appeals(status, limit, offset);
      const data = [];
      for (const row of rows.slice(0, limit)) {
        const action = await store.findAction(row.action_id);
        data.push({ ...appealView(row), action: action ? actionView(action) : null });
      }
      return { data, pagination: { limit, offset, hasMore: rows.length > limit } };
    },

    async decideAppeal(moderator: Principal, appealId: string, decision: 'uphold' | 'reverse', reason: string) {
      const appeal = await store.findAppeal(appealId);
      if (!appeal) throw notFound('No appeal with this id');
      if (appeal.status !== 'open') throw conflict(`This appeal was already decided (${appeal.status})`);
      const action = (await store.findAction(appeal.action_id))!;
      if (action.moderator_id === moderator.accountId) throw forbidden('An appeal is decided by another moderator than the one who took the action');
      let reversal: ActionView | null = null;
      if (decision === 'reverse') {
        const undo = UNDO[action.action]!;
        const subject = await subjectFor(moderator, action.subject_type, action.subject_id);
        const stillInForce = subject?.states.some((s) => s.state === ACTIONS[undo].clear);
        if (stillInForce)
          reversal = await act(moderator, { action: undo, subject: { type: action.subject_type, id: action.subject_id }, reason: `Appeal granted: ${reason}` });
      }
      const decided = await store.decideAppeal(appealId, {
        status: decision === 'uphold' ? 'upheld' : 'reversed',
        decided_by: moderator.accountId,
        decided_at: isoNow(clock),
        decision_reason: reason,
      });
      if (!decided) throw conflict('This appeal was already decided');
      if (decision === 'uphold')
        await notify(
          appeal.appellant_id,
          { type: action.subject_type, id: action.subject_id },
          `Your appeal of a "${action.action}" was turned down. Reason: ${reason}`,
        );
      return { ...appealView((await store.findAppeal(appealId))!), reversal };
    },

    async listRoles() {
      return (await roles.list()).map(roleView);
    },

    async grantRole(admin: Principal, accountId: string, role: ModeratorRole) {
      const person = await roles.personById(accountId);
      if (!person) throw notFound("No person's account has this id");
      await roles.grant(person.id, role, admin.accountId, isoNow(clock));
      const row = (await roles.list()).find((r) => r.account_id === person.id)!;
      return roleView(row);
    },

    async revokeRole(accountId: string) {
      const before = await roles.roleOf(accountId);
      if (before === null) throw notFound('This account holds no role');
      // The last admin cannot be removed through the API, so an instance is never left without one;
      // the command on the server can still do it.
      if (before === 'admin' && (await roles.adminCount()) <= 1) throw conflict('This is the only admin; grant admin to someone else first');
      await roles.revoke(accountId);
      return { accountId, revoked: before };
    },

    /** 201 with a new report, or 200 with the reporter's open report of the same subject. */
    async report(principal: Principal, input: { subject: { type: SubjectType; id: string }; reason: ReportReason; note?: string }) {
      const { type, id } = input.subject;
      const subject = await subjectFor(principal, type, id);
      if (!subject) throw notFound(`No ${type} with this id that you can see`);
      if (subject.ownerPersonId === principal.personId || subject.ownerAccountId === principal.accountId)
        throw badRequest('You cannot report yourself or what you own', [{ path: '/body/subject', message: 'This is yours' }]);
      const existing = await store.openReportOf(principal.accountId, type, id);
      if (existing) return { created: false, report: { id: existing.id, status: existing.status } };
      const now = clock.now();
      const recent = await store.reportsSince(principal.accountId, new Date(now.getTime() - HOUR_MS).toISOString());
      if (recent >= reportsPerAccountPerHour) throw new RateLimitedError(`An account may file ${reportsPerAccountPerHour} reports an hour; retry later`, 3600);
      const row = {
        id: newId(),
        reporter_id: principal.accountId,
        subject_type: type,
        subject_id: id,
        reason: input.reason,
        note: input.note ?? null,
        status: 'open' as const,
        created_at: now.toISOString(),
        resolved_at: null,
        action_id: null,
      };
      await store.insertReport(row);
      await holdIfReportedEnough(subject);
      return { created: true, report: { id: row.id, status: row.status } };
    },

    async ownReports(principal: Principal, limit: number, offset: number) {
      const rows = await store.reportsBy(principal.accountId, limit, offset);
      return { data: rows.slice(0, limit).map(ownReportView), pagination: { limit, offset, hasMore: rows.length > limit } };
    },
  };
}

export type ModerationService = ReturnType<typeof createModerationService>;
