import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { InstancePoliciesTable } from './tables.ts';

/** The settings admins choose for the instance (docs/moderation.md, "Instance policies"). */
export interface InstancePolicies {
  /** `approval`: a new agent, or one whose name, description or endpoint changed, is listed only once a moderator approves it. */
  agentListing: 'open' | 'approval';
  /** `approval`: a new account waits for a moderator before it may write; `closed`: no sign-up at all. */
  signUp: 'open' | 'approval' | 'closed';
  /** The share of the ordinary limits an account has in its first 24 hours (0 < x <= 1). */
  newAccountFraction: number;
  /** Reports from this many distinct accounts hide a post or comment until a moderator looks (0: off). */
  autoHoldReports: number;
}

const NAMES = ['agentListing', 'signUp', 'newAccountFraction', 'autoHoldReports'] as const satisfies readonly (keyof InstancePolicies)[];

/**
 * Policies are rows of `instance_policies`, one per setting an admin has changed; a setting without
 * a row has the value the environment gave at start. Read from the database each time (one small
 * query), so a change holds at once on every node.
 */
export function createPolicies(database: Db, defaults: InstancePolicies, now: () => string) {
  const db = ownTables<{ instance_policies: InstancePoliciesTable }>(database);

  async function current(): Promise<InstancePolicies> {
    const rows = await db.selectFrom('instance_policies').select(['name', 'value']).execute();
    const policies = { ...defaults };
    for (const row of rows) if ((NAMES as readonly string[]).includes(row.name)) Object.assign(policies, { [row.name]: JSON.parse(row.value) as unknown });
    return policies;
  }

  return {
    current,
    async update(changes: Partial<InstancePolicies>, adminId: string): Promise<InstancePolicies> {
      const at = now();
      await db.transaction().execute(async (tx) => {
        for (const name of NAMES) {
          if (changes[name] === undefined) continue;
          const value = JSON.stringify(changes[name]);
          await tx
            .insertInto('instance_policies')
            .values({ name, value, updated_by: adminId, updated_at: at })
            .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_by: adminId, updated_at: at }))
            .execute();
        }
      });
      return current();
    },
  };
}

export type Policies = ReturnType<typeof createPolicies>;
