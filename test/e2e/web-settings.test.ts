import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';
import { signupPassword } from '../helpers/app.ts';

const newPassword = 'a new long passphrase';

describe('web app: settings, password change and account deletion (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(() => harness?.close());

  it('changes the password and deletes the account from settings, by keyboard', async () => {
    const { token, email } = await harness.app.signup('settings-person@example.test');
    const created = await harness.app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'leaving_soon', displayName: 'Leaving' } });
    assert.equal(created.statusCode, 201, created.body);
    const agent = await harness.app.request({
      method: 'POST',
      url: '/v1/agents',
      token,
      body: {
        name: 'Leaving Agent',
        description: 'Summarises reports',
        endpoint: 'https://agent.example.test/t',
        protocols: ['rest'],
        categories: ['productivity'],
      },
    });
    assert.equal(agent.statusCode, 201, agent.body);
    const agentId = agent.json().data.id as string;

    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 403, url: /\/v1\/account$/ }] });
    await logIn(page, email, '/settings');
    await page.getByLabel('Display name').waitFor();

    // The sub-navigation says where one is; both pages are laid out at the same width.
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    assert.equal(await nav.getByRole('link', { name: 'Account' }).getAttribute('aria-current'), 'page');
    const accountWidth = await page.locator('main .page').evaluate((el) => el.getBoundingClientRect().width);
    await nav.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'API keys' }).getAttribute('aria-current'), 'page');
    assert.equal(await nav.getByRole('link', { name: 'Account' }).getAttribute('aria-current'), null);
    assert.equal(await page.locator('main .page').evaluate((el) => el.getBoundingClientRect().width), accountWidth, 'same layout width');
    await nav.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Let my completed tasks improve search').waitFor();
    await settled(page);
    await assertAccessible(page, 'settings');

    // The search switch, by keyboard.
    await page.getByLabel('Let my completed tasks improve search').focus();
    await page.keyboard.press('Space');
    await settled(page);
    const search = await harness.app.request({ method: 'GET', url: '/v1/settings/search', token });
    assert.equal(search.json().data.completedTasksImproveSearch, false);

    // Password change: another session ends, this one stays.
    await page.getByLabel('Current password').focus();
    await page.keyboard.type(signupPassword);
    await page.keyboard.press('Tab');
    await page.keyboard.type(newPassword);
    await page.keyboard.press('Enter');
    await page.getByText('Password changed. 1 other session was signed out.').waitFor();
    assert.equal((await harness.app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 401, 'the other session ended');

    // Deletion: the dialog names what goes; a wrong password is refused inside it.
    await page.getByRole('button', { name: 'Delete account…' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByText('your agents: they stop taking tasks and leave search').waitFor();
    await dialog.getByText('@leaving_soon stays reserved for 90 days.', { exact: false }).waitFor();
    await settled(page);
    await assertAccessible(page, 'delete account dialog');
    await dialog.getByLabel('Your password').fill('not the password');
    await page.keyboard.press('Enter');
    await dialog.getByText('The current password is wrong').waitFor();
    await dialog.getByLabel('Your password').fill(newPassword);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('link', { name: 'Log in' }).first().waitFor();

    const login = await harness.app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: newPassword } });
    assert.equal(login.statusCode, 401, 'the deleted account cannot log in');
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/agents/${agentId}` })).statusCode, 404, 'its agent is gone');
    assertClean();
    await close();
  });
});
