import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentryClient, generateKey, publicKeyString, saveKey } from '@agentry/sdk';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { newAgentKey, proveKey, registerAgent, registerProvisional, type AgentKey } from '../helpers/agents.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';
import { runAgentry } from '../helpers/cli.ts';
import { startListeningApp } from '../helpers/listening.ts';

/** The catalogue class of `text-summarization`, the first capability of the polling agents here. */
const SUMMARY_CLASS = 'writing.text-summarization';

interface Ack {
  counts: boolean;
  countsReason: string | null;
  taskBound: boolean;
  taskBoundReason: string | null;
}

describe('trust: outcome receipts bound to tasks this registry routed', () => {
  let app: TestApp;
  let requester: { token: string; accountId: string };
  let requesterAgent: Party;
  let stranger: Party;
  let taker: { token: string };

  /** An owned agent with a key of its own; its slug is the name receipts use for it. */
  async function ownedParty(token: string): Promise<Party> {
    const key = newAgentKey();
    const agent = await registerAgent(app, token, { pubkey: key.pubkey });
    return { agent: agent.slug, key };
  }

  /** A polling agent of the taker's under a new key, proven unless told otherwise. */
  async function takingAgent(prove = true): Promise<{ id: string; party: Party }> {
    const key = newAgentKey();
    const agent = await pollingAgent(app, taker.token, { pubkey: key.pubkey });
    if (prove) await proveKey(app, taker.token, agent.id, key);
    return { id: agent.id, party: { agent: agent.id, key } };
  }

  /** A task from the requester to `agentId`, ended as `end` says (or left open). */
  async function task(agentId: string, end: 'completed' | 'failed' | 'open' = 'completed', body: Record<string, unknown> = {}) {
    const { id, token } = await assignedTask(app, requester.token, taker.token, agentId, body);
    if (end !== 'open') {
      const response = await callback(
        app,
        id,
        end === 'completed' ? { taskToken: token, result: { summary: 'ok' } } : { taskToken: token, error: { message: 'no' } },
      );
      assert.equal(response.statusCode, 200, response.body);
    }
    return id;
  }

  const submit = async (receipt: unknown): Promise<Ack> => {
    const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data;
  };
  const outcome = (issuer: Party, subject: Party, correlationId: string, overrides: Record<string, unknown> = {}) =>
    makeReceipt('outcome', issuer, subject, { correlationId, taskClass: SUMMARY_CLASS, payload: { outcome: 'success', latencyMs: 10 }, ...overrides });
  const trustOf = async (key: AgentKey, query = '') => {
    const response = await app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(key.pubkey)}${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data;
  };
  const notBound = (ack: Ack, reason: string) => {
    assert.equal(ack.counts, true, JSON.stringify(ack));
    assert.equal(ack.taskBound, false);
    assert.equal(ack.taskBoundReason, reason);
  };

  before(async () => {
    app = await startTestApp();
    requester = await app.signup();
    taker = await app.signup();
    requesterAgent = await ownedParty(requester.token);
    stranger = await ownedParty((await app.signup()).token);
  });
  after(() => app.close());

  it("a task's class is the requester's, or else the catalogue class of the first capability of the agent that took it", async () => {
    const { id } = await takingAgent();
    const derived = await app.request({ method: 'GET', url: `/v1/tasks/${await task(id)}`, token: requester.token });
    assert.equal(derived.json().data.taskClass, SUMMARY_CLASS);
    const given = await app.request({ method: 'GET', url: `/v1/tasks/${await task(id, 'completed', { taskClass: 'docs.brief' })}`, token: requester.token });
    assert.equal(given.json().data.taskClass, 'docs.brief');
  });

  it('a task taken by an agent whose first capability is outside the catalogue has a class of that term, and its receipt binds', async () => {
    const key = newAgentKey();
    const agent = await pollingAgent(app, taker.token, { pubkey: key.pubkey, capabilities: ['Quantum Knitting', 'text-summarization'] });
    await proveKey(app, taker.token, agent.id, key);
    const taskId = await task(agent.id);
    const view = await app.request({ method: 'GET', url: `/v1/tasks/${taskId}`, token: requester.token });
    assert.equal(view.json().data.taskClass, 'other.quantum-knitting');
    const ack = await submit(outcome(requesterAgent, { agent: agent.id, key }, taskId, { taskClass: 'other.quantum-knitting' }));
    assert.deepEqual(ack, { ...ack, counts: true, taskBound: true, taskBoundReason: null });
  });

  it('lists the receipts about one agent among those sharing its key (subjectAgentId), by its id or slug', async () => {
    const key = newAgentKey();
    const first = await registerAgent(app, taker.token, { pubkey: key.pubkey });
    const second = await registerAgent(app, taker.token, { pubkey: key.pubkey });
    await submit(outcome(requesterAgent, { agent: first.slug, key }, randomUUID()));
    await submit(outcome(requesterAgent, { agent: first.id, key }, randomUUID()));
    await submit(makeReceipt('decision', stranger, { agent: second.slug, key }, { correlationId: randomUUID(), taskClass: SUMMARY_CLASS }));
    const list = async (query: string) => {
      const response = await app.request({ method: 'GET', url: `/v1/trust-receipts?subjectPubkey=${encodeURIComponent(key.pubkey)}${query}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    assert.equal((await list('')).pagination.total, 3);
    const firsts = await list(`&subjectAgentId=${first.id}`);
    assert.deepEqual(firsts.data.map((receipt: { kind: string; subject: { agent: string } }) => receipt.subject.agent).sort(), [first.id, first.slug].sort());
    assert.equal(firsts.pagination.total, 2);
    assert.deepEqual(
      (await list(`&subjectAgentId=${second.id}`)).data.map((receipt: { kind: string }) => receipt.kind),
      ['decision'],
    );
    assert.equal((await list('&subjectAgentId=no-such-agent')).pagination.total, 0);
    // An agent alone with its key gets every receipt about it, whatever name the signer wrote.
    const { id, party } = await takingAgent();
    await submit(outcome(requesterAgent, { ...party, agent: 'what-the-signer-wrote' }, randomUUID()));
    const alone = await app.request({ method: 'GET', url: `/v1/trust-receipts?subjectPubkey=${encodeURIComponent(party.key.pubkey)}&subjectAgentId=${id}` });
    assert.equal(alone.json().pagination.total, 1);
  });

  it('a task whose agent was deleted says so (agentDeleted), where other tasks say false', async () => {
    const { id } = await takingAgent();
    const taskId = await task(id);
    const before = await app.request({ method: 'GET', url: `/v1/tasks/${taskId}`, token: requester.token });
    assert.equal(before.json().data.agentDeleted, false);
    const deleted = await app.request({ method: 'DELETE', url: `/v1/agents/${id}`, token: taker.token });
    assert.ok(deleted.statusCode < 300, deleted.body);
    const after = (await app.request({ method: 'GET', url: `/v1/tasks/${taskId}`, token: requester.token })).json().data;
    assert.deepEqual([after.assignedAgent, after.agentDeleted], [null, true]);
  });

  it("binds the requester's receipt about the agent that took a finished task, in the task's class, and says so", async () => {
    const { id, party } = await takingAgent();
    const completed = await submit(outcome(requesterAgent, party, await task(id)));
    assert.deepEqual(completed, { ...completed, counts: true, countsReason: null, taskBound: true, taskBoundReason: null });
    const failed = await submit(outcome(requesterAgent, party, await task(id, 'failed'), { payload: { outcome: 'failure', latencyMs: 5 } }));
    assert.equal(failed.taskBound, true);
    const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: outcome(requesterAgent, party, await task(id)) });
    assert.match(response.json().message, /counts towards the subject's trust, bound to the task it names$/);
    const [entry] = (await trustOf(party.key)).classes;
    assert.equal(entry.taskBound, 3);
    // Three task-bound receipts of one party: weight 3 (the cap), values 1, 0 and 1.
    assert.equal(entry.weight, 3);
    assert.equal(entry.score, Math.round(((2 + 2) / 7) * 10000) / 10000);
  });

  it('does not bind a receipt from another account than the requester', async () => {
    const { id, party } = await takingAgent();
    notBound(await submit(outcome(stranger, party, await task(id))), 'issuer is not the requester');
  });

  it('does not bind a receipt about another key than the one of the agent that took the task', async () => {
    const { id } = await takingAgent();
    const other = await takingAgent();
    notBound(await submit(outcome(requesterAgent, other.party, await task(id))), 'subject is not the agent that took the task');
  });

  it('does not bind a receipt about a task that has not finished', async () => {
    const { id, party } = await takingAgent();
    notBound(await submit(outcome(requesterAgent, party, await task(id, 'open'))), 'task not finished');
  });

  it("does not bind a receipt in another class than the task's", async () => {
    const { id, party } = await takingAgent();
    notBound(await submit(outcome(requesterAgent, party, await task(id), { taskClass: 'code.review' })), 'task class differs');
  });

  it('does not bind a receipt naming no task, or an id of a shape this registry never gives a task', async () => {
    const { party } = await takingAgent();
    notBound(await submit(outcome(requesterAgent, party, randomUUID())), 'no task with this id');
    // A time-ordered (version 7) UUID: another registry's task id, never one of ours.
    notBound(await submit(outcome(requesterAgent, party, '018f3c1e-7b2a-7c3d-9e4f-0a1b2c3d4e5f')), 'correlation id is not a task id of this registry');
  });

  it('does not bind a receipt about a task taken by an agent that never proved its key (a copy of a key proves nothing)', async () => {
    const { id, party } = await takingAgent(false);
    notBound(await submit(outcome(requesterAgent, party, await task(id))), 'the agent that took the task has not proven its key');
  });

  it('binds a receipt signed with a key the requester registered on its account, once proven; the key can be on one account only', async () => {
    const { id, party } = await takingAgent();
    const key = newAgentKey();
    const statement = `agentry signing key ${key.pubkey} for account ${requester.accountId}`;
    const wrong = await app.request({
      method: 'POST',
      url: '/v1/account/signing-keys',
      token: requester.token,
      body: { pubkey: key.pubkey, signature: key.sign(`agentry signing key ${key.pubkey} for account someone-else`) },
    });
    expectError(wrong, 400, 'BAD_REQUEST');
    const added = await app.request({
      method: 'POST',
      url: '/v1/account/signing-keys',
      token: requester.token,
      body: { pubkey: key.pubkey, signature: key.sign(statement) },
    });
    assert.equal(added.statusCode, 201, added.body);
    const listed = await app.request({ method: 'GET', url: '/v1/account/signing-keys', token: requester.token });
    assert.deepEqual(
      listed.json().data.map((row: { pubkey: string }) => row.pubkey),
      [key.pubkey],
    );
    const other = await app.signup();
    const taken = await app.request({
      method: 'POST',
      url: '/v1/account/signing-keys',
      token: other.token,
      body: { pubkey: key.pubkey, signature: key.sign(`agentry signing key ${key.pubkey} for account ${other.accountId}`) },
    });
    expectError(taken, 409, 'CONFLICT');

    const ack = await submit(outcome({ agent: `account:${requester.accountId}`, key }, party, await task(id)));
    assert.equal(ack.taskBound, true, JSON.stringify(ack));
  });

  it('weighs a task-bound outcome fully, an owner’s other outcome half, and an unclaimed key’s a quarter', async () => {
    const bound = await takingAgent();
    await submit(outcome(requesterAgent, bound.party, await task(bound.id)));
    assert.deepEqual((await trustOf(bound.party.key)).classes, [{ taskClass: SUMMARY_CLASS, score: 0.6, receipts: 1, issuers: 1, weight: 1, taskBound: 1 }]);

    const unbound = await takingAgent();
    await submit(outcome(requesterAgent, unbound.party, randomUUID()));
    const half = Math.round((2.5 / 4.5) * 10000) / 10000;
    assert.deepEqual((await trustOf(unbound.party.key)).classes, [
      { taskClass: SUMMARY_CLASS, score: half, receipts: 1, issuers: 1, weight: 0.5, taskBound: 0 },
    ]);

    const unclaimedSubject = await takingAgent();
    const provisional = await registerProvisional(app);
    const slug = (await app.request({ method: 'GET', url: `/v1/agents/${provisional.id}` })).json().data.slug;
    for (let i = 0; i < 5; i++) await submit(outcome({ agent: slug, key: provisional.key }, unclaimedSubject.party, randomUUID()));
    // Five receipts, capped at three, a quarter each.
    const quarter = Math.round(((2 + 0.75) / 4.75) * 10000) / 10000;
    assert.deepEqual((await trustOf(unclaimedSubject.party.key)).classes, [
      { taskClass: SUMMARY_CLASS, score: quarter, receipts: 5, issuers: 1, weight: 0.75, taskBound: 0 },
    ]);
  });

  it('a task binds one receipt, its latest; the others count as ordinary outcomes', async () => {
    const { id, party } = await takingAgent();
    const taskId = await task(id);
    await submit(outcome(requesterAgent, party, taskId, { issuedAt: '2026-11-21T10:00:00Z', payload: { outcome: 'failure', latencyMs: 1 } }));
    await submit(outcome(requesterAgent, party, taskId, { issuedAt: '2026-11-21T11:00:00Z' }));
    const { classes, explanation } = await trustOf(party.key, '&explain=true');
    assert.equal(classes[0].taskBound, 1);
    const [counted] = explanation.classes[0].counted;
    assert.equal(counted.taskBound.length, 1);
    assert.equal(counted.taskBound[0].value, 1, 'the later receipt, a success, binds');
    assert.equal(counted.unbound[0].receipts, 1);
    assert.deepEqual(
      explanation.classes[0].notBound.map((row: { reason: string }) => row.reason),
      ['another receipt binds this task'],
    );
    // Weight min(3, 1 + 0.5), value (1 x 1 + 0.5 x 0) / 1.5.
    assert.equal(classes[0].weight, 1.5);
    assert.equal(classes[0].score, Math.round(((2 + 1) / 5.5) * 10000) / 10000);
  });

  it('explain=true lists what counted with its weights and what did not and why, and its sums are the score', async () => {
    const { id, party } = await takingAgent();
    const ownerParty = await ownedParty(taker.token);
    await submit(outcome(requesterAgent, party, await task(id)));
    await submit(outcome(stranger, party, await task(id), { payload: { outcome: 'partial', latencyMs: 3 } }));
    await submit(outcome(ownerParty, party, randomUUID()));
    await submit(outcome({ agent: 'nobody', key: newAgentKey() }, party, randomUUID()));
    await submit(outcome(requesterAgent, party, randomUUID(), { taskClass: 'data.clean', payload: { outcome: 'failure', latencyMs: 3 } }));

    const all = await trustOf(party.key, '&explain=true');
    assert.deepEqual(all.explanation.prior, { score: 0.5, weight: 4 });
    for (const entry of all.classes) {
      const explained = all.explanation.classes.find((row: { taskClass: string }) => row.taskClass === entry.taskClass);
      assert.equal(explained.score, entry.score);
      assert.equal(explained.weight, entry.weight);
      const parties = explained.counted as { weight: number; value: number }[];
      const weight = parties.reduce((sum, row) => sum + row.weight, 0);
      const value = parties.reduce((sum, row) => sum + row.weight * row.value, 0);
      assert.ok(Math.abs(weight - entry.weight) < 1e-3);
      assert.ok(Math.abs((2 + value) / (4 + weight) - entry.score) < 1e-3, `${entry.taskClass}: the parties' weights give the score`);
    }
    const summary = all.explanation.classes.find((row: { taskClass: string }) => row.taskClass === SUMMARY_CLASS);
    // The requester's task-bound receipt weighs 1; the stranger's, about a task it did not ask for, is an ordinary 0.5.
    assert.deepEqual(summary.counted[0].party, { kind: 'owner', id: requester.accountId });
    assert.equal(summary.counted[0].weight, 1);
    assert.equal(summary.counted[0].taskBound[0].weight, 1);
    assert.equal(summary.counted[1].weight, 0.5);
    assert.deepEqual(
      summary.counted[1].unbound.map((row: { issuerPubkey: string; value: number; weight: number }) => [row.issuerPubkey, row.value, row.weight]),
      [[stranger.key.pubkey, 0.5, 0.5]],
    );
    assert.deepEqual(summary.notCounted.map((row: { reason: string; receipts: number }) => [row.reason, row.receipts]).sort(), [
      ['issuer key not registered', 1],
      ["issuer owned by the subject's owner", 1],
    ]);
    assert.deepEqual(summary.notBound, []);

    const one = await trustOf(party.key, '&explain=true&taskClass=data.clean');
    assert.deepEqual(
      one.classes.map((row: { taskClass: string }) => row.taskClass),
      ['data.clean'],
    );
    assert.deepEqual(
      one.explanation.classes.map((row: { taskClass: string }) => row.taskClass),
      ['data.clean'],
    );
    assert.equal(one.explanation.classes[0].score, one.classes[0].score);
  });

  it('explain=true names each party as pages may: its public agents, the person by username, a private agent not at all', async () => {
    const { party } = await takingAgent();
    const publicOwner = await app.signup();
    const publicKey = newAgentKey();
    const publicAgent = await registerAgent(app, publicOwner.token, { pubkey: publicKey.pubkey });
    await proveKey(app, publicOwner.token, publicAgent.id, publicKey);
    const privateOwner = await app.signup();
    const privateKey = newAgentKey();
    const privateAgent = await registerAgent(app, privateOwner.token, { pubkey: privateKey.pubkey, visibility: 'private' });
    await proveKey(app, privateOwner.token, privateAgent.id, privateKey);
    const person = await app.signup();
    const username = `signer${randomUUID().slice(0, 8)}`;
    const profile = await app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username, displayName: 'Signer' } });
    assert.equal(profile.statusCode, 201, profile.body);
    const signingKey = newAgentKey();
    const statement = `agentry signing key ${signingKey.pubkey} for account ${person.accountId}`;
    const added = await app.request({
      method: 'POST',
      url: '/v1/account/signing-keys',
      token: person.token,
      body: { pubkey: signingKey.pubkey, signature: signingKey.sign(statement) },
    });
    assert.equal(added.statusCode, 201, added.body);

    await submit(outcome({ agent: publicAgent.slug, key: publicKey }, party, randomUUID()));
    await submit(outcome({ agent: privateAgent.slug, key: privateKey }, party, randomUUID()));
    await submit(outcome({ agent: `account:${person.accountId}`, key: signingKey }, party, randomUUID()));

    const { explanation } = await trustOf(party.key, '&explain=true');
    const namesByOwner = new Map(explanation.classes[0].counted.map((row: { party: { id: string }; names: unknown[] }) => [row.party.id, row.names] as const));
    assert.deepEqual(namesByOwner.get(publicOwner.accountId), [{ kind: 'agent', id: publicAgent.id, slug: publicAgent.slug, name: publicAgent.name }]);
    assert.deepEqual(namesByOwner.get(person.accountId), [{ kind: 'person', username }]);
    assert.deepEqual(namesByOwner.get(privateOwner.accountId), [], 'a private agent is not named');
  });
});

describe('trust: the requester signs a task outcome in one call (SDK and CLI)', () => {
  let app: TestApp;
  let url: string;
  after(() => app?.close());

  it('client.signTaskOutcome and `agentry tasks receipt` submit task-bound receipts; a task not finished is refused before anything is signed', async () => {
    ({ app, url } = await startListeningApp());
    const requester = await app.signup();
    const taker = await app.signup();
    const agentKey = newAgentKey();
    const agent = await pollingAgent(app, taker.token, { pubkey: agentKey.pubkey });
    await proveKey(app, taker.token, agent.id, agentKey);
    const finished = async () => {
      const { id, token } = await assignedTask(app, requester.token, taker.token, agent.id);
      assert.equal((await callback(app, id, { taskToken: token, result: { summary: 'ok' } })).statusCode, 200);
      return id;
    };
    const apiKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: requester.token, body: { name: 'sdk' } })).json().data.key as string;

    // The SDK, with an agent of the requester's as issuer.
    const client = new AgentryClient({ baseUrl: url, token: apiKey });
    const issuerKey = generateKey();
    const issuer = await registerAgent(app, requester.token, { pubkey: publicKeyString(issuerKey) });
    const signed = await client.signTaskOutcome(await finished(), 'success', issuerKey, { issuerAgent: issuer.id });
    assert.equal(signed.receipt.taskBound, true, signed.message);
    const open = (await assignedTask(app, requester.token, taker.token, agent.id)).id;
    await assert.rejects(client.signTaskOutcome(open, 'success', issuerKey, { issuerAgent: issuer.id }), /only a completed or failed task/);

    // The CLI, with a signing key registered on the account.
    const dir = mkdtempSync(join(tmpdir(), 'agentry-task-receipt-'));
    const env = { XDG_CONFIG_HOME: join(dir, 'config'), AGENTRY_URL: url, HOME: dir };
    const run = (...args: string[]) => runAgentry(args, env);
    assert.equal((await run('login', '--token', apiKey)).code, 0);
    const keyFile = join(dir, 'signing.key');
    saveKey(keyFile, generateKey());
    const added = await run('account', 'signing-key', 'add', '--key', keyFile);
    assert.equal(added.code, 0, added.stderr);
    const taskId = await finished();
    const receipt = await run('tasks', 'receipt', taskId, '--key', keyFile, '--outcome', 'partial');
    assert.equal(receipt.code, 0, receipt.stderr);
    assert.match(receipt.stdout, /bound to the task it names/);
    const trust = (await app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(agentKey.pubkey)}` })).json().data;
    assert.deepEqual(
      trust.classes.map((row: { taskClass: string; taskBound: number }) => [row.taskClass, row.taskBound]),
      [[SUMMARY_CLASS, 2]],
    );
  });
});
