/**
 * Runs the ARD specification's own conformance CLI against a started service: the AI Catalog
 * (`manifest`) and the registry API (`registry`). Starts the compiled service (`npm run build` first)
 * on a fresh SQLite database in a temporary folder, registers a few agents, runs both checks, stops.
 *
 *   node --import tsx scripts/ard-conformance.ts <path to conformance-test>
 *
 * Exits non-zero when either check fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tool = process.argv[2];
if (!tool) {
  console.error('usage: node --import tsx scripts/ard-conformance.ts <path to conformance-test>');
  process.exit(2);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const folder = mkdtempSync(join(tmpdir(), 'agentry-ard-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const service = spawn(process.execPath, ['dist/main.js'], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, DATABASE_URL: `sqlite:${join(folder, 'agentry.db')}`, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit'],
});

async function call(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

let status = 1;
try {
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${base}/ready`).catch(() => null);
    if (ready?.ok) break;
    if (tries > 300) throw new Error('the service did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { token } = (await call('POST', '/v1/auth/signup', { email: 'ard@example.test', password: 'correct horse battery' })).data as { token: string };
  await call(
    'POST',
    '/v1/agents',
    {
      name: 'Weather Tools',
      description: 'Weather forecasts, rain and wind for any town',
      protocols: ['mcp'],
      categories: ['data'],
      endpoint: 'https://weather.example.test/mcp',
      capabilities: ['weather-forecast'],
      examples: ['Will it rain in Lyon tomorrow?', 'Wind speed on the coast this afternoon'],
    },
    token,
  );
  await call(
    'POST',
    '/v1/agents',
    { name: 'Invoice Reader', description: 'Reads PDF invoices into rows', protocols: ['rest'], categories: ['finance'] },
    token,
  );

  // The first search loads the sentence encoder; the CLI gives each request 5 s.
  await call('GET', '/v1/discover?q=weather');

  const checks = [
    ['manifest', `${base}/.well-known/ai-catalog.json`],
    ['registry', `${base}/ard`],
  ];
  status = 0;
  for (const [suite, target] of checks) {
    const run = spawnSync('python3', [tool, suite!, target!], { stdio: 'inherit' });
    if (run.status !== 0) status = 1;
  }
} catch (error) {
  console.error(error);
  status = 1;
} finally {
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  rmSync(folder, { recursive: true, force: true });
}
process.exit(status);
