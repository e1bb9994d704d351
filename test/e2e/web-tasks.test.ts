/**
 * The task pages in a real browser: a requester watches a task move through its statuses without
 * reloading, while the test plays the agent through the real poll and callback endpoints.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { newAgentKey, proveKey } from '../helpers/agents.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { submitTask } from '../helpers/tasks.ts';
import { hostile } from './fixtures.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';

/** A 1x1 PNG, served for the result's image address so nothing leaves the machine. */
const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const imageUrl = 'https://images.example.test/chart.png';

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
    // The input reads as labelled fields; the raw JSON is one click away.
    const input = page.getByTestId('input-readable');
    await input.getByRole('term').filter({ hasText: 'Quarter' }).waitFor();
    assert.equal(await input.getByRole('definition').first().textContent(), 'Q3');
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
    await page.getByTestId('result-readable').getByText('Revenue rose 4%', { exact: true }).waitFor();
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

  it('rates with five large labelled buttons, at least 44 px each, on a wide screen and a phone', async () => {
    for (const width of [1280, 390]) {
      const { id, token } = await assignedTask(harness.app, requester.token, owner.token, agentId, { title: `Rate me at ${width}` });
      await callback(harness.app, id, { taskToken: token, result: { ok: true } });
      const { page, assertClean, close } = await openPage(harness, { width });
      await logIn(page, requester.email, `/tasks/${id}`);
      const words = ['Poor', 'Fair', 'Good', 'Very good', 'Excellent'];
      for (const [index, word] of words.entries()) {
        const button = page.locator('.rating label').nth(index);
        assert.equal((await button.innerText()).replace(/\s+/g, ' ').trim(), `${index + 1} ${word}`);
        const box = (await button.boundingBox())!;
        assert.ok(box.width >= 44 && box.height >= 44, `${word} at ${width} px is ${box.width} x ${box.height}`);
      }
      await settled(page);
      await assertAccessible(page, `rating at ${width}`);
      await page.locator('.rating label').filter({ hasText: 'Excellent' }).click();
      assert.equal(await page.getByRole('radio', { name: '5 Excellent' }).isChecked(), true);
      await page.getByRole('button', { name: 'Send rating' }).click();
      await page.getByText('5 out of 5').waitFor();
      assertClean();
      await close();
    }
  });

  it('lays a nested result out readably on a wide screen and a phone, with Show JSON and Copy; nothing in it runs', async () => {
    const longWord = 'x'.repeat(400);
    const result = {
      summary_text: `Three clauses need a second look. ${longWord}`,
      source: 'https://docs.example.test/contract.pdf',
      pages: 12,
      signed: false,
      clauses: [
        { clause_number: 4, risk: 'high' },
        { clause_number: 9, risk: 'low' },
      ],
      notes: hostile.img,
      link: hostile.link,
      nothing: null,
    };
    const { id, token } = await assignedTask(harness.app, requester.token, owner.token, agentId, { title: 'Review the lease', input: { quarter: 'Q3' } });
    await callback(harness.app, id, { taskToken: token, result });
    for (const width of [1280, 390]) {
      const { page, assertClean, close } = await openPage(harness, { width });
      await logIn(page, requester.email, `/tasks/${id}`);
      const readable = page.getByTestId('result-readable');
      await readable.getByRole('term').filter({ hasText: 'Summary text' }).waitFor();
      const terms = await readable.locator(':scope > dl > div > dt').allTextContents();
      assert.deepEqual(terms, ['Summary text', 'Source', 'Pages', 'Signed', 'Clauses', 'Notes', 'Link', 'Nothing']);
      // An address is a link, a list a list of indented groups, a boolean a word, markup text.
      assert.equal(
        await readable.getByRole('link', { name: 'https://docs.example.test/contract.pdf' }).getAttribute('href'),
        'https://docs.example.test/contract.pdf',
      );
      assert.equal(await readable.getByRole('listitem').count(), 2);
      assert.deepEqual(await readable.getByRole('listitem').first().locator('dt').allTextContents(), ['Clause number', 'Risk']);
      await readable.getByText('no', { exact: true }).waitFor();
      await readable.getByText(hostile.img, { exact: true }).waitFor();
      await readable.getByText(hostile.link, { exact: true }).waitFor();
      assert.equal(await readable.getByRole('link', { name: hostile.link }).count(), 0, 'a javascript: address is no link');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `nothing scrolls sideways at ${width} px`);
      assert.equal(await page.getByRole('region', { name: 'Result' }).locator('pre').isVisible(), false);

      await page.getByRole('region', { name: 'Result' }).getByRole('button', { name: 'Show JSON' }).click();
      const json = page.getByLabel('Result as JSON');
      await json.waitFor();
      assert.deepEqual(JSON.parse((await json.textContent())!), result);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `the JSON wraps at ${width} px`);
      await page.getByRole('region', { name: 'Result' }).getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied the JSON.').waitFor();
      assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), result);
      await settled(page);
      await assertAccessible(page, `readable result at ${width}`);
      assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
      assertClean();
      await close();
    }
  });

  it('signs an outcome receipt with a key file in the page, registering the key first; the service counts it bound to the task, and the agent page says why', async () => {
    // An agent that proved its key, so receipts about it can be bound to its tasks.
    const agentKey = newAgentKey();
    const keyed = await pollingAgent(harness.app, owner.token, { name: 'Audit Summariser', pubkey: agentKey.pubkey });
    await proveKey(harness.app, owner.token, keyed.id, agentKey);
    const { id, token } = await assignedTask(harness.app, requester.token, owner.token, keyed.id, { title: 'Summarise the audit' });
    await callback(harness.app, id, { taskToken: token, result: { summary: 'No findings' } });
    // The requester's key, written as the SDK and the CLI write it.
    const dir = mkdtempSync(join(tmpdir(), 'agentry-receipt-'));
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const keyPath = join(dir, 'requester-key.pem');
    writeFileSync(keyPath, pem, { mode: 0o600 });
    const pemBody = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

    const { page, assertClean, close } = await openPage(harness);
    const sent: string[] = [];
    page.on('request', (request) => sent.push(request.postData() ?? ''));
    try {
      await logIn(page, requester.email, `/tasks/${id}`);
      const section = page.getByRole('region', { name: 'Sign an outcome receipt' });
      await section.getByText('writing.text-summarization', { exact: true }).waitFor();
      assert.equal(await section.getByRole('radio', { name: 'Success' }).isChecked(), true, 'a completed task starts at success');
      await section.getByLabel('Your private key file (PKCS#8 PEM, Ed25519)').setInputFiles(keyPath);
      await section.getByText('This key is not registered on your account').waitFor();
      assert.equal(await section.getByRole('button', { name: 'Sign and send the receipt' }).isDisabled(), true, 'an unregistered key cannot sign');
      await settled(page);
      await assertAccessible(page, 'outcome receipt with an unregistered key');
      await section.getByRole('button', { name: 'Register this key on my account' }).click();
      await section.getByText('This key is registered on your account for signing receipts.').waitFor();
      await section.getByRole('button', { name: 'Sign and send the receipt' }).click();
      const ack = page.getByTestId('receipt-ack');
      await ack.getByText('It counts towards Audit Summariser’s trust in writing.text-summarization, bound to this task, so it weighs fully.').waitFor();
      await settled(page);
      await assertAccessible(page, 'outcome receipt acknowledged');

      // The service agrees: the requester's verified receipt about the agent's key, bound to the task.
      const stored = (await harness.app.request({ method: 'GET', url: `/v1/trust-receipts?correlationId=${id}` })).json().data;
      assert.equal(stored.length, 1, JSON.stringify(stored));
      assert.equal(stored[0].issuer.pubkey, publicKeyString(privateKey));
      assert.equal(stored[0].subject.pubkey, agentKey.pubkey);
      assert.equal(stored[0].signatureVerified, true);
      assert.deepEqual(stored[0].payload.outcome, 'success');
      const trust = (await harness.app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(agentKey.pubkey)}` })).json().data;
      assert.deepEqual(
        trust.classes.map((c: { taskClass: string; taskBound: number }) => [c.taskClass, c.taskBound]),
        [['writing.text-summarization', 1]],
      );
      assert.ok(
        sent.every((body) => !body.includes(pemBody) && !body.includes(pemBody.slice(-40))),
        'the private key never left the page',
      );

      // The agent page's "Why this score" lists the receipt as bound to the task.
      await ack.getByRole('link', { name: 'Why Audit Summariser’s score is what it is' }).click();
      await page.getByText('Why this score').click();
      const why = page.getByRole('region', { name: 'Why writing.text-summarization scores 0.60' });
      await why.getByText(`Bound to task ${id.slice(0, 8)}: success, weight 1`).waitFor();
      await settled(page);
      await assertAccessible(page, 'agent page explaining a task-bound receipt');
      assertClean();
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
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

  it('says why a named agent refused a task, in words, without an expiry, and sends it again with the budget it asks', async () => {
    const priced = await pollingAgent(harness.app, owner.token, { name: 'Costly Translator', pricePerTaskCents: 1500 });
    const refused = await submitTask(harness.app, requester.token, {
      agentId: priced.id,
      title: 'Translate the brochure',
      input: { language: 'de' },
      maxPriceCents: 1000,
    });
    assert.equal(refused.status, 'unmatched');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, requester.email, `/tasks/${refused.id}`);
    await page.getByRole('heading', { name: 'Why it was not sent' }).waitFor();
    await page.getByText('Costly Translator asks $15.00 a task, above your budget of $10.00. Set a budget of at least that and send again').waitFor();
    // A final task shows neither an expiry nor "none yet"; the agent asked for stays named.
    assert.equal(await page.getByText('Expires').count(), 0);
    assert.equal(await page.getByText('none yet').count(), 0);
    await page.getByRole('link', { name: 'Costly Translator' }).waitFor();
    await page.getByText('(asked for; it did not take the task)').waitFor();
    assert.equal(await page.getByTestId('task-price').innerText(), 'not charged');
    await settled(page);
    await assertAccessible(page, 'unmatched task');

    // The task list names it too.
    await page.goto('/tasks');
    await page.getByRole('listitem').filter({ hasText: 'Translate the brochure' }).getByText('Costly Translator (did not take it)').first().waitFor();
    await page.goBack();

    await page.getByRole('button', { name: 'Send again with a budget of $15.00' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/tasks/') && !url.pathname.endsWith(refused.id));
    await page.getByText('$15.00 agreed; charged when it completes').waitFor();
    const resentId = page.url().split('/').pop()!;
    const resent = (await harness.app.request({ method: 'GET', url: `/v1/tasks/${resentId}`, token: requester.token })).json().data;
    assert.equal(resent.status, 'matched');
    assert.equal(resent.assignedAgent.id, priced.id);
    assert.deepEqual(resent.input, { language: 'de' });
    assert.equal(resent.title, 'Translate the brochure');
    assert.equal(resent.maxPriceCents, 1500);
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
