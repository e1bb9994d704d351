/**
 * `npm run screenshots`: every page of the web app at 1280 and 390 px, from the browser tests'
 * data, into docs/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { callback, pollingAgent } from '../helpers/payments.ts';
import { submitTask } from '../helpers/tasks.ts';
import { seed } from './fixtures.ts';
import { browserSuiteSkip, openPage, settled, startHarness } from './harness.ts';

const out = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const skip = browserSuiteSkip();
if (skip) {
  console.error(skip);
  process.exit(1);
}
mkdirSync(out, { recursive: true });

const harness = await startHarness();
try {
  const data = await seed(harness.app, { hostile: false });
  const person = await harness.app.signup('ada@example.test');
  await harness.app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username: 'ada', displayName: 'Ada Lovelace', bio: 'I run a few agents and review their receipts.' } });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'ci runner' } });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'laptop' } });


  // Ada's tasks, to a polling agent of another person that the script plays.
  const charts = await harness.app.signup('charts@example.test');
  const chartMaker = await pollingAgent(harness.app, charts.token, { name: 'Chart Maker', description: 'Turns tables into charts and one-paragraph summaries', capabilities: ['charts', 'summarization'] });
  const take = async () => {
    const polled = await harness.app.request({ method: 'GET', url: `/v1/agents/${chartMaker.id}/tasks/poll?wait=0&limit=1`, token: charts.token });
    return (polled.json().data as { taskToken: string }[])[0]!.taskToken;
  };
  const chartUrl = 'https://images.example.test/q3-revenue.png';
  const completed = await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart Q3 revenue by region', description: 'Chart the attached Q3 revenue by region and summarise it in one paragraph', input: { quarter: 'Q3', regions: ['EMEA', 'Americas', 'APAC'] } });
  await callback(harness.app, completed.id, { taskToken: await take(), result: { summary: 'Revenue rose 4% on Q2, led by APAC (+11%); EMEA was flat.', chart: chartUrl, regions: { EMEA: 1.2, Americas: 2.9, APAC: 1.6 } } });
  const failed = await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart the scanned 2019 ledger', description: 'Chart yearly totals from the scanned ledger' });
  await callback(harness.app, failed.id, { taskToken: await take(), error: { code: 'unreadable_input', message: 'The scan has no text layer' } });
  const cancelled = await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart website visits' });
  await harness.app.request({ method: 'POST', url: `/v1/tasks/${cancelled.id}/cancel`, token: person.token });
  const running = await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart support tickets per week', description: 'Weekly ticket counts for the last quarter, as a bar chart', input: { weeks: 13 } });
  await take();
  await submitTask(harness.app, person.token, { agentId: chartMaker.id, title: 'Chart churn by plan', description: 'Monthly churn per plan, as a line chart' });
  // The chart the result names, drawn by the browser itself so nothing leaves the machine.
  const chartPage = await openPage(harness, { width: 320, height: 240 });
  await chartPage.page.setContent(
    `<body style="margin:0;font:14px system-ui;background:#fff"><div style="display:flex;align-items:flex-end;gap:24px;height:200px;padding:20px 40px 0">${[
      ['EMEA', 90],
      ['Americas', 170],
      ['APAC', 120],
    ]
      .map(([label, height]) => `<div style="text-align:center"><div style="width:56px;height:${height}px;background:#0a5dc2"></div>${label}</div>`)
      .join('')}</div></body>`,
  );
  const chartPng = await chartPage.page.screenshot();
  await chartPage.close();
  const serveChart = (page: Page) => page.route(chartUrl, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: chartPng }));

  const shots: { name: string; url: string; signedIn?: boolean; prepare?: (page: Page) => Promise<unknown>; ready: (page: Page) => Promise<unknown> }[] = [
    { name: 'home', url: '/', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-search', url: '/agents?q=translate+a+contract+to+German', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-filtered', url: '/agents?category=productivity', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-empty', url: '/agents?q=translate&protocol=grpc', ready: (page) => page.getByText('No agent fits this search.').waitFor() },
    { name: 'agent', url: `/agents/${data.translator.slug}`, ready: (page) => page.getByRole('row', { name: /language\.translation/ }).waitFor() },
    { name: 'capabilities', url: '/capabilities', ready: (page) => page.locator('.catalogue section').first().waitFor() },
    { name: 'login', url: '/login?next=%2Fsettings', ready: (page) => page.getByLabel('Email').waitFor() },
    { name: 'signup', url: '/signup', ready: (page) => page.getByLabel('Email').waitFor() },
    { name: 'settings', url: '/settings', signedIn: true, ready: (page) => page.getByLabel('Display name').waitFor() },
    { name: 'settings-keys', url: '/settings/keys', signedIn: true, ready: (page) => page.getByRole('row', { name: /laptop/ }).waitFor() },
    { name: 'home-signed-in', url: '/', signedIn: true, ready: (page) => page.locator('.task-row').first().waitFor() },
    { name: 'tasks', url: '/tasks', signedIn: true, ready: (page) => page.locator('.task-row').nth(4).waitFor() },
    { name: 'task-open', url: `/tasks/${running.id}`, signedIn: true, ready: (page) => page.getByText('updates live').waitFor() },
    { name: 'task-completed', url: `/tasks/${completed.id}`, signedIn: true, prepare: serveChart, ready: (page) => page.getByRole('button', { name: 'Send rating' }).waitFor() },
    { name: 'task-failed', url: `/tasks/${failed.id}`, signedIn: true, ready: (page) => page.getByText('The scan has no text layer').waitFor() },
  ];

  for (const width of [1280, 390]) {
    for (const shot of shots) {
      const { page, close } = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
      await shot.prepare?.(page);
      if (shot.signedIn) {
        await page.goto(`/login?next=${encodeURIComponent(shot.url)}`);
        await page.getByLabel('Email').fill('ada@example.test');
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL((url) => url.pathname === shot.url);
      } else {
        await page.goto(shot.url);
      }
      await shot.ready(page);
      await settled(page);
      await page.screenshot({ path: `${out}${shot.name}-${width}.png`, fullPage: width > 390 });
      await close();
    }
    // The key creation box: the one moment a secret is on screen.
    const { page, close } = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
    await page.goto('/login?next=%2Fsettings%2Fkeys');
    await page.getByLabel('Email').fill('ada@example.test');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('New key name').fill('deploy bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();
    await settled(page);
    await page.screenshot({ path: `${out}settings-keys-created-${width}.png`, fullPage: width > 390 });
    await close();
  }
  console.log(`screenshots written to ${out}`);
} finally {
  await harness.close();
}
