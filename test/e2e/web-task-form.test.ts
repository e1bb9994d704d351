import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { png, svg } from '../helpers/images.ts';
import { hostile } from './fixtures.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';
import { hostileSchema, registerFormAgent } from './task-form-fixtures.ts';
import { signupPassword } from '../helpers/app.ts';

interface Person {
  email: string;
  token: string;
}

async function personWithProfile(harness: Harness, email: string, username: string): Promise<Person> {
  const person = await harness.app.signup(email);
  const created = await harness.app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username, displayName: username } });
  assert.equal(created.statusCode, 201, created.body);
  return person;
}

/** The task the page created, read back through the API: what the agent will get. */
async function createdTask(harness: Harness, page: Page, person: Person) {
  await page.waitForURL(/\/tasks\/[0-9a-f-]{36}$/);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const response = await harness.app.request({ method: 'GET', url: `/v1/tasks/${id}`, token: person.token });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data as {
    id: string;
    title: string | null;
    description: string;
    input: Record<string, unknown> | null;
    assignedAgent: { id: string } | null;
  };
}

/** Idempotency keys the page sent with task submissions. */
function watchSubmissions(page: Page): string[] {
  const keys: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/tasks') keys.push(request.headers()['idempotency-key'] ?? '');
  });
  return keys;
}

/** Waits until the preview image has really loaded from the service. */
async function previewLoaded(page: Page) {
  const preview = page.getByRole('img', { name: 'Preview of the image for Reference image' });
  await preview.waitFor();
  await page.waitForFunction(() => {
    const image = document.querySelector<HTMLImageElement>('img.image-preview');
    return image !== null && image.complete && image.naturalWidth > 0;
  });
  return preview;
}

describe('web app: the task form (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let owner: Person;
  let agent: { id: string; slug: string; name: string };

  before(async () => {
    harness = await startHarness();
    owner = await personWithProfile(harness, 'runner@example.test', 'runner');
    agent = await registerFormAgent(harness.app, owner.token, 'Document Translator');
  });
  after(() => harness?.close());

  it('sends a signed-out visitor to log in and back to the form', async () => {
    const person = await personWithProfile(harness, 'visitor@example.test', 'visitor');
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/agents/${agent.slug}`);
    await page.getByRole('link', { name: 'Give this agent a task' }).click();
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === `/agents/${agent.slug}/task`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Give Document Translator a task' }).waitFor();
    assertClean();
    await close();
  });

  it("names fields and options as people read them: the schema's labels, or the field names made readable", async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto(`/agents/${agent.slug}`);
    const takes = page.locator('.task-inputs li');
    await takes.first().waitFor();
    assert.deepEqual(await takes.allTextContents(), [
      'Source text (required)',
      'Target language (required): German, French, Spanish',
      'Tone: Formal (contracts, letters), neutral, Casual (chat, posts)',
      'Number of pages (required)',
      'Certified',
      'Reference image',
    ]);

    const person = await personWithProfile(harness, 'reader@example.test', 'reader');
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByRole('heading', { name: `Input for ${agent.name}` }).waitFor();
    assert.deepEqual(await page.locator('.schema-form label').allTextContents(), [
      'Source text * (required)',
      'Target language * (required)',
      'Tone',
      'Number of pages * (required)',
      'Certified',
      'Reference image',
    ]);
    assert.equal(await page.getByText('sourceText', { exact: true }).count(), 0, 'no raw field name is shown');
    const tone = page.getByLabel('Tone');
    assert.deepEqual(await tone.locator('option').allTextContents(), ['Formal (contracts, letters)', 'neutral', 'Casual (chat, posts)']);
    // The option's label is what people pick; the value sent stays the schema's.
    await tone.selectOption({ label: 'Casual (chat, posts)' });
    await page.getByLabel('What you need done').fill('Translate a short note.');
    await page.getByLabel('Source text').fill('See you soon.');
    await page.getByLabel('Target language').selectOption('French');
    await page.getByRole('button', { name: 'Send task' }).click();
    const task = await createdTask(harness, page, person);
    assert.equal(task.input?.tone, 'casual');
    assertClean();
    await close();
  });

  it('carries the search words from the results through the agent page to the task as its searchQuery, unless the person unticks them', async () => {
    const person = await personWithProfile(harness, 'searcher@example.test', 'searcher');
    const words = 'put my lease into German';
    // The first search with words loads the sentence encoder, which can take longer than a wait in the page.
    assert.equal((await harness.app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(words)}` })).statusCode, 200);
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, person.email, '/agents');
    await page.getByRole('searchbox', { name: 'Search agents' }).fill(words);
    await page.keyboard.press('Enter');
    await page.locator('.agent-card').getByRole('link', { name: agent.name }).click();
    await page.waitForURL((url) => url.pathname === `/agents/${agent.slug}` && url.searchParams.get('q') === words);
    await page.getByRole('link', { name: 'Give this agent a task' }).click();
    await page.waitForURL((url) => url.pathname === `/agents/${agent.slug}/task` && url.searchParams.get('q') === words);
    const carry = page.getByRole('checkbox', { name: `Send my search “${words}” with the task` });
    assert.equal(await carry.isChecked(), true, 'the search goes along unless unticked');
    await settled(page);
    await assertAccessible(page, 'task form after a search');
    const send = async (description: string) => {
      await page.getByLabel('What you need done').fill(description);
      await page.getByLabel('Source text').fill('The tenant shall pay the rent monthly.');
      await page.getByLabel('Target language').selectOption('German');
      await page.getByRole('button', { name: 'Send task' }).click();
      return createdTask(harness, page, person);
    };
    const searchQueryOf = async (id: string) =>
      (await harness.app.database.db.selectFrom('tasks').select('search_query').where('id', '=', id).executeTakeFirstOrThrow()).search_query;

    const task = await send('Translate the lease.');
    assert.equal(await searchQueryOf(task.id), words);
    assert.equal('searchQuery' in task, false, 'the task view never shows it');

    await page.goto(`/agents/${agent.slug}/task?q=${encodeURIComponent(words)}`);
    await carry.uncheck();
    const unticked = await send('Translate the lease, again.');
    assert.equal(await searchQueryOf(unticked.id), null);
    assertClean();
    await close();
  });

  it('fills every control by mouse, uploads an image through the file chooser, and sends the task', async () => {
    const person = await personWithProfile(harness, 'mouse@example.test', 'mouse_user');
    const { page, assertClean, close } = await openPage(harness);
    const keys = watchSubmissions(page);
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByRole('heading', { name: `Input for ${agent.name}` }).waitFor();

    // Defaults are pre-filled, descriptions are helper text, required fields say so.
    assert.equal(await page.getByLabel('Tone').inputValue(), 'neutral');
    assert.equal(await page.getByLabel('Number of pages').inputValue(), '1');
    assert.equal(await page.getByRole('switch', { name: 'Certified' }).isChecked(), false);
    await page.getByText('The language to translate into.').waitFor();
    // Screen readers hear the mark as a word.
    assert.equal(await page.getByRole('textbox', { name: 'Source text (required)', exact: true }).getAttribute('aria-required'), 'true');
    await assertAccessible(page, 'task form');

    await page.getByLabel('Title (optional)').fill('Lease, to German');
    await page.getByLabel('What you need done').fill('Translate the attached lease.');
    await page.getByLabel('Source text').fill('The tenant shall pay the rent monthly.');
    await page.getByLabel('Target language').selectOption('German');
    await page.getByLabel('Tone').selectOption('formal');
    await page.getByLabel('Number of pages').fill('4');
    await page.getByRole('switch', { name: 'Certified' }).click();

    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload image' }).click();
    await (await chooser).setFiles({ name: 'lease.png', mimeType: 'image/png', buffer: png });
    await previewLoaded(page);
    const url = await page.getByLabel('Reference image').inputValue();
    assert.match(url, /\/media\/[0-9a-f-]{36}$/);
    await assertAccessible(page, 'task form with an uploaded image');

    await page.getByRole('button', { name: 'Send task' }).click();
    const task = await createdTask(harness, page, person);
    assert.equal(task.title, 'Lease, to German');
    assert.equal(task.description, 'Translate the attached lease.');
    assert.equal(task.assignedAgent?.id, agent.id);
    assert.deepEqual(task.input, {
      sourceText: 'The tenant shall pay the rent monthly.',
      targetLanguage: 'German',
      tone: 'formal',
      pages: 4,
      certified: true,
      referenceImage: url,
    });
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    // The uploaded image is what an agent fetches: no credential needed.
    const image = await harness.app.request({ method: 'GET', url: new URL(url).pathname });
    assert.equal(image.statusCode, 200);
    assert.ok(image.rawPayload.equals(png));
    assertClean();
    await close();
  });

  it('fills and sends the form by keyboard alone, the image dropped onto its field', async () => {
    const person = await personWithProfile(harness, 'keys@example.test', 'key_user');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByLabel('Title (optional)').focus();
    await page.keyboard.type('Menu card');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Translate our menu card.');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Soup of the day');
    await page.keyboard.press('Tab'); // targetLanguage: typing picks the option
    await page.keyboard.type('Sp');
    await page.keyboard.press('Tab'); // tone keeps its default
    await page.keyboard.press('Tab'); // pages
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab'); // certified
    await page.keyboard.press('Space');
    assert.equal(await page.getByRole('switch', { name: 'Certified' }).isChecked(), true);

    // Dropped from the desktop: a DataTransfer holding a file, as the browser builds it.
    const dataTransfer = await page.evaluateHandle(
      (bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'menu.png', { type: 'image/png' }));
        return transfer;
      },
      [...png],
    );
    await page.dispatchEvent('.image-field', 'dragover', { dataTransfer });
    await page.dispatchEvent('.image-field', 'drop', { dataTransfer });
    await previewLoaded(page);

    await page.keyboard.press('Tab'); // referenceImage, filled by the drop
    await page.keyboard.press('Tab'); // Upload image
    await page.keyboard.press('Tab'); // Send task
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Send task');
    await page.keyboard.press('Enter');
    const task = await createdTask(harness, page, person);
    assert.equal(task.title, 'Menu card');
    assert.deepEqual(
      { ...task.input, referenceImage: typeof task.input?.referenceImage },
      { sourceText: 'Soup of the day', targetLanguage: 'Spanish', tone: 'neutral', pages: 2, certified: true, referenceImage: 'string' },
    );
    assertClean();
    await close();
  });

  it('shows why an SVG upload is refused, and keeps the field empty', async () => {
    const person = await personWithProfile(harness, 'svg@example.test', 'svg_user');
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 400, url: /\/v1\/media$/ }] });
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload image' }).click();
    await (await chooser).setFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: svg });
    await page.getByRole('alert').getByText('Only PNG, JPEG, GIF and WebP images are accepted').waitFor();
    assert.equal(await page.getByLabel('Reference image').inputValue(), '');
    assert.equal(await page.locator('img.image-preview').count(), 0);
    assertClean();
    await close();
  });

  it('does not send while a required field is empty or a number is not one, and says so under the field', async () => {
    const person = await personWithProfile(harness, 'check@example.test', 'check_user');
    const { page, assertClean, close } = await openPage(harness);
    const keys = watchSubmissions(page);
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByLabel('What you need done').fill('Translate a letter.');
    await page.getByLabel('Number of pages').fill('');
    await page.getByLabel('Reference image').fill('not an address');
    await page.getByRole('button', { name: 'Send task' }).click();
    await page.getByText('Enter an http or https address, or upload an image.').waitFor();
    // The first refused field takes the focus, and each names its own problem.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'sourceText');
    assert.equal(
      await page.locator('#' + (await page.getByLabel('Source text').getAttribute('aria-describedby'))!.split(' ').pop()!).textContent(),
      'This field is required.',
    );
    assert.equal(await page.getByLabel('Target language').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Number of pages').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'task form with errors');
    assert.deepEqual(keys, [], 'nothing was sent');
    assert.match(page.url(), /\/task$/);
    assertClean();
    await close();
  });

  it("shows the server's refusal under the field it names", async () => {
    const person = await personWithProfile(harness, 'refused@example.test', 'refused_user');
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 400, url: /\/v1\/tasks$/ }] });
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByLabel('What you need done').fill('Translate this.');
    // A character no stored text may hold: only the server knows that rule.
    await page.getByLabel('Source text').fill('before\u0000after');
    await page.getByLabel('Target language').selectOption('French');
    await page.getByRole('button', { name: 'Send task' }).click();
    const sourceText = page.getByLabel('Source text');
    await page.waitForFunction(() => document.querySelector('[name="sourceText"]')?.getAttribute('aria-invalid') === 'true');
    const messageId = (await sourceText.getAttribute('aria-describedby'))!.split(' ').pop()!;
    assert.match((await page.locator(`#${messageId}`).textContent()) ?? '', /U\+0000|NUL|character/i);
    // Fixing the field clears the refusal, and the task goes.
    await sourceText.fill('before after');
    await page.getByRole('button', { name: 'Send task' }).click();
    const task = await createdTask(harness, page, person);
    assert.equal(task.input?.sourceText, 'before after');
    assertClean();
    await close();
  });

  it('previews a task described in own words, flags the required field it lacks, and sends the corrected fields', async () => {
    const person = await personWithProfile(harness, 'words@example.test', 'words_user');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, person.email, `/agents/${agent.slug}/task`);
    await page.getByLabel('Describe it in your own words').check();
    // Only the text until the preview.
    assert.equal(await page.getByLabel('Source text').count(), 0);
    await page.getByLabel('Describe the task in your own words').fill('Please translate my rental contract, formal tone, 3 pages');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'What was understood' }).waitFor();
    assert.equal(await page.getByLabel('Tone').inputValue(), 'formal');
    assert.equal(await page.getByLabel('Number of pages').inputValue(), '3');
    await page.getByText('Not found in your description: fill it in.').waitFor();
    assert.equal(await page.getByLabel('Target language').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'own-words preview');

    await page.getByLabel('Target language').selectOption('French');
    await page.getByLabel('Number of pages').fill('5');
    await page.getByRole('button', { name: 'Send task' }).click();
    const task = await createdTask(harness, page, person);
    assert.equal(task.description, 'Please translate my rental contract, formal tone, 3 pages');
    assert.equal(task.input?.targetLanguage, 'French');
    assert.equal(task.input?.pages, 5);
    assert.equal(task.input?.tone, 'formal');
    assertClean();
    await close();
  });

  it('gives an agent without an inputSchema just a title and a description', async () => {
    const plain = await harness.app.request({
      method: 'POST',
      url: '/v1/agents',
      token: owner.token,
      body: {
        name: 'Plain Helper',
        description: 'Does what it is asked',
        protocols: ['rest'],
        categories: ['productivity'],
        capabilities: ['assistant'],
        deliveryMode: 'poll',
      },
    });
    const plainAgent = plain.json().data as { id: string; slug: string };
    const person = await personWithProfile(harness, 'plain@example.test', 'plain_user');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, person.email, `/agents/${plainAgent.slug}/task`);
    await page.getByLabel('What you need done').waitFor();
    assert.equal(await page.getByText('Describe it in your own words').count(), 0);
    assert.equal(await page.locator('.schema-form').count(), 0);
    await page.getByRole('button', { name: 'Send task' }).click();
    await page.getByText('Say what you need done.').waitFor();
    await page.getByLabel('What you need done').fill('Book a table for two.');
    await page.getByRole('button', { name: 'Send task' }).click();
    const task = await createdTask(harness, page, person);
    assert.equal(task.input, null);
    assert.equal(task.assignedAgent?.id, plainAgent.id);
    assertClean();
    await close();
  });

  it('renders markup in schema descriptions, enum values and defaults as text', async () => {
    const hostileAgent = await registerFormAgent(harness.app, owner.token, 'Hostile Schema', hostileSchema);
    const person = await personWithProfile(harness, 'xss@example.test', 'xss_user');
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, person.email, `/agents/${hostileAgent.slug}/task`);
    await page.getByText(`Helper ${hostile.img}`, { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Note').inputValue(), `Default ${hostile.script}`);
    assert.equal(await page.getByLabel('Style').inputValue(), hostile.img);
    assert.ok((await page.getByLabel('Style').locator('option').allTextContents()).includes(hostile.img));
    await page.locator('.field-hint', { hasText: hostile.img }).filter({ hasNotText: 'Helper' }).waitFor();
    assert.deepEqual(await page.getByLabel(`Caption ${hostile.img}`).locator('option').allTextContents(), ['Choose…', `Option ${hostile.script}`]);
    await settled(page);
    assert.equal(await page.locator('.schema-form img').count(), 0, 'no element was made from the schema text');
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assertClean();
    await close();
  });
});
