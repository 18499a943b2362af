import { test, expect, type Frame, type Locator, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { deflateSync } from 'fflate';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { dumpDatabase, FIRST_RUN, firstSessionId, openApp, reply, send } from './app';
import { withThirdPartyStorage } from './third-party-storage';

// Embeds as a course page uses them: the example page (dist/embed/example.html) and the embed
// client (dist/embed/pytabs-embed.js) served from a second origin (127.0.0.1, another site than
// the app's localhost), allowed in the build's embed-origins.json as a deployer allows it; a
// third origin not in that file; real Pyodide in each embed's session, real IndexedDB.
// Debian's Chromium blocks third-party storage by default (its TrackingProtection3pcd feature):
// a cross-site frame cannot open IndexedDB at all. The journeys of an embed that keeps its
// session run in a browser that allows it (as Firefox and Safari do, partitioned by the page's
// site, and Chrome did by default); the last test shows what a reader gets where it is blocked.
test.describe.configure({ mode: 'serial' });

const DIST = path.resolve('dist');
const ORIGINS_FILE = path.join(DIST, 'embed-origins.json');
const CODE = 'scores = [70, 85, 92]\nmean = sum(scores) / len(scores)\nprint("mean:", mean)';

/** A page host on 127.0.0.1: the example page and the client from dist/embed, nothing else. */
function pageHost(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://host').pathname.replace(/^\/embed\//, '');
    const file = path.join(DIST, 'embed', name);
    if (!['example.html', 'pytabs-embed.js'].includes(name) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': name.endsWith('.html') ? 'text/html' : 'text/javascript', 'Cache-Control': 'no-store' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

let allowed: { server: Server; origin: string };
let other: { server: Server; origin: string };
let deployed: string | null = null;

test.beforeAll(async () => {
  [allowed, other] = await Promise.all([pageHost(), pageHost()]);
  deployed = existsSync(ORIGINS_FILE) ? readFileSync(ORIGINS_FILE, 'utf8') : null;
  // What a deployer does: list the course site's origin in the build's embed-origins.json.
  writeFileSync(ORIGINS_FILE, JSON.stringify({ origins: [allowed.origin] }));
});

test.afterAll(async () => {
  if (deployed !== null) writeFileSync(ORIGINS_FILE, deployed);
  for (const h of [allowed, other]) h?.server.closeAllConnections();
  await Promise.all([allowed, other].map((h) => new Promise((resolve) => h?.server.close(resolve))));
});

/**
 * Clicks `button` once, scrolled into view, it has kept its place for half a second: the embeds
 * above it fit their height to their content as it comes and as they are scrolled to, which
 * moves it, and a click as the page shifts lands elsewhere (seen: 2 clicks of 3 lost).
 */
async function clickWhenStill(button: Locator): Promise<void> {
  await button.scrollIntoViewIfNeeded();
  let last = '';
  await expect
    .poll(async () => {
      const box = JSON.stringify(await button.boundingBox());
      const still = box === last;
      last = box;
      return still;
    }, { intervals: [500] })
    .toBe(true);
  await button.click();
}

function examplePage(origin: string, baseURL: string | undefined): string {
  return `${origin}/embed/example.html?app=${encodeURIComponent(baseURL!)}`;
}

/** The nth embed's frame on the page, once its document is PyTabs'. */
async function embedFrame(page: Page, n: number): Promise<Frame> {
  const frame = await page.locator('iframe').nth(n).contentFrame().locator('main.embed').elementHandle().then((h) => h!.ownerFrame());
  return frame!;
}

declare global {
  interface Window {
    cells: {
      ready: Promise<string>;
      sessionId: string | null;
      run(code: string): Promise<{ status: string; result?: string; stdout: string; input?: string[]; error?: { ename: string; evalue: string } }>;
      writeFile(path: string, data: string | Uint8Array): Promise<{ path: string; size: number }>;
      getVariable(name: string): Promise<{ name: string; type: string; repr?: string }>;
      listVariables(): Promise<{ name: string }[]>;
    }[];
    /** What the page's run in an embed came to, kept on the page while the test reloads the frame. */
    endless?: Promise<string>;
  }
}

/** Tests in a Chromium that lets cross-site frames keep storage; they go on from each other's state. */
const framed = withThirdPartyStorage;

test.describe('where the browser lets a cross-site frame keep storage', () => {
  framed('a course page on another origin runs its cells in place: the reader runs one, the page drives it through the API and hears its events, and the iframe fits', async ({ page, baseURL }) => {
    // The client asks nothing of a frame before its embed is there (it would log a refused postMessage).
    const refusedPosts: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && message.text().includes('postMessage') && refusedPosts.push(message.text())));
    await page.goto(examplePage(allowed.origin, baseURL));
    await page.waitForFunction(() => window.cells?.length === 2);
    const ids = await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
    expect(new Set(ids).size).toBe(2);
    expect(refusedPosts).toEqual([]);

    const first = page.locator('iframe').nth(0).contentFrame();
    await expect(first.getByRole('textbox', { name: 'Code' })).toHaveText(CODE.split('\n').join(''));
    await first.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(first.getByRole('region', { name: 'Output' })).toContainText('mean: 82.33333333333333', FIRST_RUN);
    const events = page.getByRole('list', { name: 'Events' });
    await expect(events).toContainText('cell 1 status: starting');
    await expect(events).toContainText('cell 1 output: mean: 82.33333333333333');
    await expect(events).toContainText('cell 1 status: idle');

    // The page's own buttons use the client: run code, read a variable.
    await clickWhenStill(page.getByRole('button', { name: 'Add a score of 100 to the first cell' }));
    await expect(page.getByRole('status')).toHaveText("The first cell's mean is now 86.75.");
    await expect(events).toContainText('cell 1 result: 86.75');
    await expect(first.getByRole('region', { name: 'Output' })).toContainText('86.75');
    await clickWhenStill(page.getByRole('button', { name: 'Read mean of the first cell' }));
    await expect(page.getByRole('status')).toHaveText('mean is 86.75 (float).');

    // A line the reader types in answer to input() is an input event of the page's, never part of stdout.
    const asking = page.evaluate(() => window.cells[0].run("who = input('Your name? ')\nprint('Hello,', who)"));
    await first.getByRole('textbox', { name: /^Input for / }).fill('Ada');
    await first.getByRole('textbox', { name: /^Input for / }).press('Enter');
    expect(await asking).toMatchObject({ status: 'ok', stdout: 'Your name? Hello, Ada\n', input: ['Ada'] });
    await expect(events).toContainText('cell 1 input: Ada');
    await expect(first.getByRole('region', { name: 'Output' })).toContainText('Your name? Ada\nHello, Ada');
    // A file written by the page is in the session's workspace for the next run; errors come back as errors.
    expect(await page.evaluate(() => window.cells[0].writeFile('data.csv', 'x\n1\n2\n'))).toEqual({ path: 'data.csv', size: 6 });
    const read = await page.evaluate(() => window.cells[0].run("import csv\nsum(int(r['x']) for r in csv.DictReader(open('data.csv')))"));
    expect(read).toMatchObject({ status: 'ok', result: '3' });
    // A read asked while a run is under way answers after it, as a kernel does: the run's variable is there.
    const [slow, late] = await page.evaluate(() => Promise.all([window.cells[0].run('import time\ntime.sleep(0.5)\nlate = 6 * 7'), window.cells[0].getVariable('late')]));
    expect(slow).toMatchObject({ status: 'ok' });
    expect(late).toMatchObject({ type: 'int', repr: '42' });
    const failed = await page.evaluate(() => window.cells[0].run('1 / 0'));
    expect(failed).toMatchObject({ status: 'error', error: { ename: 'ZeroDivisionError' } });
    await expect(events).toContainText('cell 1 error: division by zero');
    expect((await page.evaluate(() => window.cells[0].listVariables())).map((v) => v.name).sort()).toEqual(['csv', 'late', 'mean', 'scores', 'time', 'who']);

    // The iframe takes its content's height, as the embed reported it.
    const first$ = await embedFrame(page, 0);
    const content = await first$.evaluate(() => Math.ceil(document.querySelector('main.embed')!.getBoundingClientRect().height));
    await expect.poll(() => page.locator('iframe').nth(0).evaluate((f) => f.getBoundingClientRect().height)).toBe(content);

    // Cross-site, the embed is not cross-origin isolated (its page is not): FACTS and docs/embedding.md.
    expect(await first$.evaluate(() => crossOriginIsolated)).toBe(false);
  });

  framed('two embeds of the same code keep separate variables, and a reload brings each one back as it was', async ({ page, baseURL }) => {
    await page.goto(examplePage(allowed.origin, baseURL));
    await page.waitForFunction(() => window.cells?.length === 2);
    await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
    // The second cell has its own session: nothing of the first one's runs is in it.
    expect(await page.evaluate(() => window.cells[1].run("'scores' in globals()"))).toMatchObject({ status: 'ok', result: 'False' });
    const second = page.locator('iframe').nth(1).contentFrame();
    await second.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(second.getByRole('region', { name: 'Output' })).toContainText('mean: 82.33333333333333', FIRST_RUN);
    expect(await page.evaluate(() => window.cells[1].getVariable('mean'))).toMatchObject({ type: 'float', repr: '82.33333333333333' });
    expect(await page.evaluate(() => window.cells[0].getVariable('mean'))).toMatchObject({ type: 'float', repr: '86.75' });

    await page.reload();
    await page.waitForFunction(() => window.cells?.length === 2);
    await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
    // Each shows its reader's last run (the first cell's was the page's 1 / 0) before anything runs again.
    const first = page.locator('iframe').nth(0).contentFrame();
    await expect(first.getByRole('textbox', { name: 'Code' })).toHaveText('1 / 0');
    await expect(first.getByRole('region', { name: 'Output' })).toContainText('ZeroDivisionError');
    await expect(second.getByRole('region', { name: 'Output' })).toContainText('mean: 82.33333333333333');
    expect(await page.evaluate(() => window.cells[0].getVariable('mean'))).toMatchObject({ repr: '86.75' });
    expect(await page.evaluate(() => window.cells[1].getVariable('mean'))).toMatchObject({ repr: '82.33333333333333' });

    // Reset: the author's version again, and the reader's variables are gone; the other cell keeps its own.
    await first.getByRole('button', { name: 'Reset' }).click();
    await expect(first.getByRole('status').filter({ hasText: 'Back to the author' })).toBeVisible();
    await expect(first.getByRole('textbox', { name: 'Code' })).toHaveText(CODE.split('\n').join(''));
    expect(await page.evaluate(() => window.cells[0].listVariables())).toEqual([]);
    expect(await page.evaluate(() => window.cells[1].getVariable('mean'))).toMatchObject({ repr: '82.33333333333333' });

    // Open in PyTabs: the reader's code as a shared link, opened in a tab of the app.
    const popup = page.context().waitForEvent('page');
    await first.getByRole('button', { name: 'Open in PyTabs' }).click();
    const opened = await popup;
    expect(opened.url()).toMatch(new RegExp(`^${baseURL}#/share\\?v=1&z=`));
    await expect(opened.getByRole('dialog', { name: 'Open a shared session?' }).getByRole('region', { name: 'Code in the link' })).toContainText('mean = sum(scores)');
    // The embeds' sessions live in storage partitioned by the course site: the app's own tab has none of them.
    await opened.waitForFunction(() => Boolean(window.pytabs));
    expect((await opened.evaluate(() => window.pytabs!.listSessions())).map((s) => s.name).filter((n) => n.startsWith('Embed'))).toEqual([]);
  });

  framed("a call under way when the reader reloads the embed's frame is refused, not left waiting; the next call is answered", async ({ page, baseURL }) => {
    await page.goto(examplePage(allowed.origin, baseURL));
    await page.waitForFunction(() => window.cells?.length === 2);
    await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
    await page.evaluate(() => {
      window.endless = window.cells[1].run('while True:\n    pass').then(
        () => 'answered',
        (e: Error) => e.message,
      );
    });
    const second = page.locator('iframe').nth(1).contentFrame();
    await expect(second.getByRole('button', { name: 'Stop' })).toBeEnabled(FIRST_RUN);
    await (await embedFrame(page, 1)).evaluate(() => location.reload());
    expect(await page.evaluate(() => window.endless)).toBe(
      "The embed's frame loaded again before it answered; what the call did is unknown (a run may have finished and been kept).",
    );
    expect(await page.evaluate(() => window.cells[1].run('6 * 7'))).toMatchObject({ status: 'ok', result: '42' });
  });

  framed('a request for another session is refused, hostile messages are refused, and nothing is written', async ({ page, baseURL }) => {
    await page.goto(examplePage(allowed.origin, baseURL));
    await page.waitForFunction(() => window.cells?.length === 2);
    const [firstId, secondId] = await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
    const frame = await embedFrame(page, 0);
    const before = await dumpDatabase(frame);
    const replies = await page.evaluate(async ([ownId, otherId]) => {
      const iframe = document.querySelectorAll('iframe')[0];
      const target = iframe.contentWindow!;
      const origin = new URL(iframe.src).origin;
      const got: unknown[] = [];
      addEventListener('message', (e) => e.source === target && (e.data as { kind?: string }).kind === 'reply' && got.push(e.data));
      const hostile = [
        { op: 'run', code: 'x = 1', sessionId: otherId },
        { op: 'listVariables', sessionId: otherId },
        { op: 'writeFile', path: 'a.txt', data: 'x' },
        // With the embed's own session id, each is refused for what it carries.
        { op: 'run', code: { toString: 'x = 1' }, sessionId: ownId },
        { op: 'writeFile', path: '../../escape.txt', data: 'x', sessionId: ownId },
        { op: 'writeFile', path: 'big.bin', data: 'x'.repeat(11 * 1024 * 1024), sessionId: ownId },
        { op: 'getVariable', name: '__import__("os")', sessionId: ownId },
        { op: 'delete', sessionId: ownId },
        // No usable request id: nothing to answer to.
        { op: 'hello', requestId: 'x'.repeat(500) },
      ];
      hostile.forEach((m, i) => target.postMessage({ pytabs: 'embed', kind: 'request', requestId: `h${i}`, ...m }, origin));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      return got as { requestId: string; ok: boolean; error?: string; sessionId: string }[];
    }, [firstId, secondId]);
    const byId = Object.fromEntries(replies.map((r) => [r.requestId, r]));
    expect(Object.keys(byId).sort()).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7']);
    for (const reply of replies) expect(reply.ok, reply.requestId).toBe(false);
    expect(byId.h0.error).toContain('answers only for its own session');
    expect(byId.h1.error).toContain('answers only for its own session');
    expect(byId.h2.error).toContain('answers only for its own session');
    expect(byId.h3.error).toContain('"code" must be text');
    expect(byId.h4.error).toMatch(/\.\./);
    expect(byId.h5.error).toContain('"data" must be text or a Uint8Array');
    expect(byId.h6.error).toContain('Python identifier');
    expect(byId.h7.error).toContain('"op" must be one of');
    // Every reply names the embed's own session, never the one asked for.
    for (const reply of replies) expect(reply.sessionId).toBe(firstId);
    expect(await dumpDatabase(frame)).toEqual(before);
  });

  framed('a page on an origin that is not allowed gets nothing and learns nothing; the reader can still use the embed', async ({ page, baseURL }) => {
    await page.goto(examplePage(other.origin, baseURL));
    await page.waitForFunction(() => window.cells?.length === 2);
    const first = page.locator('iframe').nth(0).contentFrame();
    await expect(first.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
    await expect(first.getByText('Press Run to run this code')).toBeVisible();
    // Both page hosts are on 127.0.0.1, one site: their embeds share the browser's storage partition.
    const frame = await embedFrame(page, 0);
    const rounds = (await dumpDatabase(frame)).rounds.length;
    const heard = await page.evaluate(async () => {
      const got: unknown[] = [];
      const frames = [...document.querySelectorAll('iframe')].map((f) => f.contentWindow);
      addEventListener('message', (e) => frames.includes(e.source as Window) && got.push(e.data));
      for (const [i, target] of frames.entries()) {
        for (const op of ['hello', 'listVariables', 'run']) target!.postMessage({ pytabs: 'embed', kind: 'request', requestId: `${op}${i}`, op, code: 'import js' }, '*');
      }
      await new Promise((resolve) => setTimeout(resolve, 3000));
      return got;
    });
    expect(heard).toEqual([]);
    // The reader's own Run works, and still nothing reaches the page: no output, status or height.
    await first.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(first.getByRole('region', { name: 'Output' })).toContainText('mean: 82.33333333333333', FIRST_RUN);
    await expect(page.getByRole('list', { name: 'Events' })).toBeEmpty();
    expect(await page.locator('iframe').nth(0).evaluate((f) => f.style.height)).toBe('320px');
    // The page's requests to run code did not run: storage holds the reader's one run more, no other.
    expect((await dumpDatabase(frame)).rounds).toHaveLength(rounds + 1);
  });

});

test('where the browser blocks storage in cross-site frames, the embed says so and opens the author\'s version in PyTabs', async ({ page, baseURL }) => {
  const warnings: string[] = [];
  page.on('console', (message) => void (message.type() === 'warning' && warnings.push(message.text())));
  await page.goto(examplePage(allowed.origin, baseURL));
  const first = page.locator('iframe').nth(0).contentFrame();
  // Said in the app's words, with what the reader can do; the browser's own words go to the console only.
  const alert = first.getByRole('alert');
  await expect(alert).toContainText(
    'This browser does not let the embed keep data (storage is blocked for this site, often by a setting for third-party cookies and site data), so it cannot run here.',
  );
  await expect(alert).toContainText(`allow third-party cookies and site data for ${new URL(baseURL!).hostname} in this browser's settings and reload the page.`);
  await expect(alert).not.toContainText('denied');
  await expect(alert).not.toContainText('(The user');
  expect(warnings.join('\n')).toContain('The user denied permission to access the database.');
  const popup = page.context().waitForEvent('page');
  await first.getByRole('link', { name: 'Open in PyTabs' }).click();
  const opened = await popup;
  await expect(opened.getByRole('dialog', { name: 'Open a shared session?' }).getByRole('region', { name: 'Code in the link' }).locator('pre')).toHaveText(CODE);
});

test("embeds on a page of the app's own origin are kept apart from the person's sessions: never listed or opened, and erased with all data", async ({ page, context }) => {
  // The shipped example opened where the app is deployed, without ?app=: its embeds' frames are of the app's origin.
  await page.goto('/embed/example.html');
  await page.waitForFunction(() => window.cells?.length === 2);
  const embeds = await page.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
  expect(await page.evaluate(() => window.cells[0].run('kept = 6 * 7\nkept'))).toMatchObject({ status: 'ok', result: '42' });

  // The app in the same browser opens a session of the person's own, not an embed's.
  const app = await context.newPage();
  await openApp(app);
  const mine = await firstSessionId(app);
  expect(embeds).not.toContain(mine);
  await expect(app.getByRole('tab')).toHaveCount(1);
  await expect(app.getByRole('tab', { name: 'Session 1' })).toHaveAttribute('aria-selected', 'true');
  expect(app.url()).toContain(`#/s/${mine}`);
  await expect(app.getByRole('list', { name: 'Session list' }).getByRole('listitem')).toHaveCount(1);
  expect((await app.evaluate(() => window.pytabs!.listSessions())).map((s) => s.id)).toEqual([mine]);
  expect((await app.evaluate(() => window.pytabs!.listSessions({ includeEmbeds: true }))).map((s) => s.id).sort()).toEqual([mine, ...embeds].sort());

  // An embed's run is told to the app's tab (one database, one channel): its list still has only the person's session.
  expect(await page.evaluate(() => window.cells[1].run('again = 1'))).toMatchObject({ status: 'ok' });
  await expect
    .poll(() => app.evaluate((id) => window.pytabs!.listSessions({ includeEmbeds: true }).then((l) => l.find((s) => s.id === id)?.totalExecutions), embeds[1]))
    .toBe(1);
  // The app reads its list again within a moment of the change (src/ui/app-state.svelte.ts).
  await app.waitForTimeout(1000);
  await expect(app.getByRole('tab')).toHaveCount(1);

  // Deleting the person's only session opens none of the embeds'; the next start makes a new "Session 1".
  await app.getByRole('button', { name: 'Delete session' }).click();
  await app.getByRole('dialog', { name: 'Delete session?' }).getByRole('button', { name: 'Delete permanently' }).click();
  await expect(app.getByRole('tab')).toHaveCount(0);
  await expect(app.getByRole('list', { name: 'Session list' }).getByRole('listitem')).toHaveCount(0);
  await app.reload();
  await expect(app.getByRole('tab', { name: 'Session 1' })).toHaveAttribute('aria-selected', 'true');
  expect(embeds).not.toContain(await firstSessionId(app));

  // Erase all data on this device takes the embeds' sessions with everything else: the example's cells start afresh.
  await page.close();
  await app.getByRole('button', { name: 'Settings' }).click();
  await app.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Erase all data on this device' }).click();
  await app.getByRole('dialog', { name: 'Erase all data on this device?' }).getByRole('button', { name: 'Erase everything' }).click();
  await expect(app.getByRole('alert')).toContainText('All PyTabs data on this device was erased.');
  const again = await context.newPage();
  await again.goto('/embed/example.html');
  await again.waitForFunction(() => window.cells?.length === 2);
  const fresh = await again.evaluate(() => Promise.all(window.cells.map((c) => c.ready)));
  expect(fresh.filter((id) => embeds.includes(id))).toEqual([]);
  expect(await again.evaluate(() => window.cells[0].listVariables())).toEqual([]);
});

/** An embed's fragment with code packed as a shared link's. */
/** How many rounds in the database have their end stored (`state` other than running). */
async function finishedRounds(): Promise<number> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open('pytabs');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const rounds = await new Promise<{ state?: string }[]>((resolve, reject) => {
    const req = db.transaction('rounds').objectStore('rounds').getAll();
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  db.close();
  return rounds.filter((round) => round.state !== undefined && round.state !== 'running').length;
}

function embedHash(params: string, payload: unknown, raw?: Uint8Array): string {
  const data = raw ?? deflateSync(new TextEncoder().encode(JSON.stringify(payload)));
  return `#/embed?${params}&v=1&z=${Buffer.from(data).toString('base64url')}`;
}

test('hostile embed addresses are refused with a clear message and write nothing', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const ok = { name: 'x', cells: ['1'], files: [] };
    const hostile: [string, string, RegExp][] = [
      ['no id', embedHash('run=load', ok), /has no id/],
      ['an id with a path', embedHash('id=../x', ok), /id must be 1 to 64 letters/],
      ['an unknown run option', embedHash('id=a&run=always', ok), /"run=always" is not one of "click", "load"/],
      ['a page that is not a path', embedHash('id=a&page=https://evil.example/', ok), /page must be a path starting with "\/"/],
      ['another version', '#/embed?id=a&v=9&z=AA', /version "9"/],
      ['a zip bomb', embedHash('id=a', null, deflateSync(new Uint8Array(32 * 1024 ** 2), { level: 9 })), /zip bomb/],
      ['a path with ..', embedHash('id=a', { name: 'x', cells: [], files: [{ path: '../../escape.txt', text: 'x' }] }), /would leave the workspace/],
    ];
    for (const [what, hash, why] of hostile) {
      // From another document: a change of the fragment alone would not load the page again.
      await page.goto('about:blank');
      await page.goto(`/${hash}`);
      await expect(page.getByRole('alert'), what).toContainText('Cannot show this embed');
      await expect(page.getByRole('alert'), what).toContainText(why);
      await expect(page.getByRole('button', { name: 'Run' })).toHaveCount(0);
    }
    const stored = await dumpDatabase(page);
    for (const store of ['sessions', 'files', 'fileData', 'rounds', 'imports']) expect(stored[store] ?? [], store).toEqual([]);
  } finally {
    await context.close();
  }
});

test('an embed opened by itself is accessible, in both themes, with its code read-only or hidden as asked', async ({ page }) => {
  const html = '<img src=x onerror="window.pwned=1">';
  await page.goto(`/${embedHash('id=axe&ro=1&vars=1&theme=dark', { name: html, cells: ['x = 41\nx + 1'], files: [] })}`);
  await expect(page.getByRole('heading', { name: html })).toBeVisible();
  const code = page.getByRole('textbox', { name: 'Code' });
  await expect(code).toHaveAttribute('aria-readonly', 'true');
  await code.click();
  await page.keyboard.type('zzz');
  await expect(code).toHaveText('x = 41x + 1');
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');
  // The palette's dark half (app.css), whatever the system's scheme.
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(17, 20, 24)');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('42', FIRST_RUN);
  await expect(page.getByRole('region', { name: 'Variables' })).toContainText('int');
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  // The author changed the code under the same id: the reader keeps theirs, is told, and Reset brings the new one.
  await page.goto('about:blank');
  await page.goto(`/${embedHash('id=axe&vars=1', { name: html, cells: ['y = 7'], files: [] })}`);
  await expect(page.getByText('The author changed this code since you first ran it')).toBeVisible();
  await expect(code).toHaveText('x = 41x + 1');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(code).toHaveText('y = 7');
  await expect(page.getByText('The author changed this code since you first ran it')).toBeHidden();
  await expect(page.getByRole('region', { name: 'Variables' })).toContainText('No variables yet');

  await page.goto('about:blank');
  await page.goto(`/${embedHash('id=hidden&hide=code&theme=light', { name: 'Hidden', cells: ['print("from hidden code")'], files: [] })}`);
  await expect(page.getByRole('heading', { name: 'Hidden' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Code' })).toHaveCount(0);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('light');
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(246, 247, 249)');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('from hidden code', FIRST_RUN);
  const axeLight = await new AxeBuilder({ page }).analyze();
  expect(axeLight.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});

test('an embed whose page allows it (step=1) shows Step through beside Run and the step view under it; without it, none', async ({ page }) => {
  const program = { name: 'Aliases', cells: ['a = [1, 2]\nb = a\nb.append(3)\ntotal = len(a)'], files: [] };
  await page.goto(`/${embedHash('id=plain-steps', program)}`);
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Step through' })).toHaveCount(0);

  await page.goto('about:blank');
  await page.goto(`/${embedHash('id=steps&step=1', program)}`);
  await page.getByRole('button', { name: 'Step through' }).click();
  const view = page.getByRole('region', { name: 'Output', exact: true }).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible(FIRST_RUN);
  await view.getByRole('button', { name: 'Last' }).click();
  const frame = view.getByRole('group', { name: '<module>' });
  await expect(frame.getByRole('button', { name: '→ list #1' })).toHaveCount(2);
  await view.getByRole('button', { name: 'Back' }).click();
  await expect(view.getByRole('status')).toHaveText('Line 3: list #1 now holds 1, 2, 3');
  // Run still runs without recording, and the step view goes with the round it belonged to.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Output', exact: true })).toContainText('Done in');
  await expect(view).toHaveCount(0);
  // The step-through is kept with its round: a reader who comes back and steps again finds it drawn.
  await page.getByRole('button', { name: 'Step through' }).click();
  await expect(view.getByRole('slider', { name: 'Step' })).toHaveAttribute('max', '5', FIRST_RUN);
  // The view draws before the round's end is stored; a reload before that finds the round unfinished.
  await expect.poll(() => page.evaluate(finishedRounds)).toBe(3);
  await page.reload();
  await expect(view.getByRole('slider', { name: 'Step' })).toHaveAttribute('max', '5');
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});

test('Embed in the session bar writes the <iframe> snippet with the chosen options, and its address shows the session\'s code', async ({ page, context }) => {
  await openApp(page);
  await send(page, 'total = sum([1, 2, 3])\nprint("total", total)');
  await expect(reply(page, 1)).toContainText('total 6', FIRST_RUN);
  await page.getByRole('button', { name: 'Embed', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Embed in a page' });
  await expect(dialog.getByRole('textbox', { name: 'Embed id', exact: true })).toHaveValue('session-1');
  await dialog.getByRole('checkbox', { name: 'Read-only code' }).check();
  await dialog.getByRole('combobox', { name: 'Run', exact: true }).selectOption('load');
  const snippet = dialog.getByRole('textbox', { name: 'Code to paste into a page' });
  await dialog.getByRole('checkbox', { name: 'Offer Step through' }).check();
  await expect(snippet).toHaveValue(/id=session-1&amp;ro=1&amp;run=load&amp;step=1&amp;v=1/);
  await dialog.getByRole('checkbox', { name: 'Offer Step through' }).uncheck();
  await expect(snippet).toHaveValue(/^<iframe src="http:\/\/localhost:\d+\/#\/embed\?id=session-1&amp;ro=1&amp;run=load&amp;v=1&amp;z=[A-Za-z0-9_-]+" title="Python: Session 1"/);
  await dialog.getByRole('textbox', { name: 'Embed id', exact: true }).fill('no/slashes');
  await expect(dialog).toContainText('An id is 1 to 64 letters');
  await expect(snippet).toHaveCount(0);
  await dialog.getByRole('textbox', { name: 'Embed id', exact: true }).fill('total');
  await expect(snippet).toHaveValue(/id=total&amp;ro=1&amp;run=load/);
  const axe = await new AxeBuilder({ page }).include('dialog').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await dialog.getByRole('button', { name: 'Copy code' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Copied the code.');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await snippet.inputValue());

  // The address in the snippet, opened: the code runs at once (run=load), read-only.
  const src = copied.match(/src="([^"]+)"/)![1].replace(/&amp;/g, '&');
  const embed = await context.newPage();
  await embed.goto(src);
  await expect(embed.getByRole('textbox', { name: 'Code' })).toHaveAttribute('aria-readonly', 'true');
  await expect(embed.getByRole('region', { name: 'Output' })).toContainText('total 6', FIRST_RUN);
});
