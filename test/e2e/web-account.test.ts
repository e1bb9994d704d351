import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostile } from './fixtures.ts';
import { assertAccessible, browserSuiteSkip, openPage, settled, startHarness, type Harness } from './harness.ts';
import { signupPassword } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { png } from '../helpers/images.ts';

const password = 'a long password';

/** A person with a profile, as most visitors are. */
async function personWithProfile(harness: Harness, email: string, username: string) {
  const person = await harness.app.signup(email);
  const created = await harness.app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username, displayName: username } });
  assert.equal(created.statusCode, 201, created.body);
  return person;
}

describe('web app: accounts, sessions and API keys (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(() => harness?.close());

  it('signs up, creates a profile with a checked username, and returns to where the person was', async () => {
    // Until the profile exists, /v1/users/me answers 404: that is how the app learns there is none.
    const { page, assertClean, close, context } = await openPage(harness, { expected: [{ status: 404, url: /\/v1\/users\/me$/ }] });
    await page.goto('/capabilities');
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(/\/signup\?next=%2Fcapabilities/);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await assertAccessible(page, 'sign-up');
    // The form checks as you type with the server's rules.
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Password').blur();
    await page.getByText('At least 8 characters', { exact: true }).waitFor();
    await page.getByLabel('Email').fill('new-person@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(/\/signup\/profile\?next=%2Fcapabilities/);
    // The session is a cookie the page's scripts cannot read.
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'agentry_session')!;
    assert.ok(session.httpOnly);
    assert.equal(session.sameSite, 'Lax');
    assert.ok(!(await page.evaluate(() => document.cookie)).includes('ags_'));

    const username = page.getByLabel('Username');
    await username.fill('admin');
    await page.getByText('This username is reserved').waitFor();
    await username.fill('bad name!');
    await page.getByText('Usernames are 1-25 letters, digits or underscores').waitFor();
    await username.fill('new_person');
    await page.getByText('@new_person is available').waitFor();
    await settled(page);
    await assertAccessible(page, 'create profile');
    await page.getByLabel('Display name').fill('New Person');
    await page.getByLabel('Bio (optional)').fill('I build agents.');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.waitForURL(/\/capabilities$/);
    await page.getByRole('button', { name: 'Account menu for New Person' }).waitFor();
    assertClean();
    await close();
  });

  it('shows an email already registered under the Email field', async () => {
    await harness.app.signup('taken@example.test');
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 409, url: /\/v1\/auth\/browser\/signup$/ }] });
    await page.goto('/signup');
    await page.getByLabel('Email').fill('taken@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('#email-message').getByText('This email is already registered: log in instead').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByRole('alert').count(), 0, 'not a message above the form');
    await assertAccessible(page, 'sign-up, email taken');
    assertClean();
    await close();
  });

  it('sends a signed-out visitor of a private page to log in, and back after it; logs out for good', async () => {
    const { token } = await personWithProfile(harness, 'returning@example.test', 'returning');
    await harness.app.request({ method: 'POST', url: '/v1/auth/logout', token });
    const { page, assertClean, close, context } = await openPage(harness, {
      expected: [{ status: 401, url: /\/v1\/auth\/browser\/login$/ }],
    });
    await page.goto('/settings/keys');
    await page.waitForURL(/\/login\?next=%2Fsettings%2Fkeys/);
    await assertAccessible(page, 'log-in');
    await page.getByLabel('Email').fill('returning@example.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').getByText('Invalid email or password').waitFor();
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/settings\/keys$/);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    const sessionCookie = (await context.cookies()).find((c) => c.name === 'agentry_session')!.value;
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Log in' }).waitFor();
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'agentry_session'),
      undefined,
    );
    // The old session is revoked on the server, not only forgotten by the browser.
    const replay = await harness.app.request({ method: 'GET', url: '/v1/auth/account', headers: { cookie: `agentry_session=${sessionCookie}` } });
    assert.equal(replay.statusCode, 401);
    assertClean();
    await close();
  });

  it('refuses a next address outside the app', async () => {
    await personWithProfile(harness, 'next@example.test', 'next_person');
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/login?next=%2F%2Fevil.example%2Fphish');
    await page.getByLabel('Email').fill('next@example.test');
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === '/' && url.host === new URL(harness.baseUrl).host);
    assertClean();
    await close();
  });

  it('creates an API key shown once with a copy button, lists it by prefix and revokes it (keyboard only)', async () => {
    const maker = await personWithProfile(harness, 'keys@example.test', 'key_maker');
    const agent = await registerAgent(harness.app, maker.token, { name: 'Key Maker Bot' });
    const agentKey = await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: maker.token, body: { name: 'bot program', agentId: agent.id } });
    assert.equal(agentKey.statusCode, 201, agentKey.body);
    const upload = await harness.app.request({ method: 'POST', url: '/v1/media', token: maker.token, rawBody: png, headers: { 'content-type': 'image/png' } });
    assert.equal(upload.statusCode, 201, upload.body);
    // Uploaded outside the browser, the answer's address has the test request's host: the page loads it from its own.
    const avatarUrl = `${harness.baseUrl}${new URL(upload.json().data.url as string).pathname}`;
    await harness.app.request({ method: 'PATCH', url: '/v1/users/me', token: maker.token, body: { avatarUrl } });
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/login?next=/settings/keys');
    await page.getByLabel('Email').fill('keys@example.test');
    await page.getByLabel('Password').fill(signupPassword);
    await page.keyboard.press('Enter');
    // Each key says whom it acts as: the agent's key names the agent, with a link to it.
    const agentRow = page.getByRole('row', { name: /bot program/ });
    await agentRow.getByRole('link', { name: 'Key Maker Bot' }).waitFor();
    // The account button shows the person's picture, not their initial.
    const accountButton = page.getByRole('button', { name: 'Account menu for key_maker' });
    assert.equal(await accountButton.locator('img.avatar-image').getAttribute('src'), avatarUrl);
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.menu-button img')?.naturalWidth ?? 0) > 0);
    await page.getByLabel('New key name').focus();
    await page.keyboard.type('laptop');
    await page.keyboard.press('Enter');
    const secret = page.getByTestId('new-key');
    await secret.waitFor();
    const key = await secret.innerText();
    assert.match(key, /^agk_/);
    await page.getByText('You will not see this again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).press('Enter');
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
    const row = page.getByRole('row', { name: /laptop/ });
    await row.waitFor();
    assert.match(await row.innerText(), new RegExp(`${key.slice(0, 12)}…`));
    assert.ok(!(await row.innerText()).includes(key));
    assert.match(await row.innerText(), /\byou\b/);
    await settled(page);
    await assertAccessible(page, 'API keys');
    // The key works for a program.
    assert.equal((await harness.app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 200);

    // Once dismissed, the secret is gone from the page for good.
    await page.getByRole('button', { name: 'I have stored it' }).press('Enter');
    assert.equal(await page.getByTestId('new-key').count(), 0);

    // Escape closes the confirmation without revoking; Enter on "Revoke key" revokes.
    await row.getByRole('button', { name: 'Revoke laptop' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke “laptop”?' });
    await dialog.waitFor();
    await assertAccessible(page, 'revoke dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await harness.app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 200);
    await row.getByRole('button', { name: 'Revoke laptop' }).press('Enter');
    await dialog.getByRole('button', { name: 'Revoke key' }).press('Enter');
    await row.getByText('revoked').waitFor();
    assert.equal((await harness.app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 401);
    assertClean();
    await close();
  });

  it('shows profile text and key names as text: nothing runs', async () => {
    const { token, email } = await harness.app.signup('hostile-person@example.test');
    const profile = await harness.app.request({
      method: 'POST',
      url: '/v1/users',
      token,
      body: { username: 'hostile_person', displayName: `Eve ${hostile.img}`.slice(0, 50), bio: `${hostile.script} ${hostile.img} [x](${hostile.link})` },
    });
    assert.equal(profile.statusCode, 201, profile.body);
    await harness.app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: hostile.img } });
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/login?next=/settings');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/settings$/);
    await page.getByLabel('Display name').waitFor();
    assert.match(await page.getByLabel('Display name').inputValue(), /^Eve <img src=x/);
    assert.match(await page.getByLabel('Bio').inputValue(), /<script>/);
    assert.match((await page.getByRole('button', { name: /Account menu for Eve <img/ }).getAttribute('aria-label')) ?? '', /<img/);
    await page.goto('/settings/keys');
    await page.getByRole('row', { name: /<img src=x/ }).waitFor();
    await settled(page);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined);
    assert.equal(await page.locator('main img, main script').count(), 0);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    assert.deepEqual(
      hrefs.filter((href) => /^\s*javascript:/i.test(href)),
      [],
    );
    assertClean();
    await close();
  });

  it('edits the profile from settings', async () => {
    const { token, email } = await harness.app.signup('editor@example.test');
    await harness.app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'editor', displayName: 'Editor' } });
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/login?next=/settings');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('Display name').waitFor();
    await settled(page);
    await assertAccessible(page, 'settings');
    await page.getByLabel('Display name').fill('Edited Name');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved.').waitFor();
    const me = await harness.app.request({ method: 'GET', url: '/v1/users/me', token });
    assert.equal(me.json().data.displayName, 'Edited Name');
    assertClean();
    await close();
  });
});
