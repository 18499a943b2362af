import { expect, type Page } from '@playwright/test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { StaticHost } from './static-host';
import { withThirdPartyStorage } from './third-party-storage';

// The embed client as README shows it: `import { PyTabsEmbed } from '<the app's host>/embed/pytabs-embed.js'`
// in a course page on another site (localhost, while the app is on 127.0.0.1), which then makes
// two cells and drives them. A module script from another origin is fetched in CORS mode: the
// app's host must send Access-Control-Allow-Origin for /embed/* (the build's _headers asks it),
// and on a plain host, which sends nothing, the course page uses a copy of the client on its
// own site. Real Pyodide in each cell, real IndexedDB, in a Chromium that lets cross-site frames
// keep storage (its default blocks that: tests/e2e/embed.spec.ts).

const DIST = path.resolve('dist');
const ORIGINS_FILE = path.join(DIST, 'embed-origins.json');
const CLIENT = path.join(DIST, 'embed', 'pytabs-embed.js');

/** Course pages by path, with the headers each is served with; the client's copy at /course/pytabs-embed.js. */
const pages = new Map<string, { html: string; headers?: Record<string, string> }>();
let course: { server: Server; origin: string };
let deployed: string | null = null;

function courseHost(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://host').pathname;
    if (at === '/course/pytabs-embed.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' });
      return void res.end(readFileSync(CLIENT));
    }
    const page = pages.get(at);
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store', ...page.headers });
    res.end(page.html);
  });
  return new Promise((resolve) => server.listen(0, () => resolve({ server, origin: `http://localhost:${(server.address() as AddressInfo).port}` })));
}

/** A course page whose module imports the client from `client` and makes two cells of the app at `app`. */
function coursePage(client: string, app: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Week 1</title></head>
  <body>
    <main>
      <h1>Week 1</h1>
      <div id="first"></div>
      <div id="second"></div>
    </main>
    <script type="module">
      import { PyTabsEmbed } from ${JSON.stringify(client)};
      const app = ${JSON.stringify(app)};
      window.cells = [
        PyTabsEmbed.create(document.getElementById('first'), { app, id: 'first', code: 'x = 6 * 7\\nx' }),
        PyTabsEmbed.create(document.getElementById('second'), { app, id: 'second', code: 'y = 1' }),
      ];
    </script>
  </body>
</html>`;
}

interface Cell {
  ready: Promise<string>;
  run(code: string): Promise<{ status: string; result?: string }>;
  getVariable(name: string): Promise<{ type: string; repr?: string }>;
}
type WithCells = { cells?: Cell[] };

const test = withThirdPartyStorage;

test.beforeAll(async () => {
  course = await courseHost();
  deployed = existsSync(ORIGINS_FILE) ? readFileSync(ORIGINS_FILE, 'utf8') : null;
  // What a deployer does: list the course site's origin in the build's embed-origins.json.
  writeFileSync(ORIGINS_FILE, JSON.stringify({ origins: [course.origin] }));
});

test.afterAll(async () => {
  if (deployed !== null) writeFileSync(ORIGINS_FILE, deployed);
  course?.server.closeAllConnections();
  await new Promise((resolve) => course?.server.close(resolve));
});

/** Opens a course page and drives both of its cells through the client: each runs code and keeps its own variables. */
async function driveTwoCells(page: Page, url: string): Promise<void> {
  const said: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && said.push(message.text())));
  await page.goto(url);
  await expect.poll(() => page.evaluate(() => (window as WithCells).cells?.length ?? 0), { message: `the course page made no cells; its console said: ${said.join(' | ')}` }).toBe(2);
  const ids = await page.evaluate(() => Promise.all((window as WithCells).cells!.map((c) => c.ready)));
  expect(new Set(ids).size).toBe(2);
  expect(await page.evaluate(() => (window as WithCells).cells![0].run('x = 6 * 7\nx'))).toMatchObject({ status: 'ok', result: '42' });
  expect(await page.evaluate(() => (window as WithCells).cells![1].run("y = 'x' in globals()\ny"))).toMatchObject({ status: 'ok', result: 'False' });
  expect(await page.evaluate(() => (window as WithCells).cells![0].getVariable('x'))).toMatchObject({ type: 'int', repr: '42' });
  expect(await page.evaluate(() => (window as WithCells).cells![1].getVariable('y'))).toMatchObject({ type: 'bool', repr: 'False' });
  // The reader sees the page's run in the first cell.
  await expect(page.locator('iframe').nth(0).contentFrame().getByRole('region', { name: 'Output' })).toContainText('42');
}

test("a course page on another site imports the client from the app's host, which sends the build's _headers, and drives two cells", async ({ page }) => {
  const host = await new StaticHost(DIST, '/sub/app/', 'project').start();
  try {
    const client = `${host.url}embed/pytabs-embed.js`;
    const served = page.waitForResponse(client);
    served.catch(() => undefined);
    pages.set('/course/week1.html', { html: coursePage(client, host.url) });
    await driveTwoCells(page, `${course.origin}/course/week1.html`);
    expect((await served).headers()['access-control-allow-origin']).toBe('*');
  } finally {
    await host.close();
  }
});

test('a course page that is cross-origin isolated itself imports the client from the app\'s host too: a module script is fetched in CORS mode', async ({ page }) => {
  const host = await new StaticHost(DIST, '/sub/app/', 'project').start();
  try {
    const client = `${host.url}embed/pytabs-embed.js`;
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>Isolated</title></head><body><script type="module">
      import { PyTabsEmbed } from ${JSON.stringify(client)};
      window.imported = typeof PyTabsEmbed.create;
    </script></body></html>`;
    pages.set('/course/isolated.html', { html, headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } });
    await page.goto(`${course.origin}/course/isolated.html`);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await expect.poll(() => page.evaluate(() => (window as { imported?: string }).imported)).toBe('function');
  } finally {
    await host.close();
  }
});

test('on a plain host, which sends no headers, the client cannot be imported from the app\'s host; the course page imports a copy from its own site and drives two cells', async ({ page }) => {
  const host = await new StaticHost(DIST, '/sub/app/', 'plain').start();
  try {
    // What README's import meets on such a host: the browser refuses the module.
    const refused: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && refused.push(message.text())));
    pages.set('/course/direct.html', { html: coursePage(`${host.url}embed/pytabs-embed.js`, host.url) });
    await page.goto(`${course.origin}/course/direct.html`);
    await expect.poll(() => refused.join('\n')).toContain("No 'Access-Control-Allow-Origin' header is present");
    expect(await page.evaluate(() => (window as WithCells).cells)).toBeUndefined();

    pages.set('/course/week1-copy.html', { html: coursePage('./pytabs-embed.js', host.url) });
    await driveTwoCells(page, `${course.origin}/course/week1-copy.html`);
  } finally {
    await host.close();
  }
});
