/**
 * Completed work as discovery evidence (docs/discovery.md, "Completed work"): only well-rated
 * completed tasks count, within their caps; the words are never returned; the opt-out removes them;
 * evidence goes with its agent; private evidence counts only for its audience; `matchedBy` says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { newAgentKey, proveKey, registerAgent } from '../helpers/agents.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';

interface Found {
  id: string;
  relevance: number;
  matchedBy: string[];
}

describe('discovery: completed work', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  const requesters: { token: string; accountId: string }[] = [];

  const discover = async (q: string, token: string | null = null) => {
    const response = await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(q)}&limit=50`, token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data as Found[];
  };
  const resultFor = async (q: string, agentId: string, token: string | null = null) => (await discover(q, token)).find((found) => found.id === agentId);
  const evidenceCount = async (agentId: string) =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM discovery_work_evidence WHERE agent_id = ${agentId}`.execute(app.database.db)).rows[0]!.n);
  /** A task given to the agent, completed through the real routes, rated `score` by the requester. */
  const completeAndRate = async (requester: { token: string }, agentId: string, body: Record<string, unknown>, score: number) => {
    const taken = await assignedTask(app, requester.token, owner.token, agentId, body);
    assert.equal((await callback(app, taken.id, { taskToken: taken.token, result: { ok: true } })).statusCode, 200);
    const rated = await app.request({ method: 'POST', url: `/v1/tasks/${taken.id}/rating`, token: requester.token, body: { score } });
    assert.equal(rated.statusCode, 200, rated.body);
    assert.ok(!rated.body.includes('searchQuery'), 'the search that led to a task is write-only');
    return taken.id;
  };
  const plantAgent = (overrides: Record<string, unknown> = {}) =>
    pollingAgent(app, owner.token, {
      name: 'Leaf Doctor',
      description: 'Diagnoses problems with houseplants and suggests how to care for them.',
      capabilities: ['gardening'],
      ...overrides,
    });
  const plantWork = { title: 'Sad monstera', description: 'My monstera has droopy yellowing leaves, what is wrong with it?' };

  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
    for (let i = 0; i < 3; i++) requesters.push(await app.signup());
  });
  after(() => app.close());

  it('a task rated 4 or 5 becomes evidence, searchable once the rating is answered; a poor rating adds none', async () => {
    const agent = await plantAgent();
    const q = 'monstera droopy yellowing leaves';
    const before = await resultFor(q, agent.id);
    assert.ok(!before?.matchedBy.includes('completedWork'));
    await completeAndRate(requesters[0]!, agent.id, plantWork, 3);
    assert.equal(await evidenceCount(agent.id), 0);
    await completeAndRate(requesters[1]!, agent.id, plantWork, 5);
    assert.equal(await evidenceCount(agent.id), 1);
    const after = await resultFor(q, agent.id);
    assert.ok(after, 'found through its completed work');
    assert.ok(after.relevance > (before?.relevance ?? 0), `relevance ${before?.relevance} -> ${after.relevance}`);
    assert.ok(after.matchedBy.includes('completedWork'), JSON.stringify(after.matchedBy));
    // The words are never returned: not by discovery, not by the agent's page.
    const page = await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(q)}` });
    assert.ok(!page.body.includes('droopy'));
  });

  it('counts at most 3 tasks per requester account, the most recent', async () => {
    const agent = await plantAgent({ name: 'Leaf Doctor Two' });
    for (let i = 0; i < 4; i++) await completeAndRate(requesters[0]!, agent.id, { description: `Repot my fern number ${i}` }, 5);
    assert.equal(await evidenceCount(agent.id), 3);
    const { rows } = await sql<{ text: string }>`SELECT text FROM discovery_work_evidence WHERE agent_id = ${agent.id}`.execute(app.database.db);
    assert.ok(!rows.some((row) => row.text.includes('number 0')), 'the oldest went');
    await completeAndRate(requesters[1]!, agent.id, { description: 'Repot my cactus' }, 4);
    assert.equal(await evidenceCount(agent.id), 4);
  });

  it("the owner cannot rate their own agent's task, so it adds nothing", async () => {
    const agent = await plantAgent({ name: 'Leaf Doctor Three' });
    const taken = await assignedTask(app, owner.token, owner.token, agent.id, plantWork);
    await callback(app, taken.id, { taskToken: taken.token, result: { ok: true } });
    const rated = await app.request({ method: 'POST', url: `/v1/tasks/${taken.id}/rating`, token: owner.token, body: { score: 5 } });
    assert.ok(rated.statusCode === 403 || rated.statusCode === 200, rated.body);
    assert.equal(await evidenceCount(agent.id), 0);
  });

  it('the search that led to the task counts too', async () => {
    const agent = await plantAgent({ name: 'Leaf Doctor Four' });
    await completeAndRate(requesters[2]!, agent.id, { description: 'Please look at my plant', searchQuery: 'bonsai wilting overnight' }, 5);
    const found = await resultFor('bonsai wilting overnight', agent.id);
    assert.ok(found?.matchedBy.includes('completedWork'), JSON.stringify(found));
  });

  it('turning the setting off removes the evidence its tasks gave; on counts new tasks', async () => {
    const person = await app.signup();
    const agent = await plantAgent({ name: 'Leaf Doctor Five' });
    const settings = await app.request({ method: 'GET', url: '/v1/settings/search', token: person.token });
    assert.deepEqual(settings.json().data, { completedTasksImproveSearch: true });
    await completeAndRate(person, agent.id, plantWork, 5);
    assert.equal(await evidenceCount(agent.id), 1);
    const off = await app.request({ method: 'PATCH', url: '/v1/settings/search', token: person.token, body: { completedTasksImproveSearch: false } });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(await evidenceCount(agent.id), 0);
    assert.ok(!(await resultFor('monstera droopy yellowing leaves', agent.id))?.matchedBy.includes('completedWork'));
    await completeAndRate(person, agent.id, plantWork, 5);
    assert.equal(await evidenceCount(agent.id), 0);
    assert.equal(
      (await app.request({ method: 'PATCH', url: '/v1/settings/search', token: person.token, body: { completedTasksImproveSearch: 'no' } })).statusCode,
      400,
    );
    await app.request({ method: 'PATCH', url: '/v1/settings/search', token: person.token, body: { completedTasksImproveSearch: true } });
    await completeAndRate(person, agent.id, plantWork, 5);
    assert.equal(await evidenceCount(agent.id), 1);
  });

  it("a deleted agent's evidence goes with it", async () => {
    const agent = await plantAgent({ name: 'Leaf Doctor Six' });
    await completeAndRate(requesters[0]!, agent.id, plantWork, 5);
    assert.equal(await evidenceCount(agent.id), 1);
    const deleted = await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token: owner.token });
    assert.ok(deleted.statusCode < 300, deleted.body);
    assert.equal(await evidenceCount(agent.id), 0);
  });

  it('evidence given while an agent was private counts only while it is', async () => {
    const agent = await plantAgent({ name: 'Leaf Doctor Seven', visibility: 'private' });
    // The owner's own private agent: someone else's task cannot reach it, so evidence is recorded directly as discovery is told.
    await sql`INSERT INTO discovery_work_evidence (task_id, agent_id, requester_id, text, audience, rated_at)
              SELECT id, ${agent.id}, ${requesters[0]!.accountId}, 'bonsai wilting overnight again', 'private', ${new Date().toISOString()}
              FROM tasks WHERE id NOT IN (SELECT task_id FROM discovery_work_evidence) LIMIT 1`.execute(app.database.db);
    const q = 'bonsai wilting overnight again';
    assert.ok((await resultFor(q, agent.id, owner.token))?.matchedBy.includes('completedWork'));
    assert.equal(await resultFor(q, agent.id, requesters[0]!.token), undefined, 'hidden from others');
    const patched = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { visibility: 'public' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const found = await resultFor(q, agent.id, requesters[0]!.token);
    assert.ok(!found?.matchedBy.includes('completedWork'), JSON.stringify(found));
  });

  describe('an outcome receipt bound to the task counts as a rating of 4 or 5 does', () => {
    /** The class given to the tasks here, so that the requester's receipts can name it. */
    const PLANT_CLASS = 'home.plant-care';
    /** A requester with a key of its own (an agent it owns), which signs its receipts. */
    const signingRequester = async () => {
      const person = await app.signup();
      const key = newAgentKey();
      const agent = await registerAgent(app, person.token, { name: `Requester key ${key.pubkey.slice(8, 16)}`, pubkey: key.pubkey });
      return { ...person, party: { agent: agent.slug, key } satisfies Party };
    };
    /** A plant agent under a key it proved, so that receipts about its tasks can be bound to them. */
    const provenPlantAgent = async (name: string) => {
      const key = newAgentKey();
      const agent = await plantAgent({ name, pubkey: key.pubkey });
      await proveKey(app, owner.token, agent.id, key);
      return { id: agent.id, party: { agent: agent.id, key } satisfies Party };
    };
    /** A task of the requester's, taken by the agent and ended as `end` says; no rating. */
    const finishedTask = async (requester: { token: string }, agentId: string, body: Record<string, unknown>, end: 'completed' | 'failed' = 'completed') => {
      const taken = await assignedTask(app, requester.token, owner.token, agentId, { ...body, taskClass: PLANT_CLASS });
      const ended = await callback(
        app,
        taken.id,
        end === 'completed' ? { taskToken: taken.token, result: { ok: true } } : { taskToken: taken.token, error: { message: 'no' } },
      );
      assert.equal(ended.statusCode, 200, ended.body);
      return taken.id;
    };
    const signOutcome = async (issuer: Party, subject: Party, taskId: string, outcome = 'success') => {
      const receipt = makeReceipt('outcome', issuer, subject, { correlationId: taskId, taskClass: PLANT_CLASS, payload: { outcome, latencyMs: 10 } });
      const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data as { counts: boolean; taskBound: boolean; taskBoundReason: string | null };
    };

    it("a bound success receipt makes the task's words find the agent, once the receipt is answered", async () => {
      const requester = await signingRequester();
      const agent = await provenPlantAgent('Fern Whisperer');
      const q = 'calathea leaves curling brown edges';
      assert.ok(!(await resultFor(q, agent.id))?.matchedBy.includes('completedWork'));
      const taskId = await finishedTask(requester, agent.id, {
        title: 'Crispy calathea',
        description: 'My calathea leaves are curling with brown edges, help',
      });
      const ack = await signOutcome(requester.party, agent.party, taskId);
      assert.equal(ack.taskBound, true, JSON.stringify(ack));
      assert.equal(await evidenceCount(agent.id), 1);
      const found = await resultFor(q, agent.id);
      assert.ok(found?.matchedBy.includes('completedWork'), JSON.stringify(found));
      // The words are still never returned.
      assert.ok(!(await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(q)}` })).body.includes('curling'));
    });

    it('a bound receipt sent again records its evidence if the node stopped before it had', async () => {
      const requester = await signingRequester();
      const agent = await provenPlantAgent('Fern Whisperer Resent');
      const taskId = await finishedTask(requester, agent.id, plantWork);
      const receipt = makeReceipt('outcome', requester.party, agent.party, {
        correlationId: taskId,
        taskClass: PLANT_CLASS,
        payload: { outcome: 'success', latencyMs: 10 },
      });
      assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })).statusCode, 201);
      // The receipt was stored, but the node stopped before discovery learnt from it; its issuer, unanswered, sends it again.
      await sql`DELETE FROM discovery_work_evidence WHERE task_id = ${taskId}`.execute(app.database.db);
      assert.equal(await evidenceCount(agent.id), 0);
      const again = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().data.taskBound, true);
      assert.equal(await evidenceCount(agent.id), 1);
    });

    it('an unbound receipt, a failure receipt, or a success receipt about a failed task adds none', async () => {
      const requester = await signingRequester();
      const stranger = await signingRequester();
      const agent = await provenPlantAgent('Fern Whisperer Two');
      // Signed by someone who did not ask for the task: it counts for trust, but is not bound to the task.
      const unbound = await signOutcome(stranger.party, agent.party, await finishedTask(requester, agent.id, plantWork));
      assert.deepEqual([unbound.counts, unbound.taskBound, unbound.taskBoundReason], [true, false, 'issuer is not the requester']);
      const failure = await signOutcome(requester.party, agent.party, await finishedTask(requester, agent.id, plantWork), 'failure');
      assert.equal(failure.taskBound, true);
      const failedTask = await signOutcome(requester.party, agent.party, await finishedTask(requester, agent.id, plantWork, 'failed'));
      assert.equal(failedTask.taskBound, true);
      assert.equal(await evidenceCount(agent.id), 0);
      assert.ok(!(await resultFor('monstera droopy yellowing leaves', agent.id))?.matchedBy.includes('completedWork'));
    });

    it('a rating and a receipt about one task count it once; a poor rating outweighs a success receipt', async () => {
      const requester = await signingRequester();
      const agent = await provenPlantAgent('Fern Whisperer Three');
      const both = await finishedTask(requester, agent.id, plantWork);
      assert.equal((await app.request({ method: 'POST', url: `/v1/tasks/${both}/rating`, token: requester.token, body: { score: 5 } })).statusCode, 200);
      assert.equal((await signOutcome(requester.party, agent.party, both)).taskBound, true);
      assert.equal(await evidenceCount(agent.id), 1);
      // Receipt first, then a rating of 2: the requester's rating says the work was poor.
      const poor = await finishedTask(requester, agent.id, { description: 'Why is my pothos dropping leaves' });
      await signOutcome(requester.party, agent.party, poor);
      assert.equal(await evidenceCount(agent.id), 2);
      assert.equal((await app.request({ method: 'POST', url: `/v1/tasks/${poor}/rating`, token: requester.token, body: { score: 2 } })).statusCode, 200);
      assert.equal(await evidenceCount(agent.id), 1);
      // And a success receipt after a poor rating adds nothing.
      const ratedPoorly = await finishedTask(requester, agent.id, { description: 'Yellow spots on my ficus' });
      assert.equal((await app.request({ method: 'POST', url: `/v1/tasks/${ratedPoorly}/rating`, token: requester.token, body: { score: 3 } })).statusCode, 200);
      await signOutcome(requester.party, agent.party, ratedPoorly);
      assert.equal(await evidenceCount(agent.id), 1);
    });

    it('the same rules as ratings: the opt-out, and the per-requester cap', async () => {
      const requester = await signingRequester();
      const agent = await provenPlantAgent('Fern Whisperer Four');
      for (let i = 0; i < 4; i++)
        await signOutcome(requester.party, agent.party, await finishedTask(requester, agent.id, { description: `Repot my orchid number ${i}` }));
      assert.equal(await evidenceCount(agent.id), 3);
      await app.request({ method: 'PATCH', url: '/v1/settings/search', token: requester.token, body: { completedTasksImproveSearch: false } });
      assert.equal(await evidenceCount(agent.id), 0);
      await signOutcome(requester.party, agent.party, await finishedTask(requester, agent.id, plantWork));
      assert.equal(await evidenceCount(agent.id), 0);
    });
  });

  it('browsing matches on nothing', async () => {
    const browse = await app.request({ method: 'GET', url: '/v1/discover?limit=5' });
    for (const found of browse.json().data as Found[]) assert.deepEqual(found.matchedBy, []);
  });
});
