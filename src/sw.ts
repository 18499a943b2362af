/// <reference lib="webworker" />
/**
 * PyTabs' service worker (Workbox, built by vite-plugin-pwa's injectManifest). The page
 * registers it only after a session's first run returned (src/lib/offline/service-worker.ts),
 * so installing it never competes with the first visit's downloads. It keeps:
 *  - the app, the Pyodide core and the start snapshot (the precache list that the build
 *    writes into `self.__WB_MANIFEST`, filtered in vite.config.ts), served cache-first;
 *  - package files a session loaded and custom indexes' lock files (src/lib/offline/package-cache.ts);
 * and it relays the person's answers to input() to session workers without shared memory
 * (src/lib/offline/stdin-relay.ts).
 * A new version waits until the page sends SKIP_WAITING, which it does when no run is in flight.
 */
import { clientsClaim } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { installStdinRelay } from './lib/offline/stdin-relay';
import { integritySha256, isComplete, keepPackageFile, keptPackageFile, PACKAGE_CACHE, PACKAGE_CACHE_PREFIX } from './lib/offline/package-cache';

declare let self: ServiceWorkerGlobalScope;

// Workbox fetches files whose names carry no hash with `cache: 'reload'`, which downloads
// them again although the page fetched them minutes ago (30 MB on the first visit).
// Revalidating instead costs a 304 for each file the HTTP cache holds unchanged.
addPlugins([
  {
    requestWillFetch: async ({ request, event }) =>
      event?.type === 'install' && request.cache === 'reload' ? new Request(request, { cache: 'no-cache' }) : request,
  },
]);

// Before Workbox's routes: a worker's request for a line of input is answered here.
installStdinRelay(self);

// Query strings do not select another file in this app (its routes live in the hash), so a
// navigation to `./?anything` is the precached index.html, whose response keeps the
// COOP/COEP headers the host sent: served from here the page is still cross-origin isolated.
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/] });
cleanupOutdatedCaches();
clientsClaim();

/**
 * A package file Pyodide loads (it always asks with the lock file's SHA-256 as integrity):
 * the kept copy when its bytes still match, else the network, keeping a complete response
 * whose bytes match. Offline and never kept, the fetch fails and Pyodide reports the package.
 */
async function packageFile(request: Request, sha256: string): Promise<Response> {
  const cache = await caches.open(PACKAGE_CACHE);
  const kept = await keptPackageFile(cache, request.url, sha256);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.status !== 200 || response.type === 'opaque') return response;
  const bytes = await response.arrayBuffer();
  // The browser checked the bytes against the request's integrity before this line.
  if (isComplete(response, bytes)) await keepPackageFile(cache, request.url, response, bytes, sha256);
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
}

registerRoute(
  ({ request }) => request.method === 'GET' && integritySha256(request.integrity) !== null,
  ({ request }) => packageFile(request, integritySha256(request.integrity)!),
);

/**
 * A package index's lock file (the app's own is precached above): the network's when it
 * answers, else the copy kept from the last time, so a session can still find the packages
 * it kept from a school's index while offline.
 */
async function lockFile(request: Request): Promise<Response> {
  const cache = await caches.open(PACKAGE_CACHE);
  let response: Response;
  try {
    response = await fetch(request);
  } catch (error) {
    const kept = await cache.match(request.url, { ignoreVary: true });
    if (kept) return kept;
    throw error;
  }
  if (response.status === 200) {
    const bytes = await response.clone().arrayBuffer();
    if (isComplete(response, bytes) && isJson(bytes)) {
      await cache.put(request.url, new Response(bytes, { status: 200, statusText: response.statusText, headers: response.headers }));
    }
  }
  return response;
}

function isJson(bytes: ArrayBuffer): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

registerRoute(({ request, url }) => request.method === 'GET' && url.pathname.endsWith('/pyodide-lock.json'), ({ request }) => lockFile(request));

self.addEventListener('message', (event) => {
  if (event.data?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// Packages of another Pyodide cannot load into this one.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((names) => Promise.all(names.filter((name) => name.startsWith(PACKAGE_CACHE_PREFIX) && name !== PACKAGE_CACHE).map((name) => caches.delete(name)))),
  );
});
