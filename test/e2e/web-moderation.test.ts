import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { createPost } from '../helpers/social.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';

describe('web app: reports and the moderation pages (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  /** Writes the posts that get reported. */
  let author: { token: string; email: string };
  /** Reports them; holds no role. */
  let reporter: { token: string; email: string };
  let moderator: { token: string; email: string };

  async function person(email: string, username: string) {
    const { token } = await harness.app.signup(email);
    const profile = await harness.app.request({ method: 'POST', url: '/v1/users', token, body: { username, displayName: username } });
    assert.equal(profile.statusCode, 201, profile.body);
    return { token, email };
  }

  before(async () => {
    harness = await startHarness();
    author = await person('author@example.test', 'loud_author');
    reporter = await person('reporter@example.test', 'careful_reader');
    moderator = await person('moderator@example.test', 'calm_moderator');
    const granted = await runAdminCommand(['grant', moderator.email, '--role', 'moderator'], harness.app.database.db, harness.app.clock);
    assert.equal(granted.exitCode, 0, granted.output);
  });
  after(() => harness?.close());

  const ownReports = async (token: string) => (await harness.app.request({ method: 'GET', url: '/v1/reports', token })).json().data as { status: string }[];

  it('a person reports a post by keyboard: the reasons, a note, the result, and the same report again', async () => {
    const post = await createPost(harness.app, author.token, 'Buy followers now at a very good price, limited offer');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, reporter.email, `/posts/${post.id}`);
    const report = page.getByRole('button', { name: 'Report this post' });
    await report.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Report this post' });
    await dialog.getByRole('radio', { name: 'Spam' }).waitFor();
    await settled(page);
    await assertAccessible(page, 'report dialog');
    // The focus is in the dialog, on the first reason; the arrow keys choose, Tab moves on to the note.
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value), 'spam');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Selling followers in every thread.');
    await page.keyboard.press('Tab'); // Cancel
    await page.keyboard.press('Tab'); // Send report
    await page.keyboard.press('Enter');
    await dialog.getByText('Reported. Thank you').waitFor();
    assert.deepEqual(
      (await ownReports(reporter.token)).map((r) => r.status),
      ['open'],
    );
    // The result's Close button has the focus; closing gives it back to Report.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Report this post');

    // Again while the first report is open: that report, not a second one.
    await page.keyboard.press('Enter');
    await dialog.getByRole('radio', { name: 'Abuse or harassment' }).check();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await dialog.getByText('You reported this already').waitFor();
    assert.equal((await ownReports(reporter.token)).length, 1);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assertClean();
    await close();
  });

  it('a moderator finds the report in the queue, hides the post with a reason, and finds the action in the audit log', async () => {
    const post = await createPost(harness.app, author.token, 'Everyone who disagrees with me is an idiot and should leave');
    const filed = await harness.app.request({
      method: 'POST',
      url: '/v1/reports',
      token: reporter.token,
      body: { subject: { type: 'post', id: post.id }, reason: 'abuse', note: 'Insults people in every reply.' },
    });
    assert.equal(filed.statusCode, 201, filed.body);

    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, moderator.email, '/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Moderation' }).click();
    await page.getByRole('heading', { name: 'Open reports' }).waitFor();
    const item = page.getByRole('listitem', { name: /Reports of post @loud_author: Everyone who disagrees/ });
    await item.getByText('Insults people in every reply.').waitFor();
    await item.getByText('1 person reported it').waitFor();
    await settled(page);
    await assertAccessible(page, 'moderation queue');

    await item.getByRole('button', { name: 'Hide', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Hide this post?' });
    // A reason is required: the form does not go out without one.
    await dialog.getByRole('button', { name: 'Hide', exact: true }).click();
    assert.equal(await dialog.getByLabel('Reason').evaluate((field: HTMLTextAreaElement) => field.validity.valueMissing), true);
    await dialog.getByLabel('Reason').fill('Insults other people: against the rules on abuse.');
    await assertAccessible(page, 'action dialog');
    await dialog.getByRole('button', { name: 'Hide', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Its reports are resolved: it leaves the open queue (the first test's report stays).
    await item.waitFor({ state: 'detached' });
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/social/posts/${post.id}` })).statusCode, 404, 'hidden from visitors');

    await page.getByRole('navigation', { name: 'Moderation sections' }).getByRole('link', { name: 'Audit log' }).click();
    const entry = page.locator('.admin-log-row').filter({ hasText: 'Insults other people: against the rules on abuse.' });
    await entry.getByText('hide', { exact: true }).waitFor();
    await entry.getByText('Resolved 1 report').waitFor();
    await settled(page);
    await assertAccessible(page, 'audit log');
    assertClean();
    await close();
  });

  it('a person reports someone from their profile by keyboard; the queue links the moderator to that profile', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, reporter.email, '/@loud_author');
    const report = page.getByRole('button', { name: 'Report this person' });
    await report.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Report this person' });
    await dialog.getByRole('radio', { name: 'Spam' }).waitFor();
    await settled(page);
    await assertAccessible(page, 'report dialog on a profile');
    // Down twice from Spam: Impersonation.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Pretends to be the mayor.');
    await page.keyboard.press('Tab'); // Cancel
    await page.keyboard.press('Tab'); // Send report
    await page.keyboard.press('Enter');
    await dialog.getByText('Reported. Thank you').waitFor();
    const filed = (await harness.app.request({ method: 'GET', url: '/v1/reports', token: reporter.token })).json().data as {
      subject: { type: string };
      reason: string;
      note: string;
    }[];
    assert.deepEqual(
      filed.filter((r) => r.subject.type === 'account').map((r) => [r.reason, r.note]),
      [['impersonation', 'Pretends to be the mayor.']],
    );
    await close();

    const moderatorPage = await openPage(harness);
    await logIn(moderatorPage.page, moderator.email, '/admin');
    const item = moderatorPage.page.getByRole('listitem', { name: /Reports of account author@example.test/ });
    await item.getByText('Pretends to be the mayor.').waitFor();
    await item.getByRole('link', { name: 'author@example.test' }).click();
    await moderatorPage.page.waitForURL(/\/@loud_author$/);
    await moderatorPage.page.getByRole('heading', { name: 'loud_author' }).waitFor();
    moderatorPage.assertClean();
    await moderatorPage.close();
    assertClean();
  });

  it('a person without a role has no moderation link, and /admin tells them it is not theirs', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, reporter.email, '/');
    await settled(page);
    assert.equal(await page.getByRole('link', { name: 'Moderation' }).count(), 0);
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('link', { name: 'Settings' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Moderation' }).count(), 0);

    await page.goto('/admin');
    await page.getByText('You have no access to this page').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Moderation sections' }).count(), 0);
    await settled(page);
    await assertAccessible(page, 'moderation without a role');
    assertClean();
    await close();
  });
});
