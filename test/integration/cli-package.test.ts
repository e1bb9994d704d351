/**
 * The published form of the SDK and CLI: `npm pack` tarballs (made by `npm run pack:kit`), unpacked
 * into a folder outside the repository with nothing but their declared dependencies beside them
 * (optional peers left out, as an author who does not need them has it), run by plain Node (no tsx,
 * no sources) against a running service.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app.ts';
import { packKit } from '../helpers/built-packages.ts';
import { startListeningApp } from '../helpers/listening.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Unpacks a tarball as `npm install` would place it, and links each declared dependency from the
 * repository's install: an import the package.json does not declare finds nothing here.
 */
async function install(tarball: string, modules: string): Promise<Record<string, unknown>> {
  const staging = mkdtempSync(join(tmpdir(), 'agentry-unpack-'));
  await run('tar', ['-xzf', tarball, '-C', staging]);
  const manifest = JSON.parse(readFileSync(join(staging, 'package', 'package.json'), 'utf8')) as {
    name: string;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
  };
  const target = join(modules, manifest.name);
  mkdirSync(dirname(target), { recursive: true });
  await run('mv', [join(staging, 'package'), target]);
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (dependency.startsWith('@agentry/')) continue;
    const link = join(modules, dependency);
    mkdirSync(dirname(link), { recursive: true });
    try {
      symlinkSync(join(root, 'node_modules', dependency), link);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  for (const [command, file] of Object.entries(manifest.bin ?? {})) {
    mkdirSync(join(modules, '.bin'), { recursive: true });
    symlinkSync(join(target, file), join(modules, '.bin', command));
  }
  return manifest;
}

describe('the packed @agentry/sdk and @agentry/cli', () => {
  let app: TestApp;
  let url: string;
  let folder: string;
  let cliManifest: Record<string, unknown>;
  let sdkFiles: string[];
  let cliFiles: string[];
  let sdkManifest: Record<string, unknown>;

  before(async () => {
    const [listening, kit] = await Promise.all([startListeningApp(), packKit()]);
    ({ app, url } = listening);
    folder = mkdtempSync(join(tmpdir(), 'agentry-installed-'));
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'uses-agentry', private: true, type: 'module' }));
    sdkFiles = (await run('tar', ['-tzf', kit.sdk])).stdout.split('\n').filter(Boolean);
    cliFiles = (await run('tar', ['-tzf', kit.cli])).stdout.split('\n').filter(Boolean);
    sdkManifest = await install(kit.sdk, join(folder, 'node_modules'));
    cliManifest = await install(kit.cli, join(folder, 'node_modules'));
  });
  after(() => app.close());

  /** Plain Node in the folder: no tsx loader, no repository on the module path. */
  const agentry = (args: string[], env: Record<string, string> = {}) =>
    run(join(folder, 'node_modules', '.bin', 'agentry'), args, {
      cwd: folder,
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: folder, XDG_CONFIG_HOME: join(folder, 'config'), ...env },
    });

  test('ship compiled JavaScript with types, and no sources or tests', () => {
    assert.ok(sdkFiles.includes('package/dist/index.js'));
    assert.ok(sdkFiles.includes('package/dist/index.d.ts'));
    assert.ok(sdkFiles.includes('package/dist/openapi.d.ts'));
    assert.ok(sdkFiles.includes('package/dist/mcp/index.d.ts'));
    assert.ok(!sdkFiles.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')));
    assert.deepEqual(cliManifest.bin, { agentry: './bin/agentry.js' });
  });

  test('each package ships a README with an example, a LICENSE, and where its source and issues live', () => {
    for (const [files, manifest] of [
      [sdkFiles, sdkManifest],
      [cliFiles, cliManifest],
    ] as const) {
      assert.ok(files.includes('package/README.md') && files.includes('package/LICENSE'), files.join(' '));
      assert.match(String((manifest.repository as { url?: string }).url), /^git\+https:\/\//);
      assert.match(String(manifest.homepage), /^https:\/\//);
      assert.match(String((manifest.bugs as { url?: string }).url), /^https:\/\//);
    }
    const readme = readFileSync(join(folder, 'node_modules/@agentry/sdk/README.md'), 'utf8');
    const example = readme.match(/```ts\n([\s\S]*?)```/)?.[1] ?? '';
    assert.ok(example.split('\n').filter(Boolean).length <= 14 && example.includes('AgentRunner'), example);
    for (const manifest of [sdkManifest, cliManifest]) {
      assert.equal((manifest.dependencies as Record<string, string>)['@modelcontextprotocol/sdk'], undefined, 'the MCP SDK is not a dependency');
      assert.deepEqual((manifest.peerDependenciesMeta as Record<string, unknown>)['@modelcontextprotocol/sdk'], { optional: true });
    }
  });

  test('`agentry --help` runs on plain Node', async () => {
    const { stdout } = await agentry(['--help']);
    assert.match(stdout, /Usage: agentry/);
    assert.match(stdout, /\bmcp\b/);
  });

  test('signs up, registers an agent and finds it against a running service', async () => {
    const email = `packed-${process.pid}-${Date.now()}@example.test`;
    await agentry(['--url', url, 'signup', '--email', email, '--password', 'correct horse battery']);
    writeFileSync(join(folder, 'agent.json'), JSON.stringify({ protocols: ['rest'], categories: ['productivity'] }));
    const registered = await agentry([
      '--json',
      'register',
      '--manifest',
      'agent.json',
      '--name',
      `Packed Agent ${process.pid}`,
      '--description',
      'Checks that the packed CLI works',
      '--delivery-mode',
      'poll',
    ]);
    const agent = JSON.parse(registered.stdout).agent as { id: string };
    const { stdout } = await agentry(['agents', 'show', agent.id]);
    assert.match(stdout, new RegExp(`id: ${agent.id}`));
    const mine = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` });
    assert.equal(mine.json().data.name, `Packed Agent ${process.pid}`);
  });

  test('init without AGENTRY_KIT, when nothing says where the SDK came from, stops with the command to run; AGENTRY_KIT names it', async () => {
    // Unpacked by hand: no lockfile records where the packages came from.
    const refused = await agentry(['init', 'somewhere', '--webhook']).catch((error: { code: number; stderr: string }) => error);
    assert.equal((refused as { code: number }).code, 2);
    assert.match(
      (refused as { stderr: string }).stderr,
      /not on the public npm registry.*\n {2}agentry init somewhere --webhook --sdk file:\/path\/to\/agentry-sdk-0\.1\.0\.tgz\n.*AGENTRY_KIT/s,
    );
    const made = await agentry(['init', 'elsewhere'], { AGENTRY_KIT: '/opt/kit' });
    assert.match(made.stdout, /^@agentry\/sdk: file:\/opt\/kit\/agentry-sdk-0\.1\.0\.tgz \(the tarball in AGENTRY_KIT\)$/m);
  });

  test("the SDK's entry points import on plain Node; /mcp only once the MCP SDK is installed beside it", async () => {
    const importBoth =
      "const sdk = await import('@agentry/sdk'); console.log(typeof sdk.AgentRunner); const mcp = await import('@agentry/sdk/mcp').catch((e) => e); console.log(typeof mcp.createAgentryMcpServer === 'function' ? 'mcp' : mcp.code);";
    const before = await run(process.execPath, ['--input-type=module', '-e', importBoth], { cwd: folder, env: { PATH: '/usr/bin:/bin' } });
    assert.equal(before.stdout.trim(), 'function\nERR_MODULE_NOT_FOUND', 'a REST-only author needs no MCP SDK');
    const modules = join(folder, 'node_modules');
    for (const name of ['@modelcontextprotocol/sdk', 'zod']) {
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      try {
        symlinkSync(join(root, 'node_modules', name), join(modules, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const after = await run(process.execPath, ['--input-type=module', '-e', importBoth], { cwd: folder, env: { PATH: '/usr/bin:/bin' } });
    assert.equal(after.stdout.trim(), 'function\nmcp');
  });
});
