/**
 * Browser tests: the real service (on the suite's database, SQLite or PostgreSQL) listening on a
 * loopback port and serving the built web app, driven by Debian's Chromium through playwright-core.
 * Every page is checked for console errors, failed requests and unexpected 4xx/5xx answers, and by
 * axe-core for serious or critical accessibility violations.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request } from 'playwright-core';
import { defaultWebRoot } from '../../src/http/web-app.ts';
import { signupPassword, startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/wait.ts';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const installChromium = 'apt-get update && apt-get install -y chromium';

/**
 * The `skip` option for a browser suite: outside CI a machine without Chromium skips these tests and
 * says how to install it; under CI a missing Chromium is a failure, never a silent skip.
 */
export function browserSuiteSkip(): string | false {
  if (existsSync(chromiumPath)) return false;
  if (process.env.CI === 'true') throw new Error(`Chromium is missing at ${chromiumPath}; CI must install it (${installChromium})`);
  return `Chromium is not installed at ${chromiumPath}; install it with: ${installChromium}`;
}

/** A loopback port free right now, for a service whose public address must be configured before it listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Harness {
  app: TestApp;
  baseUrl: string;
  browser: Browser;
  close(): Promise<void>;
}

/** `port`: listen there (for a PUBLIC_URL known before the app starts, see `freePort`); default any free port. */
export async function startHarness(env: Record<string, string> = {}, { port = 0 }: { port?: number } = {}): Promise<Harness> {
  if (!existsSync(`${defaultWebRoot}/index.html`)) throw new Error('dist/web is not built: run npm run build:web (npm test does it first)');
  // Seeded heartbeats keep an agent `available` for two intervals. Seeding and a file's earlier tests
  // take minutes on a loaded CI machine, so the browser tests use an hour: what they show of
  // availability must not depend on how fast the machine is.
  // The tests log in through the page many times a minute from one address, more than the credential
  // routes allow a visitor; that limit has tests of its own (test/integration/login-limits.test.ts).
  const app = await startTestApp(
    { HEARTBEAT_INTERVAL_SECONDS: '3600', CREDENTIAL_RATE_LIMIT_MAX: '1000', HEALTH_PROBE_INTERVAL_MS: '0', ...env },
    { webRoot: defaultWebRoot },
  );
  await app.server.listen({ port, host: '127.0.0.1' });
  const address = app.server.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    browser,
    async close() {
      await browser.close();
      await app.close();
    },
  };
}

/** A 4xx the test provokes on purpose: the method, a pattern of the path, and the status. */
export interface ExpectedFailure {
  status: number;
  url: RegExp;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Throws if anything went wrong that the test did not announce. */
  assertClean(): void;
  close(): Promise<void>;
}

/** GET /v1/events: a response that stays open while the page lives, and that the browser aborts when it leaves. */
const isEventStream = (request: Request) => new URL(request.url()).pathname === '/v1/events';
/** Requests of each page still waiting for their answer, event streams aside. */
const pending = new WeakMap<Page, Set<Request>>();

/** `touch`: a phone's touch screen (a coarse pointer that cannot hover) instead of a mouse. */
export async function openPage(
  harness: Harness,
  options: { width?: number; height?: number; touch?: boolean; expected?: ExpectedFailure[] } = {},
): Promise<WatchedPage> {
  const context = await harness.browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    ...(options.touch && { hasTouch: true, isMobile: true }),
    baseURL: harness.baseUrl,
    reducedMotion: 'reduce',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.baseUrl });
  // Twice Playwright's 30 s: CI runs two suites side by side on two cores, where a page's first search
  // (which loads the sentence model) has been seen to take longer than 30 s.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const problems: string[] = [];
  const expected = options.expected ?? [];
  const isExpected = (status: number, url: string) => expected.some((e) => e.status === status && e.url.test(url));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`a dialog opened: ${dialog.type()} ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs every 4xx as a console error; the announced ones are checked below, by status.
    const failedLoad = /Failed to load resource: the server responded with a status of (\d+)/.exec(message.text());
    if (failedLoad && isExpected(Number(failedLoad[1]), message.location().url)) return;
    problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  const inFlight = new Set<Request>();
  pending.set(page, inFlight);
  page.on('request', (request) => {
    if (!isEventStream(request)) inFlight.add(request);
  });
  page.on('requestfinished', (request) => inFlight.delete(request));
  page.on('requestfailed', (request) => {
    inFlight.delete(request);
    // A read the page no longer needs (it navigated, its query was cancelled, its event stream closed) is aborted: no one sees that.
    if (request.method() === 'GET' && request.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !isExpected(response.status(), response.url()))
      problems.push(`unexpected ${response.status()} for ${response.request().method()} ${response.url()}`);
  });
  explainWaitTimeouts(page, async () => {
    const main = await page
      .locator('main')
      .innerText({ timeout: 2_000 })
      .catch(() => '(no main element)');
    return [
      `the page at ${page.url()} showed: ${main.replace(/\s+/g, ' ').slice(0, 600)}`,
      `requests still unanswered: ${[...inFlight].map((request) => `${request.method()} ${request.url()}`).join(', ') || 'none'}`,
      `problems so far: ${problems.join('; ') || 'none'}`,
    ].join('\n');
  });
  return {
    page,
    context,
    assertClean() {
      assert.deepEqual(problems, [], problems.join('\n'));
    },
    close: () => context.close(),
  };
}

const explainers = new WeakMap<Page, () => Promise<string>>();
let waitForExplained = false;

/**
 * A locator's `waitFor` that times out says what the page showed instead, which requests were still
 * unanswered and what went wrong so far: a timeout alone does not tell a slow machine from a stuck page.
 */
function explainWaitTimeouts(page: Page, explain: () => Promise<string>): void {
  explainers.set(page, explain);
  if (waitForExplained) return;
  waitForExplained = true;
  type WaitFor = (this: Locator, ...args: unknown[]) => Promise<void>;
  const prototype = Object.getPrototypeOf(page.locator('body')) as { waitFor: WaitFor };
  const waitFor = prototype.waitFor;
  prototype.waitFor = async function (this: Locator, ...args: unknown[]) {
    try {
      return await waitFor.apply(this, args);
    } catch (error) {
      const explanation = await explainers
        .get(this.page())?.()
        .catch(() => null);
      if (explanation && error instanceof Error) {
        // The stack is what a failing test prints, and it was written with the message as it was.
        error.stack = error.stack?.replace(error.message, `${error.message}\n${explanation}`);
        error.message += `\n${explanation}`;
      }
      throw error;
    }
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's content
 * security policy does not cover) and fails on any serious or critical violation.
 */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  // A page the app changed without loading a new document still has axe from the last check.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })) as AxeViolation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`,
    ),
    [],
    `accessibility violations on ${label}`,
  );
}

/**
 * What the hostile fixtures must never achieve on a page that shows them: no script of theirs ran
 * (window.__xss), no link with a script or data scheme, no image, frame, script or drawing of theirs in
 * the page's main content.
 */
export async function assertNoInjectedMarkup(page: Page, label: string): Promise<void> {
  assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined, label);
  const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  assert.deepEqual(
    hrefs.filter((href) => /^\s*(javascript|data|vbscript):/i.test(href)),
    [],
    label,
  );
  assert.equal(await page.locator('main img, main iframe, main script, main svg:not([aria-hidden])').count(), 0, label);
}

/**
 * Holds each request to `url` that `holds` picks at the route until the test lets it go, so the test
 * sees what the page shows before the answer. `release()` lets the oldest held request through, and
 * first waits for one to reach the route: a loaded machine can show the page's optimistic change
 * before the request behind it is intercepted.
 */
export async function holdRequests(page: Page, url: string | RegExp, holds: (request: Request) => boolean = () => true): Promise<{ release(): Promise<void> }> {
  const held: (() => void)[] = [];
  await page.route(url, async (route) => {
    if (holds(route.request())) await new Promise<void>((resolve) => held.push(resolve));
    await route.continue();
  });
  return {
    release: async () => {
      const next = await waitFor(`a held request to ${String(url)}`, () => held.shift(), Boolean, { timeoutMs: 60_000 });
      next!();
    },
  };
}

/**
 * Waits until every fetch the page started has answered (React Query settles): the page's load is
 * done and no request but its event stream has been open for half a second, as Playwright's
 * `networkidle` would say if it did not count the stream, which never ends.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  const inFlight = pending.get(page);
  if (!inFlight) return page.waitForLoadState('networkidle');
  let quietSince = Date.now();
  const giveUpAt = Date.now() + 60_000;
  const seen = new Set<string>();
  while (Date.now() - quietSince < 500) {
    if (inFlight.size > 0) quietSince = Date.now();
    for (const request of inFlight) seen.add(`${request.method()} ${new URL(request.url()).pathname}`);
    // A page that never stops asking must fail its test, not hold the suite forever.
    if (Date.now() > giveUpAt) throw new Error(`the page never settled: requests kept going out for 60 s (${[...seen].slice(0, 10).join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Logs in through the login page, as a person does, with the password every test account has, and waits until the page asked for (`next`, a
 * path with an optional query) has replaced the login form. The address changes before the next
 * page's code has loaded, so the wait is also on the login page leaving, not only on the address.
 */
export async function logIn(page: Page, email: string, next: string): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(signupPassword);
  await page.getByRole('button', { name: 'Log in' }).click();
  const wanted = new URL(next, 'http://x').pathname;
  // A refused login (a wrong password, a rate limit) says why on the page: fail with that, at once.
  const refusal = page.locator('.form-error[role="alert"]');
  const landed = await Promise.race([page.waitForURL((url) => url.pathname === wanted).then(() => true), refusal.waitFor().then(() => false)]);
  if (!landed) throw new Error(`logging in as ${email} was refused: ${await refusal.innerText()}`);
  await page.getByRole('heading', { name: 'Log in', level: 1 }).waitFor({ state: 'detached' });
}
