/**
 * Runs docs/quickstart.md as written: its `sh` blocks through bash with the repository's `agentry`
 * on PATH, and its `ts` block through tsx, against a started service. Only the line that points
 * AGENTRY_URL at port 3000 is left out: the test's service listens on a port of its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app.ts';
import { startListeningApp } from '../helpers/listening.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const markdown = readFileSync(join(root, 'docs/quickstart.md'), 'utf8');

function blocks(language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

describe('docs/quickstart.md', () => {
  let app: TestApp;
  let url: string;
  before(async () => {
    ({ app, url } = await startListeningApp());
  });
  after(() => app.close());

  test('the CLI commands take an agent from nothing to a completed task', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-quickstart-'));
    const script = blocks('sh')
      .join('\n')
      .split('\n')
      .filter((line) => !line.startsWith('export AGENTRY_URL='))
      .join('\n');
    assert.match(script, /agentry tasks serve/);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`,
        AGENTRY_URL: url,
        XDG_CONFIG_HOME: join(dir, 'config'),
        HOME: dir,
      },
      timeout: 120_000,
    });
    assert.match(stdout, /status: completed/);
    assert.match(stdout, /result: \{"text":"hello"\}/);
  });

  test('the SDK script registers, serves and completes a task', async () => {
    const [source] = blocks('ts');
    assert.ok(source);
    const dir = mkdtempSync(join(tmpdir(), 'agentry-quickstart-sdk-'));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'quickstart.mts'), source);
    const signup = await app.request({
      method: 'POST',
      url: '/v1/auth/signup',
      body: { email: `quickstart-${process.pid}-${Date.now()}@example.test`, password: 'correct horse battery' },
    });
    const token = signup.json().data.token as string;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, 'quickstart.mts')], {
      cwd: dir,
      env: { ...process.env, AGENTRY_URL: url, AGENTRY_TOKEN: token },
      timeout: 120_000,
    });
    assert.equal(stdout.trim(), 'completed {"shouted":"HELLO"}');
  });
});
