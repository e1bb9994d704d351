/**
 * `agentry init` makes a project that works: run init in an empty folder outside the repository, let
 * `npm install` take the SDK from the `npm pack` tarball package.json names (made by `npm run pack:kit`),
 * register the agent with the key file init wrote, `npm start` it against a started service and
 * see it complete a task. Init refuses to overwrite the project's key without --force.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadKey, publicKeyString } from '@agentry/sdk';
import type { TestApp } from '../helpers/app.ts';
import { freshShellEnv, packKit } from '../helpers/built-packages.ts';
import { startListeningApp } from '../helpers/listening.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);

describe('agentry init, installed from the npm pack tarballs', () => {
  let app: TestApp;
  let url: string;
  let kit: Awaited<ReturnType<typeof packKit>>;
  before(async () => {
    [{ app, url }, kit] = await Promise.all([startListeningApp(), packKit()]);
  });
  after(() => app.close());

  test('init --poll, by an agentry installed from the tarballs, writes a project that installs the SDK the same way, starts and completes a task; a second init refuses without --force', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentry-init-'));
    const project = join(home, 'shouter');
    // No AGENTRY_KIT: the CLI finds where its own SDK came from.
    const env = freshShellEnv(home);
    await run('npm', ['install', kit.sdk, kit.cli], { cwd: home, env, timeout: 180_000 });
    const agentry = (...args: string[]) => run(join(home, 'node_modules', '.bin', 'agentry'), args, { cwd: home, env });
    await run('mkdir', [project]);

    const made = await agentry('init', 'shouter', '--poll');
    assert.match(made.stdout, /^pubkey: ed25519:/m);
    assert.ok(made.stdout.includes(`@agentry/sdk: file:${kit.sdk} (`), made.stdout);
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    assert.equal(manifest.type, 'module');
    assert.ok(manifest.devDependencies.tsx);
    assert.match(manifest.scripts.start, /^node /, 'npm start runs node itself, so a SIGTERM reaches the agent');
    assert.deepEqual(readFileSync(join(project, '.gitignore'), 'utf8').split('\n').filter(Boolean).slice(0, 3), ['node_modules/', '.env', 'agent.key']);
    assert.equal(manifest.dependencies['@agentry/sdk'], `file:${kit.sdk}`);
    assert.equal(statSync(join(project, 'agent.key')).mode & 0o777, 0o600, 'the key is made as keygen makes it');
    const pubkey = publicKeyString(loadKey(join(project, 'agent.key')));
    assert.ok(readFileSync(join(project, 'README.md'), 'utf8').includes(pubkey));
    assert.match(readFileSync(join(project, '.env.example'), 'utf8'), /^AGENT_ID=$/m);
    assert.match(readFileSync(join(project, 'agent.ts'), 'utf8'), /new AgentRunner\(/);

    const again = await agentry('init', 'shouter').catch((error: { code: number; stderr: string }) => error);
    assert.equal((again as { code: number }).code, 2);
    assert.match((again as { stderr: string }).stderr, /package\.json, agent\.key, .*\.gitignore.* already exist .*--force/);
    assert.equal(publicKeyString(loadKey(join(project, 'agent.key'))), pubkey, 'the key is untouched');

    await run('npm', ['install'], { cwd: project, env, timeout: 180_000 });

    const registered = await app.request({
      method: 'POST',
      url: '/v1/agents/provisional',
      body: { name: `Init ${process.pid} ${Date.now()}`, description: 'made by agentry init', pubkey, deliveryMode: 'poll' },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    const agentId = registered.json().data.id as string;
    writeFileSync(
      join(project, '.env'),
      readFileSync(join(project, '.env.example'), 'utf8')
        .replace(/^AGENT_ID=$/m, `AGENT_ID=${agentId}`)
        .replace(/^AGENTRY_URL=.*$/m, `AGENTRY_URL=${url}`),
    );

    const agent = spawn('npm', ['start'], { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(
        'the agent to start',
        () => output,
        (text) => text.includes('is polling for tasks') || agent.exitCode !== null,
        { timeoutMs: 60_000 },
      );
      assert.match(output, /is polling for tasks/);
      const signup = await app.request({
        method: 'POST',
        url: '/v1/auth/signup',
        body: { email: `init-${process.pid}-${Date.now()}@example.test`, password: 'correct horse battery' },
      });
      const token = signup.json().data.token as string;
      const submitted = await app.request({
        method: 'POST',
        url: '/v1/tasks',
        headers: { authorization: `Bearer ${token}` },
        body: { agentId, description: 'shout', input: { text: 'hello' } },
      });
      assert.equal(submitted.statusCode, 201, submitted.body);
      const done = await waitFor(
        'the task to complete',
        async () =>
          (await app.request({ method: 'GET', url: `/v1/tasks/${submitted.json().data.id}`, headers: { authorization: `Bearer ${token}` } })).json().data,
        (task) => task.status === 'completed' || task.status === 'failed',
        { timeoutMs: 60_000 },
      );
      assert.deepEqual(done.result, { text: 'HELLO' }, output);
    } finally {
      process.kill(-agent.pid!, 'SIGTERM');
    }
  });
});
