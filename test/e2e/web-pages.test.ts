import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, browserSuiteSkip, openPage, settled, startHarness, type Harness } from './harness.ts';
import { seed, type Seeded } from './fixtures.ts';

/** Results stay on screen while the next ones load; this waits for the new list itself. */
const waitForCards = (page: Page, count: number) =>
  page.waitForFunction((n) => document.querySelectorAll('.agent-card').length === n && document.querySelector('[aria-busy="true"]') === null, count);

describe('web app: finding agents (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let data: Seeded;
  let total: number;
  before(async () => {
    harness = await startHarness();
    data = await seed(harness.app);
    // Enough agents for a second page of results (twenty a page).
    const filler = await harness.app.signup('filler@example.test');
    for (let i = 1; i <= 16; i++) {
      const response = await harness.app.request({
        method: 'POST',
        url: '/v1/agents',
        token: filler.token,
        body: {
          name: `Weather Station ${i}`,
          description: `Reports the weather at station ${i}`,
          protocols: ['rest'],
          categories: ['research'],
          endpoint: 'https://weather.example.com/tasks',
        },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    total = data.agentCount + 16;
  });
  after(() => harness?.close());

  it('searches from the signed-out home page and lands on shareable results', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/');
    await page.getByRole('heading', { name: 'What do you need done?' }).waitFor();
    await settled(page);
    await assertAccessible(page, 'home');
    await page.getByRole('searchbox', { name: 'What do you need done?' }).fill('translate a contract to German');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/agents\?q=translate\+a\+contract\+to\+German|\/agents\?q=translate%20a%20contract%20to%20German/);
    const first = page.locator('.agent-card').first();
    await first.getByRole('link', { name: 'Contract Translator' }).waitFor();
    assert.match(await first.innerText(), /\$2\.00 \/ task/);
    assert.match(await first.innerText(), /Trust 0\.\d\d · \d+ receipts/);
    assert.match(await first.innerText(), /Available/);
    assert.match(await first.innerText(), /translation/);
    await settled(page);
    await assertAccessible(page, 'results');
    // The URL holds the search: a reload shows the same results.
    await page.reload();
    await page.locator('.agent-card').first().getByRole('link', { name: 'Contract Translator' }).waitFor();
    assertClean();
    await close();
  });

  it('filters by category, capability and protocol through the URL, and says when nothing fits', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/agents');
    await waitForCards(page, Math.min(20, total));
    await page.getByLabel('Category').selectOption('finance');
    await page.waitForURL(/category=finance/);
    await waitForCards(page, 1);
    await page.getByRole('link', { name: 'Invoice Reader' }).waitFor();
    assert.match(await page.locator('.agent-card').innerText(), /\$0\.50 \/ task/);
    await page.getByLabel('Protocol').selectOption('mcp');
    await page.waitForURL(/protocol=mcp/);
    await page.getByText('No agent fits this search.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Capability').fill('code-review');
    await page.getByLabel('Capability').press('Enter');
    await page.waitForURL(/capability=code-review/);
    await waitForCards(page, 1);
    await page.getByRole('link', { name: 'PR Reviewer' }).waitFor();
    assert.match(await page.locator('.agent-card').first().innerText(), /free/);
    await settled(page);
    await assertAccessible(page, 'filtered results');
    assertClean();
    await close();
  });

  it('pages through results, twenty a page, with the page in the address', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/agents');
    await waitForCards(page, 20);
    const firstPage = await page.locator('.agent-card-name').allInnerTexts();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    assert.equal(await pager.getByRole('link', { name: /Previous/ }).count(), 0);
    await pager.getByRole('link', { name: /Next/ }).click();
    await page.waitForURL(/[?&]page=2/);
    await waitForCards(page, total - 20);
    const secondPage = await page.locator('.agent-card-name').allInnerTexts();
    assert.deepEqual(
      secondPage.filter((name) => firstPage.includes(name)),
      [],
      'no agent on both pages',
    );
    assert.equal(await pager.getByRole('link', { name: /Next/ }).count(), 0);
    await page.goBack();
    await waitForCards(page, 20);
    assert.deepEqual(await page.locator('.agent-card-name').allInnerTexts(), firstPage);
    assertClean();
    await close();
  });

  it('shows the API message and a retry when the search is refused', async () => {
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 400, url: /\/v1\/discover\?/ }] });
    await page.goto('/agents?category=Not%20A%20Slug');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /category/);
    await alert.getByRole('button', { name: 'Try again' }).waitFor();
    await assertAccessible(page, 'error state');
    assertClean();
    await close();
  });

  it('keeps the layout with skeleton rows while results load', async () => {
    const { page, assertClean, close } = await openPage(harness);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/v1\/discover\?/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/agents?q=invoices');
    await page.getByRole('status', { name: 'Loading agents' }).waitFor();
    assert.ok((await page.locator('.skeleton-card').count()) > 0);
    release();
    await page.getByRole('link', { name: 'Invoice Reader' }).waitFor();
    assert.equal(await page.locator('.skeleton-card').count(), 0);
    assertClean();
    await close();
  });

  it('lists the capability catalogue by category', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/capabilities');
    await page.getByRole('heading', { name: 'Capabilities', level: 1 }).waitFor();
    await page.locator('.catalogue section').first().waitFor();
    assert.ok((await page.locator('.catalogue section').count()) >= 20);
    await settled(page);
    await assertAccessible(page, 'capabilities');
    await page.locator('.catalogue section').first().getByRole('link').nth(1).click();
    await page.waitForURL(/\/agents\?capability=/);
    assertClean();
    await close();
  });

  it('shows an agent: rendered description, facts, trust per class, receipts and their chain', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/agents/${data.translator.slug}`);
    await page.getByRole('heading', { name: 'Contract Translator', level: 1 }).waitFor();
    assert.equal(await page.locator('.markdown strong').first().innerText(), 'English');
    assert.equal(await page.locator('.markdown li').count(), 2);
    const guide = page.locator('.markdown a', { hasText: 'the guide' });
    assert.equal(await guide.getAttribute('href'), 'https://docs.example.com/translator');
    assert.equal(await guide.getAttribute('rel'), 'noopener noreferrer nofollow');
    const facts = page.getByRole('complementary', { name: 'About this agent' });
    assert.match(await facts.innerText(), /2\.3\.0/);
    assert.match(await facts.innerText(), /REST, MCP/);
    assert.equal(await facts.getByRole('link', { name: 'https://docs.example.com/translator' }).getAttribute('href'), 'https://docs.example.com/translator');
    assert.equal(await page.getByRole('link', { name: 'Give this agent a task' }).getAttribute('href'), `/agents/${data.translator.slug}/task`);
    const trustRow = page.getByRole('row', { name: /language\.translation\.legal/ });
    await trustRow.waitFor();
    assert.match(await trustRow.innerText(), /0\.\d\d\s+1[0-9]\s+\d/);
    await page.getByText('signature not verified').first().waitFor();
    assert.ok((await page.getByText('signature verified', { exact: true }).count()) > 0);
    await settled(page);
    await assertAccessible(page, 'agent page');
    // The chain of the one complete flow.
    const chainButtons = page.getByRole('button', { name: 'Show the chain' });
    const count = await chainButtons.count();
    let found = false;
    for (let i = 0; i < count && !found; i++) {
      await chainButtons.nth(i).click();
      const complete = page.getByRole('row', { name: /complete yes/ });
      await page
        .getByRole('row', { name: /^complete/ })
        .last()
        .waitFor();
      found = (await complete.count()) > 0;
    }
    assert.ok(found, 'one receipt belongs to a complete offer, decision, outcome chain');
    assertClean();
    await close();
  });

  it('answers an unknown agent with a page that says so', async () => {
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 404, url: /\/v1\/discover\/no-such-agent/ }] });
    await page.goto('/agents/no-such-agent');
    await page.getByText('No agent here.').waitFor();
    assertClean();
    await close();
  });

  it('renders hostile text from agents as text: nothing runs, no javascript: link', async () => {
    const { page, assertClean, close } = await openPage(harness);
    for (const url of ['/', '/agents', '/agents?q=hostile', `/agents/${data.hostileAgent.slug}`]) {
      await page.goto(url);
      await page
        .getByText(/Hostile/)
        .first()
        .waitFor();
      await settled(page);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined, url);
      const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
      assert.deepEqual(
        hrefs.filter((href) => /^\s*(javascript|data|vbscript):/i.test(href)),
        [],
        url,
      );
      assert.equal(await page.locator('main img, main iframe, main script, main svg:not([aria-hidden])').count(), 0, url);
    }
    // The agent's own page shows the raw text of its name and its docs address, not markup.
    await page.goto(`/agents/${data.hostileAgent.slug}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.match(await page.getByRole('heading', { level: 1 }).innerText(), /<img src=x onerror=/);
    assert.equal(await page.getByRole('heading', { name: 'Hostile notes', level: 2 }).count(), 1);
    assert.match(await page.getByRole('complementary').innerText(), /javascript:window\.__xss=1/);
    // Markup inside the markdown is shown as text; its markdown link to javascript: is no link at all.
    assert.match(await page.locator('.markdown').innerText(), /<img src=x onerror=/);
    assert.equal(await page.locator('.markdown a[href]').count(), 0);
    await settled(page);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined);
    assertClean();
    await close();
  });

  it('moves focus to search with /, and every control is reachable by keyboard with a visible focus ring', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/agents');
    await page.locator('.agent-card').first().waitFor();
    await page.locator('body').press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Search agents');
    await page.keyboard.type('invoices');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=invoices/);
    await page.getByRole('link', { name: 'Invoice Reader' }).waitFor();
    // Tab until the first result's link has focus, then follow it with Enter.
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate(() => document.activeElement?.textContent)) === 'Invoice Reader';
    }
    assert.ok(reached, 'the result link is reachable with Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused link shows a focus ring');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Invoice Reader', level: 1 }).waitFor();
    assertClean();
    await close();
  });

  it('folds navigation into a bottom tab bar on a phone', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390, height: 844 });
    await page.goto('/agents');
    await page.locator('.agent-card').first().waitFor();
    const tabs = page.getByRole('navigation', { name: 'Sections' });
    assert.ok(await tabs.isVisible());
    assert.ok(!(await page.getByRole('navigation', { name: 'Main' }).isVisible()));
    await tabs.getByRole('link', { name: 'Catalogue' }).click();
    await page.getByRole('heading', { name: 'Capabilities', level: 1 }).waitFor();
    await settled(page);
    await assertAccessible(page, 'capabilities on a phone');
    assertClean();
    await close();
  });
});
