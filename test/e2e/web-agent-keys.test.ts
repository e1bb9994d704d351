import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { assertAccessible, browserSuiteSkip, logIn, openPage, settled, startHarness, type Harness } from './harness.ts';

/** Every spelling of a private key that could leak: the PEM body, its DER in base64, base64url and hex, and its 32-byte seed likewise. */
function secretSpellings(key: KeyObject): string[] {
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const pem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const spellings = (bytes: Buffer) => [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
  return [pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), ...spellings(der), ...spellings(der.subarray(der.length - 32))];
}

/** Everything the browser sends: method, address and body. */
function recordRequests(context: BrowserContext) {
  const sent: string[] = [];
  context.on('request', (request) => sent.push(`${request.method()} ${request.url()}\n${request.postData() ?? ''}`));
  return sent;
}

function assertNeverSent(sent: string[], key: KeyObject) {
  for (const secret of secretSpellings(key)) assert.ok(!sent.some((entry) => entry.includes(secret)), 'the private key never left the page');
  assert.ok(!sent.some((entry) => entry.includes('PRIVATE KEY')), 'no PEM block left the page');
}

describe('web app: an agent’s public key (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let dir: string;
  let people = 0;
  before(async () => {
    harness = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'agentry-keys-'));
  });
  after(async () => {
    await harness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function owner() {
    const account = await harness.app.signup();
    const created = await harness.app.request({
      method: 'POST',
      url: '/v1/users',
      token: account.token,
      body: { username: `keyholder_${people}`, displayName: `Key Holder ${people++}` },
    });
    assert.equal(created.statusCode, 201, created.body);
    return account;
  }

  function keyFile() {
    const { privateKey } = generateKeyPairSync('ed25519');
    const path = join(dir, `key-${people++}.pem`);
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
    return { path, key: privateKey, pubkey: publicKeyString(privateKey) };
  }

  async function fillRequired(page: Page, name: string) {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('One-line description').fill('Reads invoices and lists what is owed');
    await page.getByLabel('REST', { exact: true }).check();
    await page.getByLabel('Legal & Compliance').check();
  }

  async function registered(page: Page, name: string) {
    await page.getByRole('button', { name: 'Register agent' }).click();
    await page.getByRole('status').getByText(`${name} is registered.`).waitFor();
    return harness.app.database.db.selectFrom('agents').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
  }

  it('makes a key pair in the page: the private key is downloaded once and never sent, the key is registered and proven', async () => {
    const account = await owner();
    const { page, context, assertClean, close } = await openPage(harness);
    const sent = recordRequests(context);
    await logIn(page, account.email, '/me/agents/new');
    await fillRequired(page, 'Invoice Reader');
    await page.getByLabel('Make one for me, in this page').check();
    // Registering before the key is made points at it.
    await page.getByRole('button', { name: 'Register agent' }).click();
    await page.getByText('Make the key pair first.').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Make a key pair' }).click()]);
    assert.equal(download.suggestedFilename(), 'invoice-reader-key.pem');
    const pem = readFileSync((await download.path())!, 'utf8');
    const privateKey = createPrivateKey(pem);
    const pubkey = publicKeyString(privateKey);
    await page.getByText(`Public key: ${pubkey}. The private key was saved as invoice-reader-key.pem`).waitFor();
    await settled(page);
    await assertAccessible(page, 'register, key made');

    const row = await registered(page, 'Invoice Reader');
    assert.equal(row.registration_pubkey, pubkey);
    assert.ok(row.key_verified_at, 'proven with a signature made in the page');
    assertNeverSent(sent, privateKey);

    // Its trust names the key it belongs to.
    await page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name: 'Trust' }).click();
    assert.equal(await page.getByTestId('trust-key').innerText(), pubkey);
    await page.getByText('Trust of the key').waitFor();
    await page.goto(`/agents/${row.slug}`);
    assert.equal(await page.getByTestId('trust-key').innerText(), pubkey);
    assertClean();
    await close();
  });

  it('reads the public half of a key file, sends only that, and proves it', async () => {
    const account = await owner();
    const file = keyFile();
    const { page, context, assertClean, close } = await openPage(harness);
    const sent = recordRequests(context);
    await logIn(page, account.email, '/me/agents/new');
    await fillRequired(page, 'File Keeper');
    await page.getByLabel('Use a private key file I have (PKCS#8 PEM)').check();
    const input = page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)');
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a key') });
    await page.getByRole('alert').getByText('This file is not a PEM key file').waitFor();
    await input.setInputFiles(file.path);
    await page.getByText(`Public key: ${file.pubkey}`).waitFor();
    const row = await registered(page, 'File Keeper');
    assert.equal(row.registration_pubkey, file.pubkey);
    assert.ok(row.key_verified_at);
    assertNeverSent(sent, file.key);
    await page.getByRole('definition').getByText('proven', { exact: true }).waitFor();
    assertClean();
    await close();
  });

  it('takes a pasted ed25519 public key, checked as typed; it stays unproven until a signature proves it', async () => {
    const account = await owner();
    const file = keyFile();
    const { page, assertClean, close } = await openPage(harness);
    await logIn(page, account.email, '/me/agents/new');
    await fillRequired(page, 'Paste Keeper');
    await page.getByLabel('Paste a public key (ed25519:…)').check();
    const field = page.getByLabel('Public key', { exact: true });
    await field.fill('ssh-ed25519 AAAA');
    await page.getByText('An agent’s public key starts with “ed25519:”').waitFor();
    await field.fill('ed25519:short');
    await page.getByText('After “ed25519:” comes the base64 of exactly 32 bytes').waitFor();
    await assertAccessible(page, 'register, pasted key refused');
    await field.fill(file.pubkey);
    const row = await registered(page, 'Paste Keeper');
    assert.equal(row.registration_pubkey, file.pubkey);
    assert.equal(row.key_verified_at, null);
    await page.getByRole('definition').getByText('not proven yet').waitFor();
    assertClean();
    await close();
  });

  it('adds, then replaces, the key of an agent registered without one on its Keys tab, each proven by a signature made in the page', async () => {
    const account = await owner();
    const response = await harness.app.request({
      method: 'POST',
      url: '/v1/agents',
      token: account.token,
      body: { name: 'Keyless Helper', description: 'Registered without a key', protocols: ['rest'], categories: ['productivity'] },
    });
    assert.equal(response.statusCode, 201, response.body);
    const agent = response.json().data as { id: string };
    const file = keyFile();
    const { page, context, assertClean, close } = await openPage(harness);
    const sent = recordRequests(context);
    await logIn(page, account.email, `/me/agents/${agent.id}/keys`);
    assert.equal(await page.getByTestId('current-key').innerText(), 'none');
    await page.getByLabel('Use a private key file I have (PKCS#8 PEM)').check();
    await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(file.path);
    await page.getByText(`Public key: ${file.pubkey}`).waitFor();
    await settled(page);
    await assertAccessible(page, 'keys tab, key chosen');
    await page.getByRole('button', { name: 'Add the key' }).click();
    await page.getByText('Key saved and proven').waitFor();
    await page.getByTestId('current-key').getByText(file.pubkey).waitFor();
    let row = await harness.app.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
    assert.equal(row.registration_pubkey, file.pubkey);
    assert.ok(row.key_verified_at);

    await page.getByLabel('Make one for me, in this page').check();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Make a key pair' }).click()]);
    const made = createPrivateKey(readFileSync((await download.path())!, 'utf8'));
    await page.getByRole('button', { name: 'Replace the key' }).click();
    await page.getByText('Key saved and proven').waitFor();
    await page.getByTestId('current-key').getByText(publicKeyString(made)).waitFor();
    row = await harness.app.database.db.selectFrom('agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
    assert.equal(row.registration_pubkey, publicKeyString(made));
    assert.ok(row.key_verified_at);
    assertNeverSent(sent, file.key);
    assertNeverSent(sent, made);
    assertClean();
    await close();
  });
});
