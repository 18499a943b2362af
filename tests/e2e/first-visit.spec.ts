import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { openApp } from './app';

// Where a first visit's start snapshot comes from: on a fast link the build's is downloaded
// before the first start; on a slower one the first session boots plainly and a snapshot is
// got after it (made on this device where the link is slow). Either way it is kept in Cache
// Storage and every later start, in this page or after a reload, uses it.

/** Paths the page and its workers asked the server for, from now on. */
function requests(page: Page): string[] {
  const seen: string[] = [];
  page.context().on('request', (request) => seen.push(new URL(request.url()).pathname));
  return seen;
}

const isSnapshot = (path: string) => /\/snapshot-[0-9a-f]+\.bin/.test(path);

/** Starts the session the app opened (or a new one) and runs code in it. */
function startAndRun(page: Page, fresh: boolean) {
  return page.evaluate(async (fresh) => {
    const api = window.pytabs!;
    let id: string | undefined;
    while (!fresh && !id) {
      id = (await api.listSessions())[0]?.id;
      if (!id) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    id ??= (await api.createSession('Later')).id;
    for (let tries = 0; ; tries++) {
      try {
        const report = await api.startSession(id);
        const result = await api.run(id, 'import statistics\nstatistics.mean([40, 44])');
        return { snapshot: report.snapshot, wasm: report.wasm, answer: result.result?.['text/plain'] };
      } catch (error) {
        // Right after a reload the page it replaced may hold the session's Web Lock for a moment.
        if ((error as Error).name !== 'SessionElsewhereError' || tries > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }, fresh);
}

const keptSnapshots = (page: Page) =>
  page.evaluate(async () => (await (await caches.open('pytabs-start-snapshot')).keys()).map((r) => new URL(r.url).pathname));

test('a first visit on a slow link boots plainly and downloads no start snapshot: one is made here after, and later starts use it', async ({ page }) => {
  test.setTimeout(240_000);
  const seen = requests(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // 5 Mbit/s: the 6 MB snapshot would take longer than making it here.
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 625_000, uploadThroughput: 625_000 });
  await openApp(page);
  const first = await startAndRun(page, false);
  // The first session did not wait for a snapshot.
  expect(first).toEqual({ snapshot: 'none', wasm: 'page', answer: '42' });
  // Made after that start, in a worker of its own, and kept.
  await expect.poll(() => keptSnapshots(page), { timeout: 120_000 }).toEqual([expect.stringMatching(/^\/pyodide\/local-snapshot\/snapshot-[0-9a-f]+\.bin$/)]);
  // The workers' own downloads are seen too, so the snapshot's absence means something.
  expect(seen).toContain('/pyodide/python_stdlib.zip');
  expect(seen.filter(isSnapshot)).toEqual([]);

  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  expect(await startAndRun(page, true)).toEqual({ snapshot: 'used', wasm: 'page', answer: '42' });
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
  expect(await startAndRun(page, true)).toEqual({ snapshot: 'used', wasm: 'page', answer: '42' });
  expect(seen.filter(isSnapshot)).toEqual([]);
});

test("on a fast link the first visit downloads the build's snapshot, and keeps it for the next visit", async ({ page }) => {
  const seen = requests(page);
  await openApp(page);
  expect(await startAndRun(page, false)).toEqual({ snapshot: 'used', wasm: 'page', answer: '42' });
  expect(seen.filter(isSnapshot)).toEqual([expect.stringMatching(/^\/pyodide\/snapshot-[0-9a-f]+\.bin\.gz$/)]);
  // Kept in idle time after the first start.
  await expect.poll(() => keptSnapshots(page)).toHaveLength(1);
  seen.length = 0;
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
  expect(await startAndRun(page, true)).toEqual({ snapshot: 'used', wasm: 'page', answer: '42' });
  expect(seen.filter(isSnapshot)).toEqual([]);
});

test("once a session has started, later workers get Pyodide's files from the page and download none of them", async ({ page }) => {
  const seen = requests(page);
  await openApp(page);
  expect(await startAndRun(page, false)).toEqual({ snapshot: 'used', wasm: 'page', answer: '42' });
  /** Starts a new session and runs code in it; where its worker had Pyodide's files from. */
  const startNew = () =>
    page.evaluate(async () => {
      const api = window.pytabs!;
      const { id } = await api.createSession('Later');
      const report = await api.startSession(id);
      return { coreFiles: report.coreFiles, answer: (await api.run(id, 'import statistics\nstatistics.mean([40, 44])')).result?.['text/plain'] };
    });
  // The page fetches them after the first start, from the cache its worker filled.
  await expect.poll(startNew, { timeout: 60_000 }).toEqual({ coreFiles: 'page', answer: '42' });
  // A spare worker prepared before the page had its copy boots on downloads of its own (its
  // lock file came after the reset in 1 full run of 3): one more start takes it.
  await startNew();
  seen.length = 0;
  expect(await startNew()).toEqual({ coreFiles: 'page', answer: '42' });
  const coreFile = /\/pyodide\/(pyodide\.asm\.mjs(\.gz)?|python_stdlib\.zip|pyodide-lock\.json)$/;
  expect(seen.filter((path) => coreFile.test(path))).toEqual([]);
  // The workers' own downloads are seen: the worker script of the spare made after that start.
  await expect.poll(() => seen.some((path) => path.includes('session.worker'))).toBe(true);
});

test.describe('in French', () => {
  test.use({ locale: 'fr-FR' });
  test('a first visit downloads the French messages and none of the English ones until its first run', async ({ page }) => {
    const catalog = (locale: string): Record<string, string> => JSON.parse(readFileSync(`messages/${locale}.json`, 'utf8'));
    // A Settings message: a text no worker bundles, so only a catalog's chunk can hold it.
    const key = 'settings_error_variable_limit';
    const scripts: Promise<{ path: string; body: string }>[] = [];
    let running = true;
    page.context().on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (running && path.endsWith('.js')) scripts.push(response.text().then((body) => ({ path, body }), () => ({ path, body: '' })));
    });
    await openApp(page);
    await startAndRun(page, false);
    running = false;
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    const loaded = await Promise.all(scripts);
    const holding = (text: string) => loaded.filter(({ body }) => body.includes(text)).map(({ path }) => path);
    expect(holding(catalog('fr')[key])).not.toEqual([]);
    expect(holding(catalog('en')[key])).toEqual([]);
  });

  test('the French messages are fetched while the site file is still being asked, not after it', async ({ page }) => {
    let catalogAsked = () => {};
    const french = new Promise<void>((resolve) => (catalogAsked = resolve));
    page.context().on('request', (request) => /\/assets\/fr-[\w-]{8}\.js$/.test(new URL(request.url()).pathname) && catalogAsked());
    let askedFirst = false;
    // The site file answers only once the catalog was asked for (or after 15 s, when it never is).
    await page.route('**/site.json', async (route) => {
      askedFirst = await Promise.race([french.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, 15_000, false))]);
      await route.fulfill({ status: 404, body: '' });
    });
    await openApp(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    expect(askedFirst).toBe(true);
  });
});
