import { test, expect } from '@playwright/test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from '../chromium.mjs';
import { FIRST_RUN } from '../../tests/e2e/app';
import { shoot } from './shoot';

// docs/images/embeds.png: a course page on another site (127.0.0.1, the app being on localhost)
// with two PyTabs cells made by the embed client, each run once by the reader.

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const ORIGINS_FILE = path.join(DIST, 'embed-origins.json');

const COURSE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Week 2: lists and loops</title>
    <style>
      body { font-family: Georgia, serif; color: #1f2328; background: #fbfaf7; margin: 0; }
      header { background: #24486b; color: #fff; padding: 0.9rem 2rem; font-family: system-ui, sans-serif; }
      header a { color: #dbe7f3; text-decoration: none; margin-right: 1.2rem; font-size: 0.95rem; }
      main { max-width: 46rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.55; font-size: 1.05rem; }
      h1 { font-size: 1.7rem; margin: 0 0 0.4rem; }
      iframe { display: block; margin: 0.8rem 0 1.2rem; border-radius: 8px; box-shadow: 0 1px 3px rgb(0 0 0 / 0.12); }
    </style>
  </head>
  <body>
    <header><a href="#">Intro to Python</a><a href="#">Week 1</a><a href="#"><b>Week 2</b></a><a href="#">Week 3</a></header>
    <main>
      <h1>Week 2: lists and loops</h1>
      <p>A list keeps values in order. Here is a week of noon temperatures: press <b>Run</b>, then change a value and run it again.</p>
      <pre data-pytabs="average" data-name="Average temperature">temperatures = [14.2, 16.8, 15.1, 19.4, 21.0, 18.3, 17.6]
average = sum(temperatures) / len(temperatures)
print(f"Average: {average:.1f} °C, warmest: {max(temperatures)} °C")</pre>
      <p>A <code>for</code> loop visits each value in turn. This one draws a bar for each day:</p>
      <pre data-pytabs="bars" data-name="A bar for each day">days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
temperatures = [14.2, 16.8, 15.1, 19.4, 21.0, 18.3, 17.6]
for day, t in zip(days, temperatures):
    print(day, "█" * round(t), t)</pre>
    </main>
    <script type="module">
      import { PyTabsEmbed } from './pytabs-embed.js';
      const app = new URLSearchParams(location.search).get('app');
      window.cells = [...document.querySelectorAll('pre[data-pytabs]')].map((pre) =>
        PyTabsEmbed.replace(pre, { app, id: pre.dataset.pytabs, name: pre.dataset.name, page: location.pathname }),
      );
    </script>
  </body>
</html>`;

/** The course's site: the page above and a copy of the embed client, as a course site would host them. */
function courseSite(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://host').pathname;
    if (name === '/week-2.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(COURSE_PAGE);
    if (name === '/pytabs-embed.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(path.join(DIST, 'embed', 'pytabs-embed.js')));
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

// Debian's Chromium blocks storage in cross-site frames (its TrackingProtection3pcd feature), so an
// embed there could not keep its session; Firefox, Safari and Chrome's default let it.
// A tall window holds the whole page; the picture ends below its last cell.
test.use({
  launchOptions: { executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--disable-features=TrackingProtection3pcd'] },
  viewport: { width: 1280, height: 1400 },
});

let site: { server: Server; origin: string };
let deployed: string | null = null;

test.beforeAll(async () => {
  site = await courseSite();
  // As a deployer allows a course site: the embeds then tell the page their height, and it fits them.
  deployed = existsSync(ORIGINS_FILE) ? readFileSync(ORIGINS_FILE, 'utf8') : null;
  writeFileSync(ORIGINS_FILE, JSON.stringify({ origins: [site.origin] }));
});

test.afterAll(async () => {
  if (deployed !== null) writeFileSync(ORIGINS_FILE, deployed);
  site.server.closeAllConnections();
  await new Promise((resolve) => site.server.close(resolve));
});

test('docs/images/embeds.png', async ({ page, baseURL }) => {
  await page.goto(`${site.origin}/week-2.html?app=${encodeURIComponent(baseURL!)}`);
  await page.waitForFunction(() => (window as unknown as { cells?: unknown[] }).cells?.length === 2);
  await page.evaluate(() => Promise.all((window as unknown as { cells: { ready: Promise<string> }[] }).cells.map((c) => c.ready)));
  const expected = ['Average: 17.5 °C, warmest: 21.0 °C', `Sun ${'█'.repeat(18)} 17.6`];
  for (const [i, text] of expected.entries()) {
    const frame = page.locator('iframe').nth(i).contentFrame();
    await frame.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(frame.getByRole('region', { name: 'Output' })).toContainText(text, FIRST_RUN);
  }
  // Each iframe fitted to its embed's height, as the embed reported it once the output was in.
  for (let i = 0; i < 2; i++) {
    const frame = page.locator('iframe').nth(i);
    await expect
      .poll(async () => {
        const content = await frame.contentFrame().locator('main.embed').evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
        return (await frame.evaluate((f) => f.getBoundingClientRect().height)) === content;
      })
      .toBe(true);
  }
  await shoot(page, 'embeds.png', { upTo: page.getByRole('main') });
});
