/**
 * Web app: Largest Contentful Paint of the search page, and the signed-in home's first post beside it.
 *
 * The real service in a child process (serving the built web app on loopback), seeded with agents
 * through the API; Debian's Chromium (headless, through playwright-core) loads
 * `/agents?q=<query>` BENCH_RUNS times (default 10), each in a fresh browser context (empty cache,
 * no cookies), and reads from the browser's own performance entries: LCP (PerformanceObserver
 * `largest-contentful-paint`, buffered) and which element it was, and the waterfall behind it (the
 * HTML's arrival, the scripts', the discover request's start and end, the first result card's paint).
 * Also the JavaScript the page loaded, gzipped. Goal: the results shown within 500 ms of navigation,
 * and the results being the LCP element.
 *
 * In the same run (issue 38): the database also holds the bench's social network (100,000 posts,
 * bench/social-network.ts) and its reader, who follows 100 accounts; signed in as the reader (a
 * browser session cookie, fresh context each time), the home `/` is loaded in turns with the search
 * page, and its first feed post's paint (a mark in the frame after the first post is inserted) and
 * LCP are set against the search page's LCP. Then 10 feed pages are scrolled in, and the longest
 * main-thread task (PerformanceObserver `longtask`) while they load is reported beside the longest
 * task of each page's load. Target: the home's first post within 1.2x the search page's LCP.
 *
 *   npm run build:web && npx tsx bench/web-lcp.ts
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { benchDatabase, machine, markdownTable, percentile, postJson, repoRoot, startService, waitUntilIdle, withCleanup, writeResult } from './lib.ts';
import { POSTS, READER, seedSocialNetwork, signUpReader } from './social-network.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const SCROLL_PAGES = 10;
const TARGET_RATIO = 1.2;
const AGENTS = Number(process.env.BENCH_AGENTS ?? 200);
const QUERY = 'translate a contract to German';
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const subjects = [
  'contracts',
  'invoices',
  'support tickets',
  'research papers',
  'product photos',
  'meeting notes',
  'source code',
  'tax forms',
  'news articles',
  'podcasts',
];
const verbs = ['Translates', 'Summarises', 'Classifies', 'Extracts tables from', 'Reviews', 'Proofreads', 'Tags', 'Answers questions about'];
const languages = ['English', 'German', 'French', 'Spanish', 'Japanese'];

function registration(i: number) {
  const verb = verbs[i % verbs.length]!;
  const subject = subjects[Math.floor(i / verbs.length) % subjects.length]!;
  const language = languages[i % languages.length]!;
  return {
    name: `${verb.split(' ')[0]} ${subject} ${i}`,
    description: `${verb} ${subject} in ${language} and ${languages[(i + 2) % languages.length]}, with a short report of what changed`,
    endpoint: `https://agent-${i}.example.com/tasks`,
    protocols: ['rest'],
    categories: ['productivity'],
  };
}

interface Run {
  lcpMs: number;
  lcpElement: string;
  lcpIsResults: boolean;
  htmlEndMs: number;
  scriptsEndMs: number;
  discoverStartMs: number;
  discoverEndMs: number;
  firstCardMs: number;
  longestTaskMs: number;
  scripts: string[];
}

interface HomeRun {
  lcpMs: number;
  lcpElement: string;
  lcpIsPost: boolean;
  htmlEndMs: number;
  scriptsEndMs: number;
  firstPostMs: number;
  /** Every API request of the load, in the order sent. */
  api: { path: string; startMs: number; endMs: number }[];
  longestLoadTaskMs: number;
  longestScrollTaskMs: number;
  scrollMs: number;
  postsAfterScroll: number;
}

interface LargestContentfulPaint extends PerformanceEntry {
  element: Element | null;
}

/** In the page: the last LCP entry, described, in ms since navigation start. */
async function readLcp(): Promise<{ startTime: number; element: string; isResults: boolean; isPost: boolean }> {
  const lcp = await new Promise<LargestContentfulPaint>((resolve) => {
    new PerformanceObserver((list) => {
      const entries = list.getEntries() as LargestContentfulPaint[];
      resolve(entries[entries.length - 1]!);
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  const element = lcp.element;
  const describe = (node: Element | null) =>
    node ? `${node.tagName.toLowerCase()}${node.className ? `.${String(node.className).split(' ').join('.')}` : ''}` : 'gone';
  return {
    startTime: lcp.startTime,
    element: `${describe(element)} in ${describe(element?.closest('li, section, form, h1, main > div') ?? null)}`,
    isResults: Boolean(element?.closest('.agent-card')),
    isPost: Boolean(element?.closest('article.post')),
  };
}

/** In the page: the search page's waterfall, all in ms since navigation start. */
function readSearchTimings(): Omit<Run, 'lcpMs' | 'lcpElement' | 'lcpIsResults'> {
  const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
  const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const scripts = resources.filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
  const discover = resources.find((r) => r.name.includes('/v1/discover'));
  const mark = performance.getEntriesByName('first-result-card')[0];
  const tasks = (globalThis as unknown as { __longTasks: { startTime: number; duration: number }[] }).__longTasks;
  return {
    htmlEndMs: navigation.responseEnd,
    scriptsEndMs: Math.max(0, ...scripts.map((s) => s.responseEnd)),
    discoverStartMs: discover?.startTime ?? NaN,
    discoverEndMs: discover?.responseEnd ?? NaN,
    firstCardMs: mark?.startTime ?? NaN,
    longestTaskMs: Math.max(0, ...tasks.map((t) => t.duration)),
    scripts: scripts.map((s) => new URL(s.name).pathname),
  };
}

/** In the page: the home's waterfall up to now, all in ms since navigation start. */
function readHomeTimings(): Pick<HomeRun, 'htmlEndMs' | 'scriptsEndMs' | 'firstPostMs' | 'api' | 'longestLoadTaskMs'> {
  const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
  const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const scripts = resources.filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
  const tasks = (globalThis as unknown as { __longTasks: { startTime: number; duration: number }[] }).__longTasks;
  return {
    htmlEndMs: navigation.responseEnd,
    scriptsEndMs: Math.max(0, ...scripts.map((s) => s.responseEnd)),
    firstPostMs: performance.getEntriesByName('first-post')[0]?.startTime ?? NaN,
    api: resources
      .filter((r) => new URL(r.name).pathname.startsWith('/v1/'))
      .map((r) => ({ path: new URL(r.name).pathname, startMs: r.startTime, endMs: r.responseEnd })),
    longestLoadTaskMs: Math.max(0, ...tasks.map((t) => t.duration)),
  };
}

/** Before any app code: long tasks are collected from the start, and the first result card's or post's insertion is marked. */
const instrument = () => {
  const tasks: { startTime: number; duration: number }[] = [];
  (globalThis as unknown as { __longTasks: typeof tasks }).__longTasks = tasks;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) tasks.push({ startTime: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  const marks: [string, string][] = [
    ['.agent-card:not(.skeleton-card)', 'first-result-card'],
    ['.home-feed article.post', 'first-post'],
  ];
  new MutationObserver((_, observer) => {
    for (const [index, [selector, name]] of marks.entries()) {
      if (!document.querySelector(selector)) continue;
      requestAnimationFrame(() => performance.mark(name));
      marks.splice(index, 1);
      break;
    }
    if (marks.length === 0) observer.disconnect();
  }).observe(document, { childList: true, subtree: true });
};

await withCleanup(async (cleanup) => {
  const database = await benchDatabase(cleanup);
  process.stderr.write(`seeding the social network (${POSTS.toLocaleString('en')} posts) ...\n`);
  await seedSocialNetwork(database.url);
  const service = await startService(database.url, cleanup);
  const { data } = await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, {
    email: 'lcp@example.test',
    password: 'correct horse battery',
  });
  for (let i = 0; i < AGENTS; i++) await postJson(`${service.url}/v1/agents`, registration(i), data.token);
  await signUpReader(service.url);
  // Discovery fills its sentence vectors in the background after writes; measure once that is done.
  await waitUntilIdle(service);

  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  cleanup.add(() => browser.close());
  // The reader signs in once, as the web app's login page does; every home load starts a fresh context with that cookie.
  const signIn = await browser.newContext();
  const login = await signIn.request.post(`${service.url}/v1/auth/browser/login`, { data: { email: READER.email, password: READER.password } });
  if (!login.ok()) throw new Error(`browser login: ${login.status()} ${await login.text()}`);
  const storageState = await signIn.storageState();
  await signIn.close();

  const url = `${service.url}/agents?q=${encodeURIComponent(QUERY)}`;
  const newPage = async (signedIn: boolean) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...(signedIn ? { storageState } : {}) });
    const page = await context.newPage();
    // tsx names functions with a `__name` helper that exists only in Node; the page's copies of the readers need one too.
    await page.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
    await page.addInitScript(instrument);
    return { context, page };
  };
  const loadSearch = async (): Promise<Run> => {
    const { context, page } = await newPage(false);
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('.agent-card:not(.skeleton-card)').first().waitFor({ timeout: 120_000 });
    await page.waitForLoadState('networkidle');
    const lcp = await page.evaluate(readLcp);
    const timings = await page.evaluate(readSearchTimings);
    await context.close();
    return { ...timings, lcpMs: lcp.startTime, lcpElement: lcp.element, lcpIsResults: lcp.isResults };
  };
  const loadHome = async (): Promise<HomeRun> => {
    const { context, page } = await newPage(true);
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    const posts = page.locator('.home-feed article.post');
    await posts.first().waitFor({ timeout: 120_000 });
    await page.waitForLoadState('networkidle');
    const lcp = await page.evaluate(readLcp);
    const timings = await page.evaluate(readHomeTimings);
    // Endless scrolling: to the end of the list, SCROLL_PAGES times, each time until the next page's posts are in.
    const scrollStarted = await page.evaluate(() => performance.now());
    for (let i = 0; i < SCROLL_PAGES; i++) {
      const before = await posts.count();
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction((n) => document.querySelectorAll('.home-feed article.post').length > n, before, { timeout: 60_000 });
    }
    const scrolled = await page.evaluate((since) => {
      const tasks = (globalThis as unknown as { __longTasks: { startTime: number; duration: number }[] }).__longTasks;
      return {
        longest: Math.max(0, ...tasks.filter((t) => t.startTime >= since).map((t) => t.duration)),
        ms: performance.now() - since,
        posts: document.querySelectorAll('.home-feed article.post').length,
      };
    }, scrollStarted);
    await context.close();
    return {
      ...timings,
      lcpMs: lcp.startTime,
      lcpElement: lcp.element,
      lcpIsPost: lcp.isPost,
      longestScrollTaskMs: scrolled.longest,
      scrollMs: scrolled.ms,
      postsAfterScroll: scrolled.posts,
    };
  };

  const runs: Run[] = [];
  const homeRuns: HomeRun[] = [];
  const loadAverages: number[] = [];
  // One unmeasured load of each first: the service's first answers warm its caches and JIT, as a live
  // service's would be. Then the two pages take turns, each going first every other time.
  for (let i = 0; i <= RUNS; i++) {
    loadAverages.push(loadavg()[0]!);
    const searchFirst = i % 2 === 0;
    const first = searchFirst ? await loadSearch() : await loadHome();
    const second = searchFirst ? await loadHome() : await loadSearch();
    if (i > 0) {
      runs.push((searchFirst ? first : second) as Run);
      homeRuns.push((searchFirst ? second : first) as HomeRun);
    }
    process.stderr.write(`run ${i}/${RUNS} done\n`);
  }

  const assets = join(repoRoot, 'dist', 'web');
  const scripts = runs[0]!.scripts;
  const gzipped = scripts.map((path) => ({ path, bytes: gzipSync(readFileSync(join(assets, path))).length }));
  const firstLoadJsBytes = gzipped.reduce((sum, s) => sum + s.bytes, 0);

  const stat = <T>(list: T[], pick: (run: T) => number) => {
    const sorted = list.map(pick).sort((a, b) => a - b);
    return { median: Math.round(percentile(sorted, 50)), p90: Math.round(percentile(sorted, 90)) };
  };
  const rows: [string, (run: Run) => number][] = [
    ['HTML received', (r) => r.htmlEndMs],
    ['scripts received', (r) => r.scriptsEndMs],
    ['discover request sent', (r) => r.discoverStartMs],
    ['discover answer received', (r) => r.discoverEndMs],
    ['first result card painted', (r) => r.firstCardMs],
    ['**Largest Contentful Paint**', (r) => r.lcpMs],
    ['longest main-thread task of the load', (r) => r.longestTaskMs],
  ];
  const summary = Object.fromEntries(rows.map(([name, pick]) => [name, stat(runs, pick)]));
  // The home's API requests by path, in the order the median run sends them.
  const apiPaths = [...new Set(homeRuns.flatMap((r) => r.api.map((a) => a.path)))];
  const apiOf = (run: HomeRun, path: string) => run.api.find((a) => a.path === path);
  const homeRows: [string, (run: HomeRun) => number][] = [
    ['HTML received', (r) => r.htmlEndMs],
    ['scripts received', (r) => r.scriptsEndMs],
    ...apiPaths.flatMap((path): [string, (run: HomeRun) => number][] => [
      [`${path} sent`, (r) => apiOf(r, path)?.startMs ?? NaN],
      [`${path} answered`, (r) => apiOf(r, path)?.endMs ?? NaN],
    ]),
    ['**first post painted**', (r) => r.firstPostMs],
    ['Largest Contentful Paint', (r) => r.lcpMs],
    ['longest main-thread task of the load', (r) => r.longestLoadTaskMs],
    [`longest main-thread task scrolling ${SCROLL_PAGES} feed pages`, (r) => r.longestScrollTaskMs],
    [`time to scroll ${SCROLL_PAGES} feed pages in`, (r) => r.scrollMs],
  ];
  const homeSummary = Object.fromEntries(homeRows.map(([name, pick]) => [name, stat(homeRuns, (r) => pick(r))]));
  const sortedStarts = (run: HomeRun) => [...run.api].sort((a, b) => a.startMs - b.startMs);
  const homeFirstPost = homeSummary['**first post painted**']!.median;
  const searchLcp = summary['**Largest Contentful Paint**']!.median;
  const ratio = homeFirstPost / searchLcp;
  const pairedRatios = homeRuns.map((home, i) => home.firstPostMs / runs[i]!.lcpMs).sort((a, b) => a - b);
  const pairedRatio = percentile(pairedRatios, 50);
  const met = ratio <= TARGET_RATIO;
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    loadAverages,
    dialect: database.dialect,
    agents: AGENTS,
    posts: POSTS,
    url: `/agents?q=${encodeURIComponent(QUERY)}`,
    runs: RUNS,
    summary,
    homeSummary,
    homeFirstPostVsSearchLcp: { ratio, pairedMedianRatio: pairedRatio, target: TARGET_RATIO, met },
    lcpElements: [...new Set(runs.map((r) => r.lcpElement))],
    lcpIsResultsInRuns: runs.filter((r) => r.lcpIsResults).length,
    homeLcpElements: [...new Set(homeRuns.map((r) => r.lcpElement))],
    homeLcpIsPostInRuns: homeRuns.filter((r) => r.lcpIsPost).length,
    homeApiOrder: homeRuns.map((r) => sortedStarts(r).map((a) => a.path)),
    firstLoadJs: { gzippedBytes: firstLoadJsBytes, files: gzipped },
    perRun: runs,
    perHomeRun: homeRuns,
  };
  console.log('\n### Search page\n');
  console.log(
    markdownTable(
      ['since navigation start (ms)', 'median', 'p90'],
      rows.map(([name]) => [name, summary[name]!.median, summary[name]!.p90]),
    ),
  );
  console.log(`\nLCP element: ${result.lcpElements.join('; ')} (a result card in ${result.lcpIsResultsInRuns} of ${RUNS} runs)`);
  console.log(`JavaScript loaded by the page, gzipped: ${(firstLoadJsBytes / 1024).toFixed(1)} kB in ${scripts.length} files`);
  console.log('\n### Signed-in home\n');
  console.log(
    markdownTable(
      ['since navigation start (ms)', 'median', 'p90'],
      homeRows.map(([name]) => [name, homeSummary[name]!.median, homeSummary[name]!.p90]),
    ),
  );
  console.log(`\nhome LCP element: ${result.homeLcpElements.join('; ')} (a post in ${result.homeLcpIsPostInRuns} of ${RUNS} runs)`);
  console.log(`home API order (first run): ${result.homeApiOrder[0]!.join(' -> ')}`);
  console.log(`posts on the home after scrolling: ${homeRuns.map((r) => r.postsAfterScroll).join(', ')}`);
  console.log(
    `\nhome first post ${homeFirstPost} ms vs search LCP ${searchLcp} ms: ${ratio.toFixed(2)}x (paired runs' median ${pairedRatio.toFixed(2)}x; target <= ${TARGET_RATIO}x): ${met ? 'met' : 'MISSED'}`,
  );
  console.log(`load average during the runs: ${loadAverages.map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`machine: ${JSON.stringify(result.machine)}`);
  console.log(`written to ${writeResult(`web-lcp-${database.dialect}`, result)}`);
});
