import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { newAgentKey } from '../helpers/agents.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { waitFor } from '../helpers/wait.ts';
import { assertAccessible, assertNoInjectedMarkup, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';
import { seed, type Seeded } from './fixtures.ts';
import { seedSocial, type SocialSeed } from './social-fixtures.ts';

const postIds = (page: Page) => page.locator('.feed [data-post-id]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-post-id')!));
const unreadBell = (page: Page) => page.getByRole('banner').getByRole('link', { name: /^Notifications/ });

describe('web app: the social network and the receipt explorer (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let data: Seeded;
  let social: SocialSeed;
  before(async () => {
    harness = await startHarness();
    data = await seed(harness.app);
    social = await seedSocial(harness.app, { translatorId: data.translator.id, ownerToken: data.owner.token, filler: 45, hostile: true });
  });
  after(() => harness?.close());

  it('signed out, the home shows the search hero, trending posts and a few agents', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/');
    await page.getByRole('heading', { name: 'What do you need done?' }).waitFor();
    const trending = page.getByRole('region', { name: 'Trending posts' });
    await trending.getByText(/first #kubernetes operator/).waitFor();
    await page.locator('.agent-card').first().waitFor();
    assert.equal(await page.title(), 'Home · Agentry');
    await settled(page);
    await assertAccessible(page, 'signed-out home');
    assertClean();
    await close();
  });

  it('signed in, the home asks for its feed at once, not after the account has answered', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, '/');
    await page.getByRole('list', { name: 'posts' }).locator('[data-post-id]').first().waitFor();
    await settled(page);
    // Hold the account's answer until the feed has been asked for (or 5 s): only a feed request that does not wait for it comes first.
    let release = () => {};
    const feedAsked = new Promise<void>((resolve) => (release = resolve));
    let accountAnswered = false;
    let accountAnsweredWhenFeedAsked: boolean | null = null;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname !== '/v1/social/posts' || accountAnsweredWhenFeedAsked !== null) return;
      accountAnsweredWhenFeedAsked = accountAnswered;
      release();
    });
    await page.route('**/v1/auth/account', async (route) => {
      await Promise.race([feedAsked, new Promise((resolve) => setTimeout(resolve, 5000))]);
      accountAnswered = true;
      await route.continue();
    });
    await page.reload();
    await page.getByRole('list', { name: 'posts' }).locator('[data-post-id]').first().waitFor();
    assert.equal(accountAnsweredWhenFeedAsked, false, 'the feed was asked for while the account had not answered yet');
    await page.unrouteAll({ behavior: 'wait' });
    await settled(page);
    assertClean();
    await close();
  });

  it('signed in, the home is the feed: trending marked, endless scrolling without repeats or gaps, following and topics', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, '/');
    const feed = page.getByRole('list', { name: 'posts' });
    await feed.locator('[data-post-id]').first().waitFor();
    // The post with likes and comments leads, marked as trending.
    const first = feed.locator('article').first();
    assert.match(await first.innerText(), /Trending/);
    assert.match(await first.innerText(), /first #kubernetes operator/);
    // Scroll to the end, page after page, until the feed has everything.
    for (let i = 0; i < 10 && (await postIds(page)).length < social.postCount; i++) {
      await page.locator('.list-end').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await settled(page);
    }
    const seen = await postIds(page);
    assert.equal(seen.length, social.postCount, 'every post once');
    assert.equal(new Set(seen).size, seen.length, 'no post twice');
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);

    // Following: only the accounts Ada follows.
    await page.getByRole('button', { name: 'Following' }).click();
    await page.waitForURL(/feed=following/);
    const following = page.getByRole('list', { name: 'posts by people you follow' });
    await following.locator('article').first().waitFor();
    const authors = await following.locator('.post-byline .post-author, .post-flag a').allInnerTexts();
    assert.ok(authors.length > 0);
    assert.deepEqual([...new Set(authors.filter((a) => a !== 'Ada Lovelace'))].sort(), ['Contract Translator', 'Grace Hopper']);

    // A topic's feed, from the picker.
    await page.getByRole('button', { name: 'For you' }).click();
    await page.waitForURL((url) => !url.search.includes('feed='));
    await page.getByLabel('Topic').selectOption('cloud');
    await page.waitForURL(/topic=cloud/);
    await page
      .getByRole('list', { name: 'posts in cloud' })
      .getByText(/kubernetes operator/)
      .first()
      .waitFor();
    await settled(page);
    await assertAccessible(page, 'signed-in home');
    // The bell counts Ada's unread notifications.
    assert.match((await unreadBell(page).getAttribute('aria-label')) ?? '', /^Notifications, \d+ unread$/);
    assertClean();
    await close();
  });

  it('shows a post with its quoted original, its comments with scores, and links to the authors', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/posts/${social.quote}`);
    const post = page.locator('article.post-page');
    await post.getByText('This is how operators should be written.').waitFor();
    assert.match(await post.locator('.post-quoted').innerText(), /first #kubernetes operator/);
    await post.locator('.post-quoted').getByRole('link', { name: 'Ada Lovelace' }).click();
    await page.waitForURL(/\/@ada$/);
    await page.goto(`/posts/${social.discussed}`);
    await page.getByRole('heading', { name: '2 comments' }).waitFor();
    const comments = page.locator('.comment');
    assert.match(await comments.first().innerText(), /Grace Hopper[\s\S]*rolling restarts[\s\S]*Score\s*0|rolling restarts/);
    assert.equal(await comments.nth(1).getByRole('link', { name: '@ada' }).getAttribute('href'), '/@ada');
    assert.match(await page.title(), /^@ada: Shipping our first #kubernetes operator.* · Agentry$/);
    assert.match(await page.locator('article.post-page .post-counts').innerText(), /2\s*2 comments\s*2 likes\s*2 reposts and quotes/);
    await settled(page);
    await assertAccessible(page, 'post page');
    assertClean();
    await close();
  });

  for (const width of [1280, 390]) {
    it(`shows profiles: a person's and an agent's, counts, followers, following and posts (${width} px)`, async () => {
      const { page, assertClean, close } = await openPage(harness, { width, height: 844 });
      await page.goto('/@ada');
      await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
      assert.equal(await page.title(), '@ada · Agentry');
      // @grace in the bio links to her profile.
      assert.equal(await page.locator('.profile-bio').getByRole('link', { name: '@grace' }).getAttribute('href'), '/@grace');
      assert.match(await page.locator('.profile-counts').innerText(), /2 followers\s*2 following/);
      await page
        .getByRole('list', { name: 'posts by @ada' })
        .getByText(/first #kubernetes operator/)
        .waitFor();
      await settled(page);
      await assertAccessible(page, `profile at ${width}`);
      await page.getByRole('navigation', { name: 'Profile sections' }).getByRole('link', { name: 'Followers' }).click();
      const followers = page.getByRole('list', { name: 'followers of @ada' });
      await followers.getByRole('link', { name: 'Grace Hopper' }).waitFor();
      await followers.getByRole('link', { name: 'Contract Translator' }).waitFor();
      await page.getByRole('navigation', { name: 'Profile sections' }).getByRole('link', { name: 'Following' }).click();
      await page.getByRole('list', { name: 'accounts @ada follows' }).getByRole('link', { name: 'Contract Translator' }).click();
      await page.waitForURL(new RegExp(`/@${social.agentUsername}$`));
      const agent = page.getByRole('region', { name: 'This agent' });
      await agent.getByRole('link', { name: 'Contract Translator' }).waitFor();
      assert.equal(await agent.getByRole('link', { name: 'Contract Translator' }).getAttribute('href'), `/agents/${data.translator.slug}`);
      assert.match(await agent.innerText(), /Trust 0\.\d\d · \d+ receipts/);
      assert.match(await agent.innerText(), /legal-translation/);
      assert.equal(await page.locator('.profile-names .badge-agent').innerText(), 'agent');
      await settled(page);
      await assertAccessible(page, `agent profile at ${width}`);
      assertClean();
      await close();
    });
  }

  it('lists notifications newest first, merges likes and follows with their names, shows what replies said, and reads them by being opened', async () => {
    const unreadBefore = async () =>
      (await harness.app.request({ method: 'GET', url: '/v1/social/notifications/unread', token: social.ada.token })).json().unread;
    const before = await unreadBefore();
    assert.ok(before >= 6, `unread ${before}`);
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, '/notifications');
    const list = page.getByRole('list', { name: 'Notifications, newest first' });
    await list.getByText('liked your post').first().waitFor();
    assert.equal(await page.title(), 'Notifications · Agentry');
    // Grace's like of the discussed post links to it; the reply shows the words written.
    const like = list.locator('li', { hasText: 'liked your post' }).filter({ hasText: 'Grace Hopper' }).first();
    assert.equal(await like.getByRole('link', { name: /Shipping our first/ }).getAttribute('href'), `/posts/${social.discussed}`);
    const reply = list.locator('li', { hasText: 'Does it handle rolling restarts?' });
    assert.match(await reply.innerText(), /Grace Hopper\s*replied/);
    assert.match(
      (await reply.getByRole('link', { name: 'Does it handle rolling restarts?' }).getAttribute('href')) ?? '',
      new RegExp(`^/posts/${social.discussed}#comment-`),
    );
    // What the page shows it has read: marked new for this visit, the bell clear, the server's count at 0.
    assert.ok((await page.locator('.notification-unread').count()) > 0);
    await page.waitForFunction(() => document.querySelector('header a[href="/notifications"]')?.getAttribute('aria-label') === 'Notifications');
    await waitFor('the shown notifications read', unreadBefore, (unread) => unread === 0);
    await settled(page);
    await assertAccessible(page, 'notifications');
    // A follow links to the person.
    await list.locator('li', { hasText: 'followed you' }).getByRole('link', { name: 'Grace Hopper' }).click();
    await page.waitForURL(/\/@grace$/);
    assertClean();
    await close();
  });

  it('searches posts, people, agents and services, pages on, and says when nothing matches', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, '/search?q=release&tab=posts');
    const results = page.getByRole('list', { name: 'posts matching “release”' });
    await results.locator('article').nth(19).waitFor();
    assert.equal(await page.title(), 'release · Search · Agentry');
    // Scrolling to the end of the list loads the next page (the Load more button there does it by keyboard).
    await page.getByRole('button', { name: 'Load more' }).scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('.feed [data-post-id]').length >= 40);
    await page.getByRole('navigation', { name: 'What to search' }).getByRole('link', { name: 'People' }).click();
    await page.waitForURL(/tab=people/);
    await page.getByText('No people match “release”.').waitFor();
    await page.getByRole('searchbox', { name: 'Search posts, people, agents and services' }).fill('grace');
    await page.keyboard.press('Enter');
    await page.getByRole('list', { name: 'people matching “grace”' }).getByRole('link', { name: 'Grace Hopper' }).waitFor();
    await page.goto('/search?q=contracts&tab=agents');
    await page.getByRole('list', { name: 'agents matching “contracts”' }).getByRole('link', { name: 'Contract Translator' }).waitFor();
    await page.goto('/search?q=translate%20a%20contract&tab=services');
    await page.locator('.agent-card').getByRole('link', { name: 'Contract Translator' }).waitFor();
    await page.getByRole('region', { name: 'People to follow' }).waitFor();
    await page
      .getByRole('region', { name: 'Trending' })
      .getByText(/kubernetes operator/)
      .first()
      .waitFor();
    await settled(page);
    await assertAccessible(page, 'search');
    assertClean();
    await close();
  });

  it('lists topics and shows one topic’s feed', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/topics');
    // Grouped, each topic with its name, what it is about and its counts.
    const technology = page.getByRole('region', { name: 'Technology and AI' });
    await technology.getByText('Servers, containers, deployment and the infrastructure under it all.').waitFor();
    await technology.getByRole('link', { name: 'Cloud', exact: true }).click();
    await page.waitForURL(/\/topics\/cloud$/);
    await page
      .getByRole('list', { name: 'posts in cloud' })
      .getByText(/kubernetes operator/)
      .first()
      .waitFor();
    assert.equal(await page.title(), 'Cloud · Agentry');
    assert.match(await page.locator('.topic-header').innerText(), /\d+ posts? · \d+ followers?/);
    await settled(page);
    await assertAccessible(page, 'topic');
    assertClean();
    await close();
  });

  it("explores a key's receipts, names issuers by their key's agent, filters, and shows a flow as a timeline", async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/agents/${data.translator.slug}`);
    await page.getByRole('link', { name: 'All receipts in the explorer' }).click();
    await page.waitForURL(/\/receipts\?pubkey=/);
    // The agent page, with a list of its own, stays on screen until the explorer's code has loaded.
    await page.getByRole('heading', { name: 'Receipts about this key' }).waitFor();
    const list = page.locator('.receipts');
    await list.locator('.receipt').first().waitFor();
    const text = await list.innerText();
    assert.match(text, /from PR Reviewer/);
    assert.match(text, /signature not verified/);
    assert.match(text, /signature verified/);
    assert.match(await page.getByText(/receipts?, newest first/).innerText(), /^\d+ receipts, newest first$/);
    // Filter by kind.
    await page.getByLabel('Kind').selectOption('offer');
    await page.waitForURL(/kind=offer/);
    await page.waitForFunction(() => [...document.querySelectorAll('.receipt strong')].every((n) => n.textContent === 'offer'));
    assert.equal(await page.locator('.receipt').count(), 1);
    await settled(page);
    await assertAccessible(page, 'receipts of a key');
    // In the explorer a row links to its flow's view, not to the explorer it is in.
    assert.equal(await page.locator('.receipt').getByRole('link', { name: 'Open in the receipt explorer' }).count(), 0);
    await page.locator('.receipt').getByRole('link', { name: 'Open this flow' }).click();
    await page.waitForURL(new RegExp(`correlationId=${data.chainCorrelationId}`));
    const timeline = page.getByRole('list', { name: 'Steps of the flow' });
    await timeline.locator('li').nth(2).waitFor();
    assert.match(await timeline.innerText(), /offer[\s\S]*by Meeting Notes[\s\S]*decision[\s\S]*by Contract Translator[\s\S]*outcome[\s\S]*success/);
    await page.getByText('complete', { exact: true }).waitFor();
    assert.equal(await page.locator('.receipt').getByRole('link', { name: 'Open this flow' }).count(), 0, 'the flow view does not link to itself');
    assert.equal(await page.title(), 'Receipt chain · Agentry');
    await settled(page);
    await assertAccessible(page, 'receipt chain');

    // A signer that writes a famous agent's name with a key no agent proved is shown as its short key.
    const stranger = newAgentKey();
    const subject = newAgentKey();
    const lie = makeReceipt('outcome', { agent: 'Contract Translator', key: stranger }, { agent: 'someone', key: subject });
    assert.equal((await harness.app.request({ method: 'POST', url: '/v1/trust-receipts', body: lie })).statusCode, 201);
    await page.goto(`/receipts?pubkey=${encodeURIComponent(subject.pubkey)}`);
    const row = page.locator('.receipt').first();
    await row.waitFor();
    assert.doesNotMatch(await row.innerText(), /Contract Translator/);
    assert.equal(await row.getByRole('link', { name: `${stranger.pubkey.slice(0, 16)}…${stranger.pubkey.slice(-6)}` }).count(), 1);
    assertClean();
    await close();
  });

  it('answers unknown pages, posts and users with HTTP 404 and a page that says what is missing', async () => {
    const { page, assertClean, close } = await openPage(harness, {
      expected: [
        { status: 404, url: /\/(no-such-page|posts\/|@nobody_here)/ },
        { status: 404, url: /\/v1\/social\/(posts|users)\// },
      ],
    });
    let response = await page.goto('/no-such-page');
    assert.equal(response?.status(), 404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(await page.title(), 'Page not found · Agentry');
    await settled(page);
    await assertAccessible(page, 'not found');
    response = await page.goto('/posts/7d1b0c1e-3c2a-4f7e-9a3b-1c2d3e4f5a6b');
    assert.equal(response?.status(), 404);
    await page.getByText('No post here.').waitFor();
    response = await page.goto('/@nobody_here');
    assert.equal(response?.status(), 404);
    await page.getByText('No one is called @nobody_here here.').waitFor();
    response = await page.goto(`/posts/${social.discussed}`);
    assert.equal(response?.status(), 200);
    assertClean();
    await close();
  });

  for (const width of [1280, 390]) {
    it(`renders hostile posts, comments, bios and display names as text: nothing runs, the layout holds (${width} px)`, async () => {
      const { page, assertClean, close } = await openPage(harness, { width, height: 844 });
      await logIn(page, 'ada@example.test', '/');
      await settled(page);
      for (const url of [`/posts/${social.hostilePost}`, '/@mallory', '/search?q=quoting&tab=posts', '/notifications', '/search?q=mallory&tab=people']) {
        await page.goto(url);
        await page
          .getByText(/<img src=x onerror=/)
          .first()
          .waitFor();
        await settled(page);
        await assertNoInjectedMarkup(page, url);
        // Nothing wider than the screen: the text wraps inside its card.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${url} overflows by ${overflow}px`);
        // Bidi controls stay inside their element: the text after a name reads in order.
        const isolated = await page
          .locator('.user-text, .user-name')
          .first()
          .evaluate((el) => getComputedStyle(el).unicodeBidi);
        assert.equal(isolated, 'isolate', url);
      }
      assertClean();
      await close();
    });
  }

  it('on a phone, the tab bar holds Home, Discover, Tasks, Notifications and Me; Me leads to my agents and the catalogue', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390, height: 844 });
    await logIn(page, social.grace.email, '/');
    // The signed-in home (feed, composer, topic picker) fits the phone's width: nothing is cut off on the right.
    await page.locator('[data-post-id]').first().waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, 'the home scrolls sideways');
    const tabs = page.getByRole('navigation', { name: 'Sections' });
    // Grace has unread notifications: the tab carries their count.
    await tabs.getByRole('link', { name: /^2 unread Notifications$/ }).waitFor();
    const names = (await tabs.getByRole('link').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.deepEqual(names, ['Home', 'Discover', 'Tasks', '2 unread Notifications', 'Me']);
    await tabs.getByRole('link', { name: 'Me', exact: true }).click();
    // The feed stays on screen until the Me page replaces it, with a link to Grace on every post of hers.
    await page.getByRole('heading', { name: 'Me', level: 1 }).waitFor();
    await page.locator('a.me-profile', { hasText: 'Grace Hopper' }).waitFor();
    await page.getByRole('navigation', { name: 'Your things' }).getByRole('link', { name: 'Capability catalogue' }).click();
    await page.getByRole('heading', { name: 'Capabilities', level: 1 }).waitFor();
    await tabs.getByRole('link', { name: /Notifications/ }).click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await settled(page);
    await assertAccessible(page, 'notifications on a phone');
    assertClean();
    await close();
  });
});
