import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestPackageIndex } from '../e2e/package-index';
import { test, expect } from './fixtures';
import { FIRST_RUN, Person } from './person';

// Every host: on a plain static host (no headers at all) PyTabs' service worker supplies what
// `_headers` asks of hosts that read it, from the second visit on; on a host that sends them,
// the host's own stay. Checked in each engine on both hosts, and without service workers.

/** Where a second visit has SharedArrayBuffer, so Stop interrupts in place: WebKitGTK is isolated without it. */
const SHARED_MEMORY: Record<string, boolean> = { chromium: true, firefox: true, webkit: false };

let other: Server;
let otherOrigin = '';
const hits: string[] = [];

test.beforeAll(async () => {
  // Another origin that would answer anyone (CORS and CORP allowed): only the worker's policy can stop Python.
  other = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Type': 'text/plain' }).end('pong');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

/**
 * A cell that tries the three ways out of Python and one request to this site, and prints what
 * each did. WebKit never settles a fetch that the worker's policy refuses (no error, no
 * securitypolicyviolation event, host headers or not): it shows as "no answer" after 5 s.
 * The fetches go at once, so that wait is paid once.
 */
function probes(to: string, here: string): string {
  return [
    'import asyncio, js',
    'from pyodide.http import pyfetch',
    'async def probe(get, url):',
    '    try:',
    '        r = await asyncio.wait_for(get(url), 5)',
    "        return f'ok {r.status}'",
    '    except TimeoutError:',
    "        return 'no answer'",
    '    except Exception:',
    "        return 'refused'",
    'def xhr(url):',
    '    try:',
    '        x = js.XMLHttpRequest.new()',
    "        x.open('GET', url, False)",
    '        x.send()',
    "        return f'ok {x.status}'",
    '    except Exception:',
    "        return 'refused'",
    `js_fetch, py_fetch, here = await asyncio.gather(probe(js.fetch, '${to}/js-fetch'), probe(pyfetch, '${to}/pyfetch'), probe(js.fetch, '${here}index.html'))`,
    `print('ways out:', [js_fetch, py_fetch, xhr('${to}/xhr'), here])`,
  ].join('\n');
}

/** What the probes print where the worker's policy holds. */
const REFUSED: Record<string, string> = {
  chromium: "ways out: ['refused', 'refused', 'refused', 'ok 200']",
  firefox: "ways out: ['refused', 'refused', 'refused', 'ok 200']",
  webkit: "ways out: ['no answer', 'no answer', 'refused', 'ok 200']",
};

async function thisBrowser(person: Person): Promise<{ role: string; name: string }> {
  await person.click({ role: 'button', name: 'Settings' });
  return { role: 'region', name: 'This browser' };
}

test('the second visit is cross-origin isolated on any host: Stop interrupts, Python reaches only this site and the package index', async ({ person, host, engineName, hostHeaders }) => {
  // A package index beside the app, as a school that keeps its own serves it.
  const index = new TestPackageIndex();
  index.publish('pytabs_here', "VALUE = 'from the index beside the app'\n");
  host.mount('pyodide-packages/', (req, res, path) => index.respond(req, res, path));
  hits.length = 0;

  await person.open(host.url);
  await person.send("print('first visit')");
  await person.expectText(person.reply(1), 'first visit', FIRST_RUN);
  const first = await person.page.evaluate(() => ({ isolated: crossOriginIsolated, controlled: Boolean(navigator.serviceWorker.controller) }));
  // The service worker took the first visit over at once; its headers come with the pages it serves from now on.
  expect(first).toEqual({ isolated: hostHeaders === 'project', controlled: true });

  await person.reload();
  expect(await person.page.evaluate(() => crossOriginIsolated)).toBe(true);
  let paths = await thisBrowser(person);
  await person.expectText(paths, hostHeaders === 'project' ? "Cross-origin isolated: yes, by the host's headers" : "Cross-origin isolated: yes, by PyTabs' service worker (the host sends no headers)");
  await person.expectText(
    paths,
    hostHeaders === 'project' ? "Python's network: this site and the package index only (the host's policy)" : "Python's network: this site and the package index only (PyTabs' service worker)",
  );
  await person.click({ role: 'button', name: 'Cancel', within: { role: 'dialog', name: 'Settings' } });

  await person.send(probes(otherOrigin, host.url));
  await person.expectText(person.reply(2), REFUSED[engineName], FIRST_RUN);
  expect(hits).toEqual([]);

  // The package index is this site: a session started with it set loads its package.
  await person.page.evaluate((url) => (window as unknown as { pytabs: { updateSettings(s: object): Promise<void> } }).pytabs.updateSettings({ packageIndexUrl: url }), `${host.url}pyodide-packages/`);
  await person.click({ role: 'button', name: 'New session' });
  await person.find({ role: 'heading', name: 'Session 2' });
  await person.send('import pytabs_here\nprint(pytabs_here.VALUE)');
  await person.expectText(person.reply(1), 'from the index beside the app', FIRST_RUN);
  expect(index.requests).toContain('GET /pytabs_here-1.0-py3-none-any.whl');

  await person.send('x = 5');
  await person.expectText(person.reply(2), 'Done in');
  await person.send('while True:\n    pass');
  await person.find(person.reply(3));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(3), 'Stopped after');
  const stopped = (await person.text(person.reply(3)))!;
  expect(stopped).toContain('KeyboardInterrupt');
  if (SHARED_MEMORY[engineName]) expect(stopped).not.toContain('restarted');
  else expect(stopped).toContain('the session restarted from its last saved state');
  await person.send('x + 1');
  await person.expectText(person.reply(4), '6');
  paths = await thisBrowser(person);
  await person.expectText(paths, SHARED_MEMORY[engineName] ? 'Stop: interrupts' : 'Stop: restarts from the last saved state');
});

test('without service workers (a private window), a plain host stays as it is, and Settings says so', async ({ newProfile, host, engineName, hostHeaders }) => {
  test.skip(engineName !== 'firefox' || hostHeaders !== 'plain', "Firefox's switch for service workers stands in for a private window; the plain host is the case");
  const person = new Person(await (await newProfile({ serviceWorkers: false })).newPage());
  try {
    hits.length = 0;
    await person.open(host.url);
    await person.send("print('works')");
    await person.expectText(person.reply(1), 'works', FIRST_RUN);
    await person.reload();
    expect(await person.page.evaluate(() => ({ isolated: crossOriginIsolated, serviceWorkers: 'serviceWorker' in navigator }))).toEqual({ isolated: false, serviceWorkers: false });
    const paths = await thisBrowser(person);
    await person.expectText(paths, 'Cross-origin isolated: no: the host sends no headers and this window has no service worker');
    await person.expectText(paths, "Python's network: not limited (the host sends no policy for the session worker and no service worker serves it)");
    await person.expectText(paths, 'Stop: restarts from the last saved state');
    await person.expectText(paths, 'Offline: no: this window has no service worker');
    await person.click({ role: 'button', name: 'Cancel', within: { role: 'dialog', name: 'Settings' } });
    // What docs/hosting.md ("What a plain host gets") warns of: nothing limits Python's network here.
    await person.send(probes(otherOrigin, host.url));
    await person.expectText(person.reply(2), "ways out: ['ok 200', 'ok 200', 'ok 200', 'ok 200']", FIRST_RUN);
    expect(hits.sort()).toEqual(['/js-fetch', '/pyfetch', '/xhr']);
  } finally {
    await person.dispose();
  }
});

test("once a session has started, later sessions' workers get Pyodide's files from the page and work", async ({ person, host }) => {
  await person.open(host.url);
  await person.send("print('first')");
  await person.expectText(person.reply(1), 'first', FIRST_RUN);
  // Where a new session's worker had Pyodide's script, standard library and lock file from, and what it computes.
  const later = () =>
    person.page.evaluate(async () => {
      type Api = {
        createSession(name: string): Promise<{ id: string }>;
        startSession(id: string): Promise<{ coreFiles?: string }>;
        run(id: string, code: string): Promise<{ result?: Record<string, string> }>;
        deleteSession(id: string): Promise<void>;
      };
      const api = (window as unknown as { pytabs: Api }).pytabs;
      const { id } = await api.createSession('Later');
      const report = await api.startSession(id);
      const result = await api.run(id, 'import statistics\nstatistics.mean([40, 44])');
      await api.deleteSession(id);
      return `${report.coreFiles} ${result.result?.['text/plain']}`;
    });
  // The page reads them from a cache after the first start: a start may come before that.
  await expect.poll(later, { timeout: 60_000 }).toBe('page 42');
});
