import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, FileChooser, Page } from 'playwright-core';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { assertAccessible, browserSuiteSkip, openPage, settled, startHarness, type Harness } from './harness.ts';
import { signupPassword } from '../helpers/app.ts';

interface KeyFile {
  path: string;
  key: KeyObject;
  pubkey: string;
  /** Every spelling of the private key that could leak: the PEM body, its DER in base64, base64url and hex, and the 32-byte seed likewise. */
  secrets: string[];
}

describe('web app: claiming a provisional agent (browser)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let dir: string;
  let files = 0;
  before(async () => {
    harness = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'agentry-claim-'));
  });
  after(async () => {
    await harness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh Ed25519 key written as the SDK and CLI write it: PKCS#8 PEM, mode 0600. */
  function keyFile(contents?: string): KeyFile {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = contents ?? (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    const path = join(dir, `agent-key-${files++}.pem`);
    writeFileSync(path, pem, { mode: 0o600 });
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    const seed = der.subarray(der.length - 32);
    const spellings = (bytes: Buffer) => [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
    const pemBody = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    return { path, key: privateKey, pubkey: publicKeyString(privateKey), secrets: [pemBody, ...spellings(der), ...spellings(seed)] };
  }

  /** A person with a social profile, as most visitors are. */
  async function personWithProfile() {
    const signedUp = await harness.app.signup();
    const username = `claimer_${files++}_${Math.random().toString(36).slice(2, 8)}`;
    const profile = await harness.app.request({ method: 'POST', url: '/v1/users', token: signedUp.token, body: { username, displayName: username } });
    assert.equal(profile.statusCode, 201, profile.body);
    return signedUp;
  }

  async function provisionalAgent(pubkey: string, name = `Night Crawler ${files}`) {
    const response = await harness.app.request({
      method: 'POST',
      url: '/v1/agents/provisional',
      body: { name, description: 'Crawls public pages overnight and reports broken links', endpoint: 'https://crawler.example.test/hook', pubkey },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data as { id: string; slug: string; name: string };
  }

  async function agentRecord(id: string) {
    return (await harness.app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data as { status: string; ownerId: string | null };
  }

  /** Signs in through the log-in page, arriving there the way a signed-out visitor of the claim page does. */
  async function signInAndOpen(page: Page, agentId: string, email: string) {
    await page.goto(`/claim/${agentId}`);
    await page.waitForURL(new RegExp(`/login\\?next=%2Fclaim%2F${agentId}$`));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(signupPassword);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(new RegExp(`/claim/${agentId}$`));
    await page.getByTestId('nonce').waitFor();
  }

  /** Every request the browser makes, with its body, so the test can show what left the page. */
  function recordRequests(context: BrowserContext) {
    const sent: string[] = [];
    context.on('request', (request) => sent.push(`${request.method()} ${request.url()}\n${request.postData() ?? ''}`));
    return sent;
  }

  it('marks a provisional agent as unclaimed in results and on its page, with the way to claim it', async () => {
    const agent = await provisionalAgent(keyFile().pubkey, 'Unowned Link Checker');
    for (const width of [1280, 390]) {
      const { page, assertClean, close } = await openPage(harness, { width });
      await page.goto(`/agents?q=${encodeURIComponent('broken links overnight')}`);
      const card = page.getByRole('listitem').filter({ hasText: 'Unowned Link Checker' });
      await card.getByText('Unclaimed: registered by its key alone').waitFor();
      await card.getByRole('link', { name: 'Unowned Link Checker' }).click();
      await page.getByRole('heading', { name: 'Unowned Link Checker' }).waitFor();
      await page.getByRole('main').getByText('Unclaimed: registered by its key alone').waitFor();
      assert.equal(await page.getByText('The owner has not written more').count(), 0);
      await settled(page);
      await assertAccessible(page, `unclaimed agent page at ${width}`);
      await page.getByRole('link', { name: 'Is this yours? Claim it' }).click();
      await page.waitForURL((url) => url.pathname === `/claim/${agent.id}` || url.pathname === '/login');
      assertClean();
      await close();
    }
  });

  it('claims with a key file chosen in the page: only the signature leaves the page', async () => {
    const person = await personWithProfile();
    const file = keyFile();
    const agent = await provisionalAgent(file.pubkey);
    const { page, context, assertClean, close } = await openPage(harness);
    const sent = recordRequests(context);
    await signInAndOpen(page, agent.id, person.email);
    await page.getByRole('heading', { name: `Claim ${agent.name}` }).waitFor();
    assert.equal(await page.getByTestId('registration-key').innerText(), file.pubkey);
    await page.getByText(/Valid until .*left/).waitFor();
    await settled(page);
    await assertAccessible(page, 'claim page');

    const chooser = page.waitForEvent('filechooser');
    await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').click();
    await (await chooser).setFiles(file.path);
    await page.getByRole('button', { name: `Claim ${agent.name}` }).click();
    const success = page.getByRole('status').filter({ hasText: `${agent.name} is yours now.` });
    await success.waitFor();
    assert.match(await success.innerText(), /active/);
    assert.equal(await success.getByRole('link', { name: `Public page of ${agent.name}` }).getAttribute('href'), `/agents/${agent.slug}`);
    assert.equal(await success.getByRole('link', { name: `Manage ${agent.name}` }).getAttribute('href'), `/me/agents/${agent.id}`);
    await assertAccessible(page, 'claim success');

    const record = await agentRecord(agent.id);
    assert.equal(record.status, 'active');
    assert.equal(record.ownerId, person.accountId);
    // The claim itself went out, and nothing the browser sent carried the private key in any spelling.
    assert.ok(sent.some((entry) => entry.startsWith(`POST ${harness.baseUrl}/v1/agents/${agent.id}/claim\n`)));
    for (const entry of sent)
      for (const secret of file.secrets) assert.ok(!entry.includes(secret), `a request carried the private key: ${entry.slice(0, 120)}`);
    assertClean();
    await close();
  });

  it('names a wrong key as soon as it is chosen, a file that is not a key and a key of another type before sending anything; the agent stays unclaimed', async () => {
    const person = await personWithProfile();
    const right = keyFile();
    const wrong = keyFile();
    const agent = await provisionalAgent(right.pubkey);
    const { page, context, assertClean, close } = await openPage(harness);
    const sent = recordRequests(context);
    await signInAndOpen(page, agent.id, person.email);
    const input = page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)');
    const claim = page.getByRole('button', { name: `Claim ${agent.name}` });
    const alert = page.getByRole('alert');

    // Named as soon as the file is chosen, before any button.
    await input.setInputFiles(wrong.path);
    await alert.getByText(`This is not the agent’s key: its public half is ${wrong.pubkey}, and the agent was registered with ${right.pubkey}.`).waitFor();

    await input.setInputFiles(keyFile('just some notes, not a key\n').path);
    await claim.click();
    await alert.getByText('This file is not a PEM key file').waitFor();

    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await input.setInputFiles(keyFile(rsa).path);
    await claim.click();
    await alert.getByText('This private key is not an Ed25519 key.').waitFor();
    await assertAccessible(page, 'claim with a wrong key');
    await input.setInputFiles(right.path);
    await page.getByText('This is the agent’s key.').waitFor();
    assert.equal(await alert.count(), 0);

    // The page asks for its challenge (POST .../claim/challenge); no claim is sent.
    const claims = sent.filter((entry) => entry.startsWith(`POST ${harness.baseUrl}/v1/agents/`) && !entry.includes('/claim/challenge'));
    assert.equal(claims.length, 0, 'no claim was sent');
    assert.equal((await agentRecord(agent.id)).status, 'provisional');
    assertClean();
    await close();
  });

  it('claims with a pasted signature made elsewhere, and shows the server refusing a wrong one', async () => {
    const person = await personWithProfile();
    const file = keyFile();
    const other = keyFile();
    const agent = await provisionalAgent(file.pubkey);
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 403, url: /\/v1\/agents\/[^/]+\/claim$/ }] });
    await signInAndOpen(page, agent.id, person.email);
    await page.getByLabel('Paste a signature made elsewhere').check();
    const nonce = await page.getByTestId('nonce').innerText();
    // The command shown is the exact one to run: the nonce without a newline, the key file, base64 out.
    assert.equal(
      await page.getByTestId('openssl-command').innerText(),
      `printf '%s' '${nonce}' > nonce.txt\nopenssl pkeyutl -sign -rawin -inkey agent-key.pem -in nonce.txt | openssl base64 -A`,
    );
    assert.equal(await page.getByTestId('cli-command').innerText(), `agentry claim ${agent.id} --key agent-key.pem`);
    await settled(page);
    await assertAccessible(page, 'claim by pasting');

    const signature = page.getByLabel('Signature (base64 or base64url)');
    await signature.fill(sign(null, Buffer.from(nonce, 'utf8'), other.key).toString('base64'));
    await page.getByRole('button', { name: `Claim ${agent.name}` }).click();
    await page.getByRole('alert').getByText('The signature does not match this agent’s registration key.').waitFor();
    assert.equal((await agentRecord(agent.id)).status, 'provisional');

    // OpenSSL writes standard base64, as pasted here.
    await signature.fill(sign(null, Buffer.from(nonce, 'utf8'), file.key).toString('base64'));
    await page.getByRole('button', { name: `Claim ${agent.name}` }).click();
    await page.getByText(`${agent.name} is yours now.`).waitFor();
    assert.equal((await agentRecord(agent.id)).ownerId, person.accountId);
    assertClean();
    await close();
  });

  it('says so when someone else claimed the agent meanwhile, and on a later visit', async () => {
    const person = await personWithProfile();
    const rival = await personWithProfile();
    const file = keyFile();
    const agent = await provisionalAgent(file.pubkey);
    const { page, assertClean, close } = await openPage(harness, { expected: [{ status: 409, url: /\/v1\/agents\/[^/]+\/claim$/ }] });
    await signInAndOpen(page, agent.id, person.email);
    // The rival signs a challenge of their own and claims first.
    const challenge = (await harness.app.request({ method: 'GET', url: `/v1/agents/${agent.id}/claim/challenge` })).json().data as { nonce: string };
    const rivalClaim = await harness.app.request({
      method: 'POST',
      url: `/v1/agents/${agent.id}/claim`,
      token: rival.token,
      body: { signature: sign(null, Buffer.from(challenge.nonce, 'utf8'), file.key).toString('base64url') },
    });
    assert.equal(rivalClaim.statusCode, 200, rivalClaim.body);

    await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(file.path);
    await page.getByRole('button', { name: `Claim ${agent.name}` }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('This agent has already been claimed.').waitFor();
    await alert.getByRole('link', { name: `Public page of ${agent.name}` }).waitFor();
    assert.equal((await agentRecord(agent.id)).ownerId, rival.accountId);

    await page.reload();
    await page.getByText('This agent has already been claimed.').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Claim / }).count(), 0);
    await settled(page);
    await assertAccessible(page, 'claim of a claimed agent');
    assertClean();
    await close();
  });

  it('offers a new challenge once the shown one has expired', async () => {
    const person = await personWithProfile();
    const file = keyFile();
    const agent = await provisionalAgent(file.pubkey);
    const { page, assertClean, close } = await openPage(harness);
    await page.clock.install();
    await signInAndOpen(page, agent.id, person.email);
    const first = await page.getByTestId('nonce').innerText();
    await page.clock.fastForward('10:01');
    await page.getByRole('alert').getByText('This challenge has expired.').waitFor();
    assert.ok(await page.getByRole('button', { name: `Claim ${agent.name}` }).isDisabled());
    await page.getByRole('button', { name: 'Get a new challenge' }).click();
    await page.getByText(/Valid until .*left/).waitFor();
    assert.notEqual(await page.getByTestId('nonce').innerText(), first);
    assertClean();
    await close();
  });

  it('claims by keyboard only', async () => {
    const person = await personWithProfile();
    const file = keyFile();
    const agent = await provisionalAgent(file.pubkey);
    const { page, assertClean, close } = await openPage(harness);
    // Listening for the chooser turns on Chromium's interception of it, which reaches the browser
    // after a round trip of its own: a key press sent right after the listener can open the native
    // dialog first (headless: nothing) and no event comes. Listening from the start leaves no race.
    const chooser = new Promise<FileChooser>((resolve) => page.once('filechooser', resolve));
    await page.goto(`/claim/${agent.id}`);
    await page.getByLabel('Email').focus();
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(signupPassword);
    await page.keyboard.press('Enter');
    await page.getByTestId('nonce').waitFor();

    // From the "with the key file" choice, Tab reaches the file input; Space opens the chooser.
    await page.getByLabel('With the key file, in this page').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type), 'file');
    await page.keyboard.press('Space');
    let timer: NodeJS.Timeout | undefined;
    const noChooser = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Space on the file input opened no file chooser within 60 s')), 60_000);
    });
    await (await Promise.race([chooser, noChooser]).finally(() => clearTimeout(timer))).setFiles(file.path);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), `Claim ${agent.name}`);
    await page.keyboard.press('Enter');
    await page.getByText(`${agent.name} is yours now.`).waitFor();
    // Focus moves to the outcome, and its links are the next stops.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), `Public page of ${agent.name}`);
    assert.equal((await agentRecord(agent.id)).status, 'active');
    assertClean();
    await close();
  });
});
