import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { packSnapshot } from './src/lib/snapshot-codec.ts';
import { makeSnapshot, snapshotFileName } from './workers/runtime/snapshot.ts';

const pyodideDir = path.dirname(fileURLToPath(import.meta.resolve('pyodide/package.json')));
// The Pyodide core the worker loads at run time: served from our own origin, never a CDN.
const PYODIDE_FILES = ['pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json', 'pyodide.mjs'];
const MIME: Record<string, string> = {
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.json': 'application/json',
};

// Cross-origin isolation gives the worker SharedArrayBuffer, which Pyodide's interrupt buffer needs.
export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Serves node_modules/pyodide under /pyodide/ in dev and preview, and emits it into the build. */
function pyodideCore(): Plugin {
  const serve = (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => {
    const name = (req.url ?? '').split('?')[0].replace(/^\/pyodide\//, '');
    if (!PYODIDE_FILES.includes(name)) return next();
    const file = path.join(pyodideDir, name);
    if (!existsSync(file)) return next();
    res.setHeader('Content-Type', MIME[path.extname(name)] ?? 'application/octet-stream');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    createReadStream(file).pipe(res);
  };
  return {
    name: 'pytabs-pyodide-core',
    configureServer(server) {
      server.middlewares.use('/pyodide/', (req, res, next) => serve({ url: '/pyodide' + (req.url ?? '') }, res, next));
    },
    configurePreviewServer(server) {
      server.middlewares.use('/pyodide/', (req, res, next) => serve({ url: '/pyodide' + (req.url ?? '') }, res, next));
    },
    generateBundle() {
      for (const name of PYODIDE_FILES) {
        this.emitFile({ type: 'asset', fileName: `pyodide/${name}`, source: readFileSync(path.join(pyodideDir, name)) });
      }
    },
  };
}

/**
 * Emits `pyodide/snapshot-<key>.bin` (named in `pyodide/snapshot.json`): a Pyodide booted in Node with the session runtime
 * imported, which workers restore instead of booting Python (workers/runtime/snapshot.ts); its zero pages left out (src/lib/snapshot-codec.ts), about 15 MB of 31.
 * Build only: the dev server has none, so its workers boot the plain way.
 */
function pyodideSnapshot(): Plugin {
  const sourceDir = fileURLToPath(new URL('./workers/python/pytabs/', import.meta.url));
  const sources = () =>
    Object.fromEntries(
      readdirSync(sourceDir)
        .filter((name) => name.endsWith('.py'))
        .map((name) => [name, readFileSync(path.join(sourceDir, name), 'utf8')]),
    );
  return {
    name: 'pytabs-pyodide-snapshot',
    apply: 'build',
    // The page names the snapshot and has the browser fetch it while the app's script loads:
    // every start waits for it, and fetching it from the app's code began ~100 ms later.
    async transformIndexHtml() {
      const file = await snapshotFileName(sources());
      return [
        { tag: 'meta', attrs: { name: 'pytabs-snapshot', content: file }, injectTo: 'head' },
        { tag: 'link', attrs: { rel: 'preload', href: `./pyodide/${file}`, as: 'fetch', crossorigin: 'anonymous' }, injectTo: 'head' },
      ];
    },
    async generateBundle() {
      const files = sources();
      const snapshot = await makeSnapshot(files);
      const file = await snapshotFileName(files);
      this.emitFile({ type: 'asset', fileName: `pyodide/${file}`, source: packSnapshot(snapshot) });
      // Names it for a page whose HTML does not (src/lib/sessions/snapshot-cache.ts).
      this.emitFile({ type: 'asset', fileName: 'pyodide/snapshot.json', source: JSON.stringify({ file }) });
    },
  };
}

/**
 * Pyodide imports Node's built-ins only when it runs in Node (dynamic imports behind a check);
 * in the browser bundle each becomes an empty module instead of one Vite warns it externalized.
 */
function pyodideNodeBuiltins(): Plugin {
  const STUB = '\0pytabs-node-builtin';
  return {
    name: 'pytabs-pyodide-node-builtins',
    apply: 'build',
    enforce: 'pre',
    resolveId(id, importer) {
      if (id.startsWith('node:') && importer?.includes(`${path.sep}node_modules${path.sep}pyodide${path.sep}`)) return STUB;
    },
    load(id) {
      if (id === STUB) return 'export default {};';
    },
  };
}

/**
 * Sends the session worker's Content-Security-Policy from the dev and preview servers (`npm start`),
 * read from public/_headers, which static hosts serve as dist/_headers: one policy for both. A
 * worker's policy comes from its own script's response, so only that response carries it; the page
 * has none (it calls the model endpoint). PYTABS_WORKER_CONNECT_SRC adds origins to its connect-src
 * (a package index on another origin).
 */
function workerCsp(): Plugin {
  const policy = () => {
    const headers = readFileSync(fileURLToPath(new URL('./public/_headers', import.meta.url)), 'utf8');
    const rule = /^\/assets\/session\.worker-\*\s*\n\s+Content-Security-Policy:\s*(.+)$/m.exec(headers);
    if (!rule) throw new Error('public/_headers has no Content-Security-Policy for /assets/session.worker-*');
    const extra = process.env.PYTABS_WORKER_CONNECT_SRC?.trim();
    return extra ? rule[1].replace(/connect-src ([^;]*)/, `connect-src $1 ${extra}`) : rule[1];
  };
  // The built worker (assets/session.worker-<hash>.js) and the dev server's (workers/session.worker.ts?worker_file).
  const isWorker = (url = '') => /\/session\.worker[-.][^/?]*(\?|$)/.test(url);
  const apply = (server: { middlewares: { use: (fn: (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => void) => void } }) => {
    const value = policy();
    server.middlewares.use((req, res, next) => {
      if (isWorker(req.url)) res.setHeader('Content-Security-Policy', value);
      next();
    });
  };
  return { name: 'pytabs-worker-csp', configureServer: apply, configurePreviewServer: apply };
}

/**
 * The service worker (src/sw.ts) and the list of files it keeps for offline use: every file
 * of the build the app loads, which the filter below picks from the build output, so new
 * chunks and renamed files need no list kept by hand. Left out: a vendored package index
 * (kept per package when used), source maps, the host's `_headers`, and `pyodide/pyodide.mjs`
 * (the bench's bare worker imports it; the app bundles Pyodide's JS into its worker).
 * Registered by the page in the production build only (src/lib/offline/service-worker.ts).
 */
function serviceWorker() {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'src',
    filename: 'sw.ts',
    injectRegister: false,
    registerType: 'prompt',
    manifest: false,
    injectManifest: {
      globPatterns: ['**/*'],
      globIgnores: ['pyodide-packages/**', '**/*.map', '_headers', 'pyodide/pyodide.mjs'],
      // The wasm (9.6 MB) and the start snapshot (15 MB) are what offline use needs most.
      maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
    },
    devOptions: { enabled: false },
  });
}

export default defineConfig({
  base: './',
  plugins: [pyodideNodeBuiltins(), svelte(), pyodideCore(), pyodideSnapshot(), workerCsp(), serviceWorker()],
  // Pyodide is bundled into the session worker, which Vite builds with its own plugins.
  worker: { format: 'es', plugins: () => [pyodideNodeBuiltins()], rolldownOptions: { checks: { pluginTimings: false } } },
  optimizeDeps: {
    exclude: ['pyodide'],
    include: ['comlink', 'idb', 'xlsx', 'dompurify'],
  },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders, port: 4173, strictPort: true },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
    // The snapshot plugin boots Python at build time, which takes seconds by design.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
