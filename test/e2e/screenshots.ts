/**
 * `npm run screenshots`: every page of the web app at 1280 and 390 px, from the browser tests'
 * data, into docs/screenshots/.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { seed } from './fixtures.ts';
import { publicKeyString } from '../../packages/sdk/src/keys.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import { browserSuiteSkip, freePort, openPage, settled, startHarness } from './harness.ts';

const out = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const skip = browserSuiteSkip();
if (skip) {
  console.error(skip);
  process.exit(1);
}
mkdirSync(out, { recursive: true });

// An OpenID Connect issuer for browsers, so the log-in and sign-up pages show its button.
const port = await freePort();
const publicUrl = `http://127.0.0.1:${port}`;
const provider = await startOidcProvider({ audience: 'agentry', webClient: { clientId: 'agentry-web', redirectUri: `${publicUrl}/v1/auth/oidc/callback` } });
const harness = await startHarness({ OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: 'agentry', OIDC_CLIENT_ID: 'agentry-web', PUBLIC_URL: publicUrl }, { port });
const keyDir = mkdtempSync(join(tmpdir(), 'agentry-shots-'));
/** A provisional agent as `agentry register --provisional` makes one, and its key file. */
async function provisionalAgent(name: string) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyFile = join(keyDir, `${name.replace(/\W+/g, '-')}.pem`);
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  const response = await harness.app.request({
    method: 'POST',
    url: '/v1/agents/provisional',
    body: { name, description: 'Crawls public pages overnight and reports broken links', endpoint: 'https://crawler.example.com/hook', pubkey: publicKeyString(privateKey) },
  });
  return { id: (response.json() as { data: { id: string } }).data.id, keyFile };
}
try {
  const data = await seed(harness.app, { hostile: false });
  const person = await harness.app.signup('ada@example.test');
  await harness.app.request({ method: 'POST', url: '/v1/users', token: person.token, body: { username: 'ada', displayName: 'Ada Lovelace', bio: 'I run a few agents and review their receipts.' } });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'ci runner' } });
  await harness.app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'laptop' } });

  const shots: { name: string; url: string; signedIn?: boolean; ready: (page: Page) => Promise<unknown> }[] = [
    { name: 'home', url: '/', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-search', url: '/agents?q=translate+a+contract+to+German', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-filtered', url: '/agents?category=productivity', ready: (page) => page.locator('.agent-card').first().waitFor() },
    { name: 'agents-empty', url: '/agents?q=translate&protocol=grpc', ready: (page) => page.getByText('No agent fits this search.').waitFor() },
    { name: 'agent', url: `/agents/${data.translator.slug}`, ready: (page) => page.getByRole('row', { name: /language\.translation/ }).waitFor() },
    { name: 'capabilities', url: '/capabilities', ready: (page) => page.locator('.catalogue section').first().waitFor() },
    { name: 'login', url: '/login?next=%2Fsettings', ready: (page) => page.getByLabel('Email').waitFor() },
    { name: 'signup', url: '/signup', ready: (page) => page.getByLabel('Email').waitFor() },
    { name: 'login-oidc-cancelled', url: '/login?next=%2F&oidc_error=provider&oidc_detail=access_denied', ready: (page) => page.getByRole('link', { name: /Sign in with/ }).waitFor() },
    { name: 'settings', url: '/settings', signedIn: true, ready: (page) => page.getByLabel('Display name').waitFor() },
    { name: 'settings-keys', url: '/settings/keys', signedIn: true, ready: (page) => page.getByRole('row', { name: /laptop/ }).waitFor() },
  ];

  for (const width of [1280, 390]) {
    const crawler = await provisionalAgent(`Night Crawler ${width}`);
    const claimShots: typeof shots = [
      { name: 'claim', url: `/claim/${crawler.id}`, signedIn: true, ready: (page) => page.getByTestId('nonce').waitFor() },
      {
        name: 'claim-paste',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          await page.getByLabel('Paste a signature made elsewhere').check();
          await page.getByTestId('openssl-command').waitFor();
        },
      },
      {
        name: 'claim-wrong-key',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          const other = await provisionalAgent(`Other ${width}`);
          await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(other.keyFile);
          await page.getByRole('button', { name: /^Claim / }).click();
          await page.getByRole('alert').waitFor();
        },
      },
      {
        name: 'claim-done',
        url: `/claim/${crawler.id}`,
        signedIn: true,
        ready: async (page) => {
          await page.getByLabel('Private key file (PKCS#8 PEM, Ed25519)').setInputFiles(crawler.keyFile);
          await page.getByRole('button', { name: /^Claim / }).click();
          await page.getByText(/is yours now/).waitFor();
        },
      },
    ];
    for (const shot of [...shots, ...claimShots]) {
      const { page, close } = await openPage(harness, { width, height: width === 390 ? 844 : 800 });
      if (shot.signedIn) {
        await page.goto(`/login?next=${encodeURIComponent(shot.url)}`);
        await page.getByLabel('Email').fill('ada@example.test');
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL((url) => url.pathname === new URL(shot.url, harness.baseUrl).pathname);
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
  await provider.close();
  rmSync(keyDir, { recursive: true, force: true });
}
