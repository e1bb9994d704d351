import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';
import { assertAccessible, browserSuiteSkip, freePort, openPage, settled, startHarness, type Harness } from './harness.ts';

describe('web app: signing in through the OIDC issuer (browser, real oidc-provider)', { skip: browserSuiteSkip() }, () => {
  let harness: Harness;
  let provider: TestOidcProvider;
  let buttonName: string;
  before(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({
      audience: 'agentry-test',
      webClient: { clientId: 'agentry-web', redirectUri: `${publicUrl}/v1/auth/oidc/callback`, secret: 'browser test secret' },
    });
    harness = await startHarness(
      {
        OIDC_ISSUER: provider.issuer,
        OIDC_AUDIENCE: 'agentry-test',
        OIDC_CLIENT_ID: 'agentry-web',
        OIDC_CLIENT_SECRET: 'browser test secret',
        PUBLIC_URL: publicUrl,
      },
      { port },
    );
    buttonName = `Sign in with ${new URL(provider.issuer).host}`;
  });
  after(async () => {
    await harness?.close();
    await provider?.close();
  });

  it('signs in at the provider’s login page (keyboard only) and lands signed in where the person was going', async () => {
    // A new account has no social profile yet: /v1/users/me says so with a 404.
    const { page, context, assertClean, close } = await openPage(harness, { expected: [{ status: 404, url: /\/v1\/users\/me$/ }] });
    await page.goto('/settings/keys');
    await page.waitForURL(/\/login\?next=%2Fsettings%2Fkeys$/);
    const button = page.getByRole('link', { name: buttonName });
    await button.waitFor();
    await settled(page);
    await assertAccessible(page, 'log-in with OIDC');
    await button.focus();
    await page.keyboard.press('Enter');
    // The provider's own page, on its own origin.
    await page.waitForURL((url) => url.origin === provider.issuer && url.pathname.startsWith('/interaction/'));
    await page.getByLabel('Subject').focus();
    await page.keyboard.type('ada-at-provider');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${harness.baseUrl}/settings/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText('No API keys yet.').waitFor();
    const session = (await context.cookies()).find((c) => c.name === 'agentry_session');
    assert.ok(session?.httpOnly);
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'agentry_oidc'),
      undefined,
      'the sign-in transaction is gone',
    );
    // The session works for changes too (CSRF token from the readable cookie): make a key.
    await page.getByLabel('New key name').fill('from oidc');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();
    assertClean();
    await close();
  });

  it('offers the button on the sign-up page too', async () => {
    const { page, assertClean, close } = await openPage(harness);
    await page.goto('/signup?next=%2Fcapabilities');
    const button = page.getByRole('link', { name: buttonName });
    await button.waitFor();
    assert.equal(await button.getAttribute('href'), `/v1/auth/oidc/start?next=${encodeURIComponent('/signup/profile?next=%2Fcapabilities')}`);
    assertClean();
    await close();
  });

  it('says the sign-in was cancelled when the person cancels at the provider, with no session', async () => {
    const { page, context, assertClean, close } = await openPage(harness);
    await page.goto('/login?next=%2Fcapabilities');
    await page.getByRole('link', { name: buttonName }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/login\?next=%2Fcapabilities&oidc_error=provider&oidc_detail=access_denied$/);
    await page
      .getByRole('alert')
      .getByText(`The sign-in at ${new URL(provider.issuer).host} was cancelled.`)
      .waitFor();
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'agentry_session'),
      undefined,
    );
    await settled(page);
    await assertAccessible(page, 'log-in after a cancelled OIDC sign-in');
    assertClean();
    await close();
  });

  it('refuses an answer this browser did not ask for, and says to start again', async () => {
    const { page, context, assertClean, close } = await openPage(harness);
    await page.goto('/v1/auth/oidc/callback?code=forged&state=forged');
    await page.waitForURL(/\/login\?next=%2F&oidc_error=expired$/);
    await page.getByRole('alert').getByText('The sign-in took too long, or was started in another browser. Start again.').waitFor();
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'agentry_session'),
      undefined,
    );
    assertClean();
    await close();
  });
});
