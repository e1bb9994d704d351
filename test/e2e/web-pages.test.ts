import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, assertNoInjectedMarkup, browserSuiteSkip, openPage, settled, startHarness, type Harness } from './harness.ts';
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
    // It proved its key: the card says so.
    assert.equal(await first.locator('.identity-badge').innerText(), 'Key proven');
    await settled(page);
    await assertAccessible(page, 'results');
    // The URL holds the search: a reload shows the same results.
    await page.reload();
    await page.locator('.agent-card').first().getByRole('link', { name: 'Contract Translator' }).waitFor();
    assertClean();
    await close();
  });

  it('shows results the service flags as weak matches apart, as loosely related, with a pointer to the catalogue', async () => {
    const query = 'quantum physics homework';
    const answer = (await harness.app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(query)}` })).json().data as {
      name: string;
      weakMatch: boolean;
    }[];
    const weak = answer.filter((agent) => agent.weakMatch);
    assert.ok(weak.length > 0 && weak.length === answer.length, `only weak matches for "${query}": ${JSON.stringify(answer)}`);
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/agents?q=${encodeURIComponent(query)}`);
    const loose = page.getByRole('region', { name: 'No close match; these are loosely related' });
    await loose.waitFor();
    for (const agent of weak) await loose.getByRole('link', { name: agent.name }).waitFor();
    assert.equal(await loose.getByRole('link', { name: 'capability catalogue' }).getAttribute('href'), '/capabilities');
    await settled(page);
    await assertAccessible(page, 'weak results');
    // A search with a close match lists it first, the loose ones after it under their own heading.
    await page.goto(`/agents?q=${encodeURIComponent('translate a contract to German')}`);
    await page.locator('.agent-card').first().getByRole('link', { name: 'Contract Translator' }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'No close match; these are loosely related' }).count(), 0);
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

  it('keeps both filters when a second is chosen before the first has rendered', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/agents');
    await waitForCards(page, Math.min(20, total));
    // The categories come with the catalogue, which may answer after the results.
    await page.locator('#filter-category option[value="finance"]').waitFor({ state: 'attached' });
    // Two choices in one task: the second handler runs before the router has rendered the first.
    await page.evaluate(() => {
      const choices: [string, string][] = [
        ['filter-category', 'finance'],
        ['filter-protocol', 'mcp'],
      ];
      for (const [id, value] of choices) {
        const select = document.getElementById(id) as HTMLSelectElement;
        select.value = value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
      }
    });
    await page.getByText('No agent fits this search.').waitFor();
    const search = new URL(page.url()).searchParams;
    assert.deepEqual([search.get('category'), search.get('protocol')], ['finance', 'mcp']);
    assert.equal(await page.getByLabel('Category').inputValue(), 'finance');
    assertClean();
    await close();
  });

  it('on a phone folds the filters under a "Filters" button, stacked at full width when open, and shows two lines of each description', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390, height: 844, touch: true });
    await page.goto('/agents');
    await waitForCards(page, Math.min(20, total));
    const desc = page.locator('.agent-card').filter({ hasText: 'Contract Translator' }).locator('.agent-card-desc');
    const lines = await desc.evaluate((node) => node.getBoundingClientRect().height / parseFloat(getComputedStyle(node).lineHeight));
    assert.ok(lines > 1.5 && lines < 2.5, `the description shows two lines (${lines})`);
    assert.ok(!(await page.getByLabel('Category').isVisible()), 'the filters start folded');
    const toggle = page.getByRole('button', { name: 'Filters' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    for (const label of ['Category', 'Capability', 'Protocol']) {
      const box = (await page.getByLabel(label).boundingBox())!;
      assert.ok(box.width >= 300 && box.x + box.width <= 390, `${label} is the full width of the phone (${box.x}, ${box.width})`);
    }
    await page.getByLabel('Category').selectOption('finance');
    await page.waitForURL(/category=finance/);
    await waitForCards(page, 1);
    await page.getByRole('button', { name: 'Filters (1)' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'nothing is wider than the phone');
    await settled(page);
    await assertAccessible(page, 'filters open on a phone');
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

  it('lists the capability catalogue by category with counts of agents, a filter and a jump list, on a wide screen and a phone', async () => {
    const counts = (await harness.app.request({ method: 'GET', url: '/v1/capabilities/agent-counts' })).json().data as {
      capabilities: { slug: string; agents: number }[];
    };
    const catalogue = (await harness.app.request({ method: 'GET', url: '/v1/capabilities' })).json().data as { slug: string; name: string }[];
    const offered = counts.capabilities[0]!;
    const offeredName = catalogue.find((c) => c.slug === offered.slug)!.name;
    const weather = catalogue.find((c) => c.slug === 'weather-lookup')!;
    assert.equal(
      counts.capabilities.find((c) => c.slug === weather.slug),
      undefined,
      'no fixture agent reports the weather',
    );
    for (const width of [1280, 390]) {
      const { page, assertClean, close } = await openPage(harness, { width });
      await page.goto('/capabilities');
      await page.getByRole('heading', { name: 'Capabilities', level: 1 }).waitFor();
      await page.locator('.catalogue section').first().waitFor();
      const allCategories = await page.locator('.catalogue section').count();
      assert.ok(allCategories >= 20);
      // Counts are of agents one can find, not of catalogue entries; a capability with none is greyed, no link.
      const offeredRow = page.locator('.catalogue li', { has: page.getByRole('link', { name: offeredName, exact: true }) });
      await offeredRow.locator('.capability-count', { hasText: `${offered.agents} agent` }).waitFor();
      // Its category counts it too, never "no agents yet" beside it.
      const offeredSection = page.locator('.catalogue section', { has: page.getByRole('link', { name: offeredName, exact: true }) });
      assert.doesNotMatch(await offeredSection.locator('h2 .capability-count').innerText(), /no agents yet/);
      assert.equal(await page.title(), 'Capabilities · Agentry');
      const weatherRow = page.locator('.catalogue li.capability-empty', { hasText: weather.name });
      await weatherRow.getByText('no agents yet').waitFor();
      assert.equal(await weatherRow.getByRole('link').count(), 0);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `nothing scrolls sideways at ${width} px`);
      await settled(page);
      await assertAccessible(page, `capabilities at ${width}`);

      // The filter keeps the categories with a match, and the jump list follows it.
      await page.getByLabel('Filter capabilities').fill('weather');
      await page.waitForURL((url) => url.searchParams.get('filter') === 'weather');
      // The URL changes as the filter is typed; the list and the jump list follow in a later render.
      await page.waitForFunction((all) => {
        const sections = document.querySelectorAll('.catalogue section').length;
        return sections < all && document.querySelectorAll('nav[aria-label="Jump to a category"] a').length === sections;
      }, allCategories);
      await page.locator('.catalogue li', { hasText: weather.name }).waitFor();
      await page.getByLabel('Filter capabilities').fill('');
      await page.getByLabel('Filter capabilities').fill('quantum knitting');
      await page.getByText('No capability matches “quantum knitting”.').waitFor();
      await page.getByLabel('Filter capabilities').fill('');

      // A jump lands on its category, below the sticky bar.
      const last = page.getByRole('navigation', { name: 'Jump to a category' }).getByRole('link').last();
      const target = (await last.getAttribute('href'))!.slice(1);
      await last.click();
      await page.waitForURL((url) => url.hash === `#${target}`);
      await page.waitForFunction((id) => {
        const top = document.getElementById(id)!.getBoundingClientRect().top;
        return top >= 0 && top < window.innerHeight / 2;
      }, target);
      await offeredRow.getByRole('link', { name: offeredName, exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/agents' && url.searchParams.get('capability') === offered.slug);
      await page.locator('.agent-card').first().waitFor();
      assertClean();
      await close();
    }
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
    assert.equal(await facts.getByTestId('agent-identity').innerText(), 'Registration key proven');
    assert.equal(await page.locator('.agent-header .identity-badge').innerText(), 'Key proven');
    assert.deepEqual(await facts.locator('.agent-examples li').allInnerTexts(), [
      '“Put our German supply contract into plain English”',
      '“Translate this NDA into French before Friday”',
    ]);
    assert.equal(await facts.getByRole('link', { name: 'https://docs.example.com/translator' }).getAttribute('href'), 'https://docs.example.com/translator');
    assert.equal(await page.getByRole('link', { name: 'Give this agent a task' }).getAttribute('href'), `/agents/${data.translator.slug}/task`);
    const trustRow = page.getByRole('row', { name: /language\.translation\.legal/ });
    await trustRow.waitFor();
    assert.match(await trustRow.innerText(), /0\.\d\d\s+1[0-9]\s+\d/);
    await page.getByText('signature not verified').first().waitFor();
    assert.ok((await page.getByText('signature verified', { exact: true }).count()) > 0);
    await settled(page);
    await assertAccessible(page, 'agent page');
    // Why this score: closed until asked for, then the one party that counted (the other owner's four
    // agents, none bound to a task) with its capped weight, and the stranger's key that did not count.
    const why = page.getByRole('group').filter({ has: page.getByText('Why this score', { exact: true }) });
    assert.equal(await why.getAttribute('open'), null, 'the explanation starts closed');
    await page.getByText('Why this score', { exact: true }).click();
    const legal = page.getByRole('region', { name: /^Why language\.translation\.legal scores 0\.\d\d$/ });
    // The party is named by its public agents, each a link to its page.
    await legal.getByText(/^Invoice Reader, Meeting Notes, PDF Summariser, PR Reviewer: weighs 1\.5, mean value 0\.9\d?$/).waitFor();
    assert.match((await legal.getByRole('link', { name: 'PR Reviewer', exact: true }).getAttribute('href'))!, /^\/agents\/pr-reviewer/);
    assert.equal(await legal.getByText(/not bound to a task, from key ed25519:/).count(), 4, 'each of its four issuer keys, not bound to a task');
    await legal.getByText(/^1 receipt from key ed25519:.+: issuer key not registered\.$/).waitFor();
    const shownScore = (await trustRow.innerText()).match(/0\.\d\d/)![0];
    assert.match(
      (await legal.getByRole('heading', { level: 3 }).innerText()).trim(),
      new RegExp(`: ${shownScore.replace('.', '\\.')}$`),
      'the explanation has the table’s score',
    );
    await settled(page);
    await assertAccessible(page, 'agent page explaining its score');
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

  it('puts an agent’s facts before its receipts on a phone, and beside them on a wide screen', async () => {
    for (const width of [390, 1280]) {
      const { page, assertClean, close } = await openPage(harness, { width });
      await page.goto(`/agents/${data.translator.slug}`);
      const facts = page.getByRole('complementary', { name: 'About this agent' });
      const receipts = page.getByRole('heading', { name: 'Recent receipts' });
      await receipts.waitFor();
      const [factsBox, receiptsBox] = [(await facts.boundingBox())!, (await receipts.boundingBox())!];
      if (width === 390) assert.ok(factsBox.y < receiptsBox.y, `facts (${factsBox.y}) above receipts (${receiptsBox.y})`);
      else assert.ok(factsBox.x > receiptsBox.x, 'facts beside the receipts');
      await settled(page);
      await assertAccessible(page, `agent page at ${width}`);
      assertClean();
      await close();
    }
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
      await assertNoInjectedMarkup(page, url);
    }
    // The agent's own page shows the raw text of its name and its docs address, not markup.
    await page.goto(`/agents/${data.hostileAgent.slug}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.match(await page.getByRole('heading', { level: 1 }).innerText(), /<img src=x onerror=/);
    assert.equal(await page.getByRole('heading', { name: 'Hostile notes', level: 2 }).count(), 1);
    assert.match(await page.getByRole('complementary').innerText(), /javascript:window\.__xss=1/);
    assert.match(await page.locator('.agent-examples').innerText(), /<img src=x onerror=/);
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

  it('shows one search box on the phone home page, and no "(press /)" on a touch screen', async () => {
    const phone = await openPage(harness, { width: 390, height: 844, touch: true });
    await phone.page.goto('/');
    await phone.page.getByRole('heading', { name: 'What do you need done?' }).waitFor();
    const visible = async (page: typeof phone.page) =>
      (await Promise.all((await page.locator('input[type="search"]').all()).map((box) => box.isVisible()))).filter(Boolean).length;
    await settled(phone.page);
    assert.equal(await visible(phone.page), 1);
    await phone.page.goto('/agents');
    const topSearch = phone.page.getByRole('searchbox', { name: 'Search agents' });
    await topSearch.waitFor();
    assert.equal(await topSearch.getAttribute('placeholder'), 'Search agents');
    phone.assertClean();
    await phone.close();
    const desk = await openPage(harness);
    await desk.page.goto('/');
    await desk.page.getByRole('heading', { name: 'What do you need done?' }).waitFor();
    assert.equal(await visible(desk.page), 2, 'the top bar keeps its search on a wide screen');
    assert.equal(await desk.page.getByRole('searchbox', { name: 'Search agents' }).getAttribute('placeholder'), 'Search agents  (press /)');
    desk.assertClean();
    await desk.close();
  });

  it('folds navigation into a bottom tab bar on a phone', async () => {
    const { page, assertClean, close } = await openPage(harness, { width: 390, height: 844 });
    await page.goto('/agents');
    await page.locator('.agent-card').first().waitFor();
    const tabs = page.getByRole('navigation', { name: 'Sections' });
    assert.ok(await tabs.isVisible());
    assert.ok(!(await page.getByRole('navigation', { name: 'Main' }).isVisible()));
    await tabs.getByRole('link', { name: 'Me', exact: true }).click();
    await page.getByRole('navigation', { name: 'Your things' }).getByRole('link', { name: 'Capability catalogue' }).click();
    await page.getByRole('heading', { name: 'Capabilities', level: 1 }).waitFor();
    await settled(page);
    await assertAccessible(page, 'capabilities on a phone');
    assertClean();
    await close();
  });
});
