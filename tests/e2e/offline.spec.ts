import { test, expect, chromium, type BrowserContext, type Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';
import { TestPackageIndex } from './package-index';
import { StaticHost } from './static-host';

// Offline use with real service workers, on the built app served by a plain static host
// under a sub-path (/sub/app/). The network is cut three ways at once: Chromium's offline
// emulation, every request aborted by the test, and the servers refusing connections.

const DIST = path.resolve('dist');
const PYODIDE_VERSION: string = JSON.parse(readFileSync(path.resolve('node_modules/pyodide/package.json'), 'utf8')).version;

let host: StaticHost;
const temporary: string[] = [];

test.beforeEach(async () => {
  host = await new StaticHost(DIST).start();
});
test.afterEach(async () => {
  await host.close();
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pytabs-offline-'));
  temporary.push(dir);
  return dir;
}

/** A copy of the build, changed by `change` (a deploy of another version). */
function copyOfBuild(change: (dir: string) => void): string {
  const dir = path.join(tempDir(), 'dist');
  cpSync(DIST, dir, { recursive: true });
  change(dir);
  return dir;
}

/** The next version as the next build would be: index.html changed, and its new revision in the service worker's list. */
function nextVersion(): string {
  return copyOfBuild((dir) => {
    const file = path.join(dir, 'index.html');
    const before = readFileSync(file);
    const after = Buffer.from(before.toString().replace('</head>', '<meta name="pytabs-test-build" content="2"></head>'));
    writeFileSync(file, after);
    const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
    const sw = readFileSync(path.join(dir, 'sw.js'), 'utf8');
    const entry = `{"revision":"${md5(before)}","url":"index.html"}`;
    if (!sw.includes(entry)) throw new Error('index.html is not in the service worker list as expected');
    writeFileSync(path.join(dir, 'sw.js'), sw.replace(entry, `{"revision":"${md5(after)}","url":"index.html"}`));
  });
}

async function openAt(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await untilAppOpen(page);
}

async function untilAppOpen(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
}

/** Creates a session and runs its first cell; the service worker keeps the app after it. */
function firstRun(page: Page, code = 'x = 1', packageIndexUrl = ''): Promise<string> {
  return page.evaluate(
    async ({ code, packageIndexUrl }) => {
      const api = window.pytabs!;
      if (packageIndexUrl) await api.updateSettings({ packageIndexUrl });
      const s = await api.createSession('First');
      const r = await api.run(s.id, code);
      if (r.status !== 'ok') throw new Error(JSON.stringify(r.error));
      return s.id;
    },
    { code, packageIndexUrl },
  );
}

/** Waits until the service worker controls the page and has kept the app (its precache is complete). */
async function untilOfflineReady(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 60_000 }).toBe(true);
  await expect.poll(() => page.evaluate(() => window.pytabsOffline?.status.offline), { timeout: 60_000 }).toBe('ready');
}

/** The number of files in the service worker's precache. */
function precached(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const name = `workbox-precache-v2-${registration!.scope}`;
    return (await caches.has(name)) ? (await (await caches.open(name)).keys()).length : 0;
  });
}

/** The URLs kept in the package cache, which must be the one named by the Pyodide version the app ships. */
function packageCache(page: Page): Promise<string[]> {
  return page.evaluate(async (version) => {
    const names = (await caches.keys()).filter((n) => n.startsWith('pytabs-packages-'));
    if (names.length !== 1 || names[0] !== `pytabs-packages-${version}`) return names;
    return (await (await caches.open(names[0])).keys()).map((k) => k.url).sort();
  }, PYODIDE_VERSION);
}

async function cutNetwork(context: BrowserContext, ...servers: { refusing: boolean }[]): Promise<void> {
  await context.setOffline(true);
  await context.route('**', (route) => route.abort('internetdisconnected'));
  for (const server of servers) server.refusing = true;
}

/**
 * Tells a page that navigated under the cut network, and its workers, that they are offline.
 * Chromium 150 answers `navigator.onLine` with true in a page that reloaded or navigated under
 * the context's offline emulation (a page opened or a worker started before that navigation is
 * told false; 156 kept it false): setting the emulation again reaches the page and its workers.
 */
async function toldOffline(context: BrowserContext, page: Page): Promise<void> {
  await context.setOffline(false);
  await context.setOffline(true);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
}

function status(page: Page, id: string): Promise<string> {
  return page.evaluate((id) => window.pytabs!.getSession(id).then((s) => s.status), id);
}

test('after the first run the app is kept; with the network cut it opens cross-origin isolated, runs a new session and reopens one with its variables', async () => {
  // A browser profile on disk, as a person's is: its HTTP cache holds what the first visit fetched.
  const context = await chromium.launchPersistentContext(tempDir(), { executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await context.newPage();
    await openAt(page, host.url);
    // The service worker takes the first visit over at once, and keeps nothing before the first run returned.
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 30_000 }).toBe(true);
    expect(await precached(page)).toBe(0);
    const id = await firstRun(page, "data = {'a': [1, 2, 3]}\ntotal = sum(data['a'])");
    const firstVisit = host.served.length;
    expect(host.served.slice(0, firstVisit).map((s) => s.path)).toContain('sw.js');
    await untilOfflineReady(page);

    const kept = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      const cache = await caches.open(`workbox-precache-v2-${registration!.scope}`);
      const out: Record<string, number> = {};
      for (const key of await cache.keys()) out[new URL(key.url).pathname.replace(/^\/sub\/app\//, '')] = (await (await cache.match(key))!.blob()).size;
      return out;
    });
    const keptNames = Object.keys(kept);
    for (const name of ['index.html', 'pyodide/pyodide.asm.wasm.gz', 'pyodide/pyodide.asm.mjs.gz', 'pyodide/python_stdlib.zip', 'pyodide/pyodide-lock.json']) {
      expect(keptNames).toContain(name);
    }
    // The page fetches the .gz copies, and keeps the start snapshot itself (src/lib/local-snapshot.ts):
    // the plain copies and the snapshot file are not fetched, so not kept.
    for (const name of ['pyodide/pyodide.asm.wasm', 'pyodide/pyodide.asm.mjs']) expect(keptNames).not.toContain(name);
    expect(keptNames.some((n) => /^pyodide\/snapshot-[0-9a-f]+\.bin/.test(n))).toBe(false);
    expect(keptNames.some((n) => /^assets\/session\.worker-.+\.js$/.test(n))).toBe(true);
    expect(keptNames).not.toContain('pyodide/pyodide.mjs');
    expect(keptNames).not.toContain('_headers');

    // What the page had fetched came from the HTTP cache (a 304), not downloaded again.
    const precache = host.served.slice(firstVisit);
    const fetchedByPage = new Set(host.served.slice(0, firstVisit).filter((s) => s.status === 200).map((s) => s.path));
    const again = precache.filter((s) => fetchedByPage.has(s.path) && s.status === 200);
    expect(again).toEqual([]);
    const sent = precache.reduce((sum, s) => sum + s.bytes, 0);
    const stored = Object.values(kept).reduce((sum, n) => sum + n, 0);
    console.log(`precache after the first run: ${keptNames.length} files, ${stored} bytes kept, ${sent} bytes sent by the host (${precache.length} requests)`);

    await cutNetwork(context, host);
    await page.reload();
    await untilAppOpen(page);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const offline = await page.evaluate(async (id) => {
      const api = window.pytabs!;
      const s = await api.createSession('New offline');
      const fresh = await api.run(s.id, '2 ** 10');
      const reopened = await api.run(id, "total, data['a']");
      const run = api.run(id, 'for i in range(10**12):\n    pass');
      await new Promise((r) => setTimeout(r, 500));
      const stop = await api.stop(id);
      return { fresh: fresh.result?.['text/plain'], reopened: reopened.result?.['text/plain'], stop, stopped: (await run).error?.ename };
    }, id);
    // Stop interrupts through SharedArrayBuffer: the page served from the cache is still isolated.
    expect(offline).toEqual({ fresh: '1024', reopened: '(6, [1, 2, 3])', stop: 'interrupted', stopped: 'KeyboardInterrupt' });
    await expect(page.getByRole('tab', { name: /New offline/ })).toBeVisible();
    // Only the browser's own update checks of the service worker script tried the network.
    expect(host.refused.filter((p) => !p.endsWith('/sw.js'))).toEqual([]);
  } finally {
    await context.close();
  }
});

test("the site's default language (site.json) holds offline: the service worker answers with the last one read", async ({ page, context }) => {
  await host.close();
  host = await new StaticHost(copyOfBuild((dir) => writeFileSync(path.join(dir, 'site.json'), JSON.stringify({ language: 'de' })))).start();
  await openAt(page, host.url);
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await firstRun(page);
  await untilOfflineReady(page);
  // Online, under the service worker: the page reads site.json through it.
  await page.reload();
  await untilAppOpen(page);
  await cutNetwork(context, host);
  await page.reload();
  await untilAppOpen(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByRole('button', { name: 'Alle Sitzungen' })).toBeVisible();
});

test('a language chosen in Settings while offline comes from the kept app, and holds across an offline reload', async ({ page, context }) => {
  await openAt(page, host.url);
  await firstRun(page);
  await untilOfflineReady(page);
  await cutNetwork(context, host);
  // Chosen with the network cut: its messages must come from what the service worker kept.
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('combobox', { name: 'Language' }).selectOption('uk');
  await expect(page.getByRole('dialog', { name: 'Налаштування' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'uk');
  await page.reload();
  await untilAppOpen(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'uk');
  await expect(page.getByRole('button', { name: 'Усі сеанси' })).toBeVisible();
});

test('a package loaded online loads offline; never loaded, offline, it fails with an error naming it', async ({ page, context }) => {
  const index = await new TestPackageIndex().start();
  index.publish('pytabs_kept', "VALUE = 'kept from the first use'\n");
  index.publish('pytabs_never', "VALUE = 'never loaded'\n");
  try {
    host.workerConnectSrc = index.url.slice(0, -1);
    await openAt(page, host.url);
    const id = await firstRun(page, 'x = 1', index.url);
    await untilOfflineReady(page);
    const online = await page.evaluate((id) => window.pytabs!.run(id, 'import pytabs_kept\npytabs_kept.VALUE'), id);
    expect(online.result?.['text/plain']).toBe("'kept from the first use'");
    // The wheel and the index's lock file are kept.
    await expect.poll(() => packageCache(page), { timeout: 10_000 }).toEqual([`${index.url}pyodide-lock.json`, `${index.url}pytabs_kept-1.0-py3-none-any.whl`]);

    await cutNetwork(context, host, index);
    await page.reload();
    await untilAppOpen(page);
    // The error names the cause from what the browser says of the network: offline.
    await toldOffline(context, page);
    const offline = await page.evaluate(async (id) => {
      const api = window.pytabs!;
      const s = await api.createSession('Offline packages');
      const status: string[] = [];
      const kept = await api.run(s.id, 'import pytabs_kept\npytabs_kept.VALUE', (e) => e.type === 'status' && status.push(e.text));
      const never = await api.run(s.id, 'import pytabs_never');
      const reopened = await api.run(id, 'import pytabs_kept\n(x, pytabs_kept.VALUE)');
      return { kept: kept.result?.['text/plain'], status, never: never.error, reopened: reopened.result?.['text/plain'] };
    }, id);
    expect(offline.kept).toBe("'kept from the first use'");
    expect(offline.status).toContain('Loaded pytabs_kept');
    expect(offline.reopened).toBe("(1, 'kept from the first use')");
    expect(offline.never?.ename).toBe('PackageLoadError');
    expect(offline.never?.evalue).toContain(`Could not load package "pytabs_never" from the package index ${index.url}`);
    expect(offline.never?.evalue).toContain('this device is offline and the package was not kept from an earlier use');
    expect(index.refused).toEqual([]);
  } finally {
    await index.close();
  }
});

test('a kept package whose SHA-256 in the lock file changed is dropped and fetched anew; one that fails the check is not kept', async ({ page }) => {
  const index = await new TestPackageIndex().start();
  index.publish('pytabs_pkg', "VALUE = 'first build'\n");
  host.workerConnectSrc = index.url.slice(0, -1);
  try {
    await openAt(page, host.url);
    await firstRun(page, 'x = 1', index.url);
    await untilOfflineReady(page);
    const load = () =>
      page.evaluate(async () => {
        const api = window.pytabs!;
        const s = await api.createSession('Load');
        const r = await api.run(s.id, 'import pytabs_pkg\npytabs_pkg.VALUE');
        return r.result?.['text/plain'] ?? r.error?.evalue;
      });
    const wheel = `${index.url}pytabs_pkg-1.0-py3-none-any.whl`;
    const keptDigest = () => page.evaluate(async ([name, url]) => (await (await caches.open(name)).match(url))?.headers.get('X-PyTabs-SHA256') ?? null, [`pytabs-packages-${PYODIDE_VERSION}`, wheel]);
    const lockDigest = () => Buffer.from(index.entry('pytabs_pkg').sha256, 'hex').toString('base64');

    expect(await load()).toBe("'first build'");
    expect(await keptDigest()).toBe(lockDigest());
    // The next spare worker loads Python (reading the index's lock file) before the index changes.
    const warmWorkers = async () =>
      (await Promise.all(page.workers().map((w) => w.evaluate(() => performance.getEntriesByName('pytabs:warm').length > 0).catch(() => false)))).filter(Boolean).length;
    const warmBefore = await warmWorkers();
    await expect.poll(warmWorkers, { timeout: 30_000 }).toBeGreaterThan(warmBefore);
    // The index republishes the file under the same name: a new session's lock file names a new SHA-256.
    index.publish('pytabs_pkg', "VALUE = 'second build'\n");
    const before = index.requests.filter((r) => r === `GET /pytabs_pkg-1.0-py3-none-any.whl`).length;
    expect(await load()).toBe("'second build'");
    // That start read the new lock file and did not use the spare's Python, loaded for the old one.
    const lastStart = await page.evaluate(() => (performance.getEntriesByName('pytabs:session-started').at(-1) as PerformanceMark).detail as { warm: boolean });
    expect(lastStart.warm).toBe(false);
    expect(index.requests.filter((r) => r === `GET /pytabs_pkg-1.0-py3-none-any.whl`).length).toBe(before + 1);
    expect(await keptDigest()).toBe(lockDigest());
    // A file whose bytes do not match its lock entry fails Pyodide's check and is not kept.
    index.publish('pytabs_pkg', "VALUE = 'third build'\n");
    index.corrupt('pytabs_pkg');
    expect(await load()).toContain('Could not load package "pytabs_pkg"');
    expect(await keptDigest()).toBeNull();
  } finally {
    await index.close();
  }
});

test('Settings makes numpy, pandas and matplotlib available offline, with their size and progress', async ({ page, context }) => {
  // Stand-ins under the real names (the Pyodide CDN is not reachable here): pandas and matplotlib depend on numpy.
  const index = await new TestPackageIndex().start();
  index.publish('numpy', "NAME = 'numpy stand-in'\n");
  // The session runtime wraps pandas' Excel functions on import: the stand-in has them.
  index.publish(
    'pandas',
    "import numpy\nNAME = 'pandas stand-in on ' + numpy.NAME\ndef read_excel(io, sheet_name=0, **kwargs): ...\nclass DataFrame:\n    def to_excel(self, excel_writer, *args, **kwargs): ...\n",
    ['numpy'],
  );
  index.publish('matplotlib', "NAME = 'matplotlib stand-in'\n", ['numpy']);
  index.publish('pytabs_other', 'NAME = "not asked for"\n');
  host.workerConnectSrc = index.url.slice(0, -1);
  try {
    await openAt(page, host.url);
    await firstRun(page, 'x = 1', index.url);
    await untilOfflineReady(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    const offline = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Offline use' });
    await expect(offline).toContainText('PyTabs opens and runs on this device without a network');
    const sizes = index.wheelSizes(['numpy', 'pandas', 'matplotlib']);
    const total = sizes.reduce((a, b) => a + b, 0);
    await expect(offline).toContainText(`numpy, pandas and matplotlib, with what they need: 3 files, ${(total / 1024).toFixed(1)} KB.`);

    // Each wheel takes a moment, so the progress can be seen.
    index.delayMs = 700;
    await offline.getByRole('button', { name: 'Make packages available offline' }).click();
    await expect(offline.getByRole('progressbar')).toBeVisible();
    await expect(offline).toContainText(/Downloading (numpy|pandas|matplotlib)-1\.0-py3-none-any\.whl: [0-2] of 3 files/);
    await expect(offline).toContainText(`numpy, pandas and matplotlib are kept on this device (3 files, ${(total / 1024).toFixed(1)} KB).`);
    await expect(offline.getByRole('button', { name: 'Make packages available offline' })).toBeDisabled();
    await expect.poll(() => packageCache(page)).toEqual(
      [`${index.url}matplotlib-1.0-py3-none-any.whl`, `${index.url}numpy-1.0-py3-none-any.whl`, `${index.url}pandas-1.0-py3-none-any.whl`, `${index.url}pyodide-lock.json`].sort(),
    );
    // Each file was downloaded once.
    for (const name of ['numpy', 'pandas', 'matplotlib']) expect(index.requests.filter((r) => r === `GET /${name}-1.0-py3-none-any.whl`)).toHaveLength(1);

    await cutNetwork(context, host, index);
    await page.reload();
    await untilAppOpen(page);
    const out = await page.evaluate(async () => {
      const api = window.pytabs!;
      const s = await api.createSession('Offline imports');
      const r = await api.run(s.id, 'import numpy, pandas, matplotlib\n(pandas.NAME, matplotlib.NAME)');
      return r.result?.['text/plain'] ?? r.error?.evalue;
    });
    expect(out).toBe("('pandas stand-in on numpy stand-in', 'matplotlib stand-in')");
    expect(index.refused).toEqual([]);
  } finally {
    await index.close();
  }
});

test('a new version shows "A new version is ready"; Reload waits for the running cell, then loads it', async ({ page }) => {
  await openAt(page, host.url);
  const id = await firstRun(page);
  await untilOfflineReady(page);
  host.deploy(nextVersion());
  await page.reload();
  await untilAppOpen(page);
  const banner = page.getByRole('region', { name: 'New version' });
  await expect(banner).toContainText('A new version is ready');
  // Until Reload, the page stays the version it was.
  await expect(page.locator('meta[name="pytabs-test-build"]')).toHaveCount(0);

  let navigations = 0;
  // Documents loaded: the app's own hash routing (#/s/…) is a navigation too, but not a load.
  page.on('domcontentloaded', () => navigations++);
  // Long enough to outlast the checks below on a loaded machine (4 s did not, at a load of 10 on 2 cores).
  await page.evaluate((id) => {
    void window.pytabs!.run(id, "import time\nt = time.time()\nwhile time.time() - t < 12:\n    pass\nfinished = 'yes'");
  }, id);
  await expect.poll(() => status(page, id)).toBe('running');
  await banner.getByRole('button', { name: 'Reload' }).click();
  await expect(banner).toContainText('It loads as soon as the running code has finished.');
  await expect(banner.getByRole('button', { name: 'Reload' })).toBeDisabled();
  expect(navigations).toBe(0);
  expect(await status(page, id)).toBe('running');

  await expect(page.locator('meta[name="pytabs-test-build"]')).toHaveCount(1, { timeout: 60_000 });
  await untilAppOpen(page);
  expect(navigations).toBe(1);
  // The run ended and was saved before the page reloaded.
  const after = await page.evaluate((id) => window.pytabs!.run(id, 'finished'), id);
  expect(after.result?.['text/plain']).toBe("'yes'");
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await expect(page.getByRole('region', { name: 'New version' })).toHaveCount(0);
});

test('a chunk that vanished in an update costs one reload, and one missing for good does not loop', async ({ page }) => {
  await openAt(page, host.url);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['fruit'], ['apple']]), 'Fruit');
  const book = Buffer.from(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload files' }).click();
  await (await chooser).setFiles([{ name: 'book.xlsx', mimeType: 'application/octet-stream', buffer: book }]);
  const files = page.getByRole('region', { name: 'Files', exact: true });
  await expect(files.getByRole('button', { name: 'Preview book.xlsx' })).toBeVisible();

  // The update renamed the spreadsheet chunk that this page has not loaded yet.
  let moved = '';
  host.deploy(
    copyOfBuild((dir) => {
      const assets = path.join(dir, 'assets');
      const chunk = readdirSync(assets).find((f) => /^xlsx-.+\.js$/.test(f))!;
      moved = path.join(assets, 'xlsx-next.js');
      renameSync(path.join(assets, chunk), moved);
      // Whichever chunks import it (the build decides which) name the new file.
      let importers = 0;
      for (const f of readdirSync(assets).filter((f) => f.endsWith('.js'))) {
        const file = path.join(assets, f);
        const text = readFileSync(file, 'utf8');
        if (!text.includes(chunk)) continue;
        writeFileSync(file, text.replaceAll(chunk, 'xlsx-next.js'));
        importers++;
      }
      expect(importers).toBeGreaterThan(0);
    }),
  );
  let navigations = 0;
  page.on('domcontentloaded', () => navigations++);
  await files.getByRole('button', { name: 'Preview book.xlsx' }).click();
  await expect.poll(() => navigations, { timeout: 30_000 }).toBe(1);
  await untilAppOpen(page);
  await files.getByRole('button', { name: 'Preview book.xlsx' }).click();
  await expect(page.getByRole('region', { name: 'Contents of book.xlsx' }).getByRole('table', { name: 'Sheet Fruit' })).toContainText('apple');

  // Missing for good: the first failure reloads once, the same failure on the same build is shown, not reloaded again.
  const otherPage = await page.context().newPage();
  await openAt(otherPage, host.url);
  unlinkSync(moved);
  const otherFiles = otherPage.getByRole('region', { name: 'Files', exact: true });
  let otherNavigations = 0;
  otherPage.on('domcontentloaded', () => otherNavigations++);
  // The first failure reloads the page as soon as it is idle (the alert may be gone before anyone sees it).
  await otherFiles.getByRole('button', { name: 'Preview book.xlsx' }).click();
  await expect.poll(() => otherNavigations, { timeout: 30_000 }).toBe(1);
  await untilAppOpen(otherPage);
  // The same failure on the same build is shown and not reloaded.
  await otherFiles.getByRole('button', { name: 'Preview book.xlsx' }).click();
  await expect(otherPage.getByRole('region', { name: 'Contents of book.xlsx' }).getByRole('alert')).toContainText('could not be read', { timeout: 30_000 });
  await otherPage.waitForTimeout(1500);
  expect(otherNavigations).toBe(1);
});

test('workers started from the kept app cost Chromium no code cache that it never reads', async ({ browser }) => {
  // A host that sends every header the build asks for: the service worker then has none to add,
  // and would hand the kept worker script over as the cache holds it.
  await host.close();
  host = await new StaticHost(DIST, '/sub/app/', 'project').start();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await openAt(page, host.url);
    await firstRun(page);
    await untilOfflineReady(page);
    await browser.startTracing(page, { categories: ['v8'] });
    // Fresh workers, as grading starts one per hand-in, each loading the kept session worker
    // (the first takes the spare the page prepared before the trace began).
    const replies = await page.evaluate(async () => {
      const out: unknown[] = [];
      for (let i = 0; i < 4; i++) out.push((await window.pytabs!.runStateless(`${i} + 1`)).result?.['text/plain']);
      return out;
    });
    const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: { name: string; args?: { data?: { url?: string; producedCacheSize?: number } } }[] };
    expect(replies).toEqual(['1', '2', '3', '4']);
    const ofWorker = trace.traceEvents.filter((e) => /\/assets\/session\.worker-[^/]+\.js$/.test(e.args?.data?.url ?? ''));
    // Each worker compiled the script from the cache, and none serialized a code cache for it.
    expect(ofWorker.filter((e) => e.name === 'v8.compileModule').length).toBeGreaterThanOrEqual(3);
    expect(ofWorker.filter((e) => e.name === 'v8.produceModuleCache' && (e.args?.data?.producedCacheSize ?? 0) > 0)).toEqual([]);
  } finally {
    await context.close();
  }
});

test('the app works where service workers are missing or refused, and says offline use is unavailable', async ({ browser }) => {
  const index = await new TestPackageIndex().start();
  index.publish('pytabs_pkg', "VALUE = 'from the index'\n");
  try {
    const cases = {
      // As in a browser without them.
      missing: () => void delete (Navigator.prototype as { serviceWorker?: unknown }).serviceWorker,
      // As in Firefox's private windows: registration throws.
      refused: () => {
        ServiceWorkerContainer.prototype.register = () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));
      },
    };
    for (const [name, script] of Object.entries(cases)) {
      const context = await browser.newContext();
      await context.addInitScript(script);
      const page = await context.newPage();
      await openAt(page, host.url);
      const id = await firstRun(page, 'x = 41', index.url);
      const out = await page.evaluate((id) => window.pytabs!.run(id, 'import pytabs_pkg\n(x + 1, pytabs_pkg.VALUE)'), id);
      expect(out.result?.['text/plain'], name).toBe("(42, 'from the index')");
      await page.getByRole('button', { name: 'Settings' }).click();
      const offline = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Offline use' });
      await expect(offline).toContainText(name === 'missing' ? 'Offline use is not available here' : 'Offline use could not be set up: the service worker could not be registered (The operation is insecure.)');
      expect(host.served.map((s) => s.path)).not.toContain('sw.js');
      await context.close();
    }
  } finally {
    await index.close();
  }
});

test('the development server registers no service worker', async ({ page }) => {
  // The dev server transforms and optimizes on first request, and Pyodide boots without a snapshot there.
  test.setTimeout(300_000);
  const dev = spawn('npx', ['vite', '--port', '0', '--strictPort'], { cwd: path.resolve('.'), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      dev.stdout!.on('data', (chunk) => {
        out += chunk;
        const found = /Local:\s+(http:\/\/localhost:\d+\/)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
        if (found) resolve(found[1]);
      });
      dev.on('exit', (code) => reject(new Error(`vite exited with ${code}: ${out}`)));
    });
    await openAt(page, url);
    await firstRun(page, 'x = 1');
    // The production build registers right after the first run; give it the time it would need.
    await page.waitForTimeout(2000);
    expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((r) => r.length))).toBe(0);
    expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
  } finally {
    process.kill(-dev.pid!);
  }
});
