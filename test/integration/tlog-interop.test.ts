/**
 * An independent implementation reads the running service's receipt and registry logs: a Go program on
 * golang.org/x/mod/sumdb/note and sumdb/tlog (test/interop/tlog-verify) verifies the signed
 * checkpoint, every tile against the signed root, every entry bundle, an inclusion proof of each
 * entry and the service's consistency proof. Needs Go and Debian's golang-golang-x-mod-dev
 * (.ci/run installs them): under CI a missing Go fails the test, elsewhere it is skipped with a message.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { newAgentKey, registerAgent } from '../helpers/agents.ts';
import { makeReceipt } from '../helpers/receipts.ts';

const GOPATH = '/usr/share/gocode';
const program = fileURLToPath(new URL('../interop/tlog-verify/main.go', import.meta.url));

function goMissing(): string | null {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) return 'Go is not installed (apt-get install -y golang-go golang-golang-x-mod-dev)';
  if (spawnSync('test', ['-d', `${GOPATH}/src/golang.org/x/mod/sumdb/tlog`]).status !== 0)
    return `golang.org/x/mod is not under ${GOPATH} (apt-get install -y golang-golang-x-mod-dev)`;
  return null;
}
const missing = goMissing();
if (missing && process.env.CI === 'true') throw new Error(`the Go interop test cannot run under CI: ${missing}`);

describe('receipt and registry logs: verified by Go sumdb/tlog and sumdb/note', { skip: missing ?? false }, () => {
  let app: TestApp;
  let base: string;
  let cache: string;
  before(async () => {
    app = await startTestApp();
    await app.receiptSequencer.stop();
    await app.registrySequencer.stop();
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
    cache = mkdtempSync(join(tmpdir(), 'agentry-go-cache-'));
  });
  after(async () => {
    await app.close();
    rmSync(cache, { recursive: true, force: true });
  });

  const verifyWithGo = (key: string, earlier: number, log: string) =>
    new Promise<{ stdout: string }>((resolve, reject) =>
      execFile(
        'go',
        ['run', program, base, key, String(earlier), log],
        { env: { ...process.env, GOPATH, GO111MODULE: 'off', GOCACHE: cache, GOFLAGS: '' }, timeout: 300_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout })),
      ),
    );

  it('the registry log: checkpoint, tiles, entry bundles and a consistency proof verify', async () => {
    const { token } = await app.signup();
    const agents = await Promise.all(Array.from({ length: 10 }, () => registerAgent(app, token)));
    await app.registrySequencer.drain();
    // Endpoint changes past a full tile, and an earlier checkpoint to be consistent with.
    for (let round = 0; round < 28; round++) {
      await Promise.all(
        agents.map(async (agent) => {
          const response = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { endpoint: `https://r${round}.example.test/` } });
          assert.equal(response.statusCode, 200, response.body);
        }),
      );
      if (round === 5) await app.registrySequencer.drain();
    }
    await app.registrySequencer.drain();
    const key = (await app.request({ method: 'GET', url: '/.tlog/keys' })).body.split('\n').find((line) => line.startsWith('localhost:8080/registry+'))!;
    const { stdout } = await verifyWithGo(key, 70, 'registry');
    assert.match(stdout, /^ok localhost:8080\/registry size 290\n$/);
  });

  it('the receipt log: checkpoint, tiles, entry bundles and a consistency proof verify', async () => {
    const issuer = { agent: 'issuer', key: newAgentKey() };
    const subject = { agent: 'subject', key: newAgentKey() };
    const post = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: makeReceipt('outcome', issuer, subject) });
        assert.equal(response.statusCode, 201, response.body);
      }
      await app.receiptSequencer.drain();
    };
    // A full tile and a partial one, and an earlier checkpoint to be consistent with.
    await post(100);
    await post(203);
    const key = (await app.request({ method: 'GET', url: '/.tlog/keys' })).body.split('\n').find((line) => line.startsWith('localhost:8080/receipts+'))!;
    const { stdout } = await verifyWithGo(key, 100, 'receipts');
    assert.match(stdout, /^ok localhost:8080\/receipts size 303\n$/);
  });
});
