import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_PACKAGES, packageSource, planOfflinePackages, withDependencies } from '../../src/lib/offline/offline-packages';
import { setLocale } from '../../src/lib/i18n/catalog';
import { errorText } from '../../src/lib/i18n/said';
import { hexToBase64, integritySha256, isComplete, OFFICIAL_PACKAGE_INDEX, PACKAGE_CACHE, sha256Base64 } from '../../src/lib/offline/package-cache';
import { officialPackageIndex } from '../../workers/runtime/packages';
import { ISOLATION_HEADERS, isSessionWorkerScript, withIsolation } from '../../src/lib/offline/isolation';

// The parts of offline use that run in Node: the package cache's checks on real HTTP
// responses and digests, and which files keeping numpy, pandas and matplotlib takes,
// read from Pyodide's own lock file. Cache Storage and the service worker run in
// Chromium (tests/e2e/offline.spec.ts).

const lock = JSON.parse(readFileSync(new URL('../../node_modules/pyodide/pyodide-lock.json', import.meta.url), 'utf8'));
const BODY = new Uint8Array(50_000).map((_, i) => i % 253);
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/whole') return void res.writeHead(200, { 'Content-Length': BODY.length }).end(BODY);
    if (req.url === '/gzipped') {
      const packed = gzipSync(BODY);
      return void res.writeHead(200, { 'Content-Length': packed.length, 'Content-Encoding': 'gzip' }).end(packed);
    }
    if (req.url === '/missing') return void res.writeHead(404).end('missing');
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('package cache', () => {
  it('is named by the Pyodide version, and its default index is the one the worker uses', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../node_modules/pyodide/package.json', import.meta.url), 'utf8'));
    expect(PACKAGE_CACHE).toBe(`pytabs-packages-${version}`);
    expect(OFFICIAL_PACKAGE_INDEX).toBe(officialPackageIndex());
  });

  it('reads the SHA-256 a request names as integrity, as Pyodide writes it from the lock file', async () => {
    const hex = createHash('sha256').update(BODY).digest('hex');
    const b64 = createHash('sha256').update(BODY).digest('base64');
    expect(hexToBase64(hex)).toBe(b64);
    expect(await sha256Base64(BODY)).toBe(b64);
    expect(integritySha256(`sha256-${b64}`)).toBe(b64);
    expect(integritySha256(`sha384-abc sha256-${b64}?opt`)).toBe(b64);
    expect(integritySha256('')).toBeNull();
    expect(integritySha256('sha512-abc')).toBeNull();
  });

  it('keeps only whole 200 responses', async () => {
    const whole = await fetch(`${base}/whole`);
    expect(isComplete(whole, await whole.arrayBuffer())).toBe(true);
    // Fewer bytes than declared: cut short.
    const cut = await fetch(`${base}/whole`);
    expect(isComplete(cut, (await cut.arrayBuffer()).slice(0, 1000))).toBe(false);
    // The declared length of a compressed transfer is not the body's: not held against it.
    const gzipped = await fetch(`${base}/gzipped`);
    expect(isComplete(gzipped, await gzipped.arrayBuffer())).toBe(true);
    const missing = await fetch(`${base}/missing`);
    expect(isComplete(missing, await missing.arrayBuffer())).toBe(false);
  });
});

describe('making packages available offline', () => {
  it('takes numpy, pandas and matplotlib with everything they depend on in Pyodide’s lock file', () => {
    const keys = withDependencies(lock.packages, OFFLINE_PACKAGES);
    for (const name of OFFLINE_PACKAGES) expect(keys).toContain(name);
    // Closed under dependencies, each once.
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) for (const dep of lock.packages[key].depends) expect(keys).toContain(dep);
    expect(keys).toContain('python-dateutil');
    expect(withDependencies(lock.packages, ['numpy'])).toEqual(['numpy']);
    expect(() => withDependencies(lock.packages, ['no-such-package'])).toThrow('The package index has no package "no-such-package".');
  });

  it('uses the configured index, else the app’s lock file with the official CDN, as a session does', () => {
    expect(packageSource('https://school.example/app/pyodide/')).toEqual({
      lockURL: 'https://school.example/app/pyodide/pyodide-lock.json',
      baseURL: OFFICIAL_PACKAGE_INDEX,
    });
    expect(packageSource('https://school.example/app/pyodide/', 'https://school.example/wheels')).toEqual({
      lockURL: 'https://school.example/wheels/pyodide-lock.json',
      baseURL: 'https://school.example/wheels/',
    });
  });

  it("tells a failure in the reader's language: an index that answers 404, a package it lacks", async () => {
    await setLocale('fr');
    try {
      const failed = await planOfflinePackages({ lockURL: `${base}/missing`, baseURL: `${base}/` }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Error);
      expect(errorText(failed)).toBe(`Impossible de lire le fichier de verrouillage de l’index des paquets ${base}/missing : il a répondu 404.`);
      // The message stays English, for logs.
      expect((failed as Error).message).toBe(`Could not read the package index's lock file ${base}/missing: it answered 404.`);
      let unknown: unknown;
      try {
        withDependencies(lock.packages, ['no-such-package']);
      } catch (e) {
        unknown = e;
      }
      expect(errorText(unknown)).toBe('L’index des paquets n’a pas de paquet « no-such-package ».');
    } finally {
      await setLocale('en');
    }
  });
});

describe("the service worker's headers on a host that sends none", () => {
  const POLICY = "default-src 'self'; connect-src 'self'";
  const page = new URL('https://school.example/python/index.html');
  const worker = new URL('https://school.example/python/assets/session.worker-AbC123.js');

  it('adds COOP/COEP to the app, and the policy to the session worker only, keeping the body', async () => {
    const served = withIsolation(page, new Response('<html>', { status: 200, headers: { 'Content-Type': 'text/html' } }), POLICY);
    expect(served.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    expect(served.headers.get('Cross-Origin-Embedder-Policy')).toBe('require-corp');
    expect(served.headers.get('Content-Security-Policy')).toBeNull();
    expect(served.headers.get('Content-Type')).toBe('text/html');
    expect(await served.text()).toBe('<html>');
    const script = withIsolation(worker, new Response('self.x = 1'), POLICY);
    expect(script.headers.get('Content-Security-Policy')).toBe(POLICY);
    expect(isSessionWorkerScript(new URL('https://school.example/python/assets/snapshot.worker-AbC.js'))).toBe(false);
  });

  it("keeps what the host sends, never replacing or weakening it", () => {
    const hostSent = new Response('x', {
      headers: { 'Cross-Origin-Embedder-Policy': 'credentialless', 'Content-Security-Policy': "default-src 'none'" },
    });
    const served = withIsolation(worker, hostSent, POLICY);
    expect(served.headers.get('Cross-Origin-Embedder-Policy')).toBe('credentialless');
    expect(served.headers.get('Content-Security-Policy')).toBe("default-src 'none'");
    expect(served.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    const complete = new Response('x', { headers: { ...ISOLATION_HEADERS } });
    expect(withIsolation(page, complete, POLICY)).toBe(complete);
    const opaque = Response.error();
    expect(withIsolation(page, opaque, POLICY)).toBe(opaque);
  });
});
