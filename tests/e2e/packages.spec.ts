import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApp } from './app';
import { lockEntry, wheel } from './package-index';

// Packages on demand from a package index this test builds and serves itself: a
// pure-Python wheel of its own, a listed package whose wheel is missing, and a lock
// file naming both, for the Pyodide version the app ships.

const NAME = 'pytabs_testpkg';
const MISSING = 'pytabs_missingpkg';

let server: Server;
let indexURL: string;
const requests: string[] = [];

test.beforeAll(async () => {
  const whl = wheel(NAME, "GREETING = 'hello from the test index'\n");
  const coreLock = JSON.parse(readFileSync(new URL('../../node_modules/pyodide/pyodide-lock.json', import.meta.url), 'utf8'));
  const lock = {
    info: coreLock.info,
    // Keyed by normalized name (PEP 503), as Pyodide's own lock file is.
    packages: { 'pytabs-testpkg': lockEntry(NAME, whl), 'pytabs-missingpkg': lockEntry(MISSING, wheel(MISSING, '')) },
  };
  const files: Record<string, { type: string; body: Uint8Array | string }> = {
    '/pyodide-lock.json': { type: 'application/json', body: JSON.stringify(lock) },
    [`/${NAME}-1.0-py3-none-any.whl`]: { type: 'application/zip', body: whl },
  };
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    // The app is cross-origin isolated (COEP require-corp): a cross-origin index must allow both.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'Content-Type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  indexURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('an import loads its package from the configured index, with progress, and a missing wheel is a clear error', async ({ page }) => {
  await openApp(page);
  const plain = await page.evaluate(async (packageIndexUrl) => {
    const api = window.pytabs!;
    await api.updateSettings({ packageIndexUrl });
    const s = await api.createSession('Packages');
    const status: string[] = [];
    const result = await api.run(s.id, 'import json\n1 + 1', (e) => e.type === 'status' && status.push(e.text));
    return { id: s.id, result, status };
  }, indexURL);
  expect(plain.result.result?.['text/plain']).toBe('2');
  // Code that needs no package costs no request: the index saw only lock file fetches, at start.
  expect(plain.status).toEqual([]);
  expect(requests).toContain('/pyodide-lock.json');
  expect(requests.filter((r) => r !== '/pyodide-lock.json')).toEqual([]);

  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const status: string[] = [];
    const loaded = await api.run(id, 'import pytabs_testpkg\npytabs_testpkg.GREETING', (e) => e.type === 'status' && status.push(e.text));
    const missing = await api.run(id, 'import pytabs_missingpkg', (e) => e.type === 'status' && status.push(e.text));
    const after = await api.run(id, 'pytabs_testpkg.GREETING.upper()');
    return { loaded, missing, after, status };
  }, plain.id);
  expect(out.loaded.error).toBeUndefined();
  expect(out.loaded.result?.['text/plain']).toBe("'hello from the test index'");
  expect(out.status).toContain(`Loading ${NAME}…`);
  expect(out.status).toContain(`Loaded ${NAME}`);
  expect(requests).toContain(`/${NAME}-1.0-py3-none-any.whl`);

  expect(out.missing.status).toBe('error');
  expect(out.missing.error?.ename).toBe('PackageLoadError');
  expect(out.missing.error?.evalue).toContain(`Could not load package "${MISSING}" from the package index ${indexURL}`);
  expect(out.missing.error?.evalue).toContain(`${MISSING}-1.0-py3-none-any.whl`);
  expect(out.missing.error?.evalue).not.toMatch(/\bat \S+:\d+/); // no JavaScript stack
  // The failed load left the session as it was.
  expect(out.after.result?.['text/plain']).toBe("'HELLO FROM THE TEST INDEX'");
});

test('an unreachable index still starts the session; only an import that needs it fails, clearly', async ({ page }) => {
  await openApp(page);
  const closed = await new Promise<string>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(`http://127.0.0.1:${port}/`));
    });
  });
  const out = await page.evaluate(async (packageIndexUrl) => {
    const api = window.pytabs!;
    await api.updateSettings({ packageIndexUrl });
    const s = await api.createSession('Offline index');
    const plain = await api.run(s.id, "sum(range(5))");
    const numpy = await api.run(s.id, 'import numpy');
    return { plain, numpy };
  }, closed);
  expect(out.plain.result?.['text/plain']).toBe('10');
  expect(out.numpy.error?.ename).toBe('PackageLoadError');
  expect(out.numpy.error?.evalue).toContain(`Could not load package "numpy" from the package index ${closed}: its pyodide-lock.json could not be read`);
});
