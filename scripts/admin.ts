/**
 * `npm run admin -- grant <email> [--role admin|moderator]` / `npm run admin -- revoke <email>`:
 * gives or takes a moderation role on the database DATABASE_URL names (docs/moderation.md). Safe
 * while the service runs.
 */
import { openDatabase } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { ADMIN_USAGE, runAdminCommand } from '../src/modules/moderation/admin-command.ts';

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--help' || args[0] === '-h') {
  console.error(ADMIN_USAGE);
  process.exit(64);
}
const database = openDatabase({ url: process.env.DATABASE_URL || 'sqlite:./data/agentry.db' });
let exitCode = 1;
try {
  // A database the service has not started on yet gets its tables here, as the service would make them.
  await database.migrate();
  const result = await runAdminCommand(args, database.db, systemClock);
  (result.exitCode === 0 ? console.log : console.error)(result.output);
  exitCode = result.exitCode;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
} finally {
  await database.close();
}
process.exit(exitCode);
