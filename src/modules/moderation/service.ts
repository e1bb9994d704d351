import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound, RateLimitedError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { RolesStore } from './roles.ts';
import type { ModerationStore, SubjectRecord } from './store.ts';
import type { ModeratorRole, ReportReason, SubjectType } from './tables.ts';

export interface ModerationDeps {
  roles: RolesStore;
  store: ModerationStore;
  clock: Clock;
  /**
   * The agent's owner and name, if `reader` may see it by the registry's visibility rule (a person,
   * or null for anyone); `all` finds any agent (moderators act on private ones too).
   */
  agentFor(id: string, reader: string | null | 'all'): Promise<{ ownerId: string | null; name: string } | undefined>;
  reportsPerAccountPerHour: number;
}

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

export function createModerationService({ roles, store, clock, agentFor, reportsPerAccountPerHour }: ModerationDeps) {
  const isModerator = async (principal: Principal | null) =>
    principal !== null && principal.kind === 'person' && (await roles.roleOf(principal.accountId)) !== null;

  /**
   * The subject as `viewer` may see it: what is missing and what is hidden from them are the same
   * answer, so nobody learns of a hidden post by reporting it. Moderators see everything.
   */
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

  return {
    roles,
    subjectFor,

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
      return { created: true, report: { id: row.id, status: row.status } };
    },

    async ownReports(principal: Principal, limit: number, offset: number) {
      const rows = await store.reportsBy(principal.accountId, limit, offset);
      return { data: rows.slice(0, limit).map(ownReportView), pagination: { limit, offset, hasMore: rows.length > limit } };
    },
  };
}

export type ModerationService = ReturnType<typeof createModerationService>;
