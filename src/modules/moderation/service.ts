import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { RolesStore } from './roles.ts';
import type { ModeratorRole } from './tables.ts';

export interface ModerationDeps {
  roles: RolesStore;
  clock: Clock;
}

type RoleRow = Awaited<ReturnType<RolesStore['list']>>[number];
const roleView = (row: RoleRow) => ({
  accountId: row.account_id,
  email: row.email ?? null,
  role: row.role,
  grantedBy: row.granted_by,
  grantedAt: row.granted_at,
});

export function createModerationService({ roles, clock }: ModerationDeps) {
  return {
    roles,

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
  };
}

export type ModerationService = ReturnType<typeof createModerationService>;
