import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentRow } from '../../bench/lib.ts';
import { isUniqueViolation } from '../../src/db/errors.ts';
import { lookalikeKeys } from '../../src/lib/confusables.ts';
import { slugify } from '../../src/lib/slug.ts';
import { expectError, openTestDatabase, startTestApp, type TestApp } from '../helpers/app.ts';
import { agentBody, newAgentKey, registerAgent } from '../helpers/agents.ts';

const register = (app: TestApp, token: string, name: string, overrides: Record<string, unknown> = {}) =>
  app.request({ method: 'POST', url: '/v1/agents', token, body: agentBody({ name, ...overrides }) });
const rename = (app: TestApp, token: string, id: string, name: string) => app.request({ method: 'PATCH', url: `/v1/agents/${id}`, token, body: { name } });

/** Asserts a 409 that names the agent the name looks like, by its name and slug. */
function expectLookalikeOf(response: Awaited<ReturnType<TestApp['request']>>, original: { name: string; slug: string }) {
  const body = expectError(response, 409, 'CONFLICT');
  assert.ok(body.message.includes(`"${original.name}"`) && body.message.includes(original.slug), body.message);
  assert.deepEqual(body.details, [{ path: '/body/name', message: `looks like "${original.name}" (${original.slug})` }]);
}

describe('agent names: lookalikes', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  let other: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
    other = await app.signup();
  });
  after(() => app.close());

  it('refuses a Cyrillic homoglyph of an existing name (409 naming the agent), for another owner and for the same one', async () => {
    const original = await registerAgent(app, owner.token, { name: 'Inbox Summarizer' });
    const impostor = 'Inbox Summar\u0456zer';
    assert.notEqual(slugify(impostor), original.slug);
    expectLookalikeOf(await register(app, other.token, impostor), { name: 'Inbox Summarizer', slug: original.slug });
    expectLookalikeOf(await register(app, owner.token, impostor), { name: 'Inbox Summarizer', slug: original.slug });
    const provisional = await app.request({
      method: 'POST',
      url: '/v1/agents/provisional',
      body: { name: impostor, description: 'Polls for work', endpoint: 'https://p.example.test/hook', pubkey: newAgentKey().pubkey },
    });
    expectLookalikeOf(provisional, { name: 'Inbox Summarizer', slug: original.slug });
    const mine = (await app.request({ method: 'GET', url: '/v1/agents?limit=100', token: other.token })).json().data;
    assert.equal(mine.length, 0);
  });

  it('refuses every usual homoglyph, one character at a time', async () => {
    const cases: [string, string[]][] = [
      // Cyrillic а е о р с х і
      [
        'Epic Apex Ox',
        ['Epic \u0410pex Ox', 'Epic Ap\u0435x Ox', 'Epic Apex \u041ex', 'E\u0440ic Apex Ox', 'Epi\u0441 Apex Ox', 'Epic Ape\u0445 Ox', 'Ep\u0456c Apex Ox'],
      ],
      // Greek ο and ν
      ['Novo Relay', ['No\u03bdo Relay', 'N\u03bfvo Relay', 'N\u03bf\u03bd\u03bf Relay']],
      // rn for m
      ['Smart Mailer', ['Srnart Mailer', 'Smart rnailer']],
      // 0 for O, and o in either case
      ['ROBOT Helper', ['R0B0T Helper', 'R0BOT Helper']],
      // l, I and 1, as UTS #39 maps them
      ['Ideal Toolkit', ['ldeal Toolkit', '1deal Toolkit', 'Ideal Too1kit', 'Idea1 Toolkit']],
      // a lowercase copy with a homoglyph: case does not matter
      ['Night Owl', ['night \u043ewl', 'NIGHT \u041eWL']],
    ];
    for (const [name, lookalikes] of cases) {
      const original = await registerAgent(app, owner.token, { name });
      for (const lookalike of lookalikes) {
        assert.notEqual(slugify(lookalike), original.slug, lookalike);
        expectLookalikeOf(await register(app, other.token, lookalike), { name, slug: original.slug });
      }
    }
  });

  it('refuses fullwidth letters and an exact copy on rename, where the slug does not change', async () => {
    await registerAgent(app, owner.token, { name: 'Delta Planner' });
    const original = await registerAgent(app, owner.token, { name: 'Echo Planner' });
    const mover = await registerAgent(app, other.token, { name: 'Foxtrot Planner' });
    for (const name of ['\uff24\uff45\uff4c\uff54\uff41 Planner', 'Delta Planner', 'delta planner', 'D\u0435lta Planner']) {
      expectLookalikeOf(await rename(app, other.token, mover.id, name), { name: 'Delta Planner', slug: 'delta-planner' });
    }
    expectLookalikeOf(await rename(app, other.token, mover.id, 'Ech\u03bf Planner'), { name: 'Echo Planner', slug: original.slug });
    const stored = (await app.request({ method: 'GET', url: `/v1/agents/${mover.id}` })).json().data;
    assert.equal(stored.name, 'Foxtrot Planner');
  });

  it('lets an agent rename itself to a name that looks like its own, and keep its name in a PATCH', async () => {
    const agent = await registerAgent(app, owner.token, { name: 'Quiet Fox' });
    const renamed = await rename(app, owner.token, agent.id, 'QUIET F\u041eX');
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().data.name, 'QUIET F\u041eX');
    const again = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token: owner.token,
      body: { name: 'QUIET F\u041eX', description: 'Still quiet' },
    });
    assert.equal(again.statusCode, 200, again.body);
    // The new name's keys are stored: others still cannot take either spelling.
    expectLookalikeOf(await register(app, other.token, 'Qu\u0456et Fox'), { name: 'QUIET F\u041eX', slug: agent.slug });
    // A name freed by a rename can be taken.
    const back = await rename(app, owner.token, agent.id, 'Loud Fox');
    assert.equal(back.statusCode, 200, back.body);
    assert.equal((await register(app, other.token, 'Qu\u0456et Fox')).statusCode, 201);
  });

  it('accepts names that only share letters that do not look alike', async () => {
    await registerAgent(app, owner.token, { name: 'Bill Helper' });
    for (const name of ['Biii Helper', 'Bill Helpers', 'Nono Relay', 'Rnodest Helper']) {
      const response = await register(app, other.token, name);
      assert.equal(response.statusCode, 201, `${name}: ${response.body}`);
    }
  });

  it('takes names in any script; a name with no Latin letters gets a plain ASCII slug of its own', async () => {
    const slugs: string[] = [];
    for (const name of ['日本語 翻訳エージェント', '日本語 翻訳エージェント 2', 'Переводчик', 'مترجم']) {
      const response = await register(app, owner.token, name);
      assert.equal(response.statusCode, 201, `${name}: ${response.body}`);
      const { id, slug } = response.json().data as { id: string; slug: string };
      assert.match(slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, name);
      assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data.name, name);
      slugs.push(slug);
    }
    assert.equal(new Set(slugs).size, slugs.length);
    expectError(await register(app, owner.token, '*** !!! ***'), 400, 'BAD_REQUEST');
  });

  it('does not name an agent the caller cannot see', async () => {
    const hidden = await registerAgent(app, owner.token, { name: 'Secret Ledger', visibility: 'private' });
    const body = expectError(await register(app, other.token, 'Secr\u0435t Ledger'), 409, 'CONFLICT');
    assert.ok(!body.message.includes('Secret Ledger') && !body.message.includes(hidden.slug), body.message);
    assert.deepEqual(body.details, [{ path: '/body/name', message: "looks like another agent's name" }]);
    expectLookalikeOf(await register(app, owner.token, 'Secr\u0435t Ledger'), { name: 'Secret Ledger', slug: hidden.slug });
  });

  it('lets exactly one of many concurrent lookalike registrations win', async () => {
    const variants = [
      'Race Helper',
      'R\u0430ce Helper',
      'Ra\u0441e Helper',
      'Rac\u0435 Helper',
      'Race H\u0435lper',
      'Race Help\u0435r',
      'Race Hel\u0440er',
      'R\u0430c\u0435 Helper',
    ];
    assert.equal(new Set(variants.map(slugify)).size, variants.length);
    const results = await Promise.all(variants.map((name) => register(app, owner.token, name)));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    for (const result of results.filter((r) => r.statusCode === 409)) expectError(result, 409, 'CONFLICT');
    const mine = (await app.request({ method: 'GET', url: '/v1/agents?limit=100', token: owner.token })).json().data as { name: string }[];
    assert.equal(mine.filter((agent) => variants.includes(agent.name)).length, 1);
  });
});

describe('agent names: characters that do not show', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
  });
  after(() => app.close());

  const refused: [string, string][] = [
    ['zero-width space', 'Inbox\u200bSummarizer'],
    ['word joiner', 'Inbox\u2060Summarizer'],
    ['byte order mark', '\ufeffInbox Summarizer'],
    ['soft hyphen', 'Inbox Sum\u00admarizer'],
    ['left-to-right mark', 'Inbox Summarizer\u200e'],
    ['right-to-left mark', 'Inbox Summarizer\u200f'],
    ['Arabic letter mark', 'Inbox \u061cSummarizer'],
    ['right-to-left override', 'Inbox \u202eRezirammus'],
    ['left-to-right embedding', 'Inbox \u202aSummarizer'],
    ['first strong isolate', 'Inbox \u2068Summarizer\u2069'],
    ['Hangul filler', 'Inbox \u3164 Summarizer'],
    ['Hangul choseong filler', 'Inbox \u115f Summarizer'],
    ['tag character', 'Inbox Summarizer\u{e0041}'],
    ['variation selector on its own', '\ufe0fInbox Summarizer'],
    ['variation selector after a space', 'Inbox \ufe0fSummarizer'],
    ['ZWJ between Latin letters', 'Inbox Summ\u200darizer'],
    ['ZWNJ between Latin letters', 'Inbox Summ\u200carizer'],
    ['ZWJ after an emoji with nothing after it', 'Inbox Summarizer \ud83e\udd16\u200d'],
    ['newline', 'Inbox\nSummarizer'],
    ['blank Braille pattern', 'Inbox \u2800 Summarizer'],
  ];

  it('refuses each in a registration, a provisional registration and a rename, with 400 naming name', async () => {
    const agent = await registerAgent(app, owner.token);
    for (const [what, name] of refused) {
      const registered = expectError(await register(app, owner.token, name), 400, 'BAD_REQUEST');
      assert.equal(registered.details?.[0]?.path, '/body/name', what);
      const provisional = await app.request({
        method: 'POST',
        url: '/v1/agents/provisional',
        body: { name, description: 'Polls for work', endpoint: 'https://p.example.test/hook', pubkey: newAgentKey().pubkey },
      });
      assert.equal(expectError(provisional, 400, 'BAD_REQUEST').details?.[0]?.path, '/body/name', what);
      assert.equal(expectError(await rename(app, owner.token, agent.id, name), 400, 'BAD_REQUEST').details?.[0]?.path, '/body/name', what);
    }
    assert.equal((await app.request({ method: 'GET', url: '/v1/agents?limit=100', token: owner.token })).json().data.length, 1);
  });

  it('accepts joiners and selectors where emoji and scripts need them', async () => {
    const accepted = [
      'Coder \ud83d\udc69\u200d\ud83d\udcbb Bot', // woman technologist: ZWJ between emoji
      'Pride \ud83c\udff3\ufe0f\u200d\ud83c\udf08 Bot', // rainbow flag: emoji, VS16, ZWJ, emoji
      'Dev \ud83e\uddd1\ud83c\udffd\u200d\ud83d\udcbb Bot', // technologist with a skin tone
      'Love \u2764\ufe0f Bot', // VS16 after a symbol
      'Persian \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 Bot', // ZWNJ inside a Persian word
      'Hindi \u0915\u094d\u200d\u0937 Bot', // ZWJ after a virama
      'Sinhala \u0dc1\u0dca\u200d\u0dbb\u0dd3 Bot', // ZWJ in the Sinhala conjunct of "Sri"
    ];
    for (const name of accepted) {
      const response = await register(app, owner.token, name);
      assert.equal(response.statusCode, 201, `${name}: ${response.body}`);
      assert.equal(response.json().data.name, name);
    }
  });

  it('refuses them in display names on create and update, and in usernames', async () => {
    const person = await app.signup();
    for (const [what, name] of refused) {
      const body = expectError(
        await app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username: 'plain_name', displayName: name.slice(0, 50) } }),
        400,
        'BAD_REQUEST',
      );
      assert.equal(body.details?.[0]?.path, '/body/displayName', what);
    }
    const username = expectError(
      await app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username: 'plain\u200bname', displayName: 'Plain' } }),
      400,
      'BAD_REQUEST',
    );
    assert.equal(username.details?.[0]?.path, '/body/username');
    const created = await app.request({
      method: 'POST',
      url: '/v1/users',
      token: person.token,
      body: { username: 'plain_name', displayName: 'Coder \ud83d\udc69\u200d\ud83d\udcbb' },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (const [what, name] of refused) {
      const body = expectError(
        await app.request({ method: 'PATCH', url: '/v1/users/me', token: person.token, body: { displayName: name.slice(0, 50) } }),
        400,
        'BAD_REQUEST',
      );
      assert.equal(body.details?.[0]?.path, '/body/displayName', what);
    }
    assert.equal(
      (await app.request({ method: 'GET', url: '/v1/users/me', token: person.token })).json().data.displayName,
      'Coder \ud83d\udc69\u200d\ud83d\udcbb',
    );
  });
});

describe('migration 0015 on a database that already holds agents', () => {
  it('gives each agent its keys, the older of two lookalikes keeps them, and the unique index then holds', async () => {
    const database = await openTestDatabase();
    try {
      await database.migrate('0014_recent_challenges');
      const { db } = database.handle;
      const row = (id: string, name: string, createdAt: string) =>
        agentRow({
          id,
          name,
          slug: slugify(name),
          status: 'active',
          owner_id: null,
          registration_pubkey: null,
          delivery_mode: 'poll',
          created_at: createdAt,
          updated_at: createdAt,
        });
      // Typed for after the migration; the columns it adds are left out here.
      await db
        .insertInto('agents')
        .values([
          row('a-newer', 'Inbox Summar\u0456zer', '2026-01-02T00:00:00.000Z'),
          row('a-older', 'Inbox Summarizer', '2026-01-01T00:00:00.000Z'),
          row('b', 'Night Owl', '2026-01-03T00:00:00.000Z'),
        ])
        .execute();
      await database.migrate();
      const rows = await db.selectFrom('agents').select(['id', 'name_skeleton', 'name_skeleton_lower']).orderBy('id').execute();
      const keys = (name: string) => lookalikeKeys(name);
      assert.deepEqual(rows, [
        { id: 'a-newer', name_skeleton: null, name_skeleton_lower: null },
        { id: 'a-older', name_skeleton: keys('Inbox Summarizer').asWritten, name_skeleton_lower: keys('Inbox Summarizer').lowercase },
        { id: 'b', name_skeleton: keys('Night Owl').asWritten, name_skeleton_lower: keys('Night Owl').lowercase },
      ]);
      const copy = row('c', 'NIGHT 0WL', '2026-01-04T00:00:00.000Z');
      await assert.rejects(
        db
          .insertInto('agents')
          .values({ ...copy, name_skeleton: 'something else', name_skeleton_lower: keys('Night Owl').lowercase })
          .execute(),
        (error) => isUniqueViolation(error),
      );
    } finally {
      await database.close();
    }
  });
});
