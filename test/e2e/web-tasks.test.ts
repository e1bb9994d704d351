/**
 * The task pages in a real browser: a requester watches a task move through its statuses without
 * reloading, while the test plays the agent through the real poll and callback endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { submitTask } from '../helpers/tasks.ts';
import { assertAccessible, browserSuiteSkip, openPage, settled, startHarness, type Harness } from './harness.ts';

/** The password the test app's signup helper gives every account. */
const password = 'correct horse battery';
/** A 1x1 PNG, served for the result's image address so nothing leaves the machine. */
const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const imageUrl = 'https://images.example.test/chart.png';

async function logIn(page: Page, email: string, next: string) {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname + url.search === next);
}

/** A person with a profile, as most visitors are (without one the app's profile lookup answers 404). */
async function person(harness: Harness, email: string, username: string) {
  const signedUp = await harness.app.signup(email);
  const created = await harness.app.request({ method: 'POST', url: '/v1/users', token: signedUp.token, body: { username, displayName: username } });
  assert.equal(created.statusCode, 201, created.body);
  return signedUp;
}

const statusChip = (page: Page) => page.locator('.task-status .status');

describe('web app: tasks (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let requester: { token: string; email: string };
  let owner: { token: string };
  let agentId: string;

  before(async () => {
    harness = await startHarness();
    requester = await person(harness, 'requester@example.test', 'requester');
    owner = await person(harness, 'agent-owner@example.test', 'agent_owner');
    agentId = (await pollingAgent(harness.app, owner.token, { name: 'Chart Maker' })).id;
  });
  after(() => harness?.close());

  it('follows a task from matched to in_progress to completed without a reload, shows the result and takes a rating', async () => {
    const task = await submitTask(harness.app, requester.token, { agentId, title: 'Chart the quarterly numbers', input: { quarter: 'Q3' } });
    const { page, assertClean, close } = await openPage(harness);
    await page.route(imageUrl, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: pixel }));
    await logIn(page, requester.email, `/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Chart the quarterly numbers' }).waitFor();
    assert.equal(await statusChip(page).textContent(), 'matched');
    await page.getByRole('link', { name: 'Chart Maker' }).waitFor();
    await page.getByText('"quarter": "Q3"').waitFor();
    await settled(page);
    await assertAccessible(page, 'open task');
    // A marker that survives only as long as the page is not reloaded.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    // The agent takes the task by polling ...
    const polled = await harness.app.request({ method: 'GET', url: `/v1/agents/${agentId}/tasks/poll?wait=0&limit=1`, token: owner.token });
    const [delivery] = polled.json().data as { taskId: string; taskToken: string }[];
    assert.equal(delivery?.taskId, task.id);
    await page.locator('.task-status .status', { hasText: 'in_progress' }).waitFor();
    // ... and answers through the callback.
    const answered = await callback(harness.app, task.id, { taskToken: delivery.taskToken, result: { summary: 'Revenue rose 4%', chart: imageUrl } });
    assert.equal(answered.statusCode, 200, answered.body);
    await page.locator('.task-status .status', { hasText: 'completed' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page was not reloaded');
    await page.getByText('"summary": "Revenue rose 4%"').waitFor();
    const image = page.getByRole('img', { name: 'Image in the result (result.chart)' });
    await image.waitFor();
    assert.equal(await image.getAttribute('src'), imageUrl);
    assert.equal(await page.getByRole('button', { name: 'Cancel task' }).count(), 0, 'a finished task cannot be cancelled');

    // Rating by keyboard: arrows move within the score group.
    await page.getByRole('radio', { name: '1' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('radio', { name: '4' }).isChecked(), true);
    await page.getByLabel('Comment (optional)').fill('Clear chart, <b>thanks</b>');
    await page.getByRole('button', { name: 'Send rating' }).press('Enter');
    await page.getByRole('heading', { name: 'Your rating' }).waitFor();
    await page.getByText('4 out of 5').waitFor();
    // User text is text: the comment's markup is shown, not applied.
    await page.getByText('Clear chart, <b>thanks</b>').waitFor();
    const stored = await harness.app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: requester.token });
    assert.deepEqual(stored.json().data.rating, { score: 4, comment: 'Clear chart, <b>thanks</b>' });
    await settled(page);
    await assertAccessible(page, 'completed task');
    assertClean();
    await close();
  });

  it('refuses a rating without a score, with a message under the form', async () => {
    const { id, token } = await assignedTask(harness.app, requester.token, owner.token, agentId);
    await callback(harness.app, id, { taskToken: token, result: { ok: true } });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, requester.email, `/tasks/${id}`);
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByText('Choose a score from 1 to 5').waitFor();
    const stored = await harness.app.request({ method: 'GET', url: `/v1/tasks/${id}`, token: requester.token });
    assert.equal(stored.json().data.rating, null);
    assertClean();
    await close();
  });

  it('cancels an open task after confirmation, by keyboard; Escape keeps it', async () => {
    const task = await submitTask(harness.app, requester.token, { agentId, title: 'Draft a press release' });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, requester.email, `/tasks/${task.id}`);
    const cancel = page.getByRole('button', { name: 'Cancel task' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel this task?' });
    await dialog.waitFor();
    await assertAccessible(page, 'cancel dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await statusChip(page).textContent(), 'matched');
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: requester.token })).json().data.status, 'matched');

    await cancel.focus();
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel task' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.task-status .status', { hasText: 'cancelled' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('button', { name: 'Cancel task' }).count(), 0);
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: requester.token })).json().data.status, 'cancelled');
    assertClean();
    await close();
  });

  it('shows the error of a failed task as it arrives', async () => {
    const { id, token } = await assignedTask(harness.app, requester.token, owner.token, agentId, { title: 'Read a scanned PDF' });
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, requester.email, `/tasks/${id}`);
    await page.locator('.task-status .status', { hasText: 'in_progress' }).waitFor();
    await settled(page);
    await callback(harness.app, id, { taskToken: token, error: { code: 'unreadable_input', message: 'The PDF has no text layer' } });
    await page.getByRole('heading', { name: 'What went wrong' }).waitFor();
    await page.getByText('The PDF has no text layer').waitFor();
    await page.getByText('unreadable_input').waitFor();
    assert.equal(await statusChip(page).textContent(), 'failed');
    await assertAccessible(page, 'failed task');
    assertClean();
    await close();
  });

  it('says so for a task of another account', async () => {
    const other = await harness.app.signup();
    const task = await submitTask(harness.app, other.token, { agentId });
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 404, url: /\/v1\/tasks\/[^/]+$/ }] });
    await logIn(page, requester.email, `/tasks/${task.id}`);
    await page.getByText('No such task.').waitFor();
    assert.equal(await page.getByText(task.id).count(), 0);
    assertClean();
    await close();
  });

  it('lists my tasks newest first with live status, pages them, and opens one by keyboard', async () => {
    const lister = await person(harness, 'lister@example.test', 'lister');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, lister.email, '/tasks');
    await page.getByText('No tasks yet.').waitFor();
    await page.getByRole('link', { name: 'Find an agent' }).waitFor();
    await settled(page);
    await assertAccessible(page, 'empty task list');

    for (let n = 1; n <= 21; n++) await submitTask(harness.app, lister.token, { agentId, title: `Task number ${n}` });
    // New tasks arrive through the event stream: no reload.
    await page.getByRole('link', { name: 'Task number 21' }).waitFor();
    const titles = await page.locator('.task-row-title').allTextContents();
    assert.equal(titles.length, 20);
    assert.equal(titles[0], 'Task number 21');
    assert.equal(titles[19], 'Task number 2');
    await page.getByText('21 tasks, newest first').waitFor();
    await settled(page);
    await assertAccessible(page, 'task list');

    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(/\/tasks\?page=2$/);
    await page.getByRole('link', { name: 'Task number 1', exact: true }).waitFor();
    await page.getByRole('link', { name: '← Newer' }).click();
    await page.waitForURL(/\/tasks$/);

    const firstRow = page.locator('.task-row').first();
    await firstRow.locator('.status', { hasText: 'matched' }).waitFor();
    const latest = (await harness.app.request({ method: 'GET', url: '/v1/tasks?limit=1', token: lister.token })).json().data[0].id as string;
    await harness.app.request({ method: 'POST', url: `/v1/tasks/${latest}/cancel`, token: lister.token });
    await firstRow.locator('.status', { hasText: 'cancelled' }).waitFor();

    await page.getByRole('link', { name: 'Task number 21' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/tasks/${latest}$`));
    await page.getByRole('heading', { name: 'Task number 21' }).waitFor();
    assertClean();
    await close();
  });

  it('shows my latest tasks and agents on the home page, and Tasks in the top bar and tab bar', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, 'agent-owner@example.test', '/');
    const agents = page.getByRole('region', { name: 'My agents' });
    const link = agents.getByRole('link', { name: 'Chart Maker' });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/me/agents/${agentId}`);
    await page.getByRole('region', { name: 'My tasks' }).getByText('No tasks yet.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    await page.waitForURL(/\/tasks$/);
    await page.getByRole('heading', { name: 'My tasks' }).waitFor();
    await settled(page);
    assertClean();
    await close();

    const phone = await openPage(harness, { width: 390, height: 844 });
    await logIn(phone.page, requester.email, '/');
    await phone.page.getByRole('region', { name: 'My tasks' }).locator('.task-row').first().waitFor();
    await phone.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tasks' }).click();
    await phone.page.waitForURL(/\/tasks$/);
    await settled(phone.page);
    await assertAccessible(phone.page, 'task list on a phone');
    phone.assertClean();
    await phone.close();
  });
});
