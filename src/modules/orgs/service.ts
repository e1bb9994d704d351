import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { OrgsStore } from './store.ts';

export interface OrgsDeps {
  store: OrgsStore;
  clock: Clock;
  /** Whether the account is a person's (auth): only people are members. */
  isPerson(accountId: string): Promise<boolean>;
  /** The account whose profile has this username (users). */
  accountIdByUsername(username: string): Promise<string | undefined>;
}

export function createOrgsService({ store, clock, isPerson, accountIdByUsername }: OrgsDeps) {
  /**
   * Outsiders get 404 for an org, exactly as for an id that does not exist. Members are people: a
   * key acting as an agent is its agent's own account, never a member, so it cannot manage its
   * owner's orgs (or add anyone to them).
   */
  async function requireMembership(principal: Principal, orgId: string) {
    const org = await store.find(orgId);
    const membership = org ? await store.membership(orgId, principal.accountId) : undefined;
    if (!org || !membership) throw notFound('Organization not found');
    return { org, membership };
  }

  async function view(orgId: string) {
    const org = await store.find(orgId);
    if (!org) throw notFound('Organization not found');
    const members = await store.members(orgId);
    return {
      id: org.id,
      name: org.name,
      createdAt: org.created_at,
      members: members.map((m) => ({ accountId: m.account_id, username: m.username ?? null, role: m.role, joinedAt: m.created_at })),
    };
  }

  return {
    /** Whether a person belongs to an org: the registry's rule for `org` visibility. */
    isMember: async (orgId: string, personId: string) => !!(await store.membership(orgId, personId)),

    /** Account deletion: its memberships end; an organization it alone owned passes to its longest-standing member. */
    forgetAccount: (accountId: string) => store.removeAccount(accountId),

    async create(principal: Principal, name: string) {
      if (principal.kind !== 'person') throw forbidden('Organizations are made by people; this credential acts as an agent');
      const org = { id: newId(), name, created_by: principal.accountId, created_at: isoNow(clock) };
      await store.insertWithOwner(org);
      return view(org.id);
    },

    async get(principal: Principal, orgId: string) {
      await requireMembership(principal, orgId);
      return view(orgId);
    },

    async addMember(principal: Principal, orgId: string, target: { accountId?: string; username?: string; role?: 'owner' | 'member' }) {
      const { membership } = await requireMembership(principal, orgId);
      if (membership.role !== 'owner') throw forbidden('Only owners of the organization can add members');
      if (!target.accountId && !target.username) throw badRequest('Give accountId or username');
      const accountId = target.accountId ?? (target.username ? await accountIdByUsername(target.username) : undefined);
      if (!accountId || !(await isPerson(accountId))) throw notFound('No person with that account id or username');
      if (await store.membership(orgId, accountId)) throw conflict('Already a member');
      await store.addMember({ org_id: orgId, account_id: accountId, role: target.role ?? 'member', created_at: isoNow(clock) });
      return view(orgId);
    },

    async removeMember(principal: Principal, orgId: string, accountId: string) {
      const { membership } = await requireMembership(principal, orgId);
      const leaving = accountId === principal.accountId;
      if (!leaving && membership.role !== 'owner') throw forbidden('Only owners of the organization can remove other members');
      const target = await store.membership(orgId, accountId);
      if (!target) throw notFound('Not a member');
      if (target.role === 'owner' && (await store.ownerCount(orgId)) === 1) throw conflict('An organization keeps at least one owner');
      await store.removeMember(orgId, accountId);
      return view(orgId);
    },
  };
}

export type OrgsService = ReturnType<typeof createOrgsService>;
