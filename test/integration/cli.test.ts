import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app.ts';
import { runAgentry } from '../helpers/cli.ts';
import { deadUrl, startListeningApp } from '../helpers/listening.ts';
import { waitFor } from '../helpers/wait.ts';

const root = new URL('../../', import.meta.url);

function workspace(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-'));
  const env = { XDG_CONFIG_HOME: join(dir, 'config'), AGENTRY_URL: url, HOME: dir };
  const run = (...args: string[]) => runAgentry(args, env);
  return { dir, env, run, path: (name: string) => join(dir, name) };
}

describe('agentry CLI against the service', () => {
  let app: TestApp;
  let url: string;

  before(async () => {
    ({ app, url } = await startListeningApp());
  });
  after(() => app.close());

  test('the binary runs through npx-style bin with --help', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [new URL('packages/cli/bin/agentry.js', root).pathname, '--help']);
    assert.match(stdout, /Usage: agentry/);
    assert.match(stdout, /Exit codes/);
  });

  test('every command has --help (exit 0)', async () => {
    const { run } = workspace(url);
    const commands = [
      [],
      ['login'],
      ['signup'],
      ['logout'],
      ['keygen'],
      ['register'],
      ['claim'],
      ['agents', 'ls'],
      ['agents', 'show'],
      ['agents', 'wait'],
      ['agents', 'update'],
      ['agents', 'delete'],
      ['agents', 'key', 'prove'],
      ['agents', 'key', 'set'],
      ['whoami'],
      ['init'],
      ['trust'],
      ['tasks', 'extract'],
      ['tasks', 'cancel'],
      ['tasks', 'rate'],
      ['tasks', 'receipt'],
      ['account', 'signing-key', 'add'],
      ['keys', 'create'],
      ['keys', 'ls'],
      ['keys', 'revoke'],
      ['receipt', 'sign'],
      ['receipt', 'verify'],
      ['receipt', 'submit'],
      ['tasks', 'submit'],
      ['tasks', 'get'],
      ['tasks', 'ls'],
      ['tasks', 'watch'],
      ['tasks', 'serve'],
      ['discover'],
      ['profile'],
      ['post'],
      ['feed'],
    ];
    for (const command of commands) {
      const result = await run(...command, '--help');
      assert.equal(result.code, 0, `${command.join(' ')} --help`);
      assert.match(result.stdout, /Usage: agentry/);
    }
    const unknown = await run('no-such-command');
    assert.equal(unknown.code, 2);
  });

  test('keygen, provisional register, signup, claim, serve a task with --exec, submit and read it back', async () => {
    const { run, path, env } = workspace(url);
    const keygen = await run('keygen', '--out', path('agent.key'));
    assert.equal(keygen.code, 0, keygen.stderr);
    assert.equal(statSync(path('agent.key')).mode & 0o777, 0o600);

    const registered = await run(
      '--json',
      'register',
      '--provisional',
      '--key',
      path('agent.key'),
      '--name',
      `CLI Echo ${process.pid} ${Date.now()}`,
      '--description',
      'Echoes',
      '--delivery-mode',
      'poll',
    );
    assert.equal(registered.code, 0, registered.stderr);
    const { agent, claimUrl } = JSON.parse(registered.stdout);
    assert.match(claimUrl, new RegExp(`^${url}/v1/agents/${agent.id}/claim/challenge$`));

    const signup = await run('signup', '--email', `cli-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    assert.equal(signup.code, 0, signup.stderr);
    const config = join(env.XDG_CONFIG_HOME, 'agentry', 'config.json');
    assert.equal(statSync(config).mode & 0o777, 0o600);

    const claimed = await run('claim', agent.id, '--key', path('agent.key'));
    assert.equal(claimed.code, 0, claimed.stderr);
    const shown = JSON.parse((await run('--json', 'agents', 'show', agent.id)).stdout);
    assert.equal(shown.status, 'active');

    const listed = await run('agents', 'ls');
    assert.match(listed.stdout, new RegExp(agent.slug));

    const controller = new AbortController();
    const serving = runAgentry(
      [
        'tasks',
        'serve',
        '--agent',
        agent.id,
        '--key',
        path('agent.key'),
        '--exec',
        `${JSON.stringify(process.execPath)} -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify({got:JSON.parse(s)})))"`,
      ],
      env,
      { signal: controller.signal },
    );
    try {
      assert.equal((await run('agents', 'wait', agent.id)).code, 0);
      const submitted = await run('-q', 'tasks', 'submit', '--agent', agent.id, '--description', 'echo it', '--input', '{"text":"hello"}', '--wait');
      assert.equal(submitted.code, 0, submitted.stderr);
      const taskId = submitted.stdout.trim();
      const task = JSON.parse((await run('--json', 'tasks', 'get', taskId)).stdout);
      assert.equal(task.status, 'completed');
      assert.deepEqual(task.result, { got: { text: 'hello' } });
    } finally {
      controller.abort();
      const served = await serving;
      assert.equal(served.code, 0, served.stderr);
    }
  });

  test('a failing --exec command fails the task with its stderr; --wait exits 1', async () => {
    const { run, env } = workspace(url);
    await run('signup', '--email', `cli-fail-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const manifest = join(env.HOME, 'agent.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: `CLI Fail ${process.pid} ${Date.now()}`,
        description: 'Fails',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      }),
    );
    const created = await run('-q', 'register', '--manifest', manifest);
    assert.equal(created.code, 0, created.stderr);
    const agentId = created.stdout.trim();
    const serving = runAgentry(['tasks', 'serve', '--agent', agentId, '--once', '--exec', 'echo broken on purpose >&2; exit 3'], env);
    assert.equal((await run('agents', 'wait', agentId)).code, 0);
    const submitted = await run('--json', 'tasks', 'submit', '--agent', agentId, '--description', 'fail it', '--wait');
    assert.equal(submitted.code, 1);
    const task = JSON.parse(submitted.stdout);
    assert.equal(task.status, 'failed');
    assert.match(JSON.stringify(task.error), /broken on purpose/);
    assert.equal((await serving).code, 0);
  });

  test('a task cancelled while its command runs: the command is stopped and serve says "cancelled"', async () => {
    const { run, env, path } = workspace(url);
    await run('signup', '--email', `cli-cancel-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const created = await run(
      '-q',
      'register',
      '--name',
      `CLI Cancel ${process.pid} ${Date.now()}`,
      '--description',
      'Slow',
      '--delivery-mode',
      'poll',
      '--categories',
      'productivity',
    );
    assert.equal(created.code, 0, created.stderr);
    const agentId = created.stdout.trim();
    // The command notes its pid, then would work for ten minutes.
    const slow = `${JSON.stringify(process.execPath)} -e "require('fs').writeFileSync(${JSON.stringify(JSON.stringify(path('pid')))}, String(process.pid)); setTimeout(() => console.log('{}'), 600000)"`;
    const serving = runAgentry(['tasks', 'serve', '--agent', agentId, '--once', '--cancel-check', '0.1', '--exec', slow], env);
    assert.equal((await run('agents', 'wait', agentId)).code, 0);
    const submitted = await run('-q', 'tasks', 'submit', '--agent', agentId, '--description', 'take your time');
    const taskId = submitted.stdout.trim();
    const pid = Number(
      await waitFor('the command to start', () => (existsSync(path('pid')) ? readFileSync(path('pid'), 'utf8') : ''), Boolean, { timeoutMs: 60_000 }),
    );
    assert.equal((await run('tasks', 'cancel', taskId)).code, 0);
    const served = await serving;
    assert.equal(served.code, 0, served.stderr);
    assert.match(served.stderr, new RegExp(`^task ${taskId} cancelled$`, 'm'));
    assert.doesNotMatch(served.stderr, /completed|callback/);
    await waitFor('the command to stop', () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    assert.equal(JSON.parse((await run('--json', 'tasks', 'get', taskId)).stdout).status, 'cancelled');
    const shown = (await run('tasks', 'get', taskId)).stdout;
    assert.match(shown, /^status: cancelled$/m);
    assert.doesNotMatch(shown, /: null$/m, 'an untitled task shows no "title: null" line');
  });

  test('tasks serve on a webhook agent says how to serve it, without a stack trace', async () => {
    const { run, env } = workspace(url);
    await run('signup', '--email', `cli-hookserve-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const created = await run(
      '-q',
      'register',
      '--name',
      `CLI Hook ${process.pid} ${Date.now()}`,
      '--description',
      'Webhook',
      '--endpoint',
      'https://agent.example.com/hook',
      '--categories',
      'productivity',
    );
    const agentId = created.stdout.split('\n')[0]!;
    const served = await runAgentry(['tasks', 'serve', '--agent', agentId, '--exec', 'cat'], env);
    assert.equal(served.code, 1, served.stderr);
    assert.match(served.stderr, new RegExp(`^error: agent ${agentId} takes its tasks by webhook .*--mode webhook --webhook-secret`, 'm'));
    assert.doesNotMatch(served.stderr, /\n\s+at /);
  });

  test('API keys: create, list, use with login --token, revoke', async () => {
    const { run } = workspace(url);
    await run('signup', '--email', `cli-keys-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const created = await run('--json', 'keys', 'create', '--name', 'ci');
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    const secret = key.key ?? key.secret ?? key.token;
    assert.match(secret, /^agk_/);
    const other = workspace(url);
    assert.equal((await other.run('login', '--token', secret)).code, 0);
    assert.equal((await other.run('agents', 'ls')).code, 0);
    const listed = JSON.parse((await run('--json', 'keys', 'ls')).stdout);
    assert.equal(listed.data.length, 1);
    assert.equal((await run('keys', 'revoke', listed.data[0].id)).code, 0);
    const refused = await other.run('agents', 'ls');
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /agentry login/);
  });

  test('receipt sign, verify and submit', async () => {
    const { run, path } = workspace(url);
    await run('keygen', '--out', path('issuer.key'));
    await run('keygen', '--out', path('subject.key'));
    const subjectPubkey = (await run('--json', 'keygen', '--out', path('subject2.key'))).stdout;
    const signed = await run(
      'receipt',
      'sign',
      '--key',
      path('issuer.key'),
      '--kind',
      'outcome',
      '--task-class',
      'code.review',
      '--issuer',
      'issuer-bot',
      '--subject',
      'subject-bot',
      '--subject-pubkey',
      JSON.parse(subjectPubkey).pubkey,
      '--payload',
      '{"outcome":"success","latencyMs":12}',
      '--out',
      path('receipt.json'),
    );
    assert.equal(signed.code, 0, signed.stderr);
    assert.equal((await run('receipt', 'verify', path('receipt.json'))).code, 0);
    const tampered = JSON.parse(readFileSync(path('receipt.json'), 'utf8'));
    tampered.payload.latencyMs = 13;
    writeFileSync(path('tampered.json'), JSON.stringify(tampered));
    const bad = await run('receipt', 'verify', path('tampered.json'));
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /does NOT verify/);
    const submitted = await run('--json', 'receipt', 'submit', path('receipt.json'));
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.equal(JSON.parse(submitted.stdout).receipt.signatureVerified, true);
  });

  test('discover, post and feed', async () => {
    const { run } = workspace(url);
    await run('signup', '--email', `cli-social-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const found = await run('--json', 'discover', 'summarise documents');
    assert.equal(found.code, 0, found.stderr);
    assert.ok(Array.isArray(JSON.parse(found.stdout).data));
    const profile = await run('profile', '--username', `cli_${process.pid}_${Date.now().toString(36)}`);
    assert.equal(profile.code, 0, profile.stderr);
    const posted = await run('post', 'hello from the CLI');
    assert.equal(posted.code, 0, posted.stderr);
    const feed = await run('feed');
    assert.equal(feed.code, 0, feed.stderr);
    assert.match(feed.stdout, /hello from the CLI/);
  });

  test('-V prints the version; whoami names the account', async () => {
    const { run } = workspace(url);
    const version = await run('-V');
    assert.equal(version.code, 0);
    assert.equal(version.stdout.trim(), JSON.parse(readFileSync(new URL('packages/cli/package.json', root), 'utf8')).version);
    assert.equal((await run('whoami')).code, 4, 'not logged in');
    const email = `cli-who-${process.pid}-${Date.now()}@example.test`;
    await run('signup', '--email', email, '--password', 'correct horse battery');
    const who = await run('whoami');
    assert.equal(who.code, 0, who.stderr);
    assert.match(who.stdout, new RegExp(`^${email.replace(/[.]/g, '\\.')} \\(account .+\\) at ${url.replace(/[.]/g, '\\.')}, by session$`, 'm'));
  });

  test('register from flags alone: protocols follow the delivery mode, and a webhook secret is printed once', async () => {
    const { run } = workspace(url);
    await run('signup', '--email', `cli-reg-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const polled = await run(
      '--json',
      'register',
      '--name',
      `Flags ${process.pid} ${Date.now()}`,
      '--description',
      'from flags',
      '--delivery-mode',
      'poll',
      '--categories',
      'productivity',
    );
    assert.equal(polled.code, 0, polled.stderr);
    assert.deepEqual(JSON.parse(polled.stdout).agent.protocols, ['rest']);
    const hooked = await run(
      'register',
      '--name',
      `Hook ${process.pid} ${Date.now()}`,
      '--description',
      'webhook',
      '--endpoint',
      'https://agent.example.com/hook',
      '--categories',
      'productivity',
    );
    assert.equal(hooked.code, 0, hooked.stderr);
    assert.match(hooked.stdout, /^Webhook secret \(shown once; store it now, .*\): whsec_[A-Za-z0-9+/=]+$/m);
    const chosen = await run(
      '--json',
      'register',
      '--name',
      `Both ${process.pid} ${Date.now()}`,
      '--description',
      'x',
      '--delivery-mode',
      'poll',
      '--protocols',
      'rest,mcp',
      '--categories',
      'productivity',
    );
    assert.deepEqual(JSON.parse(chosen.stdout).agent.protocols, ['rest', 'mcp']);
  });

  test('-q register prints the id and the webhook secret, one a line; a loopback endpoint registers with a warning naming agentry listen', async () => {
    const { run } = workspace(url);
    await run('signup', '--email', `cli-quiet-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const quiet = await run(
      '-q',
      'register',
      '--name',
      `Quiet ${process.pid} ${Date.now()}`,
      '--description',
      'x',
      '--endpoint',
      'https://agent.example.com/hook',
      '--categories',
      'productivity',
    );
    assert.equal(quiet.code, 0, quiet.stderr);
    const [id, secret, ...rest] = quiet.stdout.split('\n');
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${id}` })).statusCode, 200, quiet.stdout);
    assert.match(secret!, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.deepEqual(rest, ['']);
    const polled = await run(
      '-q',
      'register',
      '--name',
      `Quiet poll ${process.pid} ${Date.now()}`,
      '--description',
      'x',
      '--delivery-mode',
      'poll',
      '--categories',
      'productivity',
    );
    assert.match(polled.stdout, /^\S+\n$/, 'a poll agent has no secret: the id alone');

    const local = await run(
      'register',
      '--name',
      `Loopback ${process.pid} ${Date.now()}`,
      '--description',
      'x',
      '--endpoint',
      'http://127.0.0.1:3000/',
      '--categories',
      'productivity',
    );
    assert.equal(local.code, 0, local.stderr);
    const localId = /Registered agent (\S+)/.exec(local.stdout)![1]!;
    assert.match(local.stderr, /^warning: .*will fail: .*/m);
    assert.ok(local.stderr.includes(`agentry listen --agent ${localId} --forward-to http://127.0.0.1:3000/`), local.stderr);
  });

  test("tasks serve --mode webhook listens on a free port (not the service's 8080) and prints its URL", async () => {
    const { run, env } = workspace(url);
    await run('signup', '--email', `cli-port-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const registered = await run(
      '--json',
      'register',
      '--name',
      `Port ${process.pid} ${Date.now()}`,
      '--description',
      'webhook on a free port',
      '--endpoint',
      'https://agent.example.com/hook',
      '--categories',
      'productivity',
    );
    assert.equal(registered.code, 0, registered.stderr);
    const { agent, webhookSecret } = JSON.parse(registered.stdout);
    const controller = new AbortController();
    const serving = runAgentry(['tasks', 'serve', '--agent', agent.id, '--mode', 'webhook', '--webhook-secret', webhookSecret, '--exec', 'cat'], env, {
      signal: controller.signal,
    });
    assert.equal((await run('agents', 'wait', agent.id)).code, 0);
    controller.abort();
    const served = await serving;
    assert.equal(served.code, 0, served.stderr);
    const port = Number(/on http:\/\/127\.0\.0\.1:(\d+)\//.exec(served.stderr)?.[1]);
    assert.ok(port > 0 && port !== 8080, served.stderr);
  });

  test('--manifest-url leaves the name to the manifest: no local "needs --name" refusal', async () => {
    const { run } = workspace(url);
    await run('signup', '--email', `cli-murl-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    const answer = await run('register', '--manifest-url', 'http://127.0.0.1:9/agent.json');
    assert.doesNotMatch(answer.stderr, /needs --name/);
    // The service fetched (or refused to fetch) the manifest: its answer, not the CLI's usage error.
    assert.equal(answer.code, 1, answer.stderr);
  });

  test('a provisional registration without --key names agentry keygen', async () => {
    const { run } = workspace(url);
    const answer = await run('register', '--provisional', '--name', 'No key', '--description', 'x', '--delivery-mode', 'poll');
    assert.equal(answer.code, 2);
    assert.match(answer.stderr, /agentry keygen/);
  });

  test('agents key prove, trust by agent id, tasks extract|cancel|rate, and a 400 printing what was found', async () => {
    const { run, path } = workspace(url);
    await run('signup', '--email', `cli-trust-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    await run('keygen', '--out', path('agent.key'));
    writeFileSync(path('agent.json'), JSON.stringify({ inputSchema: { city: { type: 'string', required: true }, days: { type: 'number' } } }));
    const created = await run(
      '-q',
      'register',
      '--manifest',
      path('agent.json'),
      '--name',
      `Weather ${process.pid} ${Date.now()}`,
      '--description',
      'forecasts',
      '--delivery-mode',
      'poll',
      '--key',
      path('agent.key'),
      '--categories',
      'productivity',
    );
    assert.equal(created.code, 0, created.stderr);
    const id = created.stdout.trim();

    const before = await run('trust', id);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, /keyVerified: false: .*agentry agents key prove/);
    const proved = await run('agents', 'key', 'prove', id, '--key', path('agent.key'));
    assert.equal(proved.code, 0, proved.stderr);
    const after = await run('trust', id);
    assert.doesNotMatch(after.stdout, /keyVerified: false/);
    assert.match(after.stdout, /^pubkey: ed25519:/m);
    assert.equal(after.stdout.split(/ed25519:/).length, 2, `the key once: ${after.stdout}`);
    assert.doesNotMatch(after.stdout, /[{[]"/, 'no raw JSON');
    const explained = await run('trust', id, '--explain');
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /^No counted evidence yet/m);
    const next = JSON.parse((await run('--json', 'keygen', '--out', path('next.key'))).stdout).pubkey as string;
    const set = await run('agents', 'key', 'set', id, '--key', path('next.key'));
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, `Set the key of ${id} to ${next}.\n`);
    assert.equal(JSON.parse((await run('--json', 'agents', 'show', id)).stdout).registrationPubkey, next);

    const preview = await run('--json', 'tasks', 'extract', '--agent', id, '--description', 'forecast for 3 days');
    assert.equal(preview.code, 0, preview.stderr);
    assert.deepEqual(JSON.parse(preview.stdout).missing, ['city']);
    const refused = await run('tasks', 'submit', '--agent', id, '--description', 'forecast for 3 days');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^found:\n {2}days: 3$/m);

    const task = await run('-q', 'tasks', 'submit', '--agent', id, '--description', 'forecast', '--input', '{"city":"Oslo"}');
    const cancelled = await run('tasks', 'cancel', task.stdout.trim());
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, /status: cancelled/);
    const rated = await run('tasks', 'rate', task.stdout.trim(), '--score', '4');
    assert.notEqual(rated.code, 0, 'only a completed task is rated');
  });

  test('`agentry --help | true`: a reader that closes early is not a crash', async () => {
    const bin = new URL('packages/cli/bin/agentry.js', root).pathname;
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', `"${process.execPath}" "${bin}" --help | true; echo "exit \${PIPESTATUS[0]}"`]);
    assert.equal(stdout.trim(), 'exit 0');
    assert.doesNotMatch(stderr, /EPIPE/);
  });

  describe('error paths', () => {
    test('bad key file: missing, world-readable, not a key (exit 2)', async () => {
      const { run, path } = workspace(url);
      const missing = await run('register', '--provisional', '--key', path('absent.key'), '--name', 'X', '--description', 'Y');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /agentry keygen/);
      await run('keygen', '--out', path('open.key'));
      chmodSync(path('open.key'), 0o644);
      const open = await run('claim', 'some-agent', '--key', path('open.key'));
      assert.equal(open.code, 2);
      assert.match(open.stderr, /chmod 600/);
      writeFileSync(path('junk.key'), 'junk', { mode: 0o600 });
      assert.equal((await run('claim', 'some-agent', '--key', path('junk.key'))).code, 2);
      const overwrite = await run('keygen', '--out', path('open.key'));
      assert.equal(overwrite.code, 2);
    });

    test('wrong password (exit 4), not logged in (exit 4), usage errors (exit 2)', async () => {
      const { run } = workspace(url);
      const email = `cli-pw-${process.pid}-${Date.now()}@example.test`;
      await run('signup', '--email', email, '--password', 'correct horse battery');
      await run('logout');
      const wrong = await run('login', '--email', email, '--password', 'wrong horse battery');
      assert.equal(wrong.code, 4);
      assert.match(wrong.stderr, /401/);
      const anonymous = await run('tasks', 'ls');
      assert.equal(anonymous.code, 4);
      assert.match(anonymous.stderr, /agentry login/);
      assert.equal((await run('login')).code, 2);
      assert.equal((await run('tasks', 'submit', '--description', 'x', '--input', '{not json')).code, 2);
    });

    test('service down (exit 3)', async () => {
      const { run } = workspace(await deadUrl());
      const down = await run('discover', 'anything');
      assert.equal(down.code, 3);
      assert.match(down.stderr, /Is the service running/);
    });

    test('unknown agent (exit 1, NOT_FOUND)', async () => {
      const { run } = workspace(url);
      const unknown = await run('agents', 'show', 'no-such-agent');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /NOT_FOUND/);
    });

    test('rate limited (exit 5) when Retry-After asks for longer than the client waits', async () => {
      const limited = await startListeningApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '3600000' });
      try {
        const { run } = workspace(limited.url);
        await run('discover', 'first');
        const second = await run('discover', 'second');
        assert.equal(second.code, 5);
        assert.match(second.stderr, /RATE_LIMITED/);
      } finally {
        await limited.app.close();
      }
    });
  });

  test('logout forgets the token', async () => {
    const { run, env } = workspace(url);
    await run('signup', '--email', `cli-out-${process.pid}-${Date.now()}@example.test`, '--password', 'correct horse battery');
    assert.equal((await run('logout')).code, 0);
    assert.equal(
      existsSync(join(env.XDG_CONFIG_HOME, 'agentry', 'config.json'))
        ? JSON.parse(readFileSync(join(env.XDG_CONFIG_HOME, 'agentry', 'config.json'), 'utf8')).token
        : undefined,
      undefined,
    );
  });
});
