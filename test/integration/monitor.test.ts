/**
 * Checking an instance from outside, over real HTTP: `agentry log verify-agent` checks an agent's
 * history (fetched, or a saved file offline) and fails on a doctored one; the monitor (SDK and
 * `agentry monitor`) reads both logs from where it stopped, re-derives every score from the logged
 * receipts (owners' words, unclaimed keys, a task-bound receipt, self-dealing and unregistered
 * issuers) and agrees with the instance, reports agents whose key changed, and reports a score the
 * receipts do not give and a log whose entries changed (exit 1).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { AgentryClient, monitorInstance, type MonitorState } from '@agentry/sdk';
import type { TestApp } from '../helpers/app.ts';
import { newAgentKey, proveKey, registerAgent, registerProvisional, type AgentKey } from '../helpers/agents.ts';
import { runAgentry } from '../helpers/cli.ts';
import { startListeningApp } from '../helpers/listening.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';

const SUMMARY_CLASS = 'writing.text-summarization';

describe('monitor and agent history from outside the instance', () => {
  let app: TestApp;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'agentry-monitor-'));
  const env = { XDG_CONFIG_HOME: join(dir, 'config'), HOME: dir };
  const run = (...args: string[]) => runAgentry(args, env);
  let subjectAgent: { id: string; key: AgentKey };
  let issuerAgent: { id: string; slug: string; key: AgentKey; token: string };

  const submit = async (receipt: unknown) => {
    const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(response.statusCode, 201, response.body);
  };
  const drain = async () => {
    await app.receiptSequencer.drain();
    await app.registrySequencer.drain();
  };

  before(async () => {
    ({ app, url } = await startListeningApp());
    await app.receiptSequencer.stop();
    await app.registrySequencer.stop();
    const requester = await app.signup();
    const taker = await app.signup();
    // The subject: a polling agent of the taker's, its key proven, which took one of the requester's tasks.
    const key = newAgentKey();
    const agent = await pollingAgent(app, taker.token, { pubkey: key.pubkey });
    await proveKey(app, taker.token, agent.id, key);
    subjectAgent = { id: agent.id, key };
    const subject: Party = { agent: agent.id, key };
    const { id: taskId, token: taskToken } = await assignedTask(app, requester.token, taker.token, agent.id);
    assert.equal((await callback(app, taskId, { taskToken, result: { summary: 'ok' } })).statusCode, 200);
    const requesterKey = newAgentKey();
    const requesterAgent = await registerAgent(app, requester.token, { pubkey: requesterKey.pubkey });
    const outcome = (issuer: Party, overrides: Record<string, unknown> = {}) =>
      makeReceipt('outcome', issuer, subject, { taskClass: SUMMARY_CLASS, payload: { outcome: 'success', latencyMs: 10 }, ...overrides });
    // Task-bound, then the same requester's words about no task.
    await submit(outcome({ agent: requesterAgent.slug, key: requesterKey }, { correlationId: taskId }));
    await submit(outcome({ agent: requesterAgent.slug, key: requesterKey }, { payload: { outcome: 'partial', latencyMs: 10 } }));
    // Another owner's agent, by id.
    const other = await app.signup();
    const otherKey = newAgentKey();
    const otherAgent = await registerAgent(app, other.token, { pubkey: otherKey.pubkey });
    issuerAgent = { id: otherAgent.id, slug: otherAgent.slug, key: otherKey, token: other.token };
    for (const result of ['success', 'failure', 'success', 'success'])
      await submit(outcome({ agent: otherAgent.id, key: otherKey }, { payload: { outcome: result, latencyMs: 10 } }));
    // An unclaimed key, an unregistered key, and the subject's owner vouching through a second agent.
    const unclaimed = await registerProvisional(app);
    await submit(outcome({ agent: unclaimed.id, key: unclaimed.key }));
    await submit(outcome({ agent: 'nobody', key: newAgentKey() }));
    const sideKey = newAgentKey();
    const side = await registerAgent(app, taker.token, { pubkey: sideKey.pubkey });
    await submit(outcome({ agent: side.slug, key: sideKey }));
    // Another class, and an offer (never evidence).
    await submit(outcome({ agent: otherAgent.id, key: otherKey }, { taskClass: 'code.review.pull_request' }));
    await submit(makeReceipt('offer', { agent: otherAgent.id, key: otherKey }, subject));
    await drain();
  });
  after(() => app.close());

  test('CLI: log verify-agent checks a history fetched or saved; a doctored file fails (exit 1)', async () => {
    const fetched = await run('--url', url, 'log', 'verify-agent', subjectAgent.id);
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.match(fetched.stdout, new RegExp(`^History verifies: 1 event of agent ${subjectAgent.id} in localhost:8080/registry \\(size \\d+\\)\\.\\n`));
    assert.match(fetched.stdout, new RegExp(`\\n  \\d+  \\S+  registered  \\{.*"key":"${subjectAgent.key.pubkey.replace(/[+/]/g, '\\$&')}"`));
    const client = new AgentryClient({ baseUrl: url });
    const [key] = (await client.logKeys()).filter((line) => line.startsWith('localhost:8080/registry+'));
    const history = await client.agentHistory(subjectAgent.id);
    writeFileSync(join(dir, 'history.json'), JSON.stringify({ data: history }));
    const offline = await run('--json', 'log', 'verify-agent', subjectAgent.id, '--history', join(dir, 'history.json'), '--key', key!);
    assert.equal(offline.code, 0, offline.stderr);
    assert.equal(JSON.parse(offline.stdout).events.length, 1);
    history.events[0]!.values.endpoint = 'https://elsewhere.example.test/';
    writeFileSync(join(dir, 'doctored.json'), JSON.stringify(history));
    const doctored = await run('log', 'verify-agent', subjectAgent.id, '--history', join(dir, 'doctored.json'), '--key', key!);
    assert.equal(doctored.code, 1);
    assert.match(doctored.stdout, /^History does NOT verify: /);
    const receiptsKey = (await client.logKeys()).find((line) => line.startsWith('localhost:8080/receipts+'))!;
    assert.equal((await run('log', 'verify-agent', subjectAgent.id, '--history', join(dir, 'history.json'), '--key', receiptsKey)).code, 1);
    const missing = await run('log', 'verify-agent', subjectAgent.id, '--history', join(dir, 'history.json'));
    assert.equal(missing.code, 2);
    // The SDK's one call does the same against the listed keys.
    assert.equal((await client.verifiedAgentHistory(subjectAgent.id)).events.length, 1);
  });

  test('SDK: the monitor re-derives every score from the logs and agrees; a later run reads only what is new and names key changes', async () => {
    const first = await monitorInstance({ url, state: null });
    assert.deepEqual(first.differences, []);
    assert.equal(first.agrees, true);
    assert.equal(first.keysChecked, 1);
    assert.equal(first.classesChecked, 2);
    assert.equal(first.logs.receipts.from, 0);
    assert.equal(first.logs.receipts.to, 11);
    const served = (await (await fetch(`${url}/v1/trust?pubkey=${encodeURIComponent(subjectAgent.key.pubkey)}&taskClass=${SUMMARY_CLASS}`)).json()).data
      .classes[0];
    // The requester: one task-bound (1) and one partial in words (0.5); the other owner: 4 words, capped at 3 × 0.5; the unclaimed key: 0.25.
    assert.equal(served.taskBound, 1);
    assert.equal(served.weight, 3.25);
    assert.deepEqual(first.keyChanges, [], 'every agent was registered with its key');

    const rotated = newAgentKey();
    const challenge = await app.request({ method: 'GET', url: `/v1/agents/${issuerAgent.id}/key-challenge`, token: issuerAgent.token });
    const set = await app.request({
      method: 'PUT',
      url: `/v1/agents/${issuerAgent.id}/key`,
      token: issuerAgent.token,
      body: { pubkey: rotated.pubkey, signature: rotated.sign(challenge.json().data.nonce) },
    });
    assert.equal(set.statusCode, 200, set.body);
    await drain();
    const second = await monitorInstance({ url, state: first.state });
    assert.equal(second.agrees, true, JSON.stringify(second.differences));
    assert.equal(second.logs.receipts.from, 11);
    assert.equal(second.logs.receipts.to, 11);
    assert.equal(second.logs.registry.from, first.logs.registry.to);
    assert.deepEqual(
      second.keyChanges.map((change) => [change.agentId, change.event, change.key, change.previousKey]),
      [[issuerAgent.id, 'key_rotated', rotated.pubkey, issuerAgent.key.pubkey]],
    );
  });

  test('CLI: agentry monitor keeps its state, exits 0 when all agrees and 1 on a score the receipts do not give', async () => {
    const state = join(dir, 'monitor.json');
    const ok = await run('monitor', url, '--state', state);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /: all agrees\n/);
    assert.match(ok.stdout, /receipts log localhost:8080\/receipts: 0 -> 11, consistent\n/);
    assert.match(ok.stdout, new RegExp(`key changed: agent ${issuerAgent.id} from `));
    const kept = JSON.parse(readFileSync(state, 'utf8')) as MonitorState;
    assert.equal(kept.logs.receipts!.size, 11);

    // The instance now counts receipts the log does not hold.
    const db = app.database.db;
    await sql`UPDATE trust_evidence SET receipts = receipts + 2, value_sum = value_sum + 2 WHERE issuer_pubkey = ${issuerAgent.key.pubkey} AND task_class = ${SUMMARY_CLASS}`.execute(
      db,
    );
    try {
      const differs = await run('--json', 'monitor', url, '--state', state);
      assert.equal(differs.code, 1, differs.stderr);
      const report = JSON.parse(differs.stdout);
      assert.equal(report.agrees, false);
      assert.ok(
        report.differences.some(
          (difference: { kind: string; message: string }) => difference.kind === 'evidence' && difference.message.includes('the log holds 4'),
        ),
        differs.stdout,
      );
      assert.equal(report.state, undefined, 'the report printed leaves the state out');
    } finally {
      await sql`UPDATE trust_evidence SET receipts = receipts - 2, value_sum = value_sum - 2 WHERE issuer_pubkey = ${issuerAgent.key.pubkey} AND task_class = ${SUMMARY_CLASS}`.execute(
        db,
      );
    }
    assert.equal((await run('monitor', url, '--state', state)).code, 0);
  });

  test('the monitor reports a log whose served entries are not the tree it signed', async () => {
    const db = app.database.db;
    const [row] = (await sql<{ data: Buffer }>`SELECT data FROM tlog_entries WHERE log = 'registry' AND idx = 0`.execute(db)).rows;
    const changed = Buffer.from(Buffer.from(row!.data).toString('utf8').replace('"registered"', '"deleted"'));
    await sql`UPDATE tlog_entries SET data = ${changed} WHERE log = 'registry' AND idx = 0`.execute(db);
    try {
      const report = await monitorInstance({ url, state: null });
      assert.equal(report.agrees, false);
      assert.match(report.differences[0]!.message, /registry log at size \d+ is not the tree of size 0 seen before plus the entries it serves/);
    } finally {
      await sql`UPDATE tlog_entries SET data = ${Buffer.from(row!.data)} WHERE log = 'registry' AND idx = 0`.execute(db);
    }
    const wrongState = await run('monitor', url, '--state', join(dir, 'history.json'));
    assert.equal(wrongState.code, 2);
  });
});
