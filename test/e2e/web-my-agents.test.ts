import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { hostile } from './fixtures.ts';
import { signupPassword } from '../helpers/app.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type ExpectedFailure, type Harness } from './harness.ts';

/** An agent's page answers 404 for its payment account until one is connected: that is how the page learns there is none. */
const noPaymentAccount: ExpectedFailure = { status: 404, url: /\/v1\/agents\/[^/]+\/payment-account$/ };

let people = 0;
/** A person with a profile, as most owners are (without one the app asks for /v1/users/me and gets 404). */
async function person(harness: Harness, email?: string) {
  const account = await harness.app.signup(email);
  const created = await harness.app.request({
    method: 'POST',
    url: '/v1/users',
    token: account.token,
    body: { username: `owner_${people}`, displayName: `Owner ${people++}` },
  });
  assert.equal(created.statusCode, 201, created.body);
  return account;
}

async function agentRow(harness: Harness, id: string) {
  return harness.app.database.db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
}

async function register(harness: Harness, token: string, body: Record<string, unknown>) {
  const response = await harness.app.request({ method: 'POST', url: '/v1/agents', token, body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data as { id: string; slug: string; name: string; webhookSecret?: string };
}

/** Nothing scrolls sideways at 390 px: not the page, not the agent's tabs (they wrap onto a second line). */
async function fitsThePhone(page: Page, where: string) {
  const widths = await page.evaluate(() => {
    const tabs = document.querySelector('nav[aria-label="Agent sections"]')!;
    return { page: document.documentElement.scrollWidth, tabs: tabs.scrollWidth, tabsShown: tabs.clientWidth };
  });
  assert.equal(widths.page, 390, `${where}: the page is no wider than the phone`);
  assert.ok(widths.tabs <= widths.tabsShown, `${where}: the tabs wrap (${widths.tabs} > ${widths.tabsShown})`);
  const last = (await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Earnings' }).boundingBox())!;
  assert.ok(last.x + last.width <= 390, `${where}: the last tab is on the screen`);
}

describe('web app: my agents (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(() => harness?.close());

  it('sends a signed-out visitor to log in first', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/me/agents/new');
    await page.waitForURL(/\/login\?next=%2Fme%2Fagents%2Fnew$/);
    assertClean();
    await close();
  });

  it('shows the API message and a retry when the list cannot be loaded', async () => {
    const owner = await person(harness, 'unlucky@example.test');
    await register(harness, owner.token, { name: 'Sturdy Agent', description: 'Survives outages', protocols: ['rest'], categories: ['productivity'] });
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 503, url: /\/v1\/agents\?/ }] });
    // The service is unavailable until the person retries.
    let failing = true;
    let attempts = 0;
    let answered = 0;
    // Retries wait here until the test has looked, so a slow machine cannot answer one early.
    let releaseRetries = () => {};
    const retriesReleased = new Promise<void>((resolve) => (releaseRetries = resolve));
    await page.route(/\/v1\/agents\?/, async (route) => {
      attempts++;
      if (!failing) return route.continue();
      if (attempts > 1) await retriesReleased;
      answered++;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'UNAVAILABLE', message: 'The registry is restarting' }),
      });
    });
    await logIn(page, owner.email, '/me/agents');
    const alert = page.getByRole('alert');
    await alert.getByText('The registry is restarting').waitFor();
    // The message comes with the first failure, not after every retry.
    assert.equal(answered, 1);
    releaseRetries();
    await assertAccessible(page, 'my agents, error');
    // The app keeps retrying behind the message.
    while (attempts < 2) await page.waitForTimeout(100);
    await alert.getByText('The registry is restarting').waitFor();
    failing = false;
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('link', { name: 'Sturdy Agent' }).waitFor();
    assertClean();
    await close();
  });

  it('registers a webhook agent through the form by keyboard, shows its secret once, and lists it', async () => {
    const { email } = await person(harness, 'keyboard-owner@example.test');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, email, '/me/agents');
    await page.getByText('No agents yet. Register one').waitFor();
    await settled(page);
    await assertAccessible(page, 'my agents, empty');
    // From the empty state's own button.
    await page.getByRole('main').getByRole('link', { name: 'Register an agent' }).last().press('Enter');
    await page.waitForURL(/\/me\/agents\/new$/);
    await page.getByLabel('Name', { exact: true }).waitFor();
    await settled(page);
    await assertAccessible(page, 'register an agent');

    const type = async (label: string | RegExp, text: string) => {
      await page.getByLabel(label, { exact: typeof label === 'string' }).focus();
      await page.keyboard.type(text);
    };
    // Sending it empty names what is missing, under each field, and focuses the first.
    await page.getByRole('button', { name: 'Register agent' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#agent-name-message').getByText('Give the agent a name').waitFor();
    await page.locator('#agent-protocols-message').getByText('Choose at least one protocol').waitFor();
    await page.locator('#agent-categories-message').getByText('Choose at least one category').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'agent-name');

    await page.keyboard.type('Clause Checker');
    await type('One-line description', 'Checks contract clauses against the law of a country');
    await type('Long description (markdown, optional)', 'Reads **contracts** and lists risky clauses.');
    await type('Version (optional)', 'one');
    await page.locator('#agent-version-message').getByText('A semantic version, such as 1.2.0').waitFor();
    await page.getByLabel('Version (optional)').press('Control+A');
    await page.keyboard.type('1.4.0');
    await type('Endpoint (optional)', 'https://clauses.example.com/tasks');
    // An endpoint makes webhook delivery the default, as on the server.
    assert.equal(await page.getByRole('radio', { name: /Webhook: tasks are sent/ }).isChecked(), true);
    await page.getByLabel('REST', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByLabel('MCP', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByLabel('Authentication').focus();
    await page.keyboard.press('ArrowDown'); // api_key
    await page.getByLabel('Legal & Compliance').focus();
    await page.keyboard.press('Space');
    await type('Capabilities', 'legal-review');
    await page.keyboard.press('Enter');
    // The form says under which class the agent's trust will count: its first capability's, in or out of the catalogue.
    await page.locator('#agent-capabilities-message').getByText('Trust for this agent will be counted under legal.contract-review', { exact: false }).waitFor();
    await page.keyboard.type('clause-extraction,');
    await type('Tags', 'contracts');
    await page.keyboard.press('Enter');
    await page.getByLabel('Price per task').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2.50');
    await page.getByLabel('Currency').focus();
    await page.keyboard.press('ArrowDown'); // eur
    await type('Docs URL (optional)', 'https://docs.example.com/clauses');
    await type('Twitter / X URL (optional)', 'https://x.com/clausechecker');
    await page.getByRole('button', { name: 'Register agent' }).focus();
    await page.keyboard.press('Enter');

    const secretBox = page.getByRole('region', { name: 'The agent’s webhook signing secret' });
    await secretBox.waitFor();
    // The address is the agent's own page already, with the secret shown once on it.
    await page.waitForURL(/\/me\/agents\/[^/]+$/);
    assert.doesNotMatch(page.url(), /\/new$/);
    await page.getByRole('status').getByText('Clause Checker is registered.').waitFor();
    const secret = await page.getByTestId('webhook-secret').innerText();
    assert.match(secret, /^whsec_/);
    await page.getByText('You will not see this again').waitFor();
    await assertAccessible(page, 'registered, secret shown');
    await secretBox.getByRole('button', { name: 'Copy' }).press('Enter');
    await secretBox.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

    // Stored as typed: every field made it.
    const me = await harness.app.database.db.selectFrom('agents').selectAll().where('name', '=', 'Clause Checker').executeTakeFirstOrThrow();
    assert.equal(me.webhook_secret, secret);
    assert.equal(me.description, 'Checks contract clauses against the law of a country');
    assert.equal(me.version, '1.4.0');
    assert.equal(me.endpoint, 'https://clauses.example.com/tasks');
    assert.equal(me.delivery_mode, 'webhook');
    assert.equal(me.auth_type, 'api_key');
    assert.equal(Number(me.price_per_task_cents), 250);
    assert.equal(me.currency, 'eur');
    assert.equal(me.docs_url, 'https://docs.example.com/clauses');
    const list = (text: unknown) => (typeof text === 'string' ? JSON.parse(text) : text) as string[];
    assert.deepEqual(list(me.protocols).sort(), ['mcp', 'rest']);
    assert.deepEqual(list(me.categories), ['legal']);
    assert.deepEqual(list(me.capabilities), ['legal-review', 'clause-extraction']);

    // Dismissed, the secret is gone for good; the agent's page does not show it again.
    await secretBox.getByRole('button', { name: 'I have stored it' }).press('Enter');
    assert.match(page.url(), new RegExp(`/me/agents/${me.id}$`));
    await page.getByRole('heading', { name: 'Clause Checker' }).waitFor();
    assert.equal(await page.getByText(secret).count(), 0);
    // A reload shows the agent again, not an empty form and not the secret.
    await page.reload();
    await page.getByRole('heading', { name: 'Clause Checker' }).waitFor();
    await settled(page);
    assert.equal(await page.getByText(secret).count(), 0);
    assert.equal(await page.getByLabel('Name', { exact: true }).count(), 0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My agents' }).press('Enter');
    const card = page.getByRole('listitem').filter({ hasText: 'Clause Checker' });
    await card.waitFor();
    const cardText = await card.innerText();
    for (const word of ['€2.50 / task', 'active', 'public', 'Delivery: webhook', 'Not seen yet']) assert.ok(cardText.includes(word), `${word} in ${cardText}`);
    await settled(page);
    await assertAccessible(page, 'my agents');
    assertClean();
    await close();
  });

  it('scrolls a field focused by validation into view below the sticky top bar, on a wide screen and a phone', async () => {
    const owner = await person(harness);
    for (const width of [1280, 390]) {
      const { page, assertClean, close } = await openPage(harness, { width, height: 700 });
      await logIn(page, owner.email, '/me/agents/new');
      await page.getByLabel('One-line description').fill('Filled, while the name is not');
      // The name field sits just under the top bar, inside the window, when the form is sent.
      await page.evaluate(() => {
        const name = document.getElementById('agent-name')!;
        window.scrollBy(0, name.getBoundingClientRect().top - 20);
        name.closest('form')!.requestSubmit();
      });
      await page.waitForFunction(() => document.activeElement?.id === 'agent-name');
      await page.waitForTimeout(300);
      const field = (await page.getByLabel('Name', { exact: true }).boundingBox())!;
      const bar = (await page.locator('.topbar').boundingBox())!;
      assert.ok(field.y >= bar.y + bar.height, `at ${width} px the name field (top ${field.y}) is below the top bar (bottom ${bar.y + bar.height})`);
      assertClean();
      await close();
    }
  });

  it('after the session ends, sends the person to log in, shows them signed out, and restores what they typed (never a key)', async () => {
    const owner = await person(harness);
    const { page, context, assertClean, close } = await openPage(harness, { expected: [{ status: 401, url: /\/v1\/agents$/ }] });
    await logIn(page, owner.email, '/me/agents/new');
    await page.getByLabel('Name', { exact: true }).fill('Half Typed Agent');
    await page.getByLabel('One-line description').fill('Typed before the session ended');
    await page.getByLabel('REST', { exact: true }).check();
    await page.getByLabel('Legal & Compliance').check();
    await page.getByLabel('Paste a public key (ed25519:…)').check();
    const pubkey = publicKeyString(generateKeyPairSync('ed25519').privateKey);
    await page.getByLabel('Public key', { exact: true }).fill(pubkey);
    // The session ends on the server (as when it expires, or is logged out in another tab).
    const csrf = (await context.cookies()).find((cookie) => cookie.name === 'agentry_csrf')!.value;
    const ended = await context.request.post('/v1/auth/logout', { headers: { 'x-csrf-token': csrf } });
    assert.equal(ended.status(), 200, await ended.text());
    await page.getByRole('button', { name: 'Register agent' }).click();

    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === '/me/agents/new');
    await page.getByText('Your session has ended.').waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Log in' }).waitFor();
    const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
    assert.ok(kept.includes('Half Typed Agent'), kept);
    assert.ok(!kept.includes(pubkey), 'the key is not kept');
    await assertAccessible(page, 'log in after the session ended');

    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === '/me/agents/new');
    const name = page.getByLabel('Name', { exact: true });
    await page.waitForFunction(() => (document.getElementById('agent-name') as HTMLInputElement | null)?.value === 'Half Typed Agent');
    assert.equal(await name.inputValue(), 'Half Typed Agent');
    assert.equal(await page.getByLabel('One-line description').inputValue(), 'Typed before the session ended');
    assert.equal(await page.getByLabel('REST', { exact: true }).isChecked(), true);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'forgotten once restored');
    assert.equal(await page.getByLabel('Public key', { exact: true }).count(), 0, 'the key choice starts afresh');
    assertClean();
    await close();
  });

  it('shows the server refusal of a lookalike name under the name field', async () => {
    const other = await person(harness);
    await register(harness, other.token, { name: 'Inbox Summarizer', description: 'Summarises an inbox', protocols: ['rest'], categories: ['productivity'] });
    const { email } = await person(harness, 'lookalike@example.test');
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 409, url: /\/v1\/agents$/ }] });
    await logIn(page, email, '/me/agents/new');
    // A Cyrillic і: another slug, the same look.
    await page.getByLabel('Name', { exact: true }).fill('Inbox Summarіzer');
    await page.getByLabel('One-line description').fill('Summarises my inbox');
    await page.getByLabel('REST', { exact: true }).check();
    await page.getByLabel('Productivity', { exact: true }).check();
    await page.getByRole('button', { name: 'Register agent' }).click();
    await page.locator('#agent-name-message').getByText('looks like "Inbox Summarizer" (inbox-summarizer)').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    // Nothing was stored.
    assert.equal((await harness.app.database.db.selectFrom('agents').select('id').where('name', '=', 'Inbox Summarіzer').execute()).length, 0);
    assertClean();
    await close();
  });

  it('edits the input schema as JSON and field by field, previews its form, and registers it', async () => {
    const { email } = await person(harness, 'schema@example.test');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, email, '/me/agents/new');
    const json = page.getByLabel('Input schema (JSON)');
    await json.fill('{ "language": { "type": "string", ');
    await page
      .locator('#agent-inputSchema-message')
      .getByText(/^This is not valid JSON/)
      .waitFor();
    await json.fill('{ "size": { "type": "number", "enum": [1, 2], "default": 3 } }');
    await page.locator('#agent-inputSchema-message').getByText('size/default: must be one of the enum values').waitFor();
    await json.fill(
      '{ "language": { "type": "string", "required": true, "enum": ["de", "fr"], "enumLabels": { "de": "German" }, "description": "Language to check against" } }',
    );
    await page.locator('#agent-inputSchema-message').getByText('Valid: 1 field').waitFor();

    // The small editor adds fields to the text.
    await page.getByLabel('Field name').fill('strict');
    await page.getByLabel('Type').selectOption('boolean');
    await page.getByLabel('Label (optional)').fill('Strict review');
    await page.getByLabel('Description', { exact: true }).fill('Flag every unusual clause');
    await page.getByLabel('Default').fill('maybe');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByText('The default must be a boolean').waitFor();
    await page.getByLabel('Default').fill('true');
    await page.getByLabel('Default').press('Enter');
    await page.getByText('Valid: 2 fields').waitFor();
    await page.getByLabel('Field name').fill('pages');
    await page.getByLabel('Type').selectOption('number');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByText('Valid: 3 fields').waitFor();
    await page.getByRole('button', { name: 'Remove the field pages' }).click();
    await page.getByText('Valid: 2 fields').waitFor();

    // The preview is the task form requesters will get.
    const preview = page.getByRole('region', { name: 'Preview of the task form' });
    await preview.getByRole('combobox', { name: /Language/ }).waitFor();
    assert.deepEqual(
      await preview
        .getByRole('combobox', { name: /Language/ })
        .locator('option')
        .allInnerTexts(),
      ['Choose…', 'German', 'fr'],
    );
    assert.equal(await preview.getByRole('switch', { name: 'Strict review' }).isChecked(), true);
    assert.deepEqual(await page.getByRole('list', { name: 'Fields of the input schema' }).locator('li > span:first-child').allTextContents(), [
      'Language language',
      'Strict review strict',
    ]);
    await preview.getByText('Language to check against').waitFor();
    await settled(page);
    await assertAccessible(page, 'input schema editor and preview');

    await page.getByLabel('Name', { exact: true }).fill('Schema Agent');
    await page.getByLabel('One-line description').fill('Takes a language and a flag');
    await page.getByLabel('REST', { exact: true }).check();
    await page.getByLabel('Legal & Compliance').check();
    await page.getByRole('button', { name: 'Register agent' }).click();
    // Without an endpoint it polls: no secret, straight to its page.
    await page.getByRole('navigation', { name: 'Agent sections' }).waitFor();
    const row = await harness.app.database.db.selectFrom('agents').selectAll().where('name', '=', 'Schema Agent').executeTakeFirstOrThrow();
    assert.equal(row.delivery_mode, 'poll');
    assert.equal(row.webhook_secret, null);
    assert.deepEqual(JSON.parse(row.input_schema!), {
      language: { type: 'string', required: true, enum: ['de', 'fr'], enumLabels: { de: 'German' }, description: 'Language to check against' },
      strict: { type: 'boolean', label: 'Strict review', description: 'Flag every unusual clause', default: true },
    });
    assertClean();
    await close();
  });

  it('edits an agent, changes its visibility, rotates its secret, and makes and revokes its keys', async () => {
    const owner = await person(harness, 'runner@example.test');
    const agent = await register(harness, owner.token, {
      name: 'Deed Reader',
      description: 'Reads property deeds',
      endpoint: 'https://deeds.example.com/tasks',
      protocols: ['rest'],
      categories: ['legal'],
    });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, owner.email, `/me/agents/${agent.id}/settings`);
    const description = page.getByLabel('One-line description');
    await description.waitFor();
    assert.equal(await description.inputValue(), 'Reads property deeds');
    await settled(page);
    await assertAccessible(page, 'agent settings');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Nothing to save: no field changed.').waitFor();
    await description.fill('Reads property deeds and lists the owners');
    await page.getByLabel('Visibility').selectOption('private');
    await page.getByLabel('Docs URL (optional)').fill('ftp://deeds');
    await page.locator('#agent-docsUrl-message').getByText('Must start with http:// or https://').waitFor();
    await page.getByLabel('Docs URL (optional)').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    let row = await agentRow(harness, agent.id);
    assert.equal(row?.description, 'Reads property deeds and lists the owners');
    assert.equal(row?.visibility, 'private');
    // Private now: others cannot see it.
    const stranger = await person(harness);
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: stranger.token })).statusCode, 404);

    // Delivery: rotate the secret, shown once.
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Delivery' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate the secret of “Deed Reader”?' });
    await rotateDialog.waitFor();
    await assertAccessible(page, 'rotate dialog');
    await rotateDialog.getByRole('button', { name: 'Rotate secret' }).click();
    const secret = await page.getByTestId('webhook-secret').innerText();
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, agent.webhookSecret);
    row = await agentRow(harness, agent.id);
    assert.equal(row?.webhook_secret, secret);
    await page.getByText('You will not see this again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByTestId('webhook-secret').count(), 0);
    await settled(page);
    await assertAccessible(page, 'delivery');

    // Switching to polling while keeping the endpoint.
    await page.getByRole('radio', { name: /Poll: the agent asks/ }).check();
    await page.getByRole('button', { name: 'Save delivery' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    assert.equal((await agentRow(harness, agent.id))?.delivery_mode, 'poll');

    // Keys: created for this agent, shown once, listed by prefix, revoked after a confirmation (keyboard).
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Keys' }).press('Enter');
    await page.getByText('No API keys yet.').waitFor();
    await page.getByLabel('New key name').focus();
    await page.keyboard.type('deed worker');
    await page.keyboard.press('Enter');
    const key = await page.getByTestId('new-key').innerText();
    assert.match(key, /^agk_/);
    await page.getByText('You will not see this again').waitFor();
    const account = await harness.app.request({ method: 'GET', url: '/v1/auth/account', token: key });
    assert.equal(account.statusCode, 200);
    // The key acts as the agent: a heartbeat with it counts for this agent.
    assert.equal(
      (await harness.app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: key, body: { status: 'available' } })).statusCode,
      200,
    );
    await page.getByRole('button', { name: 'I have stored it' }).press('Enter');
    const keyRow = page.getByRole('row', { name: /deed worker/ });
    await keyRow.waitFor();
    assert.ok((await keyRow.innerText()).includes(`${key.slice(0, 12)}…`));
    assert.ok(!(await keyRow.innerText()).includes(key));
    await settled(page);
    await assertAccessible(page, 'agent keys');
    // On a phone the tabs wrap instead of scrolling sideways, and the key's prefix and Revoke button fit.
    await page.setViewportSize({ width: 390, height: 844 });
    await fitsThePhone(page, 'keys tab');
    const prefix = (await keyRow.getByText(`${key.slice(0, 12)}…`).boundingBox())!;
    assert.ok(prefix.height < 24, `the prefix stays on one line (${prefix.height} px high)`);
    const revokeButton = (await keyRow.getByRole('button', { name: 'Revoke deed worker' }).boundingBox())!;
    assert.ok(revokeButton.x + revokeButton.width <= 390, `the Revoke button is on the screen (right edge ${revokeButton.x + revokeButton.width})`);
    await assertAccessible(page, 'agent keys on a phone');
    await keyRow.getByRole('button', { name: 'Revoke deed worker' }).press('Enter');
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke “deed worker”?' });
    await revokeDialog.waitFor();
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).press('Enter');
    await keyRow.getByText('revoked').waitFor();
    assert.equal((await harness.app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 401);

    // The overview shows the heartbeat the key sent; a poll agent that has not polled stays away, and the page says why.
    await page.goto(`/me/agents/${agent.id}`);
    const status = page.getByRole('complementary', { name: 'Status' });
    await status.getByText('(available)').waitFor();
    await status.getByText('Away', { exact: true }).waitFor();
    await status.getByText('heartbeats alone keep it away').waitFor();
    assertClean();
    await close();
  });

  it('shows tasks, delivery outcomes, the payment account and the balance of a paid agent', async () => {
    const owner = await person(harness, 'earner@example.test');
    const agent = await register(harness, owner.token, {
      name: 'Paid Poller',
      description: 'Polls for paid work',
      protocols: ['rest'],
      categories: ['productivity'],
      pricePerTaskCents: 200,
    });
    // Someone gives it a task; it polls, takes it and completes it.
    const requester = await person(harness);
    const submitted = await harness.app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: requester.token,
      body: { title: 'Summarise the minutes', description: 'Summarise the minutes of Monday', agentId: agent.id, maxPriceCents: 500 },
    });
    assert.equal(submitted.statusCode, 201, submitted.body);
    const polled = await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=0`, token: owner.token });
    assert.equal(polled.statusCode, 200, polled.body);
    const [taken] = polled.json().data as { taskId: string; taskToken: string }[];
    const done = await harness.app.request({
      method: 'POST',
      url: `/v1/tasks/${taken!.taskId}/callback`,
      body: { taskToken: taken!.taskToken, result: { summary: 'short' } },
    });
    assert.equal(done.statusCode, 200, done.body);
    // A second task waits in its queue.
    await harness.app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: requester.token,
      body: { title: 'Summarise the budget', description: 'Summarise the budget', agentId: agent.id, maxPriceCents: 500 },
    });

    const { page, assertClean, close } = await openPage(harness, { expected: [noPaymentAccount] });
    await logIn(page, owner.email, `/me/agents/${agent.id}`);
    const tasks = page.getByRole('table').filter({ hasText: 'Summarise the minutes' });
    await tasks.waitFor();
    assert.ok((await tasks.getByRole('row', { name: /Summarise the minutes/ }).innerText()).includes('completed'));
    assert.ok((await tasks.getByRole('row', { name: /Summarise the budget/ }).innerText()).includes('matched'));
    await settled(page);
    await assertAccessible(page, 'agent overview');

    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Delivery' }).click();
    const deliveries = page.getByRole('table');
    await deliveries
      .getByRole('row', { name: /Summarise the minutes/ })
      .getByText(/^delivered/)
      .waitFor();
    await deliveries
      .getByRole('row', { name: /Summarise the budget/ })
      .getByText('waiting for the agent to poll')
      .waitFor();
    await page.getByText('Polling agents need no secret.').waitFor();

    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Earnings' }).click();
    // 2.00 less the 2.5% fee.
    await page.getByTestId('balance-available').getByText('$1.95').waitFor();
    await page.getByRole('button', { name: 'Connect payment account' }).waitFor();
    // Each paid task with amount, fee and net; the fee named; Stripe not offered, as this service has none.
    const paidRow = page.getByRole('table', { name: 'Paid tasks' }).getByRole('row').nth(1);
    await paidRow.waitFor();
    assert.match(await paidRow.innerText(), new RegExp(`^${taken!.taskId.slice(0, 8)}\\s.*\\$2\\.00\\s+−\\$0\\.05\\s+\\$1\\.95$`, 's'));
    assert.match(await page.getByTestId('platform-fee').innerText(), /fee of 2\.5% of each paid task/);
    assert.equal(await page.getByRole('radio', { name: /Stripe/ }).count(), 0, 'no Stripe choice without Stripe');
    await page.getByText('This service pays through the ledger').waitFor();
    await settled(page);
    await assertAccessible(page, 'earnings, not connected');
    await page.setViewportSize({ width: 390, height: 844 });
    await fitsThePhone(page, 'earnings tab');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Connect payment account' }).click();
    const paymentAccount = page.getByRole('definition').filter({ hasText: 'active' });
    await paymentAccount.waitFor();
    await page.getByText('Ledger', { exact: true }).waitFor();
    const stored = await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token });
    assert.deepEqual(stored.json().data, { provider: 'ledger', status: 'active' });

    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Trust' }).click();
    await page.getByText('This agent has no public key.').waitFor();
    await page.getByRole('link', { name: 'Add a key' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'See its public page' }).getAttribute('href'), `/agents/${agent.slug}`);
    await assertAccessible(page, 'trust tab');

    // The delivery tab follows the agent's tasks: the waiting one, polled and completed meanwhile, shows so without a reload.
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Delivery' }).click();
    const budget = page.getByRole('table').getByRole('row', { name: /Summarise the budget/ });
    await budget.getByText('waiting for the agent to poll').waitFor();
    await settled(page);
    const next = await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=0`, token: owner.token });
    const [second] = next.json().data as { taskId: string; taskToken: string }[];
    const finished = await harness.app.request({
      method: 'POST',
      url: `/v1/tasks/${second!.taskId}/callback`,
      body: { taskToken: second!.taskToken, result: { summary: 'shorter' } },
    });
    assert.equal(finished.statusCode, 200, finished.body);
    await budget.getByText('completed', { exact: true }).waitFor({ timeout: 10_000 });
    await budget.getByText(/^delivered/).waitFor();
    assertClean();
    await close();
  });

  it('says what to send, with the SDK, CLI and HTTP call, for an agent never seen; the advice goes once it is', async () => {
    const owner = await person(harness);
    const agent = await register(harness, owner.token, {
      name: 'Quiet Poller',
      description: 'Never heard from',
      protocols: ['rest'],
      categories: ['productivity'],
    });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, owner.email, `/me/agents/${agent.id}`);
    const advice = page.getByRole('region', { name: 'It has not been seen yet' });
    await advice.waitFor();
    // It polls for its tasks, so a poll is what makes it available.
    assert.match(await page.getByTestId('first-sign-sdk').innerText(), new RegExp(`\\.pollTasks\\('${agent.id}', \\{ wait: 30 \\}\\);$`));
    assert.equal(await page.getByTestId('first-sign-cli').innerText(), `agentry tasks serve --agent ${agent.id} --exec ./handle-task`);
    assert.equal(
      await page.getByTestId('first-sign-http').innerText(),
      `curl "${harness.baseUrl}/v1/agents/${agent.id}/tasks/poll?wait=30" -H "Authorization: Bearer $AGENTRY_TOKEN"`,
    );
    await settled(page);
    await assertAccessible(page, 'agent never seen');
    const polled = await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=0`, token: owner.token });
    assert.equal(polled.statusCode, 200, polled.body);
    await page.reload();
    await page.getByRole('heading', { name: 'Quiet Poller' }).waitFor();
    await settled(page);
    assert.equal(await advice.count(), 0);
    assertClean();
    await close();
  });

  it('deletes an agent after a confirmation that names it', async () => {
    const owner = await person(harness, 'deleter@example.test');
    const agent = await register(harness, owner.token, {
      name: 'Short Lived',
      description: 'Will be deleted',
      protocols: ['rest'],
      categories: ['productivity'],
    });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, owner.email, `/me/agents/${agent.id}/settings`);
    await page.getByRole('button', { name: 'Delete Short Lived' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Short Lived”?' });
    await dialog.waitFor();
    await assertAccessible(page, 'delete dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await agentRow(harness, agent.id));
    await page.getByRole('button', { name: 'Delete Short Lived' }).click();
    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await page.waitForURL(/\/me\/agents$/);
    await page.getByText('No agents yet. Register one').waitFor();
    assert.equal(await agentRow(harness, agent.id), undefined);
    assertClean();
    await close();
  });

  it("says there is no agent of yours for someone else's agent", async () => {
    const other = await person(harness);
    const theirs = await register(harness, other.token, {
      name: 'Not Yours',
      description: 'Belongs to another',
      protocols: ['rest'],
      categories: ['productivity'],
      visibility: 'private',
    });
    const { email } = await person(harness, 'nosy@example.test');
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 404, url: new RegExp(`/v1/agents/${theirs.id}$`) }] });
    await logIn(page, email, `/me/agents/${theirs.id}`);
    await page.getByText('No agent of yours here.').waitFor();
    assert.equal(await page.getByText('Not Yours').count(), 0);
    assertClean();
    await close();
  });

  it('shows agent text as text on every tab: nothing runs', async () => {
    const owner = await person(harness, 'hostile-runner@example.test');
    const agent = await register(harness, owner.token, {
      name: `Hostile ${hostile.img}`.slice(0, 100),
      description: `Looks harmless ${hostile.script} ${hostile.img}`,
      longDescription: `${hostile.script} [x](${hostile.link})`,
      endpoint: 'https://hostile.example.com/tasks',
      protocols: ['rest'],
      categories: ['security'],
      capabilities: [hostile.img.slice(0, 60)],
      tags: [hostile.script],
      inputSchema: JSON.stringify({ probe: { type: 'string', description: hostile.img, enum: [hostile.script, 'b'] } }),
    });
    await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: hostile.img, agentId: agent.id } });
    const { page, assertClean, close } = await openPage(harness, { expected: [noPaymentAccount] });
    await logIn(page, owner.email, '/me/agents');
    await page.getByRole('link', { name: /^Hostile <img src=x/ }).waitFor();
    for (const tab of ['', '/settings', '/keys', '/delivery', '/trust', '/earnings']) {
      await page.goto(`/me/agents/${agent.id}${tab}`);
      await page.getByRole('heading', { name: /^Hostile <img src=x/ }).waitFor();
      await settled(page);
    }
    await page.goto(`/me/agents/${agent.id}/settings`);
    await page.getByRole('button', { name: `Remove ${hostile.script}` }).waitFor();
    await page.getByRole('region', { name: 'Preview of the task form' }).getByText(hostile.img).waitFor();
    assert.equal(await page.getByLabel('One-line description').inputValue(), `Looks harmless ${hostile.script} ${hostile.img}`);
    await settled(page);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined);
    assert.equal(await page.locator('main img, main script, main iframe').count(), 0);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    assert.deepEqual(
      hrefs.filter((href) => /^\s*javascript:/i.test(href)),
      [],
    );
    assertClean();
    await close();
  });
});
