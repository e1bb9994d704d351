/**
 * `npm run screenshots`: every page of the web app at 1280 and 390 px, from the browser tests'
 * data, into docs/screenshots/. `npm run screenshots -- profile-edit settings`: only those.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { newAgentKey, proveKey } from '../helpers/agents.ts';
import { callback, pollingAgent } from '../helpers/payments.ts';
import { submitTask } from '../helpers/tasks.ts';
import { seed } from './fixtures.ts';
import { seedSocial } from './social-fixtures.ts';
import { registerFormAgent } from './task-form-fixtures.ts';
import { png } from '../helpers/images.ts';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import { browserSuiteSkip, freePort, logIn, openPage, settled, startHarness } from './harness.ts';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { signupPassword } from '../helpers/app.ts';

const out = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
/** Names given on the command line: only those shots (the seeded data is the same either way). */
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const wanted = (name: string) => only.length === 0 || only.includes(name);
const skip = browserSuiteSkip();

/** Loads the pictures a browser would load only when scrolled to (loading="lazy"), and waits for every image. */
async function loadEveryPicture(page: Page) {
  await page.evaluate(async () => {
    for (const image of document.querySelectorAll<HTMLImageElement>('img[loading="lazy"]')) image.loading = 'eager';
    await Promise.all(
      [...document.images].map((image) =>
        image.complete
          ? null
          : new Promise((resolve) => {
              image.addEventListener('load', resolve, { once: true });
              image.addEventListener('error', resolve, { once: true });
            }),
      ),
    );
  });
}
if (skip) {
  console.error(skip);
  process.exit(1);
}
mkdirSync(out, { recursive: true });

// An OpenID Connect issuer for browsers, so the log-in and sign-up pages show its button.
const port = await freePort();
const publicUrl = `http://127.0.0.1:${port}`;
const provider = await startOidcProvider({ audience: 'agentry', webClient: { clientId: 'agentry-web', redirectUri: `${publicUrl}/v1/auth/oidc/callback` } });
const harness = await startHarness({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: 'agentry', OIDC_CLIENT_ID: 'agentry-web', PUBLIC_URL: publicUrl }, { port });

/** Two agents of the signed-in person: a webhook agent with an input schema, and a paid poller with tasks and earnings. */
async function myAgents(token: string) {
  const call = async (method: string, url: string, body?: unknown, as: string | null = token) => {
    const response = await harness.app.request({ method, url, token: as, body });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json().data;
  };
  const key = newAgentKey();
  const checker = await call('POST', '/v1/agents', {
    name: 'Clause Checker',
    description: 'Checks contract clauses against the law of a country',
    longDescription: 'Reads **contracts** and lists the clauses that carry risk.',
    endpoint: 'https://clauses.example.com/tasks',
    protocols: ['rest', 'mcp'],
    categories: ['legal'],
    capabilities: ['legal-review', 'clause-extraction'],
    tags: ['contracts'],
    version: '1.4.0',
    pricePerTaskCents: 250,
    currency: 'eur',
    docsUrl: 'https://docs.example.com/clauses',
    pubkey: key.pubkey,
    inputSchema: {
      country: { type: 'string', required: true, enum: ['de', 'fr', 'uk'], description: 'Whose law to check against' },
      strict: { type: 'boolean', default: true, description: 'Flag every unusual clause' },
    },
  });
  await proveKey(harness.app, token, checker.id, key);
  const digest = await call('POST', '/v1/agents', {
    name: 'Meeting Digest',
    description: 'Turns meeting minutes into decisions and actions',
    protocols: ['rest'],
    categories: ['productivity'],
    capabilities: ['summarization'],
    pricePerTaskCents: 50,
  });
  await call('POST', `/v1/agents/${digest.id}/heartbeat`, { status: 'available', load: 0.3 });
  await call('POST', '/v1/api-keys', { name: 'digest worker', agentId: digest.id });
  const requester = await harness.app.signup('requester@example.test');
  await call(
    'POST',
    '/v1/tasks',
    { title: 'Summarise the minutes of Monday', description: 'Summarise the minutes of Monday', agentId: digest.id, maxPriceCents: 100 },
    requester.token,
  );
  const [taken] = await call('GET', `/v1/agents/${digest.id}/tasks/poll?wait=0`);
  await call('POST', `/v1/tasks/${taken.taskId}/callback`, { taskToken: taken.taskToken, result: { decisions: 3 } }, null);
  await call(
    'POST',
    '/v1/tasks',
    { title: 'Summarise the budget meeting', description: 'Summarise the budget meeting', agentId: digest.id, maxPriceCents: 100 },
    requester.token,
  );
  return { checker: checker.id as string, digest: digest.id as string };
}

const keyDir = mkdtempSync(join(tmpdir(), 'agentry-shots-'));
/** A provisional agent as `agentry register --provisional` makes one, and its key file. */
async function provisionalAgent(name: string) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyFile = join(keyDir, `${name.replace(/\W+/g, '-')}.pem`);
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  const response = await harness.app.request({
    method: 'POST',
    url: '/v1/agents/provisional',
    body: {
      name,
      description: 'Crawls public pages overnight and reports broken links',
      endpoint: 'https://crawler.example.com/hook',
      pubkey: publicKeyString(privateKey),
    },
  });
  return { id: (response.json() as { data: { id: string } }).data.id, keyFile };
}
/** What the moderation pages show: reports, an agent reported for impersonation, and one hidden post. */
async function moderationSeed(graceToken: string, adaToken: string, translatorId: string) {
  const ask = async (method: string, url: string, token: string | null, body?: unknown) => {
    const response = await harness.app.request({ method, url, token, body });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const admin = 'operator@example.test';
  await harness.app.signup(admin);
  const granted = await runAdminCommand(['grant', admin], harness.app.database.db, harness.app.clock);
  if (granted.exitCode !== 0) throw new Error(granted.output);
  const seller = await harness.app.signup('deals@example.test');
  await ask('POST', '/v1/users', seller.token, { username: 'best_deals', displayName: 'Best Deals' });
  const spam = (await ask('POST', '/v1/social/posts', seller.token, { body: 'Get 10,000 followers today for $5! Limited offer, DM me now.' })).post.id;
  const more = (await ask('POST', '/v1/social/posts', seller.token, { body: 'Cheap followers, cheap likes, cheap reviews. Ask me how.' })).post.id;
  const report = (token: string, type: string, id: string, reason: string, note?: string) =>
    ask('POST', '/v1/reports', token, { subject: { type, id }, reason, ...(note && { note }) });
  await report(graceToken, 'post', more, 'spam', 'The same offer again.');
  const adminToken = (await ask('POST', '/v1/auth/login', null, { email: admin, password: signupPassword })).data.token as string;
  await ask('POST', '/v1/admin/actions', adminToken, {
    action: 'hide',
    subject: { type: 'post', id: more },
    reason: 'Selling followers is spam under the instance rules.',
  });
  await report(graceToken, 'post', spam, 'spam', 'Posted the same offer in five threads.');
  await report(adaToken, 'post', spam, 'spam');
  await report(graceToken, 'agent', translatorId, 'impersonation', 'Says it is the official EU translation service.');
  await report(adaToken, 'account', seller.accountId, 'spam', 'Every post is an offer to sell followers.');
  // A newcomer who signed up while sign-up needed approval, waiting in the pending list.
  await ask('PUT', '/v1/admin/policies', adminToken, { signUp: 'approval' });
  const newcomer = (await ask('POST', '/v1/auth/signup', null, { email: 'newcomer@example.test', password: signupPassword })).data.token as string;
  await ask('POST', '/v1/users', newcomer, { username: 'new_arrival', displayName: 'New Arrival', bio: 'Just here to read about agents.' });
  await ask('PUT', '/v1/admin/policies', adminToken, { signUp: 'open' });
  return { admin, spam };
}

try {
  const data = await seed(harness.app, { hostile: false });
  const person = await harness.app.signup('ada@example.test');
  await harness.app.request({
    method: 'POST',
    url: '/v1/users',
    token: person.token,
    body: { username: 'ada', displayName: 'Ada Lovelace', bio: 'I run a few agents and review their receipts.' },
  });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'ci runner' } });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'laptop' } });
  const formAgent = await registerFormAgent(harness.app, data.owner.token, 'Document Translator');
  // The translator's measured health: checks as its deliveries and probes would count them (the prober is off here).
  for (let check = 0; check < 40; check++) harness.app.health.measurements.record(data.translator.id, { ok: true, ms: 150 + (check % 5) * 20 });
  harness.app.health.measurements.record(data.translator.id, { ok: false, ms: 0, reason: "the agent's endpoint did not answer in time" });
  harness.app.health.measurements.record(data.translator.id, { ok: true, ms: 170 });
  const mine = await myAgents(person.token);
  // The pictures of the picture posts, drawn by the browser itself: a rack before and after a tidy-up, a port label, a chart.
  const drawn = await openPage(harness, { width: 480, height: 320 });
  const draw = async (html: string) => {
    await drawn.page.setContent(`<body style="margin:0;width:480px;height:320px;overflow:hidden;font:20px system-ui">${html}</body>`);
    return drawn.page.screenshot();
  };
  const rack = (cables: string) =>
    `<div style="position:relative;width:480px;height:320px;background:#2b2f36">${[0, 1, 2, 3, 4, 5]
      .map(
        (row) => `<div style="position:absolute;left:120px;top:${24 + row * 46}px;width:240px;height:36px;background:#4a515c;border:2px solid #6b7480"></div>`,
      )
      .join('')}${cables}</div>`;
  const pictures: [Buffer, Buffer, Buffer, Buffer] = [
    await draw(
      rack(
        [40, 90, 150, 200, 260]
          .map(
            (top, i) =>
              `<div style="position:absolute;left:60px;top:${top}px;width:360px;height:8px;border-radius:4px;background:${i % 2 ? '#e0b000' : '#2f7fd8'};transform:rotate(${(i - 2) * 9}deg)"></div>`,
          )
          .join(''),
      ),
    ),
    await draw(
      rack(
        '<div style="position:absolute;left:96px;top:20px;width:10px;height:280px;background:#2f7fd8"></div><div style="position:absolute;left:374px;top:20px;width:10px;height:280px;background:#e0b000"></div>',
      ),
    ),
    await draw(
      '<div style="display:flex;align-items:center;justify-content:center;height:320px;background:#e9e4d8"><div style="padding:24px 40px;background:#fff;border:3px solid #333;font:600 40px ui-monospace,monospace">PORT 07 · agent-3</div></div>',
    ),
    await draw(
      `<div style="display:flex;align-items:flex-end;gap:14px;height:280px;padding:20px 30px 0;background:#fff">${[10, 12, 60, 180, 240, 200, 90, 20]
        .map((queued) => `<div style="width:40px;height:${queued}px;background:${queued > 100 ? '#b42318' : '#0a5dc2'}"></div>`)
        .join('')}</div>`,
    ),
  ];
  await drawn.close();
  const social = await seedSocial(harness.app, { translatorId: data.translator.id, ownerToken: data.owner.token, ada: person, filler: 6, pictures });
  // Ada follows two topics, so the topic pages show the Follow button pressed.
  for (const topic of ['cloud', 'cybersecurity'])
    assert.equal((await harness.app.request({ method: 'POST', url: `/v1/social/topics/${topic}/follow`, token: social.ada.token })).statusCode, 200);
  // Moderation: an admin of its own (so Ada's pages keep their top bar), posts reported by two people,
  // a reported agent, and one action already in the audit log.
  const moderation = await moderationSeed(social.grace.token, person.token, data.translator.id);
  // Accounts Ada muted and blocked, for the settings page; they post nothing, so no other page changes.
  for (const [username, displayName, what] of [
    ['loud_bot', 'Loud Bot', 'mute'],
    ['spam_bot', 'Spam Bot', 'block'],
  ] as const) {
    const { token } = await harness.app.signup(`${username}@example.test`);
    await harness.app.request({ method: 'POST', url: '/v1/users', token, body: { username, displayName } });
    await harness.app.request({ method: 'POST', url: `/v1/social/users/${username}/${what}`, token: person.token });
  }
  // Posts Ada bookmarked and words she muted, for the bookmarks page and the settings page; no seeded post holds those words.
  for (const id of [social.discussed, social.quote])
    assert.equal((await harness.app.request({ method: 'POST', url: `/v1/social/posts/${id}/bookmark`, token: person.token })).statusCode, 201);
  const muted = { words: ['spoiler', 'giveaway', '#nft'] };
  assert.equal((await harness.app.request({ method: 'PUT', url: '/v1/social/muted-words', token: person.token, body: muted })).statusCode, 200);
  let liveMentions = 0;
  /** A post with a thread of replies, made once, on the first screenshot that shows it. */
  let threadPost: string | null = null;
  const thread = async () => {
    if (threadPost) return threadPost;
    const say = async (token: string, url: string, body: unknown) => {
      const response = await harness.app.request({ method: 'POST', url, token, body });
      assert.ok(response.statusCode < 300, response.body);
      return response.json();
    };
    const post = (await say(social.grace.token, '/v1/social/posts', { body: 'How do you roll out a schema change without downtime?' })).post.id as string;
    const root = (await say(social.ada.token, `/v1/social/posts/${post}/comments`, { body: 'Expand, migrate, contract: three deploys.' })).comment.id as string;
    const reply = (await say(social.grace.token, `/v1/social/posts/${post}/comments`, { body: 'Three deploys for one column?', parentId: root })).comment
      .id as string;
    await say(social.ada.token, `/v1/social/posts/${post}/comments`, { body: 'For a column people read while you change it, yes.', parentId: reply });
    for (const words of ['We do the same, with a flag per step.', 'Agreed: the contract step is the one people skip.', 'And test the rollback of each step.'])
      await say(social.grace.token, `/v1/social/posts/${post}/comments`, { body: words, parentId: root });
    await say(social.ada.token, `/v1/social/posts/${post}/comments`, { body: 'Is there a tool that plans the steps?' });
    return (threadPost = post);
  };

  // Ada's tasks, to a polling agent of another person that the script plays.
  const charts = await harness.app.signup('charts@example.test');
  const chartKey = newAgentKey();
  const chartMaker = await pollingAgent(harness.app, charts.token, {
    name: 'Chart Maker',
    description: 'Turns tables into charts and one-paragraph summaries',
    capabilities: ['charts', 'summarization'],
    pubkey: chartKey.pubkey,
  });
  // A proven key, so a receipt Ada signs about a finished task is bound to it.
  await proveKey(harness.app, charts.token, chartMaker.id, chartKey);
  // Ada's own key file, for signing outcome receipts in the task page.
  const adaKeyFile = join(keyDir, 'ada-key.pem');
  writeFileSync(adaKeyFile, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  const take = async () => {
    const polled = await harness.app.request({ method: 'GET', url: `/v1/agents/${chartMaker.id}/tasks/poll?wait=0&limit=1`, token: charts.token });
    return (polled.json().data as { taskToken: string }[])[0]!.taskToken;
  };
  const chartUrl = 'https://images.example.test/q3-revenue.png';
  const completed = await submitTask(harness.app, person.token, {
    agentId: chartMaker.id,
    title: 'Chart Q3 revenue by region',
    taskClass: 'data.charts',
    description: 'Chart the attached Q3 revenue by region and summarise it in one paragraph',
    input: { quarter: 'Q3', regions: ['EMEA', 'Americas', 'APAC'] },
  });
  await callback(harness.app, completed.id, {
    taskToken: await take(),
    result: { summary: 'Revenue rose 4% on Q2, led by APAC (+11%); EMEA was flat.', chart: chartUrl, regions: { EMEA: 1.2, Americas: 2.9, APAC: 1.6 } },
  });
  const failed = await submitTask(harness.app, person.token, {
    agentId: chartMaker.id,
    title: 'Chart the scanned 2019 ledger',
    description: 'Chart yearly totals from the scanned ledger',
  });
  await callback(harness.app, failed.id, { taskToken: await take(), error: { code: 'unreadable_input', message: 'The scan has no text layer' } });
  const cancelled = await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart website visits' });
  await harness.app.request({ method: 'POST', url: `/v1/tasks/${cancelled.id}/cancel`, token: person.token });
  const running = await submitTask(harness.app, person.token, {
    agentId: chartMaker.id,
    title: 'Chart support tickets per week',
    description: 'Weekly ticket counts for the last quarter, as a bar chart',
    input: { weeks: 13 },
  });
  await take();
  await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart churn by plan', description: 'Monthly churn per plan, as a line chart' });
  // The chart the result names, drawn by the browser itself so nothing leaves the machine.
  const chartPage = await openPage(harness, { width: 320, height: 240 });
  await chartPage.page.setContent(
    `<body style="margin:0;font:14px system-ui;background:#fff"><div style="display:flex;align-items:flex-end;gap:24px;height:200px;padding:20px 40px 0">${[
      ['EMEA', 90],
      ['Americas', 170],
      ['APAC', 120],
    ]
      .map(([label, height]) => `<div style="text-align:center"><div style="width:56px;height:${height}px;background:#0a5dc2"></div>${label}</div>`)
      .join('')}</div></body>`,
  );
  const chartPng = await chartPage.page.screenshot();
  await chartPage.close();
  const serveChart = (page: Page) => page.route(chartUrl, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: chartPng }));

  const shots: {
    name: string;
    url: string;
    signedIn?: boolean;
    /** Whom to sign in as: Ada unless named. */
    as?: string;
    prepare?: (page: Page) => Promise<unknown>;
    ready: (page: Page) => Promise<unknown>;
  }[] = [
    {
      name: 'home',
      url: '/',
      ready: async (page) => {
        await page.locator('.agent-card').first().waitFor();
        await page.locator('[data-post-id]').first().waitFor();
      },
    },
    { name: 'agents-search', url: '/agents?q=translate+a+contract+to+German', ready: (page) => page.locator('.agent-card').first().waitFor() },
    {
      name: 'agents-filtered',
      url: '/agents?category=productivity',
      ready: async (page) => {
        await page.locator('.agent-card').first().waitFor();
        // On a phone the filters are folded: open them, to show them.
        const toggle = page.getByRole('button', { name: /^Filters/ });
        if (await toggle.isVisible()) await toggle.click();
      },
    },
    { name: 'agents-empty', url: '/agents?q=translate&protocol=grpc', ready: (page) => page.getByText('No agent fits this search.').waitFor() },
    { name: 'agent', url: `/agents/${data.translator.slug}`, ready: (page) => page.getByRole('row', { name: /language\.translation/ }).waitFor() },
    { name: 'capabilities', url: '/capabilities', ready: (page) => page.locator('.catalogue section').first().waitFor() },
    { name: 'login', url: '/login?next=%2Fsettings', ready: (page) => page.getByLabel('Email').waitFor() },
    { name: 'signup', url: '/signup', ready: (page) => page.getByLabel('Email').waitFor() },
    {
      name: 'login-oidc-cancelled',
      url: '/login?next=%2F&oidc_error=provider&oidc_detail=access_denied',
      ready: (page) => page.getByRole('link', { name: /Sign in with/ }).waitFor(),
    },
    { name: 'settings', url: '/settings', signedIn: true, ready: (page) => page.getByLabel('Display name').waitFor() },
    { name: 'settings-keys', url: '/settings/keys', signedIn: true, ready: (page) => page.getByRole('row', { name: /laptop/ }).waitFor() },
    {
      name: 'task-form',
      url: `/agents/${formAgent.slug}/task`,
      signedIn: true,
      ready: async (page) => {
        await page.getByLabel('Source text').fill('The tenant shall pay the rent monthly.');
        await page.locator('input[type=file]').setInputFiles({ name: 'scan.png', mimeType: 'image/png', buffer: png });
        await page.locator('img.image-preview').waitFor();
      },
    },
    { name: 'my-agents', url: '/me/agents', signedIn: true, ready: (page) => page.getByRole('link', { name: 'Clause Checker' }).waitFor() },
    { name: 'my-agents-new', url: '/me/agents/new', signedIn: true, ready: (page) => page.getByLabel('Productivity').waitFor() },
    { name: 'my-agent-overview', url: `/me/agents/${mine.digest}`, signedIn: true, ready: (page) => page.getByRole('row', { name: /minutes/ }).waitFor() },
    {
      name: 'my-agent-settings',
      url: `/me/agents/${mine.checker}/settings`,
      signedIn: true,
      ready: (page) => page.getByRole('region', { name: 'Preview of the task form' }).waitFor(),
    },
    {
      name: 'my-agent-keys',
      url: `/me/agents/${mine.digest}/keys`,
      signedIn: true,
      ready: (page) => page.getByRole('row', { name: /digest worker/ }).waitFor(),
    },
    {
      name: 'my-agent-delivery',
      url: `/me/agents/${mine.digest}/delivery`,
      signedIn: true,
      ready: (page) => page.getByText('waiting for the agent to poll').waitFor(),
    },
    {
      name: 'my-agent-trust',
      url: `/me/agents/${mine.checker}/trust`,
      signedIn: true,
      ready: (page) => page.getByText(/No verified outcome receipts yet/).waitFor(),
    },
    {
      name: 'my-agent-earnings',
      url: `/me/agents/${mine.digest}/earnings`,
      signedIn: true,
      ready: (page) => page.getByRole('table', { name: 'Paid tasks' }).waitFor(),
    },
    {
      name: 'home-signed-in',
      url: '/',
      signedIn: true,
      ready: async (page) => {
        await page.locator('.task-row').first().waitFor();
        await page.locator('[data-post-id]').nth(5).waitFor();
      },
    },
    {
      // Quote from the feed: the post page's quote box, under the post.
      name: 'feed-quote',
      url: '/?feed=following',
      signedIn: true,
      ready: async (page) => {
        const card = page.locator('[data-post-id]').nth(1);
        await card.getByRole('button', { name: 'Repost or quote' }).click();
        await card.getByRole('button', { name: 'Quote', exact: true }).click();
        await page.getByRole('form', { name: 'Quote this post' }).getByLabel('Your quote').fill('Worth reading before the release.');
        // The box took the focus and scrolled to it: a full-page shot is taken from the top, with the top bar there.
        if (page.viewportSize()!.width > 390) await page.evaluate(() => window.scrollTo(0, 0));
      },
    },
    {
      name: 'report-dialog',
      url: `/posts/${social.quote}`,
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('button', { name: 'Report this post' }).click();
        const dialog = page.getByRole('dialog', { name: 'Report this post' });
        await dialog.getByRole('radio', { name: 'Impersonation' }).check();
        await dialog.getByLabel('Note for the moderators (optional)').fill('Quotes Ada as if it were her own post.');
      },
    },
    {
      name: 'admin-queue',
      url: '/admin',
      signedIn: true,
      as: moderation.admin,
      ready: (page) => page.getByText('Posted the same offer in five threads.').waitFor(),
    },
    {
      name: 'admin-action',
      url: '/admin',
      signedIn: true,
      as: moderation.admin,
      ready: async (page) => {
        const item = page.getByRole('listitem', { name: /Get 10,000 followers/ });
        await item.getByRole('button', { name: 'Hide', exact: true }).click();
        await page.getByRole('dialog', { name: 'Hide this post?' }).getByLabel('Reason').fill('Selling followers is spam under the instance rules.');
      },
    },
    {
      name: 'admin-pending',
      url: '/admin?tab=pending',
      signedIn: true,
      as: moderation.admin,
      ready: (page) => page.getByRole('link', { name: 'newcomer@example.test' }).waitFor(),
    },
    {
      name: 'admin-log',
      url: '/admin?tab=log',
      signedIn: true,
      as: moderation.admin,
      ready: (page) => page.locator('.admin-log-row').first().waitFor(),
    },
    {
      name: 'admin-policies',
      url: '/admin?tab=policies',
      signedIn: true,
      as: moderation.admin,
      ready: (page) => page.getByRole('button', { name: 'Save policies' }).waitFor(),
    },
    { name: 'post', url: `/posts/${social.discussed}`, ready: (page) => page.locator('.comment').nth(1).waitFor() },
    {
      name: 'post-with-comments',
      url: `/posts/${social.discussed}`,
      signedIn: true,
      ready: async (page) => {
        await page.locator('.comment').nth(1).waitFor();
        await page
          .getByRole('button', { name: 'Undo repost' })
          .or(page.getByRole('button', { name: 'Repost', exact: true }))
          .waitFor();
      },
    },
    {
      // People offered for an @mention while writing.
      name: 'composer',
      url: '/',
      signedIn: true,
      ready: async (page) => {
        await page.locator('[data-post-id]').first().waitFor();
        await page.getByLabel('Your post').pressSequentially('Thanks to @gr');
        await page.getByRole('listbox', { name: 'People to mention' }).waitFor();
      },
    },
    {
      name: 'composer-refused',
      url: '/',
      signedIn: true,
      ready: async (page) => {
        await page.locator('[data-post-id]').first().waitFor();
        await page.getByLabel('Your post').fill(`Release notes for the week, too long to post: ${'all green, '.repeat(42)}`);
        await page.getByRole('button', { name: 'Post', exact: true }).click();
        await page.getByRole('form', { name: 'Write a post' }).getByRole('alert').waitFor();
      },
    },
    {
      // A feed with pictures (three in a grid, one without a description) and a post behind a content warning.
      name: 'social-image-feed',
      url: '/topics/hardware',
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('button', { name: 'Show post' }).waitFor();
        // On a phone the pictures are below the warned post: they are what this shot is for.
        if (page.viewportSize()!.width === 390) await page.locator('.post-pictures:visible').first().scrollIntoViewIfNeeded();
        // The first picture on show (the warned post's is hidden, so never loaded).
        await page.waitForFunction(() => {
          const first = [...document.querySelectorAll<HTMLImageElement>('.post-picture img')].find((image) => image.offsetParent !== null);
          return first !== undefined && first.complete && first.naturalWidth > 0;
        });
      },
    },
    {
      // The post behind a content warning, opened.
      name: 'social-image-warning-open',
      url: `/posts/${social.warnedPost}`,
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('button', { name: 'Show post' }).click();
        await page.waitForFunction(() => {
          const picture = document.querySelector<HTMLImageElement>('.post-picture img');
          return picture !== null && picture.complete && picture.naturalWidth > 0;
        });
      },
    },
    {
      // Writing a post with a picture: its preview, its description, and the content warning.
      name: 'social-image-composer',
      url: '/',
      signedIn: true,
      ready: async (page) => {
        await page.locator('[data-post-id]').first().waitFor();
        const form = page.getByRole('form', { name: 'Write a post' });
        await form.getByLabel('Your post').fill('The new label printer works: every cable gets its port number.');
        await form.locator('input[type=file]').setInputFiles({ name: 'label.png', mimeType: 'image/png', buffer: pictures[2] });
        await form.getByLabel('Description of image 1 (alt text)').fill('A white label reading PORT 07, agent-3');
        await form.getByRole('button', { name: 'Content warning' }).click();
        await form.getByLabel('Content warning').fill('Cable mess');
        await form.getByRole('img', { name: /^Image 1/ }).waitFor();
      },
    },
    { name: 'profile', url: '/@ada', ready: (page) => page.locator('[data-post-id]').first().waitFor() },
    {
      // Someone else's profile, signed in: follow, mute or block, and Report.
      name: 'profile-other',
      url: '/@best_deals',
      signedIn: true,
      ready: (page) => page.getByRole('button', { name: 'Report this person' }).waitFor(),
    },
    {
      name: 'profile-edit',
      url: '/@ada',
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('button', { name: 'Edit profile' }).click();
        const form = page.getByRole('form', { name: 'Edit your profile' });
        await form.locator('input[type=file]').setInputFiles({ name: 'ada.png', mimeType: 'image/png', buffer: png });
        await form.getByRole('img', { name: 'Your avatar' }).waitFor();
      },
    },
    {
      name: 'social-thread',
      url: '/',
      signedIn: true,
      ready: async (page) => {
        await page.goto(`/posts/${await thread()}`);
        await page.getByRole('button', { name: 'Show 1 more reply' }).waitFor();
      },
    },
    {
      name: 'social-notifications-grouped',
      url: '/notifications',
      signedIn: true,
      ready: (page) => page.getByRole('list', { name: 'Notifications, newest first' }).getByText('followed you').first().waitFor(),
    },
    {
      // A mention made while the page is open arrives without a reload: the bell and the list.
      name: 'notifications-live',
      url: '/notifications',
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('list', { name: 'Notifications, newest first' }).waitFor();
        const text = `Live from the stream (${++liveMentions}): @ada, the weekly receipts are in.`;
        await harness.app.request({ method: 'POST', url: '/v1/social/posts', token: social.grace.token, body: { body: text } });
        await page.getByText(text).waitFor({ timeout: 10_000 });
      },
    },
    { name: 'settings-muted', url: '/settings', signedIn: true, ready: (page) => page.getByRole('list', { name: 'Blocked accounts' }).waitFor() },
    {
      name: 'settings-muted-words',
      url: '/settings',
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('list', { name: 'Muted words' }).waitFor();
        // The phone's shot is one screen: the section's. The desktop's is the whole page.
        if (page.viewportSize()!.width <= 390) await page.getByLabel('Word, phrase or #tag').scrollIntoViewIfNeeded();
      },
    },
    {
      name: 'social-bookmarks',
      url: '/bookmarks',
      signedIn: true,
      ready: (page) => page.getByRole('list', { name: 'bookmarked posts, the latest bookmark first' }).locator('article').nth(1).waitFor(),
    },
    {
      name: 'settings-delete',
      url: '/settings',
      signedIn: true,
      ready: async (page) => {
        await page.getByRole('button', { name: 'Delete account…' }).click();
        await page.getByRole('dialog', { name: 'Delete your account?' }).waitFor();
      },
    },
    { name: 'search-posts', url: '/search?q=release&tab=posts', signedIn: true, ready: (page) => page.locator('.feed [data-post-id]').nth(2).waitFor() },
    { name: 'search-people', url: '/search?q=a&tab=people', signedIn: true, ready: (page) => page.locator('.user-row').nth(1).waitFor() },
    { name: 'search-agents', url: '/search?q=translat&tab=agents', signedIn: true, ready: (page) => page.locator('.user-row').first().waitFor() },
    { name: 'topic', url: '/topics/cloud', ready: (page) => page.locator('[data-post-id]').first().waitFor() },
    {
      name: 'social-topics-list',
      url: '/topics',
      signedIn: true,
      ready: (page) =>
        page
          .getByRole('region', { name: 'Community' })
          .getByRole('button', { name: /General/ })
          .waitFor(),
    },
    {
      name: 'social-topics-topic',
      url: '/topics/devops',
      signedIn: true,
      ready: async (page) => {
        // An alias's address lands on its topic.
        await page.waitForURL(/\/topics\/cloud$/);
        await page.getByRole('heading', { level: 1, name: 'Cloud' }).waitFor();
        await page.locator('[data-post-id]').first().waitFor();
      },
    },
    { name: 'receipts', url: `/receipts?pubkey=${encodeURIComponent(data.translatorPubkey)}`, ready: (page) => page.locator('.receipt').nth(3).waitFor() },
    {
      name: 'receipts-chain',
      url: `/receipts?correlationId=${data.chainCorrelationId}`,
      ready: (page) => page.getByRole('list', { name: 'Steps of the flow' }).locator('li').nth(2).waitFor(),
    },
    { name: 'not-found', url: '/no-such-page', ready: (page) => page.getByRole('heading', { name: 'Page not found' }).waitFor() },
    { name: 'tasks', url: '/tasks', signedIn: true, ready: (page) => page.locator('.task-row').nth(4).waitFor() },
    { name: 'task-open', url: `/tasks/${running.id}`, signedIn: true, ready: (page) => page.getByText('updates live').waitFor() },
    {
      name: 'task-completed',
      url: `/tasks/${completed.id}`,
      signedIn: true,
      prepare: serveChart,
      ready: (page) => page.getByRole('button', { name: 'Send rating' }).waitFor(),
    },
    { name: 'task-failed', url: `/tasks/${failed.id}`, signedIn: true, ready: (page) => page.getByText('The scan has no text layer').waitFor() },
    {
      name: 'task-receipt-key',
      url: `/tasks/${completed.id}`,
      signedIn: true,
      prepare: serveChart,
      ready: async (page) => {
        await page.getByLabel('Your private key file (PKCS#8 PEM, Ed25519)').setInputFiles(adaKeyFile);
        // Unregistered the first time; the phone's shot comes after the wide screen's receipt registered it.
        await page
          .getByRole('button', { name: 'Register this key on my account' })
          .or(page.getByText('This key is registered on your account for signing receipts.'))
          .waitFor();
        // A full-page shot on a wide screen; on a phone, the screen at the receipt.
        if (page.viewportSize()?.width === 390)
          await page.getByRole('heading', { name: 'Sign an outcome receipt' }).evaluate((heading) => heading.scrollIntoView());
      },
    },
    {
      name: 'agent-why-this-score',
      url: `/agents/${data.translator.slug}`,
      ready: async (page) => {
        await page.getByText('Why this score', { exact: true }).click();
        await page.getByRole('heading', { name: 'Did not count' }).waitFor();
        if (page.viewportSize()?.width === 390) await page.getByText('Why this score', { exact: true }).evaluate((summary) => summary.scrollIntoView());
      },
    },
  ];

  // A cold service's first discovery answer can take many seconds on a loaded machine: take it here, not in the first page's wait.
  await harness.app.request({ method: 'GET', url: '/v1/discover?limit=5&offset=0' });
  await harness.app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent('translate a contract to German')}&limit=5&offset=0` });

  for (const width of [1280, 390]) {
    const crawler = await provisionalAgent(`Night Crawler ${width}`);
    const claimShots: typeof shots = [
      { name: 'claim', url: `/claim/${crawler.id}`, signedIn: true, ready: (page) => page.getByTestId('nonce').waitFor() },
      {
        name: 'claim-paste',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          await page.getByLabel('Paste a signature made elsewhere').check();
          await page.getByTestId('openssl-command').waitFor();
        },
      },
      {
        name: 'claim-wrong-key',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          const other = await provisionalAgent(`Other ${width}`);
          await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(other.keyFile);
          await page.getByRole('button', { name: /^Claim / }).click();
          await page.getByRole('alert').waitFor();
        },
      },
      {
        name: 'claim-done',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(crawler.keyFile);
          await page.getByRole('button', { name: /^Claim / }).click();
          await page.getByText(/is yours now/).waitFor();
        },
      },
    ];
    for (const shot of [...shots, ...claimShots].filter((s) => wanted(s.name))) {
      const { page, close } = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
      await shot.prepare?.(page);
      if (shot.signedIn) {
        await logIn(page, shot.as ?? 'ada@example.test', shot.url);
      } else {
        await page.goto(shot.url);
      }
      await shot.ready(page);
      // A full-page shot shows the page as a reader scrolling it sees it: pictures further down loaded too.
      if (width > 390) await loadEveryPicture(page);
      await settled(page);
      await page.screenshot({ path: `${out}${shot.name}-${width}.png`, fullPage: width > 390 });
      await close();
    }
    if (only.length > 0) continue;
    // The key creation box: the one moment a secret is on screen.
    const { page, close } = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
    await logIn(page, 'ada@example.test', '/settings/keys');
    await page.getByLabel('New key name').fill('deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();
    await settled(page);
    await page.screenshot({ path: `${out}settings-keys-created-${width}.png`, fullPage: width > 390 });
    // A new webhook agent's signing secret, the one time it is shown.
    await page.goto('/me/agents/new');
    await page.getByLabel('Name', { exact: true }).fill(`Deed Reader ${width}`);
    await page.getByLabel('One-line description').fill('Reads property deeds and lists the owners');
    await page.getByLabel('Endpoint (optional)').fill('https://deeds.example.com/tasks');
    await page.getByLabel('REST', { exact: true }).check();
    await page.getByLabel('Legal & Compliance').check();
    await page.getByRole('button', { name: 'Register agent' }).click();
    await page.getByTestId('webhook-secret').waitFor();
    await settled(page);
    await page.screenshot({ path: `${out}my-agents-registered-${width}.png`, fullPage: width > 390 });
    await close();

    // The requester's outcome receipt, signed in the page with a registered key, and its acknowledgement.
    const signer = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
    await serveChart(signer.page);
    await logIn(signer.page, 'ada@example.test', `/tasks/${completed.id}`);
    await signer.page.getByLabel('Your private key file (PKCS#8 PEM, Ed25519)').setInputFiles(adaKeyFile);
    const registerKey = signer.page.getByRole('button', { name: 'Register this key on my account' });
    const registered = signer.page.getByText('This key is registered on your account for signing receipts.');
    await registerKey.or(registered).waitFor();
    if (await registerKey.isVisible()) await registerKey.click();
    await registered.waitFor();
    await signer.page.getByRole('button', { name: 'Sign and send the receipt' }).click();
    await signer.page.getByTestId('receipt-ack').waitFor();
    await settled(signer.page);
    if (width === 390) await signer.page.getByRole('heading', { name: 'Sign an outcome receipt' }).evaluate((heading) => heading.scrollIntoView());
    await signer.page.screenshot({ path: `${out}task-receipt-signed-${width}.png`, fullPage: width > 390 });
    await signer.close();

    // The task form reached from search results: the search words go with the task unless unticked.
    const fromSearch = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
    const fromSearchUrl = `/agents/${formAgent.slug}/task?q=${encodeURIComponent('translate my tenancy agreement')}`;
    await logIn(fromSearch.page, 'ada@example.test', fromSearchUrl);
    const carry = fromSearch.page.getByRole('checkbox', { name: /Send my search/ });
    await carry.waitFor();
    await settled(fromSearch.page);
    if (width === 390) await carry.evaluate((box) => box.scrollIntoView({ block: 'center' }));
    await fromSearch.page.screenshot({ path: `${out}task-form-from-search-${width}.png`, fullPage: width > 390 });
    await fromSearch.close();

    // The task form described in own words, after Preview: one required field was not understood.
    const words = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
    await logIn(words.page, 'ada@example.test', `/agents/${formAgent.slug}/task`);
    await words.page.getByLabel('Describe it in your own words').check();
    await words.page.getByLabel('Describe the task in your own words').fill('Please translate my rental contract, formal tone, 3 pages');
    await words.page.getByRole('button', { name: 'Preview' }).click();
    await words.page.getByText('Not found in your description: fill it in.').waitFor();
    await settled(words.page);
    // On a phone the top and tab bars stay put, so the shot is of the screen at the extracted fields.
    // The flagged field took the focus and scrolled the page: a full-page shot starts from the top again.
    if (width === 390) await words.page.getByRole('heading', { name: 'What was understood' }).evaluate((heading) => heading.scrollIntoView());
    else await words.page.evaluate(() => window.scrollTo(0, 0));
    await words.page.screenshot({ path: `${out}task-form-preview-${width}.png`, fullPage: width > 390 });
    await words.close();
  }
  console.log(`screenshots written to ${out}`);
} finally {
  await harness.close();
  await provider.close();
  rmSync(keyDir, { recursive: true, force: true });
}
