/**
 * A backup taken while the service writes restores into a service that reads back everything the
 * database held: agents, tasks, receipts, posts, media and sealed A2A credentials (which still open).
 * SQLite: `npm run backup` (the backup API, key files beside); PostgreSQL: pg_dump and pg_restore
 * into a fresh database, as docs/operations.md tells operators.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { backupPostgres } from '../../src/db/backup.ts';
import { createSecretBox, keyFromFile, parseSecretsKey } from '../../src/lib/secret-box.ts';
import { asTestApp, startTestApp, testDatabaseUrl, TEST_SECRETS_KEY, withSchemaLock, type TestApp } from '../helpers/app.ts';
import { newAgentKey, registerAgent } from '../helpers/agents.ts';
import { png } from '../helpers/images.ts';
import { pollingAgent } from '../helpers/payments.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { createPost, socialUser } from '../helpers/social.ts';
import { submitTask } from '../helpers/tasks.ts';

const CREDENTIAL = 'a2a-endpoint-credential-kept-sealed';
const root = process.cwd();

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output}`))));
  });
}

/** Fills every module's tables; answers a function reading all of it back as a user sees it. */
async function fill(app: TestApp) {
  const owner = await socialUser(app);
  const agent = await registerAgent(app, owner.token, { capabilities: ['text-summarization'] });
  const a2aAgent = await registerAgent(app, owner.token, {
    deliveryMode: 'a2a',
    protocols: ['a2a'],
    endpoint: 'https://a2a.example.test/rpc',
    authType: 'bearer',
    authCredential: CREDENTIAL,
  });
  const poller = await pollingAgent(app, owner.token);
  const task = await submitTask(app, owner.token, { agentId: poller.id });
  const issuer = { agent: 'issuer', key: newAgentKey() };
  const subject = { agent: 'subject', key: newAgentKey() };
  const receipt = makeReceipt('outcome', issuer, subject);
  assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })).statusCode, 201);
  const post = await createPost(app, owner.token, 'A post that must survive a restore #backups');
  const upload = await app.request({ method: 'POST', url: '/v1/media', token: owner.token, rawBody: png, headers: { 'content-type': 'image/png' } });
  assert.equal(upload.statusCode, 201, upload.body);
  const mediaId = upload.json().data.id as string;

  return {
    owner,
    a2aAgentId: a2aAgent.id,
    async readAll(on: TestApp, token: string) {
      const get = async (url: string) => {
        const response = await on.request({ method: 'GET', url, token });
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        return response.json();
      };
      const media = await on.request({ method: 'GET', url: `/media/${mediaId}` });
      return {
        agents: [await get(`/v1/agents/${agent.id}`), await get(`/v1/agents/${a2aAgent.id}`), await get(`/v1/agents/${poller.id}`)],
        task: await get(`/v1/tasks/${task.id}`),
        receipts: await get(`/v1/trust-receipts/chain/${receipt.correlationId}`),
        post: await get(`/v1/social/posts/${post.id}`),
        profile: await get(`/v1/social/users/${owner.username}/profile`),
        media: { status: media.statusCode, type: media.headers['content-type'], bytes: media.rawPayload.toString('base64') },
      };
    },
  };
}

/** Posts written one after another until `stop` is called: writes that go on while the backup is taken. */
function keepWriting(app: TestApp, token: string) {
  let stopped = false;
  let written = 0;
  const loop = (async () => {
    while (!stopped) {
      await createPost(app, token, `Written during the backup, number ${written}`);
      written++;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return written;
    },
  };
}

describe(`backup and restore (${testDatabaseUrl ? 'PostgreSQL: pg_dump and pg_restore' : 'SQLite: npm run backup'})`, () => {
  const work = mkdtempSync(join(tmpdir(), 'agentry-backup-'));
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it('a backup taken while writes continue restores into a service that reads everything back, sealed credentials included', async () => {
    const app = await startTestApp();
    let appOpen = true;
    cleanups.push(async () => void (appOpen && (await app.close())));
    const filled = await fill(app);
    const writer = await socialUser(app);
    const writing = keepWriting(app, writer.token);

    const backupFile = join(work, testDatabaseUrl ? 'agentry.dump' : 'agentry-backup.db');
    if (testDatabaseUrl) {
      // What `npm run backup` runs on PostgreSQL, kept to this test's schema.
      await backupPostgres(testDatabaseUrl, backupFile, { schema: app.databaseSchema! });
      assert.deepEqual(readdirSync(work), ['agentry.dump']);
    } else {
      const output = await run(process.execPath, ['--import', 'tsx', 'scripts/backup.ts', backupFile], { DATABASE_URL: `sqlite:${app.database.sqliteFile}` });
      assert.match(output, /key file copied to .*agentry-backup\.db\.secrets\.key/);
      assert.deepEqual(readdirSync(work).sort(), ['agentry-backup.db', 'agentry-backup.db.secrets.key']);
    }
    // It holds webhook secrets and sealed credentials: its owner's alone, whatever the umask.
    assert.equal(statSync(backupFile).mode & 0o777, 0o600);
    const written = await writing.stop();
    assert.ok(written > 0, 'posts were written while the backup ran');
    const before = await filled.readAll(app, filled.owner.token);

    // Wipe: closing a test app deletes its database (the SQLite folder with its key file, or the PostgreSQL schema).
    const sqliteDir = app.database.sqliteFile ? join(app.database.sqliteFile, '..') : null;
    const schema = app.databaseSchema;
    await app.close();
    appOpen = false;
    if (sqliteDir) assert.equal(existsSync(sqliteDir), false);

    let restoredUrl: string;
    let secretsKey: Buffer;
    const env: Record<string, string> = { LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '100000' };
    if (testDatabaseUrl) {
      const serverUrl = testDatabaseUrl;
      const fresh = `agentry_restore_${process.pid}_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${fresh}`);
      await admin.end();
      restoredUrl = new URL(testDatabaseUrl).href.replace(/\/[^/]*$/, `/${fresh}`);
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: serverUrl });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${fresh} WITH (FORCE)`);
        await client.end();
      });
      await run('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, backupFile]);
      env.SECRETS_KEY = TEST_SECRETS_KEY;
      secretsKey = parseSecretsKey(TEST_SECRETS_KEY)!;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'agentry-restored-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      copyFileSync(backupFile, join(dir, 'agentry.db'));
      copyFileSync(`${backupFile}.secrets.key`, join(dir, 'secrets.key'));
      restoredUrl = `sqlite:${join(dir, 'agentry.db')}`;
      secretsKey = keyFromFile(join(dir, 'secrets.key')).key;
    }

    const build = () =>
      buildApp(loadConfig({ ...env, DATABASE_URL: restoredUrl }), { logger: false, webRoot: null, ...(schema ? { databaseSchema: schema } : {}) });
    const restoredApp = testDatabaseUrl ? await withSchemaLock(testDatabaseUrl, build) : await build();
    const restored = asTestApp(restoredApp, schema ?? null, () => restoredApp.close());
    cleanups.push(() => restored.close());

    assert.deepEqual(await filled.readAll(restored, filled.owner.token), before);
    // The writes that went on: the backup holds those before its snapshot, whole, and none after.
    const posts = await restored.request({ method: 'GET', url: `/v1/social/users/${writer.username}/posts?limit=100`, token: writer.token });
    assert.equal(posts.statusCode, 200, posts.body);
    const kept = (posts.json().posts as { body: string }[]).map((post) => post.body);
    assert.ok(kept.length <= written);
    for (const body of kept) assert.match(body, /^Written during the backup, number \d+$/);

    // The sealed credential opens with the restored key, bound to its agent, as deliveries open it.
    const row = await restored.database.db.selectFrom('agents').select('auth_credential').where('id', '=', filled.a2aAgentId).executeTakeFirstOrThrow();
    assert.equal(createSecretBox(secretsKey).open(row.auth_credential!, filled.a2aAgentId), CREDENTIAL);
  });

  it(
    'BACKUP_DIR: the service backs itself up on a worker thread, key file beside, keeping the newest BACKUP_KEEP',
    { skip: testDatabaseUrl !== null && 'BACKUP_DIR backs up a SQLite database file; PostgreSQL is backed up with its own tools' },
    async () => {
      const dir = join(work, 'scheduled');
      const app = await startTestApp({ BACKUP_DIR: dir, BACKUP_KEEP: '1' });
      cleanups.push(() => app.close());
      const { token } = await socialUser(app);
      await createPost(app, token, 'A post in the scheduled backup');
      const first = await app.backups!.runOnce();
      assert.deepEqual(first.keyFiles, [`${first.file}.secrets.key`]);
      // An older backup, as the previous interval would have left it: pruned past BACKUP_KEEP.
      copyFileSync(first.file, join(dir, 'agentry-20000101T000000Z.db'));
      await app.backups!.runOnce();
      const left = readdirSync(dir).filter((name) => name.endsWith('.db'));
      assert.equal(left.length, 1);
      assert.notEqual(left[0], 'agentry-20000101T000000Z.db');
    },
  );
});
