/**
 * Runs docs/quickstart.md exactly as written, in a fresh folder outside the repository, with the kit
 * packed by `npm pack` (through `npm run pack:kit`, the documented command) rather than the
 * workspace: every `sh` block in order through one bash, each `ts` block written to the file the text
 * before it names, against a started service. The `bash` blocks are what one runs in the checkout
 * (install, pack, start the service); the test does those itself and hands the shell AGENTRY_KIT and
 * AGENTRY_URL, as the text tells the reader to.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app.ts';
import { freshShellEnv, packKit } from '../helpers/built-packages.ts';
import { startListeningApp } from '../helpers/listening.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const markdown = readFileSync(join(root, 'docs/quickstart.md'), 'utf8');

/** The quickstart as one bash script: `sh` blocks as they are, `ts` blocks as here-documents into their files. */
export function quickstartScript(text: string): string {
  const parts: string[] = [];
  const fence = /```(\w+)\n([\s\S]*?)```/g;
  let last = 0;
  for (const match of text.matchAll(fence)) {
    const [, language, body] = match;
    const prose = text.slice(last, match.index);
    last = match.index! + match[0].length;
    if (language === 'sh') parts.push(body!);
    if (language === 'ts') {
      const file = [...prose.matchAll(/`([\w.-]+\.ts)`/g)].at(-1)?.[1];
      assert.ok(file, 'a ts block is preceded by the name of the file to save it as');
      assert.ok(!body!.includes('QUICKSTART_EOF'));
      parts.push(`cat > ${file} <<'QUICKSTART_EOF'\n${body}QUICKSTART_EOF\n`);
    }
  }
  return parts.join('\n');
}

describe('docs/quickstart.md, run as written with the npm pack tarballs', () => {
  let app: TestApp;
  let url: string;
  let kit: Awaited<ReturnType<typeof packKit>>;
  before(async () => {
    [{ app, url }, kit] = await Promise.all([startListeningApp(), packKit()]);
  });
  after(() => app.close());

  test('from an empty folder to a task completed by the CLI and one completed by the SDK script', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentry-quickstart-'));
    assert.ok(!realpathSync(home).startsWith(realpathSync(root)), 'the folder is outside the repository');
    const script = quickstartScript(markdown);
    for (const step of ['npm init -y', 'npm pkg set type=module', 'npm install --save-dev tsx', 'agentry tasks serve', 'npx tsx quickstart.ts']) {
      assert.ok(script.includes(step), `the quickstart runs ${step}`);
    }
    assert.doesNotMatch(script, /npx agentry/, 'no command runs a bare npx agentry');
    const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: home,
      env: freshShellEnv(home, { AGENTRY_URL: url, AGENTRY_KIT: kit.folder }),
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string; stderr: string }) => {
      assert.fail(`the quickstart failed:\n${error.stdout}\n${error.stderr}`);
    });
    assert.match(stdout, /^0\.1\.0$/m, `agentry --version\n${stderr}`);
    assert.match(stdout, /status: completed/);
    assert.match(stdout, /result: \{"text":"hello"\}/);
    assert.match(stdout, /^completed \{"shouted":"HELLO"\}$/m);

    const project = join(home, 'echo-agent');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    assert.equal(manifest.type, 'module');
    assert.ok(manifest.devDependencies.tsx);
    assert.match(manifest.dependencies['@agentry/sdk'], /agentry-sdk-0\.1\.0\.tgz$/, 'installed from the tarball, not the workspace');
    assert.ok(!realpathSync(join(project, 'node_modules/@agentry/sdk')).startsWith(realpathSync(root)));
  });
});
