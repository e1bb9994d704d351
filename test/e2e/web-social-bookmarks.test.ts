import assert from 'node:assert/strict';
import { waitFor } from '../helpers/wait.ts';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';
import { seed } from './fixtures.ts';
import { seedSocial, type SocialSeed } from './social-fixtures.ts';

/** Grace's post about receipts, in Ada's feed: what both tests act on. */
const RECEIPTS = /Reading receipts is the best way to pick an agent/;

/** Resolves with the server's answer to the page's next `method` request to `path`. */
const answered = (page: Page, method: string, path: string) =>
  page.waitForResponse((response) => response.request().method() === method && new URL(response.url()).pathname === path);

describe('web app: bookmarks and muted words (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let social: SocialSeed;
  before(async () => {
    harness = await startHarness();
    const data = await seed(harness.app);
    social = await seedSocial(harness.app, { translatorId: data.translator.id, ownerToken: data.owner.token });
  });
  after(() => harness?.close());

  it('bookmarks a post from its card by keyboard, finds it on /bookmarks through the account menu, and removes it there', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, '/');
    const card = page.getByRole('list', { name: 'posts' }).locator('article').filter({ hasText: RECEIPTS });
    const bookmark = card.getByRole('button', { name: 'Bookmark', exact: true });
    await bookmark.focus();
    const saved = answered(page, 'POST', `/v1/social/posts/${await card.getAttribute('data-post-id')}/bookmark`);
    await page.keyboard.press('Enter');
    assert.equal((await saved).status(), 201);
    const remove = card.getByRole('button', { name: 'Remove bookmark' });
    assert.equal(await remove.getAttribute('aria-pressed'), 'true');

    await page.getByRole('button', { name: /^Account menu for/ }).click();
    await page.getByRole('link', { name: 'Bookmarks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Bookmarks' }).waitFor();
    const list = page.getByRole('list', { name: 'bookmarked posts, the latest bookmark first' });
    const kept = list.locator('article').filter({ hasText: RECEIPTS });
    await kept.waitFor();
    assert.equal(await list.locator('article').count(), 1);
    await settled(page);
    await assertAccessible(page, 'bookmarks');

    await kept.getByRole('button', { name: 'Remove bookmark' }).focus();
    const removed = answered(page, 'DELETE', `/v1/social/posts/${await kept.getAttribute('data-post-id')}/bookmark`);
    await page.keyboard.press('Enter');
    assert.equal((await removed).status(), 200);
    await page.getByText('You have bookmarked nothing yet.').waitFor();
    const server = await harness.app.request({ method: 'GET', url: '/v1/social/bookmarks', token: social.ada.token });
    assert.deepEqual(server.json().posts, []);
    await settled(page);
    assertClean();
    await close();
  });

  it('adds a muted word in settings by keyboard: the matching post leaves the feed, and comes back once it is removed (390 px)', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390 });
    await logIn(page, social.ada.email, '/');
    const feed = page.getByRole('list', { name: 'posts' });
    await feed.locator('article').filter({ hasText: RECEIPTS }).waitFor();

    await page.goto('/settings');
    const field = page.getByLabel('Word, phrase or #tag');
    await field.focus();
    await page.keyboard.type('Receipts');
    const saved = answered(page, 'PUT', '/v1/social/muted-words');
    await page.keyboard.press('Enter');
    assert.equal((await saved).status(), 200);
    const words = page.getByRole('list', { name: 'Muted words' });
    await words.getByText('receipts').waitFor();
    // The list can show the word a render before the field is emptied.
    await waitFor(
      'the field to be ready for the next word',
      () => field.inputValue(),
      (value) => value === '',
      { timeoutMs: 30_000 },
    );
    await settled(page);
    await assertAccessible(page, 'muted words (390 px)');

    await page.goto('/');
    await feed.locator('article').first().waitFor();
    await settled(page);
    assert.equal(await feed.locator('article').filter({ hasText: RECEIPTS }).count(), 0, 'the muted post left the feed');
    assert.ok((await feed.locator('article').count()) > 0, 'the rest of the feed stays');

    await page.goto('/settings');
    await page.getByRole('button', { name: 'Unmute receipts' }).focus();
    const cleared = answered(page, 'PUT', '/v1/social/muted-words');
    await page.keyboard.press('Enter');
    assert.equal((await cleared).status(), 200);
    await page.getByText('You have muted no words.').waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'muted-word');
    await page.goto('/');
    await feed.locator('article').filter({ hasText: RECEIPTS }).waitFor();
    await settled(page);
    assertClean();
    await close();
  });
});
