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

/**
 * The `agentry register` command a project's README prints, as arguments: the key file by its path in
 * the project, and the values of `replace` instead of the README's for those flags.
 */
function readmeRegister(project: string, replace: Record<string, string>): string[] {
  const line = readFileSync(join(project, 'README.md'), 'utf8')
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text.startsWith('agentry register '));
  assert.ok(line, 'the README prints a register command');
  const args = [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!).slice(1);
  return args.map((arg, index) => replace[args[index - 1]!] ?? (arg === 'agent.key' ? join(project, 'agent.key') : arg));
}

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
    assert.match(readFileSync(join(project, '.env.example'), 'utf8'), /^PUBLIC_URL=http:\/\/127\.0\.0\.1:3000\/$/m);
    const both = await runAgentry(['init', join(home, 'other'), '--a2a', '--poll'], { HOME: home });
    assert.equal(both.code, 2);

    const owner = await app.signup();
    const cliEnv = { AGENTRY_URL: url, AGENTRY_TOKEN: owner.token, HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
    // The --webhook project's printed command registers as it stands.
    const hooked = join(home, 'hooked');
    assert.equal((await runAgentry(['init', hooked, '--webhook', '--sdk', '^0.1.0'], cliEnv)).code, 0);
    const webhookAgent = await runAgentry(['-q', ...readmeRegister(hooked, { '--name': `Init webhook ${process.pid} ${Date.now()}` })], cliEnv);
    assert.equal(webhookAgent.code, 0, webhookAgent.stderr);
    assert.match(webhookAgent.stdout, /^\S+\nwhsec_\S+\n$/);
    // So does the --poll project's, which registers the input schema its agent.ts checks: a plain-language task is read into it.
    const polled = join(home, 'polled');
    assert.equal((await runAgentry(['init', polled, '--poll', '--sdk', '^0.1.0'], cliEnv)).code, 0);
    const pollAgent = await runAgentry(['-q', ...readmeRegister(polled, { '--name': `Init poll ${process.pid} ${Date.now()}` })], cliEnv);
    assert.equal(pollAgent.code, 0, pollAgent.stderr);
    const extracted = await app.request({
      method: 'POST',
      url: '/v1/tasks/extract',
      token: owner.token,
      body: { agentId: pollAgent.stdout.split('\n')[0], description: 'Shout this text: "hello world"' },
    });
    assert.equal(extracted.statusCode, 200, extracted.body);
    assert.deepEqual(extracted.json().data, { input: { text: 'hello world' }, missing: [] });
    const pubkey = publicKeyString(loadKey(join(project, 'agent.key')));
    const agent = spawn(process.execPath, ['--import', 'tsx', 'agent.ts'], {
      cwd: project,
      env: { ...process.env, AGENTRY_URL: url, AGENT_ID: '', AGENTRY_TOKEN: '', PORT: '0', PUBLIC_URL: '' },
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
      const card = (await (await fetch(`${endpoint}.well-known/agent-card.json`)).json()) as {
        name: string;
        supportedInterfaces: { url: string }[];
      };
      assert.equal(card.name, 'loud-a2a');
      assert.equal(card.supportedInterfaces[0]!.url, endpoint, 'an empty PUBLIC_URL is no address: the card gives the one it listens on');

      // Registered by the command its README prints, with this run's endpoint and a name of its own.
      const registered = await runAgentry(
        ['--json', ...readmeRegister(project, { '--name': `Init A2A ${process.pid} ${Date.now()}`, '--endpoint': endpoint })],
        cliEnv,
      );
      assert.equal(registered.code, 0, registered.stderr);
      const agentId = JSON.parse(registered.stdout).agent.id as string;
      const stored = (await app.request({ method: 'GET', url: `/v1/agents/${agentId}` })).json().data;
      assert.equal(stored.registrationPubkey, pubkey);
      assert.equal(JSON.parse(stored.inputSchema).text.type, 'string', 'the input schema agent.ts checks is registered');

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
