import { test, expect } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApp } from './app';

// Python cannot send what it reads to another origin: where the host sets headers (here `vite
// preview`, as `npm start` runs it, from public/_headers), the session worker's script carries a
// Content-Security-Policy whose connect-src is this origin and the package index. The page has no
// such policy, so the same request from the page goes through: the server is there and allows
// CORS, and only the worker's policy stops Python.

let server: Server;
let other: string;
const hits: string[] = [];

test.beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('pong');
  });
  // On every interface, reached as localhost: an origin the test server's extra 127.0.0.1 allowance does not cover.
  await new Promise<void>((resolve) => server.listen(0, resolve));
  other = `http://localhost:${(server.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('the session worker cannot fetch another origin from Python, while the same origin works', async ({ page }) => {
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await openApp(page);
  const out = await page.evaluate(async (other) => {
    const api = window.pytabs!;
    const fromPage = await (await fetch(`${other}/from-page`)).text();
    const s = await api.createSession('No network');
    const code = [
      'from js import fetch',
      'from pyodide.http import pyfetch',
      'async def probe(get, url):',
      '    try:',
      '        r = await get(url)',
      "        return f'ok {r.status}'",
      '    except Exception as e:',
      "        return f'refused {type(e).__name__}'",
      `[await probe(fetch, '${other}/js-fetch'), await probe(pyfetch, '${other}/pyfetch'), await probe(fetch, '${location.origin}/'), await probe(pyfetch, '${location.origin}/index.html')]`,
    ].join('\n');
    const run = await api.run(s.id, code);
    return { fromPage, run };
  }, other);
  expect(out.fromPage).toBe('pong');
  expect(out.run.error).toBeUndefined();
  expect(out.run.result?.['text/plain']).toMatch(/^\['refused \w+', 'refused \w+', 'ok 200', 'ok 200'\]$/);
  // The worker's requests never left the browser; the page's did.
  expect(hits).toEqual(['/from-page']);

  // The policy is on the worker script's response, and not on the page's.
  const workerUrl = workers.find((u) => /session\.worker-[^/]+\.js$/.test(u));
  expect(workerUrl).toBeTruthy();
  const workerCsp = (await page.request.get(workerUrl!)).headers()['content-security-policy'];
  expect(workerCsp).toContain("connect-src 'self' https://cdn.jsdelivr.net");
  expect((await page.request.get('/')).headers()['content-security-policy']).toBeUndefined();
});
