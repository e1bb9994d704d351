/**
 * `npm run backup -- <file>`: backs up the database DATABASE_URL names while the service runs.
 * SQLite: an online copy through SQLite's backup API, with the key files kept beside the database
 * (`secrets.key`) copied beside the backup. PostgreSQL: `pg_dump --format=custom` into <file>.
 * Either way the backup is 0600, and it says which keys a restore needs that the backup does not hold.
 */
import { resolve } from 'node:path';
import { backupPostgres, backupSqlite } from '../src/db/backup.ts';
import { dialectOf, sqlitePath } from '../src/db/dialect.ts';

const target = process.argv[2];
if (!target || process.argv.length > 3) {
  console.error('usage: npm run backup -- <file>   (backs up the database DATABASE_URL names; default sqlite:./data/agentry.db)');
  process.exit(64);
}
const databaseUrl = process.env.DATABASE_URL || 'sqlite:./data/agentry.db';

function warnAboutKeysInEnvironment(): void {
  const inEnvironment = ['SECRETS_KEY', 'LOG_SIGNING_KEY'].filter((name) => process.env[name]);
  for (const name of inEnvironment)
    console.warn(
      `\n!!! ${name} is set in the environment: it is NOT in this backup. Keep it with the backup (in your secret store):\n` +
        `!!! without ${name === 'SECRETS_KEY' ? 'it the stored agent credentials (A2A) cannot be opened' : 'it the receipt log is signed by another key after a restore'}.`,
    );
}

if (dialectOf(databaseUrl) === 'postgres') {
  try {
    await backupPostgres(databaseUrl, resolve(target));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  console.log(`backed up ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')} to ${resolve(target)} (restore with pg_restore; docs/operations.md)`);
  warnAboutKeysInEnvironment();
} else {
  const source = sqlitePath(databaseUrl);
  if (source === ':memory:') {
    console.error('DATABASE_URL names an in-memory database: there is nothing to back up');
    process.exit(64);
  }
  const result = await backupSqlite(source, resolve(target));
  console.log(`backed up ${source} (${result.pages} pages) to ${result.file}`);
  for (const keyFile of result.keyFiles)
    console.log(`key file copied to ${keyFile} (restore it beside the database as ${keyFile.slice(result.file.length + 1)})`);
  if (result.keyFiles.length === 0 && !process.env.SECRETS_KEY)
    console.warn('\n!!! No secrets.key beside the database and no SECRETS_KEY: if the service made a key elsewhere, back it up too.');
  warnAboutKeysInEnvironment();
}
