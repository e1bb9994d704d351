import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { png } from '../helpers/images.ts';
import { comment, createPost, socialUser } from '../helpers/social.ts';
import { assertAccessible, browserSuiteSkip, freePort, holdRequests, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';
import { seed } from './fixtures.ts';
import { seedSocial, type SocialSeed } from './social-fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

/** What a vote group shows once every click has been answered: the score and which button is pressed. */
async function shownVote(group: Locator) {
  const score = Number(/-?\d+/.exec(await group.locator('.vote-score').innerText())?.[0]);
  const liked = (await group.getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')) === 'true';
  const disliked = (await group.getByRole('button', { name: 'Dislike', exact: true }).getAttribute('aria-pressed')) === 'true';
  return { score, userVote: liked ? 1 : disliked ? -1 : null };
}

/** Resolves when the server has answered the page's next new post. */
function postAnswered(page: Page) {
  return page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/v1/social/posts');
}

describe('web app: acting on a post (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let social: SocialSeed;
  before(async () => {
    // Uploaded images are addressed from PUBLIC_URL: the page must be able to load them from there.
    const port = await freePort();
    harness = await startHarness({ PUBLIC_URL: `http://127.0.0.1:${port}` }, { port });
    const data = await seed(harness.app);
    social = await seedSocial(harness.app, { translatorId: data.translator.id, ownerToken: data.owner.token });
  });
  after(() => harness?.close());

  const server = async (token: string, id: string) => {
    const response = await harness.app.request({ method: 'GET', url: `/v1/social/posts/${id}`, token });
    return { status: response.statusCode, body: response.statusCode === 200 ? response.json() : null };
  };

  it('votes on the post and a comment with the server’s counts after every click, double clicks and fast toggles included', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.grace.email, `/posts/${social.discussed}`);
    const postVotes = page.getByRole('group', { name: 'Vote on the post' });
    await postVotes.waitFor();
    const serverPost = async () => {
      const { post } = (await server(social.grace.token, social.discussed)).body;
      return { score: post.score, userVote: post.userVote };
    };
    // Grace liked it while the network was seeded.
    assert.deepEqual(await shownVote(postVotes), await serverPost());
    assert.equal((await serverPost()).userVote, 1);

    const clicks: [string, (g: Locator) => Promise<void>][] = [
      ['one click takes the like back', (g) => g.getByRole('button', { name: 'Like', exact: true }).click()],
      ['one click dislikes', (g) => g.getByRole('button', { name: 'Dislike', exact: true }).click()],
      ['a double click on like likes and takes it back', (g) => g.getByRole('button', { name: 'Like', exact: true }).dblclick()],
      [
        'fast toggles',
        async (g) => {
          for (const name of ['Like', 'Dislike', 'Like', 'Dislike', 'Dislike']) await g.getByRole('button', { name, exact: true }).click({ delay: 0 });
        },
      ],
    ];
    for (const [what, act] of clicks) {
      await act(postVotes);
      await settled(page);
      assert.deepEqual(await shownVote(postVotes), await serverPost(), `post: ${what}`);
      // The card's own score follows too.
      assert.match(await page.locator('article.post-page .post-counts').innerText(), new RegExp(`▲\\s*${(await serverPost()).score}\\s`));
    }

    // A comment: the agent's, liked and toggled fast.
    const commentVotes = page.getByRole('group', { name: 'Vote on the comment by Contract Translator' });
    const serverComment = async () => {
      const found = (await server(social.grace.token, social.discussed)).body.comments.find(
        (c: { author: { username: string } }) => c.author.username === social.agentUsername,
      );
      return { score: found.score, userVote: found.userVote };
    };
    for (const [what, act] of clicks) {
      await act(commentVotes);
      await settled(page);
      assert.deepEqual(await shownVote(commentVotes), await serverComment(), `comment: ${what}`);
    }
    await assertAccessible(page, 'post page, signed in');
    assertClean();
    await close();
  });

  for (const width of [1280, 390]) {
    it(`comments, reposts and undoes, deletes an own comment after a confirmation (${width} px)`, async () => {
      const { page, assertClean, close } = await openPage(harness, { width });
      await logIn(page, social.grace.email, `/posts/${social.discussed}`);
      const before = (await server(social.grace.token, social.discussed)).body.post.commentCount;
      const text = `Shipped it here too, ${width} px wide`;
      await page.getByLabel('Your comment').fill(text);
      await page.getByRole('button', { name: 'Comment', exact: true }).click();
      const mine = page.locator('.comment', { hasText: text });
      await mine.waitFor();
      await page.getByRole('heading', { name: `${before + 1} comments` }).waitFor();
      assert.equal(await page.getByLabel('Your comment').inputValue(), '');
      assert.equal((await server(social.grace.token, social.discussed)).body.post.commentCount, before + 1);

      // Repost, then undo.
      const actions = page.getByRole('group', { name: 'Act on the post' });
      await actions.getByRole('button', { name: 'Repost' }).click();
      await actions.getByRole('button', { name: 'Undo repost' }).waitFor();
      const status = async () =>
        (await harness.app.request({ method: 'GET', url: `/v1/social/posts/${social.discussed}/repost`, token: social.grace.token })).json();
      assert.equal((await status()).reposted, true);
      await actions.getByRole('button', { name: 'Undo repost' }).click();
      await actions.getByRole('button', { name: 'Repost', exact: true }).waitFor();
      assert.equal((await status()).reposted, false);

      // Only one's own comments and posts offer a delete: Ada wrote the post.
      assert.equal(await actions.getByRole('button', { name: 'Delete post' }).count(), 0);
      assert.equal(await page.locator('.comment', { hasText: 'Congratulations!' }).getByRole('button', { name: 'Delete comment' }).count(), 0);

      await settled(page);
      await assertAccessible(page, `post page with the comment box (${width} px)`);
      // Cancel keeps it; confirming deletes it.
      await mine.getByRole('button', { name: 'Delete comment' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this comment?' });
      await dialog.waitFor();
      await assertAccessible(page, `delete confirmation (${width} px)`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await mine.count(), 1);
      await mine.getByRole('button', { name: 'Delete comment' }).click();
      await dialog.getByRole('button', { name: 'Delete comment' }).click();
      await mine.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: `${before} comments` }).waitFor();
      assert.equal((await server(social.grace.token, social.discussed)).body.post.commentCount, before);
      assertClean();
      await close();
    });
  }

  it('deletes an own post after a confirmation and goes back to the feed', async () => {
    const post = await createPost(harness.app, social.grace.token, 'A post Grace will take back');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.grace.email, `/posts/${post.id}`);
    await page.getByRole('button', { name: 'Delete post' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this post?' });
    await dialog.getByRole('button', { name: 'Delete post' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    assert.equal((await server(social.grace.token, post.id)).status, 404);
    await settled(page);
    assertClean();
    await close();
  });

  it('composes: code points counted as the server counts, the post shown at once, a refusal rolled back with the server’s message', async () => {
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 400, url: /\/v1\/social\/posts$/ }] });
    await logIn(page, social.ada.email, '/');
    const composer = page.getByRole('form', { name: 'Write a post' });
    const box = composer.getByLabel('Your post');
    const feed = page.getByRole('list', { name: 'posts' });
    await feed.locator('article').first().waitFor();
    // Hold each post's answer back a moment, so what shows before it is the optimistic post.
    const posts = await holdRequests(page, '**/v1/social/posts', (request) => request.method() === 'POST');

    // 499 letters and an emoji: 500 characters, as the server counts them.
    const full = `${'a'.repeat(499)}👋`;
    await box.fill(`${full}b`);
    assert.match(await composer.locator('.composer-count').innerText(), /^501 \/ 500\s*characters?\s*\(1 too many\)$/);
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    await feed
      .locator('article')
      .first()
      .getByText(/^a{499}👋b$/)
      .waitFor();
    assert.equal(await box.inputValue(), '');
    await posts.release();
    const refusal = composer.getByRole('alert');
    await refusal.waitFor();
    const server = await harness.app.request({ method: 'POST', url: '/v1/social/posts', token: social.ada.token, body: { body: `${full}b` } });
    assert.equal(server.statusCode, 400);
    const serverMessage: string = server.json().details?.find((d: { path: string }) => d.path === '/body/body')?.message ?? server.json().message;
    assert.equal(await refusal.innerText(), serverMessage);
    assert.equal(await box.inputValue(), `${full}b`, 'the text is back');
    assert.equal(await feed.getByText(/^a{499}👋b$/).count(), 0, 'the refused post left the feed');
    await settled(page);
    await assertAccessible(page, 'composer with a refusal');

    await box.fill(full);
    assert.match(await composer.locator('.composer-count').innerText(), /^500 \/ 500/);
    await composer.getByLabel('Post in').selectOption('cloud');
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    const shown = feed.locator('article').first();
    await shown.getByText(/^a{499}👋$/).waitFor();
    assert.match((await shown.getAttribute('data-post-id')) ?? '', /^sending-/);
    await posts.release();
    await page.waitForFunction(() => !document.querySelector('.feed article')?.getAttribute('data-post-id')?.startsWith('sending-'));
    const id = await feed.locator('article').first().getAttribute('data-post-id');
    const stored = (await harness.app.request({ method: 'GET', url: `/v1/social/posts/${id}`, token: social.ada.token })).json().post;
    assert.equal(stored.body, full);
    assert.equal(stored.topic, 'cloud');
    assert.equal(await composer.getByRole('alert').count(), 0);
    await settled(page);
    assertClean();
    await close();
  });

  it('follows a topic by keyboard from its alias address, and its posts by people one does not follow show in Following', async () => {
    const stranger = await socialUser(harness.app);
    await createPost(harness.app, stranger.token, 'Saturn rings are visible tonight, low in the south', 'space');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.grace.email, '/topics/astronomy');
    await page.waitForURL(/\/topics\/space$/);
    const followButton = page.locator('.topic-header').getByRole('button', { name: /Space/ });
    assert.equal(await followButton.getAttribute('aria-pressed'), 'false');
    await followButton.focus();
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/social/topics/space/follow');
    await page.keyboard.press('Enter');
    assert.equal((await answered).status(), 200);
    await page.locator('.topic-header').getByRole('button', { name: /Space/, pressed: true }).waitFor();
    assert.match(await page.locator('.topic-header').innerText(), /1 follower/);
    await settled(page);
    await assertAccessible(page, 'a followed topic');

    await page.goto('/?feed=following');
    await page.getByRole('list', { name: 'posts by people you follow' }).getByText('Saturn rings are visible tonight').waitFor();
    assertClean();
    await close();
  });

  it('offers the composer on a topic’s page (posting in that topic) and on one’s own profile, not on another’s', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390 });
    await logIn(page, social.ada.email, '/topics/cloud');
    const composer = page.getByRole('form', { name: 'Write a post' });
    assert.equal(await composer.getByLabel('Post in').inputValue(), 'cloud');
    await composer.getByLabel('Your post').fill('Notes from the cloud topic page');
    // The post shows before the server has it; the reads below are the server's.
    await Promise.all([postAnswered(page), composer.getByRole('button', { name: 'Post', exact: true }).click()]);
    await page.getByRole('list', { name: 'posts in cloud' }).locator('article').first().getByText('Notes from the cloud topic page').waitFor();
    await settled(page);
    await assertAccessible(page, 'topic page with the composer (390 px)');

    await page.goto('/@ada');
    await composer.getByLabel('Your post').fill('Notes from my own profile');
    await Promise.all([postAnswered(page), composer.getByRole('button', { name: 'Post', exact: true }).click()]);
    await page.getByRole('list', { name: 'posts by @ada' }).locator('article').first().getByText('Notes from my own profile').waitFor();
    const mine = (await harness.app.request({ method: 'GET', url: '/v1/social/users/ada/posts?limit=2' })).json().posts.map((p: { body: string }) => p.body);
    assert.deepEqual(mine, ['Notes from my own profile', 'Notes from the cloud topic page']);
    await page.goto('/@grace');
    await page.getByRole('list', { name: 'posts by @grace' }).waitFor();
    assert.equal(await composer.count(), 0);
    await settled(page);
    assertClean();
    await close();
  });

  for (const width of [1280, 390]) {
    it(`follows and unfollows on a profile at once, and rolls back on a refusal (${width} px)`, async () => {
      const { page, assertClean, close } = await openPage(harness, { width, expected: [{ status: 503, url: /\/v1\/social\/users\/grace\/follow$/ }] });
      await logIn(page, social.ada.email, '/@grace');
      const followers = async () => Number(/(\d+)/.exec(await page.getByRole('link', { name: /followers?$/ }).innerText())?.[1]);
      const serverSide = async () => {
        const profile = (await harness.app.request({ method: 'GET', url: '/v1/social/users/grace/profile', token: social.ada.token })).json().user;
        return { following: profile.isFollowing, followers: profile.followersCount };
      };
      // Ada follows Grace from the seeded network.
      const unfollow = page.getByRole('button', { name: 'Unfollow' });
      await unfollow.waitFor();
      const start = await serverSide();
      assert.deepEqual(start.following, true);
      assert.equal(await followers(), start.followers);

      // Hold the answer back: the button and the count change before it comes.
      const follows = await holdRequests(page, '**/v1/social/users/grace/follow');
      await unfollow.click();
      await page.getByRole('button', { name: 'Follow', exact: true }).waitFor();
      assert.equal(await followers(), start.followers - 1);
      await follows.release();
      await settled(page);
      assert.deepEqual(await serverSide(), { following: false, followers: start.followers - 1 });
      await page.getByRole('button', { name: 'Follow', exact: true }).click();
      await page.getByRole('button', { name: 'Unfollow' }).waitFor();
      await follows.release();
      await settled(page);
      assert.deepEqual(await serverSide(), start);
      assert.equal(await followers(), start.followers);
      await assertAccessible(page, `profile with the follow button (${width} px)`);

      // The service refuses (a 401 would take the person to log in instead): the page says why and goes back to the truth.
      await page.unroute('**/v1/social/users/grace/follow');
      await page.route('**/v1/social/users/grace/follow', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'UNAVAILABLE', message: 'The service is restarting' }) }),
      );
      await page.getByRole('button', { name: 'Unfollow' }).click();
      const refusal = page.locator('.follow').getByRole('alert');
      await refusal.waitFor();
      assert.match(await refusal.innerText(), /The service is restarting/);
      await page.getByRole('button', { name: 'Unfollow' }).waitFor();
      assert.equal(await followers(), start.followers);
      assert.deepEqual(await serverSide(), start);
      assertClean();
      await close();
    });
  }

  it('edits one’s own profile on the profile page by keyboard, avatar upload included (390 px)', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390 });
    await logIn(page, social.grace.email, '/@grace');
    const edit = page.getByRole('button', { name: 'Edit profile' });
    await edit.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Edit your profile' });
    const name = form.getByLabel('Display name');
    assert.ok(await name.evaluate((input) => input === document.activeElement), 'the display name has the focus');
    await name.fill('Grace B. Hopper');
    await form.getByLabel('Bio').fill('Admiral of compilers. Ask @ada about receipts.');
    await form.locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await form.getByRole('img', { name: 'Your avatar' }).waitFor();
    await settled(page);
    await assertAccessible(page, 'profile edit (390 px)');
    // Enter in a field saves; the form gives way to the profile and the focus goes back to its button.
    await name.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Grace B. Hopper' }).waitFor();
    await form.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'Edit profile');
    const saved = (await harness.app.request({ method: 'GET', url: '/v1/users/me', token: social.grace.token })).json().data;
    assert.equal(saved.displayName, 'Grace B. Hopper');
    assert.equal(saved.bio, 'Admiral of compilers. Ask @ada about receipts.');
    assert.match(saved.avatarUrl, new RegExp(`^${harness.baseUrl}/media/`), 'the uploaded image is the avatar');
    const avatar = page.locator('.profile-head img.avatar-image');
    assert.equal(await avatar.getAttribute('src'), saved.avatarUrl);
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('.profile-head img.avatar-image')?.naturalWidth ?? 0) > 0);
    assert.equal(await page.locator('.profile-bio').innerText(), saved.bio);
    assert.equal((await avatar.boundingBox())?.width, 72, 'an uploaded avatar shows at the size a lettered one has');

    // Cancel leaves the profile as it was; another's profile offers no edit.
    await edit.click();
    await form.getByLabel('Display name').fill('Not saved');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { level: 1, name: 'Grace B. Hopper' }).waitFor();
    await page.goto('/@ada');
    await page
      .getByRole('button', { name: 'Unfollow' })
      .or(page.getByRole('button', { name: 'Follow', exact: true }))
      .waitFor();
    assert.equal(await page.getByRole('button', { name: 'Edit profile' }).count(), 0);
    await settled(page);
    assertClean();
    await close();
  });

  it('replies to a comment by keyboard: the reply sits indented under it, long threads open with Show more replies, and a link to a reply opens its thread', async () => {
    const post = await createPost(harness.app, social.ada.token, 'Threads: which CI runner do you use?');
    const root = await comment(harness.app, social.ada.token, post.id, 'We use a self-hosted runner');
    for (const words of ['First answer', 'Second answer', 'Third answer', 'Fourth answer'])
      await comment(harness.app, social.ada.token, post.id, words, root.id);
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.grace.email, `/posts/${post.id}`);
    const rootCard = page.locator(`#comment-${root.id}`);
    const replies = page.getByRole('list', { name: 'Replies to Ada Lovelace' });
    // Three replies show; the fourth waits behind a button.
    await replies.getByText('Third answer').waitFor();
    assert.equal(await replies.getByText('Fourth answer').count(), 0);
    await replies.getByRole('button', { name: 'Show 1 more reply' }).click();
    await replies.getByText('Fourth answer').waitFor();

    const replyButton = rootCard.getByRole('button', { name: 'Reply to Ada Lovelace' });
    await replyButton.focus();
    await page.keyboard.press('Enter');
    assert.equal(await replyButton.getAttribute('aria-expanded'), 'true');
    await page.waitForFunction(() => document.activeElement?.tagName === 'TEXTAREA');
    await page.keyboard.type('Same here, on two cores');
    await settled(page);
    await assertAccessible(page, 'reply box under a comment');
    const answered = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith(`/v1/social/posts/${post.id}/comments`),
    );
    await page.keyboard.press('Tab'); // Add image
    await page.keyboard.press('Tab'); // Cancel
    await page.keyboard.press('Tab'); // Reply
    await page.keyboard.press('Enter');
    assert.equal((await answered).status(), 201);
    await replies.getByText('Same here, on two cores').waitFor();
    const stored = (await server(social.grace.token, post.id)).body.comments as { body: string; parentId: string | null }[];
    assert.equal(stored.find((c) => c.body === 'Same here, on two cores')?.parentId, root.id);

    // Escape closes a reply box and gives the focus back to its button.
    await replyButton.click();
    await page.waitForFunction(() => document.activeElement?.tagName === 'TEXTAREA');
    await page.keyboard.press('Escape');
    assert.equal(await replyButton.getAttribute('aria-expanded'), 'false');
    assert.equal(await replyButton.evaluate((button) => button === document.activeElement), true);

    // A link to the fourth reply (as a notification gives it) opens the thread it sits in.
    const fourth = stored.find((c) => c.body === 'Fourth answer') as unknown as { id: string };
    await page.goto(`/posts/${post.id}#comment-${fourth.id}`);
    await page.locator(`#comment-${fourth.id}`).getByText('Fourth answer').waitFor();
    await settled(page);
    assertClean();
    await close();
  });

  it('quotes another’s post from its page by keyboard, and opens the quote', async () => {
    const original = await createPost(harness.app, social.grace.token, 'A post worth quoting, about compilers');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.ada.email, `/posts/${original.id}`);
    const quoteButton = page.getByRole('button', { name: 'Quote', exact: true });
    await quoteButton.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Quote this post' });
    const box = form.getByLabel('Your quote');
    await page.waitForFunction(() => document.activeElement?.tagName === 'TEXTAREA');
    assert.equal(await quoteButton.getAttribute('aria-expanded'), 'true');
    await page.keyboard.type('Read this one.');
    assert.equal(await box.inputValue(), 'Read this one.');
    await settled(page);
    await assertAccessible(page, 'quote form');
    await page.keyboard.press('Tab'); // Cancel
    await page.keyboard.press('Tab'); // Post quote
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname.startsWith('/posts/') && !url.pathname.endsWith(original.id));
    const quoteId = new URL(page.url()).pathname.split('/').pop()!;
    const article = page.locator('article.post-page');
    await article.getByText('Read this one.').waitFor();
    await article.locator('.post-quoted').getByText('A post worth quoting, about compilers').waitFor();
    assert.equal(await form.count(), 0, 'the new post’s page opens without the form');
    const stored = (await server(social.ada.token, quoteId)).body.post;
    assert.equal(stored.body, 'Read this one.');
    assert.equal(stored.repostOf, original.id);

    // A feed offers the same Quote under each post, beside Repost.
    const another = await createPost(harness.app, social.grace.token, 'Another post worth quoting, about linkers');
    await page.goto('/?feed=following');
    const card = page.getByRole('article').filter({ hasText: 'Another post worth quoting' });
    await card.getByRole('button', { name: 'Repost or quote' }).click();
    await card.getByRole('button', { name: 'Quote', exact: true }).click();
    const feedForm = page.getByRole('form', { name: 'Quote this post' });
    await feedForm.getByLabel('Your quote').fill('And this one.');
    await settled(page);
    await assertAccessible(page, 'quote form in the feed');
    await feedForm.getByRole('button', { name: 'Post quote' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/posts/'));
    await article.getByText('And this one.').waitFor();
    await article.locator('.post-quoted').getByText('Another post worth quoting, about linkers').waitFor();
    const fromFeed = (await server(social.ada.token, new URL(page.url()).pathname.split('/').pop()!)).body.post;
    assert.equal(fromFeed.repostOf, another.id);
    await settled(page);
    assertClean();
    await close();
  });

  it('likes, replies to and shares a post from its card in the feed, and opens who liked it; signed out, the card invites to join', async () => {
    const post = await createPost(harness.app, social.grace.token, 'A card with every action on it, about assemblers');
    const { page, assertClean, close } = await openPage(harness);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await logIn(page, social.ada.email, '/?feed=following');
    const card = page.getByRole('article').filter({ hasText: 'A card with every action on it' });
    const actions = card.getByRole('group', { name: 'Act on the post' });
    await actions.getByRole('button', { name: /^Like/ }).click();
    await actions.getByRole('button', { name: /^Liked/ }).waitFor();
    await waitFor('the like is stored', async () => (await server(social.ada.token, post.id)).body.post.userVote === 1);
    assert.match(await actions.getByRole('button', { name: /^Liked/ }).innerText(), /Liked[\s,]*1$/);

    await actions.getByRole('button', { name: 'Reply' }).click();
    const box = card.getByLabel('Your comment');
    await page.waitForFunction(() => document.activeElement?.tagName === 'TEXTAREA');
    await box.fill('Replied from the feed');
    await settled(page);
    await assertAccessible(page, 'reply box under a card in the feed');
    await card.getByRole('button', { name: 'Comment', exact: true }).click();
    await box.waitFor({ state: 'detached' });
    const stored = await server(social.ada.token, post.id);
    assert.deepEqual(
      stored.body.comments.map((c: { body: string }) => c.body),
      ['Replied from the feed'],
    );

    await actions.getByRole('button', { name: 'Share' }).click();
    await card.getByRole('status').getByText('Link copied').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), new URL(`/posts/${post.id}`, page.url()).href);

    await card.getByRole('link', { name: '1 like' }).click();
    await page.getByRole('heading', { name: 'Who liked this post' }).waitFor();
    await page.locator('.user-row', { hasText: '@ada' }).waitFor();
    await page.getByRole('link', { name: 'Quotes' }).click();
    await page.getByText('Nobody has quoted this post yet.').waitFor();
    await settled(page);
    await assertAccessible(page, 'who quoted a post');
    assertClean();
    await close();

    const visitor = await openPage(harness, { width: 390 });
    await visitor.page.goto(`/posts/${post.id}`);
    const invite = visitor.page.getByRole('group', { name: 'Act on the post' });
    await invite.getByRole('link', { name: 'Join to like' }).waitFor();
    assert.equal(await invite.getByRole('link', { name: 'Log in to reply' }).getAttribute('href'), `/login?next=${encodeURIComponent(`/posts/${post.id}`)}`);
    await settled(visitor.page);
    await assertAccessible(visitor.page, 'a post signed out (390 px)');
    visitor.assertClean();
    await visitor.close();
  });

  it('offers @mentions from the username search in the composer: arrows choose, Enter inserts, Escape closes (390 px)', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390 });
    await logIn(page, social.ada.email, '/');
    const box = page.getByRole('form', { name: 'Write a post' }).getByLabel('Your post');
    await box.focus();
    await page.keyboard.type('Ping @a');
    const list = page.getByRole('listbox', { name: 'People to mention' });
    await list.waitFor();
    const options = list.getByRole('option');
    assert.ok((await options.count()) >= 2, 'people matching “a”: Ada, Grace and the agent');
    const usernames = (await options.allInnerTexts()).map((text) => /@(\w+)/.exec(text)?.[1]);
    assert.equal(usernames[0], 'ada', 'a username starting with what was typed comes first');
    const activeId = () => box.getAttribute('aria-activedescendant');
    assert.equal(await activeId(), await options.nth(0).getAttribute('id'));
    await settled(page);
    await assertAccessible(page, 'composer with the mention list (390 px)');
    await page.keyboard.press('ArrowDown');
    assert.equal(await activeId(), await options.nth(1).getAttribute('id'));
    assert.equal(await options.nth(1).getAttribute('aria-selected'), 'true');

    // Escape closes the list and keeps the text; typing the name again opens it.
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'detached' });
    assert.equal(await box.getAttribute('aria-activedescendant'), null);
    assert.equal(await box.inputValue(), 'Ping @a');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('a');
    await list.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await list.waitFor({ state: 'detached' });
    assert.equal(await box.inputValue(), `Ping @${usernames[1]} `);
    await page.keyboard.type('and hi');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.waitForFunction(() => !document.querySelector('.feed article')?.getAttribute('data-post-id')?.startsWith('sending-'));
    const latest = (await harness.app.request({ method: 'GET', url: '/v1/social/users/ada/posts?limit=1' })).json().posts[0];
    assert.equal(latest.body, `Ping @${usernames[1]} and hi`);
    await settled(page);
    assertClean();
    await close();
  });
  it('posts a picture with its description (asked for when missing), and a post behind a content warning that opens by keyboard', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, social.grace.email, '/');
    const composer = page.getByRole('form', { name: 'Write a post' });
    const feed = page.getByRole('list', { name: 'posts' });
    await feed.locator('article').first().waitFor();
    await composer.getByLabel('Your post').fill('The new rack, every cable labelled');
    await composer.locator('input[type=file]').setInputFiles({ name: 'rack.png', mimeType: 'image/png', buffer: png });
    await composer.getByRole('img', { name: 'Image 1: rack.png' }).waitFor();
    // Without a description, or the choice to give none, posting asks for one and sends nothing.
    const description = composer.getByLabel('Description of image 1 (alt text)');
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    await composer.getByRole('alert').getByText('Describe this image, or choose “No description”.').waitFor();
    assert.ok(await description.evaluate((field) => field === document.activeElement), 'the description field has the focus');
    await description.fill('A rack with labelled cables');
    const [answer] = await Promise.all([postAnswered(page), composer.getByRole('button', { name: 'Post', exact: true }).click()]);
    const pictured = (await answer.json()).post as { id: string; media: { alt: string }[] };
    assert.deepEqual(
      pictured.media.map((m) => m.alt),
      ['A rack with labelled cables'],
    );
    const picture = feed.locator(`[data-post-id="${pictured.id}"]`).getByRole('img', { name: 'A rack with labelled cables' });
    await picture.waitFor();
    assert.equal(await picture.getAttribute('loading'), 'lazy');
    await page.waitForFunction((id) => {
      const image = document.querySelector<HTMLImageElement>(`[data-post-id="${id}"] .post-picture img`);
      return image !== null && image.complete && image.naturalWidth > 0;
    }, pictured.id);

    // A content warning, written and opened by keyboard.
    await composer.getByLabel('Your post').fill('What the outage cost us: two hours of builds');
    await composer.getByRole('button', { name: 'Content warning' }).focus();
    await page.keyboard.press('Enter');
    await composer.getByLabel('Content warning').fill('Outage details');
    const [warnedAnswer] = await Promise.all([postAnswered(page), composer.getByRole('button', { name: 'Post', exact: true }).click()]);
    const warnedId = (await warnedAnswer.json()).post.id as string;
    const warned = feed.locator(`[data-post-id="${warnedId}"]`);
    await warned.getByText('Outage details').waitFor();
    const body = warned.getByText('What the outage cost us: two hours of builds');
    const show = warned.getByRole('button', { name: 'Show post' });
    assert.equal(await show.getAttribute('aria-expanded'), 'false');
    assert.equal(await body.isVisible(), false, 'the post stays collapsed behind its warning');
    await show.focus();
    await page.keyboard.press('Enter');
    await body.waitFor();
    assert.equal(await warned.getByRole('button', { name: 'Hide post' }).getAttribute('aria-expanded'), 'true');
    await settled(page);
    await assertAccessible(page, 'feed with a picture and an opened content warning');

    // A comment carries a picture too, described or with the visible choice to give none.
    await page.goto(`/posts/${pictured.id}`);
    const box = page.locator('form.comment-box').first();
    await box.getByLabel('Your comment').fill('Here is ours, less tidy');
    await box.locator('input[type=file]').setInputFiles({ name: 'ours.png', mimeType: 'image/png', buffer: png });
    await box.getByRole('img', { name: 'Image 1: ours.png' }).waitFor();
    await box.getByRole('button', { name: 'Comment', exact: true }).click();
    await box.getByRole('alert').getByText('Describe this image, or choose “No description”.').waitFor();
    await box.getByLabel('No description').check();
    const commented = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith(`/v1/social/posts/${pictured.id}/comments`),
    );
    await box.getByRole('button', { name: 'Comment', exact: true }).click();
    const stored = (await (await commented).json()).comment as { id: string; media: { alt: string }[] };
    assert.deepEqual(
      stored.media.map((m) => m.alt),
      [''],
    );
    await page.locator(`#comment-${stored.id}`).getByText('Here is ours, less tidy').waitFor();
    await page.locator(`#comment-${stored.id} .post-picture img`).waitFor();
    assert.equal(await box.getByRole('list', { name: 'Images in your comment' }).count(), 0, 'the box is empty again');
    assertClean();
    await close();
  });
});
