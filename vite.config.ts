import { build, defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import { paraglideVitePlugin } from '@inlang/paraglide-js';
import { paraglideOptions } from './scripts/i18n.mjs';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { packSnapshot } from './src/lib/snapshot-codec.ts';
import { makeSnapshot, snapshotFileName } from './workers/runtime/snapshot.ts';
import { ISOLATION_HEADERS } from './src/lib/offline/isolation.ts';

const pyodideDir = path.dirname(fileURLToPath(import.meta.resolve('pyodide/package.json')));
// The Pyodide core the worker loads at run time: served from our own origin, never a CDN.
const PYODIDE_FILES = ['pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json', 'pyodide.mjs'];
// Served beside the originals as `<name>.gz` and decoded by the app as they stream
// (src/lib/gunzip.ts): many static hosts send .wasm and .mjs uncompressed, and gzip takes
// Pyodide's wasm from 9.6 to 3.6 MB and its module script from 1.25 to 0.26 MB.
const GZIPPED_FILES = ['pyodide.asm.wasm', 'pyodide.asm.mjs'];
const MIME: Record<string, string> = {
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.json': 'application/json',
  '.gz': 'application/gzip',
};

const gzipped = new Map<string, Buffer>();
/** A core file compressed once per process (the build, or a dev server serving it). */
function gzippedCoreFile(name: string): Buffer {
  if (!gzipped.has(name)) gzipped.set(name, gzipSync(readFileSync(path.join(pyodideDir, name)), { level: 9 }));
  return gzipped.get(name)!;
}

// Cross-origin isolation gives the worker SharedArrayBuffer, which Pyodide's interrupt buffer needs.
export const isolationHeaders = { ...ISOLATION_HEADERS };

/** Serves node_modules/pyodide under /pyodide/ in dev and preview, and emits it into the build. */
function pyodideCore(): Plugin {
  const serve = (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => {
    const name = (req.url ?? '').split('?')[0].replace(/^\/pyodide\//, '');
    if (GZIPPED_FILES.some((file) => name === `${file}.gz`)) {
      res.setHeader('Content-Type', MIME['.gz']);
      res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      res.end(gzippedCoreFile(name.slice(0, -'.gz'.length)));
      return;
    }
    if (!PYODIDE_FILES.includes(name)) return next();
    const file = path.join(pyodideDir, name);
    if (!existsSync(file)) return next();
    res.setHeader('Content-Type', MIME[path.extname(name)] ?? 'application/octet-stream');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    createReadStream(file).pipe(res);
  };
  return {
    name: 'pytabs-pyodide-core',
    // Every start needs the wasm: the browser fetches it while the app's script loads (src/lib/sessions/snapshot-cache.ts).
    transformIndexHtml: () => [
      { tag: 'link', attrs: { rel: 'preload', href: './pyodide/pyodide.asm.wasm.gz', as: 'fetch', crossorigin: 'anonymous' }, injectTo: 'head' },
    ],
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
      for (const name of GZIPPED_FILES) this.emitFile({ type: 'asset', fileName: `pyodide/${name}.gz`, source: gzippedCoreFile(name) });
    },
  };
}

/**
 * Emits `pyodide/snapshot-<key>.bin` (named in `pyodide/snapshot.json`): a Pyodide booted in Node with the session runtime
 * imported, which workers restore instead of booting Python (workers/runtime/snapshot.ts); its zero pages left out (src/lib/snapshot-codec.ts), about 15 MB of 31,
 * and a gzip copy of that (6.3 MB).
 * A first visit fetches it only when the link makes that pay (src/lib/sessions/snapshot-source.ts).
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
  // Made once per build: the page's HTML names it and its size, and the bundle holds it.
  let made: Promise<{ file: string; packed: Uint8Array; gzipped: Uint8Array }> | null = null;
  const snapshot = () =>
    (made ??= (async () => {
      const files = sources();
      const packed = packSnapshot(await makeSnapshot(files));
      return { file: await snapshotFileName(files), packed, gzipped: gzipSync(packed, { level: 9 }) };
    })());
  return {
    name: 'pytabs-pyodide-snapshot',
    apply: 'build',
    // The page names the snapshot and the size of its gzip copy, which it downloads (and
    // decodes as it streams) when that pays: whether it does depends on the size. Not
    // preloaded: a first visit on a slow link must not download it at all.
    async transformIndexHtml() {
      const { file, gzipped } = await snapshot();
      return [{ tag: 'meta', attrs: { name: 'pytabs-snapshot', content: file, 'data-bytes': String(gzipped.byteLength) }, injectTo: 'head' }];
    },
    async generateBundle() {
      const { file, packed, gzipped } = await snapshot();
      // The plain file is what a worker fetches itself when its page has no snapshot to give.
      this.emitFile({ type: 'asset', fileName: `pyodide/${file}`, source: packed });
      this.emitFile({ type: 'asset', fileName: `pyodide/${file}.gz`, source: gzipped });
      // Names it for a page whose HTML does not (src/lib/sessions/snapshot-source.ts).
      this.emitFile({ type: 'asset', fileName: 'pyodide/snapshot.json', source: JSON.stringify({ file, bytes: gzipped.byteLength }) });
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

/** The headers `public/_headers` (served by static hosts as dist/_headers) gives the rule for `pattern`, as written there. */
function headersRule(pattern: string): Record<string, string> {
  const lines = readFileSync(fileURLToPath(new URL('./public/_headers', import.meta.url)), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim() === pattern && !/^\s/.test(line));
  const out: Record<string, string> = {};
  for (const line of start < 0 ? [] : lines.slice(start + 1)) {
    if (!/^\s+\S/.test(line)) break;
    const colon = line.indexOf(':');
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

/**
 * The session worker's Content-Security-Policy, read from public/_headers: one policy for the
 * dev and preview servers, static hosts that read that file, and the service worker, which
 * adds it on hosts that send none. PYTABS_WORKER_CONNECT_SRC adds origins to its connect-src
 * (a package index on another origin).
 */
function workerPolicy(): string {
  const policy = headersRule('/assets/session.worker-*')['Content-Security-Policy'];
  if (!policy) throw new Error('public/_headers has no Content-Security-Policy for /assets/session.worker-*');
  const extra = process.env.PYTABS_WORKER_CONNECT_SRC?.trim();
  return extra ? policy.replace(/connect-src ([^;]*)/, `connect-src $1 ${extra}`) : policy;
}

/**
 * The dev and preview servers send the embed client and its example what public/_headers asks
 * for them (Access-Control-Allow-Origin), so a course page on another origin can import the
 * client from `npm start` as from a deployment.
 */
function embedHeaders(): Plugin {
  const apply = (server: { middlewares: { use: (fn: (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => void) => void } }) => {
    const headers = headersRule('/embed/*');
    if (!Object.keys(headers).length) throw new Error('public/_headers has no rule for /embed/*');
    server.middlewares.use((req, res, next) => {
      if ((req.url ?? '').startsWith('/embed/')) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      next();
    });
  };
  return { name: 'pytabs-embed-headers', configureServer: apply, configurePreviewServer: apply };
}

/**
 * Sends the session worker's policy from the dev and preview servers (`npm start`). A worker's
 * policy comes from its own script's response, so only that response carries it; the page has
 * none (it calls the model endpoint).
 */
function workerCsp(): Plugin {
  // The built worker (assets/session.worker-<hash>.js) and the dev server's (workers/session.worker.ts?worker_file).
  const isWorker = (url = '') => /\/session\.worker[-.][^/?]*(\?|$)/.test(url);
  const apply = (server: { middlewares: { use: (fn: (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => void) => void } }) => {
    const value = workerPolicy();
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
 * (kept per package when used), the local model's runtime, source maps, the host's `_headers`, `embed-origins.json` and the embed client, and `pyodide/pyodide.mjs`
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
      // The page fetches Pyodide's wasm and script as their .gz copies; the start snapshot it keeps
      // itself (src/lib/local-snapshot.ts), whether it downloaded or made it.
      globIgnores: [
        'pyodide-packages/**',
        '**/*.map',
        '_headers',
        'pyodide/pyodide.mjs',
        'pyodide/pyodide.asm.wasm',
        'pyodide/pyodide.asm.mjs',
        'pyodide/snapshot-*.bin',
        'pyodide/snapshot-*.bin.gz',
        // Read fresh by each embed (src/lib/embed/origins.ts): a deployer's change must apply at once.
        'embed-origins.json',
        // The deployer's default language (src/lib/i18n/preference.ts), read fresh for the same reason.
        'site.json',
        // The pseudo-languages are for tests; every real language is kept, to be chosen offline.
        'assets/en-XA-*.js',
        'assets/ar-XB-*.js',
        // The embed client and its example page are for other sites' pages, not this app.
        'embed/**',
        // The local model's runtime (llama.cpp's 10 MB wasm and the worker that drives it): only
        // for people who load a model, not every visitor.
        'assets/wllama-*.wasm',
        'assets/model.worker-*.js',
      ],
      // The wasm (9.6 MB) and the start snapshot (15 MB) are what offline use needs most.
      maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
    },
    devOptions: { enabled: false },
  });
}

/**
 * Builds the embed client (src/embed-client) into `embed/pytabs-embed.js` beside the app: one
 * self-contained ES module a page author imports from the deployment (or copies to their site),
 * so it is built on its own, sharing no chunk with the app.
 */
function embedClient(): Plugin {
  let outDir = 'dist';
  return {
    name: 'pytabs-embed-client',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await build({
        configFile: false,
        logLevel: 'warn',
        publicDir: false,
        build: {
          minify: true,
          outDir: path.join(outDir, 'embed'),
          emptyOutDir: false,
          target: 'es2022',
          lib: { entry: fileURLToPath(new URL('./src/embed-client/index.ts', import.meta.url)), formats: ['es'], fileName: () => 'pytabs-embed.js' },
        },
      });
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [pyodideNodeBuiltins(), paraglideVitePlugin(paraglideOptions), svelte(), pyodideCore(), pyodideSnapshot(), workerCsp(), embedHeaders(), serviceWorker(), embedClient()],
  // Shared with the service worker's own build (src/sw.ts), which adds the policy on hosts that send none.
  define: { __PYTABS_WORKER_CSP__: JSON.stringify(workerPolicy()) },
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
