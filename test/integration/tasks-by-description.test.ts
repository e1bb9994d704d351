/**
 * A task with only a title and description is routed by discovery over its words: the best match
 * that passes the routing rules; with no result above the weak-match floor it is created unmatched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { WEAK_MATCH_FLOOR } from '../../src/modules/discovery/index.ts';

describe('tasks: routed by their words alone', () => {
  let app: TestApp;
  let requester: { token: string };
  const agents: Record<string, string> = {};
  before(async () => {
    app = await startTestApp();
    const owner = await app.signup();
    requester = await app.signup();
    const make = async (key: string, body: Record<string, unknown>) =>
      (agents[key] = (await registerAgent(app, owner.token, { deliveryMode: 'poll', endpoint: undefined, protocols: ['rest'], ...body })).id);
    await make('digest', { name: 'Inbox Digest', description: 'Condenses unread email into a daily digest of messages that need a reply.' });
    await make('flights', { name: 'Fare Watcher', description: 'Searches airfares across airlines and alerts you when prices drop.' });
    await make('paid', { name: 'Mail Summary Pro', description: 'Summarises your email inbox every morning.', pricePerTaskCents: 500 });
  });
  after(() => app.close());

  const create = (body: Record<string, unknown>) => app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body });

  it('goes to the best discovery match that passes the routing rules, with rank and relevance in the route plan', async () => {
    const body = { title: 'Morning briefing', description: 'summarise my inbox every morning' };
    const plan = await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body });
    assert.equal(plan.statusCode, 200, plan.body);
    const { candidates, excluded } = plan.json().data as {
      candidates: { agent: { id: string }; discovery: { rank: number; relevance: number } | null }[];
      excluded: { agent: { id: string }; code: string }[];
    };
    assert.equal(candidates[0]?.agent.id, agents.digest);
    for (const candidate of candidates) assert.ok(candidate.discovery && candidate.discovery.relevance >= WEAK_MATCH_FLOOR, JSON.stringify(candidate));
    for (let i = 1; i < candidates.length; i++) assert.ok(candidates[i - 1]!.discovery!.rank < candidates[i]!.discovery!.rank);
    // The paid agent matches the words but fails the routing rules (no budget given): excluded, saying why.
    assert.ok(
      excluded.some((e) => e.agent.id === agents.paid && e.code === 'price_unbudgeted'),
      JSON.stringify(excluded),
    );

    const created = await create(body);
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().data.status, 'matched');
    assert.equal(created.json().data.assignedAgent.id, agents.digest);
  });

  it('is created unmatched with no_close_match when no result clears the weak-match floor', async () => {
    const created = await create({ description: 'purple elephant dancing on the moon' });
    assert.equal(created.statusCode, 201, created.body);
    const task = created.json().data;
    assert.equal(task.status, 'unmatched');
    assert.equal(task.error.code, 'no_close_match');
    assert.match(task.error.message, /close match/);
  });
});
