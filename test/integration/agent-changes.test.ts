/**
 * GET /v1/agents/changes, the change feed for mirrors: a mirror that applies every page in order
 * holds exactly the registry's public agents, and on PostgreSQL a change committed late by a
 * transaction that started early is never skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { agentRow } from '../../bench/lib.ts';
import { dialectUnderTest, expectError, startTestApp, startTestAppAfter, testDatabaseUrl, type TestApp } from '../helpers/app.ts';
import { registerAgent, registerProvisional } from '../helpers/agents.ts';

type Change = { id: string; deleted: boolean; at: string; agent?: { id: string; name: string; description: string; visibility: string } };

/** Reads the feed from `since` to its end, applying each change to `mirror`; answers the cursor to go on from. */
async function follow(app: TestApp, mirror: Map<string, Change['agent']>, since?: string, limit = 3): Promise<string> {
  let cursor = since;
  for (let pages = 0; pages < 1000; pages++) {
    const response = await app.request({ method: 'GET', url: `/v1/agents/changes?limit=${limit}${cursor ? `&since=${cursor}` : ''}` });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { data: Change[]; next: string; hasMore: boolean };
    assert.ok(body.data.length <= limit);
    for (const change of body.data) {
      if (change.deleted) mirror.delete(change.id);
      else mirror.set(change.id, change.agent);
    }
    cursor = body.next;
    if (!body.hasMore) return cursor;
  }
  throw new Error('the feed did not end');
}

/**
 * Follows the feed until `done` holds of the mirror. On PostgreSQL the feed hands out a change once
 * every older transaction has ended, and other test files' transactions run meanwhile.
 */
async function followUntil(app: TestApp, mirror: Map<string, Change['agent']>, done: () => boolean, since?: string, limit = 3): Promise<string> {
  let cursor = await follow(app, mirror, since, limit);
  for (const deadline = Date.now() + 10_000; !done() && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    cursor = await follow(app, mirror, cursor, limit);
  }
  return cursor;
}

describe('agents: GET /v1/agents/changes', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  let stranger: { token: string };
  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
    stranger = await app.signup();
  });
  after(() => app.close());

  /** What the registry shows anyone: every agent of `ids` that GET /v1/agents/:id answers without a credential. */
  async function publicAgents(ids: string[]) {
    const found = new Map<string, string>();
    for (const id of ids) {
      const response = await app.request({ method: 'GET', url: `/v1/agents/${id}` });
      if (response.statusCode === 200) found.set(id, response.json().data.description);
    }
    return found;
  }

  it('a mirror following the feed holds exactly the public agents through creations, updates, deletions and visibility changes', async () => {
    const mirror = new Map<string, Change['agent']>();
    const ids: string[] = [];
    const made = async (overrides: Record<string, unknown> = {}) => {
      const agent = await registerAgent(app, owner.token, overrides);
      ids.push(agent.id);
      return agent;
    };
    const a = await made();
    const b = await made();
    const secret = await made({ visibility: 'private' });
    const provisional = await registerProvisional(app);
    ids.push(provisional.id);
    let cursor = await followUntil(app, mirror, () => mirror.has(provisional.id));
    assert.ok(mirror.has(a.id) && mirror.has(b.id) && mirror.has(provisional.id));
    assert.ok(!mirror.has(secret.id), 'a private agent never reaches the feed');

    const patch = (id: string, body: Record<string, unknown>) => app.request({ method: 'PATCH', url: `/v1/agents/${id}`, token: owner.token, body });
    await patch(a.id, { description: 'Now translates as well' });
    await patch(b.id, { visibility: 'private' });
    await patch(secret.id, { visibility: 'public' });
    const c = await made();
    await app.request({ method: 'DELETE', url: `/v1/agents/${c.id}`, token: owner.token });
    const d = await made();
    cursor = await followUntil(app, mirror, () => mirror.has(d.id), cursor);

    const expected = await publicAgents(ids);
    assert.deepEqual(new Map([...mirror].map(([id, agent]) => [id, agent!.description])), expected);
    assert.equal(mirror.get(a.id)!.description, 'Now translates as well');
    assert.ok(!mirror.has(b.id) && mirror.has(secret.id) && !mirror.has(c.id) && mirror.has(d.id));

    // A fresh mirror reading from the start converges on the same set.
    const fresh = new Map<string, Change['agent']>();
    await followUntil(app, fresh, () => fresh.has(d.id), undefined, 2);
    for (const id of ids) assert.equal(fresh.has(id), expected.has(id), id);

    // Nothing new: the same cursor, an empty page.
    const idle = (await app.request({ method: 'GET', url: `/v1/agents/changes?since=${cursor}` })).json();
    assert.deepEqual(idle.data, []);
    assert.equal(idle.next, cursor);
  });

  it('shows tombstones for agents that left, with no data of theirs, and never an agent that was always private', async () => {
    const gone = await registerAgent(app, owner.token);
    const seen = new Map<string, Change['agent']>();
    const start = await followUntil(app, seen, () => seen.has(gone.id));
    await app.request({ method: 'PATCH', url: `/v1/agents/${gone.id}`, token: owner.token, body: { visibility: 'private', description: 'a private note' } });
    const hiddenAll = await registerAgent(app, stranger.token, { visibility: 'private' });
    await app.request({ method: 'PATCH', url: `/v1/agents/${hiddenAll.id}`, token: stranger.token, body: { description: 'still private' } });
    const marker = await registerAgent(app, stranger.token);
    const data: Change[] = [];
    let cursor = start;
    for (const deadline = Date.now() + 10_000; !data.some((c) => c.id === marker.id) && Date.now() < deadline;) {
      const page = (await app.request({ method: 'GET', url: `/v1/agents/changes?since=${cursor}` })).json() as { data: Change[]; next: string };
      data.push(...page.data);
      cursor = page.next;
    }
    assert.deepEqual(
      data.filter((c) => c.id !== marker.id).map((c) => ({ id: c.id, deleted: c.deleted, keys: Object.keys(c).sort() })),
      [{ id: gone.id, deleted: true, keys: ['at', 'deleted', 'id'] }],
    );
  });

  it('refuses cursors it did not give out and limits out of range', async () => {
    const given = ((await app.request({ method: 'GET', url: '/v1/agents/changes' })).json() as { next: string }).next;
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/changes?since=${given}` })).statusCode, 200);
    // Made up in the shape of a real cursor, or a real one altered: neither was given out.
    const forged = (position: string) => Buffer.from(position).toString('base64url');
    const at = given.length - 5;
    const altered = given.slice(0, at) + (given[at] === 'A' ? 'B' : 'A') + given.slice(at + 1);
    for (const url of [
      '/v1/agents/changes?since=',
      `/v1/agents/changes?since=${forged('0.0')}`,
      `/v1/agents/changes?since=${forged('999999.999999')}`,
      `/v1/agents/changes?since=${altered}`,
      '/v1/agents/changes?since=bm9wZQ',
      '/v1/agents/changes?since=%20',
      '/v1/agents/changes?limit=0',
      '/v1/agents/changes?limit=501',
      '/v1/agents/changes?since=a&since=b',
    ]) {
      const refused = await app.request({ method: 'GET', url });
      expectError(refused, 400, 'BAD_REQUEST');
      if (url.includes('since=') && !url.includes('&since')) assert.match(refused.json().message, /since/, url);
    }
  });

  it(
    'PostgreSQL: a change committed late by an earlier transaction is not skipped',
    { skip: dialectUnderTest !== 'postgres' && 'the order of commits is the order of rows on SQLite' },
    async () => {
      const early = await registerAgent(app, owner.token);
      const known = new Map<string, Change['agent']>();
      const cursor = await followUntil(app, known, () => known.has(early.id));
      const client = new pg.Client({ connectionString: testDatabaseUrl! });
      await client.connect();
      try {
        await client.query(`SET search_path TO ${app.databaseSchema}`);
        await client.query('BEGIN');
        await client.query(`UPDATE agents SET description = 'changed in a long transaction' WHERE id = $1`, [early.id]);
        const later = await registerAgent(app, owner.token);
        const during = (await app.request({ method: 'GET', url: `/v1/agents/changes?since=${cursor}` })).json() as { data: Change[]; next: string };
        assert.ok(!during.data.some((c) => c.id === later.id), 'held back while an older transaction runs');
        await client.query('COMMIT');
        const mirror = new Map<string, Change['agent']>();
        await followUntil(app, mirror, () => mirror.has(later.id), during.next);
        assert.equal(mirror.get(early.id)?.description, 'changed in a long transaction');
        assert.ok(mirror.has(later.id));
      } finally {
        await client.end();
      }
    },
  );
});

describe('migration 0030 on a database that already holds agents', () => {
  it('starts the feed and the MCP versions with the agents already public', async () => {
    const row = (id: string, overrides: Partial<Parameters<typeof agentRow>[0]> = {}) =>
      agentRow({
        id,
        name: `Agent ${id}`,
        slug: id,
        description: `Agent ${id} does things`,
        status: 'active',
        owner_id: null,
        registration_pubkey: null,
        delivery_mode: 'poll',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        ...overrides,
      });
    const app = await startTestAppAfter('0021_task_status_events', async (db) => {
      await db
        .insertInto('agents')
        .values([
          row('old-public'),
          row('old-private', { visibility: 'private' }),
          row('old-mcp', { protocols: JSON.stringify(['mcp']), endpoint: 'https://old.example.test/mcp' }),
        ])
        .execute();
    });
    try {
      const feed = (await app.request({ method: 'GET', url: '/v1/agents/changes' })).json() as { data: Change[] };
      assert.deepEqual(feed.data.map((c) => c.id).sort(), ['old-mcp', 'old-public']);
      const servers = (await app.request({ method: 'GET', url: '/v0.1/servers' })).json();
      assert.deepEqual(
        servers.servers.map((s: { server: { name: string } }) => s.server.name),
        ['localhost/old-mcp'],
      );
    } finally {
      await app.close();
    }
  });
});
