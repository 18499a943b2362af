/// <reference lib="webworker" />
/**
 * PyTabs' service worker (Workbox, built by vite-plugin-pwa's injectManifest). The page
 * registers it as it opens (src/lib/offline/service-worker.ts): a first install keeps nothing
 * and takes the page over at once, so the sessions of a first visit already have it (input()
 * without shared memory is answered here, src/lib/offline/stdin-relay.ts), and from the next
 * visit on the page is cross-origin isolated on any host. It keeps:
 *  - the app, the Pyodide core and the start snapshot (the precache list that the build
 *    writes into `self.__WB_MANIFEST`, filtered in vite.config.ts), served cache-first: a first
 *    install downloads them only when the page asks, after a session's first run, so keeping
 *    them never competes with the first visit's downloads; an update keeps them as it installs;
 *  - package files a session loaded and custom indexes' lock files (src/lib/offline/package-cache.ts).
 * It adds COOP/COEP to the app's own responses and the session worker's Content-Security-Policy
 * to its script, where the host sent none (src/lib/offline/isolation.ts), and hands worker
 * scripts over as responses of its own (see `served`).
 * A new version waits until the page sends SKIP_WAITING, which it does when no run is in flight.
 */
import { clientsClaim, type WorkboxPlugin } from 'workbox-core';
import { cleanupOutdatedCaches, PrecacheController, PrecacheRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst, NetworkOnly } from 'workbox-strategies';
import { SITE_CACHE, SITE_FILE } from './lib/i18n/preference';
import { withIsolation } from './lib/offline/isolation';
import { KEEP_APP, type KeepAppReport, type KeepAppRequest } from './lib/offline/keep-app';
import { isModelRuntimePath, MODEL_RUNTIME_CACHE } from './lib/offline/model-runtime';
import { installStdinRelay } from './lib/offline/stdin-relay';
import { integritySha256, isComplete, keepPackageFile, keptPackageFile, PACKAGE_CACHE, PACKAGE_CACHE_PREFIX } from './lib/offline/package-cache';

declare let self: ServiceWorkerGlobalScope;
/** The session worker's policy, from public/_headers at build time (vite.config.ts). */
declare const __PYTABS_WORKER_CSP__: string;

const plugins: WorkboxPlugin[] = [
  // Workbox fetches files whose names carry no hash with `cache: 'reload'`, which downloads
  // them again although the page fetched them minutes ago (30 MB on the first visit).
  // Revalidating instead costs a 304 for each file the HTTP cache holds unchanged.
  {
    requestWillFetch: async ({ request, event }) =>
      event?.type === 'install' && request.cache === 'reload' ? new Request(request, { cache: 'no-cache' }) : request,
  },
  { handlerWillRespond: async ({ request, response }) => served(request, response) },
];

// Before Workbox's routes: a worker's request for a line of input is answered here.
installStdinRelay(self);

function served(request: Request, response: Response): Response {
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return response;
  const isolated = withIsolation(url, response, __PYTABS_WORKER_CSP__);
  // A worker's script as kept in the cache, Chromium (150) compiles and then serializes a
  // code cache for on every load (7 ms of the new worker's thread, 426 KB handed to the cache
  // for the session worker), but never reads one back for a worker: in a class graded one
  // worker per hand-in that is all waste. A response made here has no cache entry to keep it in.
  if (isolated !== response || request.destination !== 'worker' || response.type !== 'basic') return isolated;
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const precache = new PrecacheController({ plugins });
precache.addToCacheList(self.__WB_MANIFEST);
// Query strings do not select another file in this app (its routes live in the hash), so a
// navigation to `./?anything` is the precached index.html.
registerRoute(new PrecacheRoute(precache, { ignoreURLParametersMatching: [/.*/] }));
// The local model's runtime (llama.cpp's wasm and the worker that drives it) is not in the list,
// which every visitor downloads: the page keeps it when a model is kept (local-model/runtime.ts),
// and a load keeps what is still missing, so a kept model answers offline too.
registerRoute(
  ({ url, sameOrigin }) => sameOrigin && isModelRuntimePath(url.pathname),
  new CacheFirst({ cacheName: MODEL_RUNTIME_CACHE, plugins: [plugins[1]] }),
);
// The deployer's site.json (its default language) is read fresh on each start, so a change to it
// applies at once; the last copy read answers offline, so the site's language stays.
registerRoute(({ url, sameOrigin }) => sameOrigin && url.pathname.endsWith(`/${SITE_FILE}`), new NetworkFirst({ cacheName: SITE_CACHE }));
// A page or worker script of this origin that is not in the list still gets its headers.
registerRoute(
  ({ request, sameOrigin }) => sameOrigin && (request.mode === 'navigate' || request.destination === 'worker'),
  new NetworkOnly({ plugins: [plugins[1]] }),
);
cleanupOutdatedCaches();
clientsClaim();

self.addEventListener('install', (event) => {
  // An update must hold the new version's files before it takes a page over; a first install
  // waits for the page's KEEP_APP instead.
  if (self.registration.active) void precache.install(event);
});
self.addEventListener('activate', (event) => void precache.activate(event));

/**
 * Keeps the files of the precache list that are not kept yet (`fill`), or only counts them.
 * Written here rather than through `precache.install`, which treats only an install event as
 * one that may fill the cache: this runs on the page's message. One file at a time, each
 * revalidated against the HTTP cache, as an install does.
 */
async function keepApp({ fill }: KeepAppRequest): Promise<KeepAppReport> {
  const cache = await caches.open(precache.strategy.cacheName);
  let missing = 0;
  for (const [url, cacheKey] of precache.getURLsToCacheKeys()) {
    if (await cache.match(cacheKey)) continue;
    if (fill) {
      const response = await fetch(url, { cache: 'no-cache', credentials: 'same-origin' }).catch(() => null);
      if (response?.ok && response.type === 'basic' && !response.redirected) {
        await cache.put(cacheKey, response);
        continue;
      }
    }
    missing++;
  }
  return { files: precache.getURLsToCacheKeys().size, missing };
}

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
  if (event.data?.type === KEEP_APP) {
    event.waitUntil(
      keepApp(event.data as KeepAppRequest).then(
        (report) => event.ports[0]?.postMessage(report),
        (error: unknown) => event.ports[0]?.postMessage({ error: String(error) }),
      ),
    );
  }
});

// Packages of another Pyodide cannot load into this one.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((names) => Promise.all(names.filter((name) => name.startsWith(PACKAGE_CACHE_PREFIX) && name !== PACKAGE_CACHE).map((name) => caches.delete(name)))),
  );
});
