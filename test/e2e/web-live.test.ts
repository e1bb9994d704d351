/**
 * Two people in two browsers: what one does reaches the other's open page through the event stream,
 * without a reload (the bell's count, the notifications page, the "new posts" button on the feed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { waitFor } from '../helpers/wait.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, startHarness, type Harness } from './harness.ts';

/** The bound for a live change to show: generous, so a loaded machine does not fail it. */
const LIVE_MS = 10_000;

/** A mark on the page's window: still there later means the page was not loaded again. */
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
const stayed = (page: Page) => page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true);
const bell = (page: Page, unread: number) => page.locator('.topbar').getByRole('link', { name: `Notifications, ${unread} unread` });

describe('web app: live between two browsers', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  const people = { ann: { email: 'ann@example.test', username: 'ann_live', token: '' }, ben: { email: 'ben@example.test', username: 'ben_live', token: '' } };
  before(async () => {
    harness = await startHarness();
    for (const [name, person] of Object.entries(people)) {
      person.token = (await harness.app.signup(person.email)).token;
      const made = await harness.app.request({
        method: 'POST',
        url: '/v1/users',
        token: person.token,
        body: { username: person.username, displayName: name === 'ann' ? 'Ann Live' : 'Ben Live' },
      });
      assert.equal(made.statusCode, 201, made.body);
    }
    // Ben follows Ann, so her posts reach his feed's "new posts" button.
    assert.equal(
      (await harness.app.request({ method: 'POST', url: `/v1/social/users/${people.ann.username}/follow`, token: people.ben.token })).statusCode,
      200,
    );
  });
  after(() => harness?.close());

  it("a mention, a reply and a like reach the other's open page without a reload", async () => {
    const ann = await openPage(harness);
    const ben = await openPage(harness);
    try {
      await logIn(ann.page, people.ann.email, '/');
      await logIn(ben.page, people.ben.email, '/');
      await ben.page.getByRole('region', { name: 'Feed' }).or(ben.page.locator('#feed-heading')).first().waitFor({ state: 'attached' });
      await mark(ben.page);

      // Ann posts mentioning Ben: his bell counts it, and his feed offers the post without moving.
      const text = `Could you check this, @${people.ben.username}?`;
      await ann.page.getByLabel('Your post').fill(text);
      await ann.page.getByRole('button', { name: 'Post', exact: true }).click();
      await bell(ben.page, 1).waitFor({ timeout: LIVE_MS });
      const newPosts = ben.page.getByRole('button', { name: '1 new post' });
      await newPosts.waitFor({ timeout: LIVE_MS });
      assert.equal(await ben.page.getByRole('list', { name: 'New posts' }).count(), 0, 'nothing is inserted before the click');
      await newPosts.click();
      await ben.page.getByRole('list', { name: 'New posts' }).getByText(text).waitFor();
      assert.ok(await stayed(ben.page), "Ben's page was not loaded again");

      // Ben replies on the post; Ann's bell counts it.
      const posts = await harness.app.request({ method: 'GET', url: `/v1/social/users/${people.ann.username}/posts`, token: null });
      const postId = posts.json().posts[0].id as string;
      await mark(ann.page);
      await ben.page.goto(`/posts/${postId}`);
      await ben.page.getByLabel('Your comment').fill('Checked: it reads well.');
      await ben.page.getByRole('button', { name: 'Comment', exact: true }).click();
      // Her first unread notification is Ben's follow; the reply is the second.
      await bell(ann.page, 2).waitFor({ timeout: LIVE_MS });
      assert.ok(await stayed(ann.page), "Ann's page was not loaded again");

      // Ben watches his notifications page while Ann likes his reply.
      await ben.page.goto('/notifications');
      await ben.page.getByText('mentioned you').waitFor();
      // Opening the page reads what it shows: the bell clears.
      const clearBell = ben.page.locator('.topbar').getByRole('link', { name: 'Notifications', exact: true });
      await clearBell.waitFor({ timeout: LIVE_MS });
      await mark(ben.page);
      await ann.page.goto(`/posts/${postId}`);
      await ann.page.getByRole('group', { name: 'Vote on the comment by Ben Live' }).getByRole('button', { name: 'Like', exact: true }).click();
      // The like arrives on the open page marked new, and being shown it is read: the bell stays clear.
      await ben.page.locator('.notification-unread', { hasText: 'liked your comment' }).waitFor({ timeout: LIVE_MS });
      await waitFor(
        "Ben's notifications read",
        async () => (await harness.app.request({ method: 'GET', url: '/v1/social/notifications/unread', token: people.ben.token })).json().unread,
        (unread) => unread === 0,
      );
      await clearBell.waitFor({ timeout: LIVE_MS });
      assert.ok(await stayed(ben.page), "Ben's notifications page was not loaded again");
      await assertAccessible(ben.page, 'notifications, live');
      ann.assertClean();
      ben.assertClean();
    } finally {
      await ann.close();
      await ben.close();
    }
  });

  it('lists muted and blocked accounts in settings, and unmutes from there', async () => {
    const ben = await openPage(harness);
    try {
      await logIn(ben.page, people.ben.email, `/@${people.ann.username}`);
      await ben.page.getByRole('button', { name: 'Mute', exact: true }).click();
      await ben.page.getByRole('button', { name: 'Unmute', exact: true }).waitFor();
      await ben.page.goto('/settings');
      const muted = ben.page.getByRole('list', { name: 'Muted accounts' });
      await muted.getByRole('link', { name: 'Ann Live' }).waitFor();
      await ben.page.getByText('You have blocked nobody.').waitFor();
      await assertAccessible(ben.page, 'settings with a muted account');
      await muted.getByRole('button', { name: `Unmute @${people.ann.username}` }).click();
      await ben.page.getByText('You have muted nobody.').waitFor();
      ben.assertClean();
    } finally {
      await ben.close();
    }
  });
});
