/**
 * `agentry init --a2a` writes an A2A agent that works: its agent.ts, run as written (with the
 * workspace's @agentry/sdk and @a2a-js/sdk instead of an `npm install`, which init.test.ts already
 * covers for the tarballs), serves its agent card, takes a task the service sends as an A2A
 * message and completes it. The lighter twin of init.test.ts: no second `npm install`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadKey, publicKeyString } from '@agentry/sdk';
import type { TestApp } from '../helpers/app.ts';
import { runAgentry } from '../helpers/cli.ts';
import { startListeningApp } from '../helpers/listening.ts';
import { waitFor } from '../helpers/wait.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('agentry init --a2a', () => {
  let app: TestApp;
  let url: string;
  let home: string;
  before(async () => {
    ({ app, url } = await startListeningApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' }));
    // Inside the checkout (ignored by git), so the project's imports resolve to the workspace's packages.
    mkdirSync(join(root, '.tmp-exp'), { recursive: true });
    home = mkdtempSync(join(root, '.tmp-exp', 'init-a2a-'));
  });
  after(async () => {
    await app.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('writes an A2A agent project whose agent serves its card and completes a task', async () => {
    const project = join(home, 'loud-a2a');
    const made = await runAgentry(['init', project, '--a2a', '--sdk', '^0.1.0'], { XDG_CONFIG_HOME: join(home, 'config'), HOME: home });
    assert.equal(made.code, 0, made.stderr);
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    assert.equal(manifest.type, 'module');
    assert.ok(manifest.dependencies['@a2a-js/sdk']);
    assert.match(readFileSync(join(project, 'README.md'), 'utf8'), /--delivery-mode a2a/);
    assert.match(readFileSync(join(project, '.env.example'), 'utf8'), /^PUBLIC_URL=$/m);
    const both = await runAgentry(['init', join(home, 'other'), '--a2a', '--poll'], { HOME: home });
    assert.equal(both.code, 2);

    const owner = await app.signup();
    const pubkey = publicKeyString(loadKey(join(project, 'agent.key')));
    const agent = spawn(process.execPath, ['--import', 'tsx', 'agent.ts'], {
      cwd: project,
      env: { ...process.env, AGENTRY_URL: url, AGENT_ID: '', AGENTRY_TOKEN: '', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let restarted: ReturnType<typeof spawn> | undefined;
    try {
      // Started without AGENT_ID, it says where it listens and what to do next.
      await waitFor(
        'the agent to say where it listens',
        () => output,
        (said) => /A2A endpoint on http:\S+\/ /.test(said) && /No AGENT_ID yet/.test(said),
        {
          timeoutMs: 60_000,
        },
      );
      const endpoint = /A2A endpoint on (http:\S+\/) /.exec(output)![1]!;
      const card = (await (await fetch(`${endpoint}.well-known/agent-card.json`)).json()) as { name: string; skills: { examples: string[] }[] };
      assert.equal(card.name, 'loud-a2a');

      const registered = await app.request({
        method: 'POST',
        url: '/v1/agents',
        token: owner.token,
        body: {
          name: `Init A2A ${process.pid} ${Date.now()}`,
          description: 'made by agentry init --a2a',
          protocols: ['a2a'],
          categories: ['productivity'],
          deliveryMode: 'a2a',
          endpoint,
          pubkey,
          inputSchema: { text: { type: 'string', required: true } },
        },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      const agentId = registered.json().data.id as string;

      // With its id, its signed heartbeats make it available; the service sends it a task.
      agent.kill('SIGTERM');
      const port = new URL(endpoint).port;
      output = '';
      restarted = spawn(process.execPath, ['--import', 'tsx', 'agent.ts'], {
        cwd: project,
        env: { ...process.env, AGENTRY_URL: url, AGENT_ID: agentId, AGENTRY_TOKEN: '', PORT: port },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      restarted.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      restarted.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await waitFor(
        'the agent to send its first heartbeat',
        () => output,
        (said) => said.includes(`agent ${agentId} takes A2A tasks`),
        { timeoutMs: 60_000 },
      );

      const submitted = await app.request({
        method: 'POST',
        url: '/v1/tasks',
        token: owner.token,
        body: { agentId, description: 'shout it', input: { text: 'hello' } },
      });
      assert.equal(submitted.statusCode, 201, submitted.body);
      const taskId = submitted.json().data.id as string;
      const finished = await waitFor(
        'the task to end',
        async () => (await app.request({ method: 'GET', url: `/v1/tasks/${taskId}`, token: owner.token })).json().data,
        (task) => ['completed', 'failed', 'unmatched', 'expired'].includes(task.status),
        { timeoutMs: 60_000 },
      );
      assert.equal(finished.status, 'completed', `${JSON.stringify(finished)}\n${output}`);
      assert.match(JSON.stringify(finished.result), /HELLO/);
    } finally {
      agent.kill('SIGTERM');
      restarted?.kill('SIGTERM');
    }
  });
});
