/**
 * Witnesses (c2sp.org/tlog-witness, tlog-cosignature) between two instances on real loopback HTTP:
 * each witnesses the other's logs, every checkpoint each serves comes to carry the other's
 * cosignature, a witness that is down stops nothing and its cosignatures catch up once it is back,
 * and the add-checkpoint endpoint refuses what the spec says to refuse with the status it names
 * (a fork included). The SDK refuses a forged cosignature and counts none from an unknown key.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  EMPTY_ROOT,
  formatAddCheckpoint,
  hashLeaf,
  parseCheckpoint,
  parseSignedNote,
  requireCosignatures,
  verifyCheckpoint,
  verifyCosignatures,
  TlogVerificationError,
} from '@agentry/sdk/tlog';
import { AgentryClient, monitorInstance } from '@agentry/sdk';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { generateNoteSigner, signNote, type NoteSigner } from '../../src/modules/tlog/keys.ts';
import { proveConsistency, storedHashesFor, treeHash, type HashReader } from '../../src/modules/tlog/merkle.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { waitFor } from '../helpers/wait.ts';

/** A log kept in memory by the test: its tree and consistency proofs come from the service's own Merkle code. */
function memoryLog(signer: NoteSigner, origin: string, leaves: string[]) {
  const hashes: Buffer[] = [];
  const read: HashReader = async (indexes) => indexes.map((index) => hashes[index]!);
  const ready = (async () => {
    for (let n = 0; n < leaves.length; n++) hashes.push(...(await storedHashesFor(n, hashLeaf(Buffer.from(leaves[n]!)), read)));
  })();
  return {
    async checkpoint(size: number): Promise<string> {
      await ready;
      const root = size === 0 ? EMPTY_ROOT : await treeHash(size, read);
      return signNote(`${origin}\n${size}\n${root.toString('base64')}\n`, signer);
    },
    async proof(from: number, to: number): Promise<Buffer[]> {
      await ready;
      return proveConsistency(to, from, read);
    },
  };
}

/** A TCP forwarder in front of a witness, to take it off the network and bring it back on the same address. */
function forwarder(target: number) {
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  let port = 0;
  return {
    async open(): Promise<number> {
      server = createServer((socket) => {
        const upstream = connect(target, '127.0.0.1');
        for (const end of [socket, upstream]) {
          sockets.add(end);
          end.on('close', () => sockets.delete(end));
          end.on('error', () => {});
        }
        socket.pipe(upstream).pipe(socket);
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
      return port;
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

const text = async (app: TestApp, url: string) => {
  const response = await app.request({ method: 'GET', url });
  assert.equal(response.statusCode, 200, response.body);
  return response.body;
};

describe('witnesses between instances', () => {
  let a: TestApp;
  let b: TestApp;
  let adminA: { token: string };
  let adminB: { token: string };
  let witnessKeyA: string;
  let witnessKeyB: string;
  let baseA: string;
  let baseB: string;
  let proxyToB: ReturnType<typeof forwarder>;
  const testLog = generateNoteSigner('log.example.test/fork-me');
  const ORIGIN = 'log.example.test/fork-me';

  const grantAdmin = async (app: TestApp) => {
    const person = await app.signup();
    assert.equal((await runAdminCommand(['grant', person.email], app.database.db, app.clock)).exitCode, 0);
    return person;
  };
  const addCheckpoint = (body: string) => fetch(`${baseB}/.tlog/witness/add-checkpoint`, { method: 'POST', body });

  before(async () => {
    [a, b] = await Promise.all([
      startTestApp({ PUBLIC_URL: 'https://a.example.test' }, { witnessIntervalMs: 50 }),
      startTestApp({ PUBLIC_URL: 'https://b.example.test' }, { witnessIntervalMs: 50 }),
    ]);
    baseA = await a.server.listen({ host: '127.0.0.1', port: 0 });
    baseB = await b.server.listen({ host: '127.0.0.1', port: 0 });
    [adminA, adminB] = await Promise.all([grantAdmin(a), grantAdmin(b)]);
    witnessKeyA = (await text(a, '/.tlog/witness/key')).trim();
    witnessKeyB = (await text(b, '/.tlog/witness/key')).trim();
    proxyToB = forwarder(Number(new URL(baseB).port));
    const proxyPort = await proxyToB.open();

    // B witnesses A's two logs and the test's own log; A witnesses B's logs.
    const logKeysA = (await text(a, '/.tlog/keys')).trim().split('\n');
    const logKeysB = (await text(b, '/.tlog/keys')).trim().split('\n');
    const listing = (keys: string[], host: string, base: string) =>
      ['receipts', 'registry'].map((name) => ({
        origin: `${host}/${name}`,
        key: keys.find((key) => key.startsWith(`${host}/${name}+`))!,
        url: `${base}/.tlog/${name}/`,
      }));
    const setB = await b.request({
      method: 'PUT',
      url: '/v1/admin/witnessed-logs',
      token: adminB.token,
      body: { logs: [...listing(logKeysA, 'a.example.test', baseA), { origin: ORIGIN, key: testLog.verifierKey, url: null }] },
    });
    assert.equal(setB.statusCode, 200, setB.body);
    assert.deepEqual(
      setB.json().data.map((log: { origin: string; size: number }) => [log.origin, log.size]),
      [
        ['a.example.test/receipts', 0],
        ['a.example.test/registry', 0],
        [ORIGIN, 0],
      ],
    );
    const setA = await a.request({
      method: 'PUT',
      url: '/v1/admin/witnessed-logs',
      token: adminA.token,
      body: { logs: listing(logKeysB, 'b.example.test', baseB) },
    });
    assert.equal(setA.statusCode, 200, setA.body);
    // A asks B through the forwarder, so a test can take B off the network.
    const peersA = await a.request({
      method: 'PUT',
      url: '/v1/admin/witnesses',
      token: adminA.token,
      body: { witnesses: [{ key: witnessKeyB, url: `http://127.0.0.1:${proxyPort}/.tlog/witness` }] },
    });
    assert.equal(peersA.statusCode, 200, peersA.body);
    const peersB = await b.request({
      method: 'PUT',
      url: '/v1/admin/witnesses',
      token: adminB.token,
      body: { witnesses: [{ key: witnessKeyA, url: `${baseA}/.tlog/witness` }] },
    });
    assert.equal(peersB.statusCode, 200, peersB.body);
  });
  after(async () => {
    await proxyToB.close();
    await Promise.all([a.close(), b.close()]);
  });

  /** The app's served checkpoint of `log` once it carries a valid cosignature by `witnessKey` of the current size. */
  const cosignedCheckpoint = (app: TestApp, log: string, witnessKey: string, atLeast = 0) =>
    waitFor(
      `the ${log} checkpoint cosigned by ${witnessKey}`,
      async () => text(app, `/.tlog/${log}/checkpoint`),
      (note) => verifyCosignatures(note, [witnessKey]).length === 1 && parseCheckpoint(parseSignedNote(note).text).size >= atLeast,
      { timeoutMs: 30_000 },
    );

  it("each instance serves its checkpoints with the other one's cosignature, and the SDK requires it", async () => {
    const owner = await a.signup();
    await registerAgent(a, owner.token);
    await a.registrySequencer.drain();
    const size = verifyCheckpoint(await text(a, '/.tlog/registry/checkpoint'), (await text(a, '/.tlog/keys')).trim().split('\n')).size;
    assert.ok(size >= 1);
    const logKeysA = (await text(a, '/.tlog/keys')).trim().split('\n');
    for (const [app, witnessKey, keys] of [
      [a, witnessKeyB, logKeysA],
      [b, witnessKeyA, (await text(b, '/.tlog/keys')).trim().split('\n')],
    ] as const)
      for (const log of ['receipts', 'registry']) {
        const note = await waitFor(
          `${log} cosigned`,
          () => text(app, `/.tlog/${log}/checkpoint`),
          (served) => verifyCosignatures(served, [witnessKey]).length === 1,
          { timeoutMs: 30_000 },
        );
        // Still a checkpoint by the log's own key, and the cosignature counts once required.
        verifyCheckpoint(note, keys);
        assert.equal(requireCosignatures(note, [witnessKey], 1)[0]!.witness.text, witnessKey);
        assert.throws(() => requireCosignatures(note, [witnessKey], 2), TlogVerificationError);
      }
    // The witness serves what it cosigned last for a log it witnesses (monitor retrieval).
    const hash = (await import('node:crypto')).createHash('sha256').update('a.example.test/registry').digest('hex');
    const latest = await text(b, `/.tlog/witness/${hash}/checkpoint`);
    assert.ok(verifyCosignatures(latest, [witnessKeyB]).length === 1);
    assert.ok(verifyCheckpoint(latest, logKeysA).size >= size);
    assert.equal((await b.request({ method: 'GET', url: `/.tlog/witness/${'0'.repeat(64)}/checkpoint` })).statusCode, 404);
  });

  it('refuses a forged cosignature and counts none from a witness key it was not given', async () => {
    const note = await cosignedCheckpoint(a, 'registry', witnessKeyB);
    const lines = note.split('\n');
    const at = lines.findIndex((line) => line.startsWith(`\u2014 ${witnessKeyB.split('+')[0]} `));
    const signature = Buffer.from(lines[at]!.split(' ')[2]!, 'base64');
    signature[20]! ^= 0x01;
    lines[at] = `\u2014 ${witnessKeyB.split('+')[0]} ${signature.toString('base64')}`;
    const forged = lines.join('\n');
    assert.throws(() => verifyCosignatures(forged, [witnessKeyB]), /does not verify/);
    assert.throws(() => requireCosignatures(forged, [witnessKeyB], 1), /does not verify/);
    // Another witness's key: B's cosignature is not one of its, so none counts.
    const stranger = witnessKeyA;
    assert.deepEqual(verifyCosignatures(note, [stranger]), []);
    assert.throws(() => requireCosignatures(note, [stranger], 1), /0 valid cosignature/);
  });

  it('the SDK client and the monitor require cosignatures from the named witnesses', async () => {
    const owner = await a.signup();
    const agent = await registerAgent(a, owner.token);
    await a.registrySequencer.drain();
    await cosignedCheckpoint(a, 'registry', witnessKeyB, 1);
    await cosignedCheckpoint(a, 'receipts', witnessKeyB);
    const sdk = new AgentryClient({ baseUrl: baseA });
    const history = await sdk.verifiedAgentHistory(agent.id, { witnesses: { witnessKeys: [witnessKeyB], required: 1 } });
    assert.equal(history.events.length, 1);
    await assert.rejects(sdk.verifiedAgentHistory(agent.id, { witnesses: { witnessKeys: [witnessKeyA], required: 1 } }), /0 valid cosignature/);

    const watched = await monitorInstance({ url: baseA, state: null, witnesses: { witnessKeys: [witnessKeyB], required: 1 } });
    assert.deepEqual(watched.differences, []);
    assert.deepEqual(watched.logs.registry.cosignedBy, ['b.example.test/witness']);
    const unwitnessed = await monitorInstance({ url: baseA, state: null, witnesses: { witnessKeys: [witnessKeyA], required: 1 } });
    assert.equal(unwitnessed.agrees, false);
    assert.deepEqual(
      unwitnessed.differences.map((difference) => difference.kind),
      ['witness', 'witness'],
    );
  });

  it('a witness that is down stops nothing, and its cosignatures catch up when it is back', async () => {
    await proxyToB.close();
    const owner = await a.signup();
    const before = verifyCheckpoint(await text(a, '/.tlog/registry/checkpoint'), (await text(a, '/.tlog/keys')).trim().split('\n')).size;
    await registerAgent(a, owner.token);
    await registerAgent(a, owner.token);
    await a.registrySequencer.drain();
    // The log went on without its witness: a new checkpoint, served without B's cosignature of it.
    const uncosigned = await text(a, '/.tlog/registry/checkpoint');
    assert.equal(verifyCheckpoint(uncosigned, (await text(a, '/.tlog/keys')).trim().split('\n')).size, before + 2);
    assert.deepEqual(verifyCosignatures(uncosigned, [witnessKeyB]), []);
    await proxyToB.open();
    a.witnessClient.forgetFailures();
    const caughtUp = await cosignedCheckpoint(a, 'registry', witnessKeyB, before + 2);
    assert.equal(parseSignedNote(caughtUp).text, parseSignedNote(uncosigned).text);
  });

  it('add-checkpoint answers each refusal with the status c2sp.org/tlog-witness names, and never cosigns a fork', async () => {
    const log = memoryLog(testLog, ORIGIN, ['a', 'b', 'c', 'd', 'e']);
    const fork = memoryLog(testLog, ORIGIN, ['a', 'b', 'X', 'd', 'e']);
    const body = async (oldSize: number, checkpoint: string, proof: Buffer[] = []) => formatAddCheckpoint({ oldSize, proof, checkpoint });

    // Does not parse: 400.
    for (const junk of ['', 'hello', 'old 01\n\nx\n', `old 0\nnot base64!\n\n${await log.checkpoint(3)}`]) {
      const response = await addCheckpoint(junk);
      assert.equal(response.status, 400, junk);
      assert.equal((await response.json()).code, 'BAD_REQUEST');
    }
    // An origin not witnessed: 404.
    const otherLog = generateNoteSigner('elsewhere.example.test/log');
    assert.equal(
      (await addCheckpoint(await body(0, signNote('elsewhere.example.test/log\n0\n' + EMPTY_ROOT.toString('base64') + '\n', otherLog)))).status,
      404,
    );
    // Signed by another key than the log's, or a signature by the log's key that does not verify: 403.
    const impostor = generateNoteSigner(ORIGIN);
    assert.equal((await addCheckpoint(await body(0, signNote(`${ORIGIN}\n3\n${EMPTY_ROOT.toString('base64')}\n`, impostor)))).status, 403);
    const genuine = await log.checkpoint(3);
    const tampered = genuine.replace(/\n3\n/, '\n4\n');
    assert.equal((await addCheckpoint(await body(0, tampered))).status, 403);
    // Old size beyond the checkpoint: 400.
    assert.equal((await addCheckpoint(await body(5, genuine))).status, 400);
    // From 0 with a proof: 422. Then from 0 with none: cosigned.
    assert.equal((await addCheckpoint(await body(0, genuine, [EMPTY_ROOT]))).status, 422);
    const cosigned = await addCheckpoint(await body(0, genuine));
    assert.equal(cosigned.status, 200);
    const line = await cosigned.text();
    assert.match(line, /^\u2014 b\.example\.test\/witness \S+\n$/);
    assert.equal(verifyCosignatures(`${genuine}${line}`, [witnessKeyB]).length, 1);
    // A wrong old size: 409 with the size last cosigned, as text/x.tlog.size.
    const stale = await addCheckpoint(await body(1, await log.checkpoint(5), await log.proof(1, 5)));
    assert.equal(stale.status, 409);
    assert.equal(stale.headers.get('content-type'), 'text/x.tlog.size');
    assert.equal(await stale.text(), '3\n');
    // A proof for the wrong size (from 2, presented as from 3): 422.
    assert.equal((await addCheckpoint(await body(3, await log.checkpoint(5), await log.proof(2, 5)))).status, 422);
    // A fork: another third entry; no proof from the cosigned size 3 makes it consistent.
    assert.equal((await addCheckpoint(await body(3, await fork.checkpoint(5), await fork.proof(3, 5)))).status, 422);
    assert.equal((await addCheckpoint(await body(3, await log.checkpoint(5), await fork.proof(3, 5)))).status, 422);
    // The same size with another root: 422.
    const otherThree = memoryLog(testLog, ORIGIN, ['x', 'y', 'z']);
    assert.equal((await addCheckpoint(await body(3, await otherThree.checkpoint(3)))).status, 422);
    // The genuine extension is cosigned, and the witness moved on to it.
    assert.equal((await addCheckpoint(await body(3, await log.checkpoint(5), await log.proof(3, 5)))).status, 200);
    const listed = await b.request({ method: 'GET', url: '/v1/admin/witnessed-logs', token: adminB.token });
    assert.equal(listed.json().data.find((entry: { origin: string }) => entry.origin === ORIGIN).size, 5);
  });

  it('the admin lists refuse bad keys and duplicates, and are for admins only', async () => {
    const bad = await b.request({
      method: 'PUT',
      url: '/v1/admin/witnesses',
      token: adminB.token,
      body: { witnesses: [{ key: (await text(b, '/.tlog/keys')).trim().split('\n')[0], url: 'https://w.example.test/' }] },
    });
    assert.equal(expectError(bad, 400, 'BAD_REQUEST').details?.[0]?.path, '/body/witnesses/0/key');
    const twice = await b.request({
      method: 'PUT',
      url: '/v1/admin/witnessed-logs',
      token: adminB.token,
      body: { logs: [1, 2].map(() => ({ origin: ORIGIN, key: testLog.verifierKey, url: null })) },
    });
    expectError(twice, 400, 'BAD_REQUEST');
    expectError(
      await b.request({ method: 'PUT', url: '/v1/admin/witnesses', token: adminB.token, body: { witnesses: [{ key: witnessKeyA, url: 'ftp://x' }] } }),
      400,
      'BAD_REQUEST',
    );
    const person = await b.signup();
    expectError(await b.request({ method: 'GET', url: '/v1/admin/witnesses', token: person.token }), 403, 'FORBIDDEN');
    expectError(await b.request({ method: 'PUT', url: '/v1/admin/witnessed-logs', token: person.token, body: { logs: [] } }), 403, 'FORBIDDEN');
    expectError(await b.request({ method: 'GET', url: '/v1/admin/witnessed-logs' }), 401, 'UNAUTHORIZED');
    // Nothing changed by the refusals.
    const listed = await b.request({ method: 'GET', url: '/v1/admin/witnesses', token: adminB.token });
    assert.deepEqual(
      listed.json().data.map((peer: { key: string }) => peer.key),
      [witnessKeyA],
    );
  });
});
