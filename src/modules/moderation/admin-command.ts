/**
 * `npm run admin -- grant <email> [--role admin|moderator]` and `npm run admin -- revoke <email>`:
 * the operator's way to appoint the first admin (and any other role) from the server itself. It
 * writes the database the service reads, so it works while the service runs: the guard of the admin
 * routes reads the role on every request.
 */
import type { Db } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { isoNow } from '../../lib/clock.ts';
import { createRolesStore } from './roles.ts';
import type { ModeratorRole } from './tables.ts';

export const ADMIN_USAGE = 'usage: npm run admin -- grant <email> [--role admin|moderator]\n       npm run admin -- revoke <email>';

export interface AdminCommandResult {
  /** 0 done, 1 nothing to do it to (no such account), 64 wrong usage. */
  exitCode: number;
  output: string;
}

export async function runAdminCommand(args: readonly string[], db: Db, clock: Clock): Promise<AdminCommandResult> {
  const roles = createRolesStore(db);
  const [verb, email, ...rest] = args;
  if ((verb !== 'grant' && verb !== 'revoke') || !email || email.startsWith('--')) return { exitCode: 64, output: ADMIN_USAGE };
  let role: ModeratorRole = 'admin';
  if (verb === 'grant' && rest.length > 0) {
    const value = rest[0] === '--role' ? rest[1] : rest[0]?.startsWith('--role=') ? rest[0].slice('--role='.length) : undefined;
    const consumed = rest[0] === '--role' ? 2 : 1;
    if ((value !== 'admin' && value !== 'moderator') || rest.length !== consumed) return { exitCode: 64, output: ADMIN_USAGE };
    role = value;
  } else if (rest.length > 0) return { exitCode: 64, output: ADMIN_USAGE };

  const account = await roles.personByEmail(email);
  if (!account) return { exitCode: 1, output: `no person's account has the email ${email}: they sign up first, then you grant the role` };
  if (verb === 'grant') {
    const before = await roles.grant(account.id, role, null, isoNow(clock));
    const what = before === role ? `already had the role ${role}` : before ? `now has the role ${role} (was ${before})` : `now has the role ${role}`;
    return { exitCode: 0, output: `${account.email} (account ${account.id}) ${what}` };
  }
  const before = await roles.revoke(account.id);
  return {
    exitCode: 0,
    output: before
      ? `${account.email} (account ${account.id}) no longer has the role ${before}`
      : `${account.email} (account ${account.id}) had no role; nothing changed`,
  };
}
