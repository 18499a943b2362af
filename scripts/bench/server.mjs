import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.zip': 'application/zip',
  '.svg': 'image/svg+xml',
};

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const COMLINK = fileURLToPath(import.meta.resolve('comlink/dist/esm/comlink.mjs'));

/**
 * Serves the built app and the baseline workers from one origin, cross-origin isolated like
 * the app's own preview server, so both sides get the same files, headers and HTTP cache.
 * The app is served by the bench itself (not `vite preview`) so a preview someone else
 * started on the usual port cannot serve a stale build into the numbers.
 */
export function serve(distDir) {
  const routes = (url) => {
    if (url === '/bench/comlink.mjs') return COMLINK;
    const file = url.endsWith('/') ? `${url}index.html` : url;
    if (file.startsWith('/bench/')) return path.join(BENCH_DIR, 'static', file.slice('/bench/'.length));
    return path.join(distDir, file);
  };
  const server = createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = routes(url);
    if (url.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const modified = statSync(file).mtime.toUTCString();
    // A static host answers a revalidation of an unchanged file with 304, and the browser then
    // reuses its cached copy, with V8's compiled code of the wasm kept beside it.
    if (req.headers['if-modified-since'] === modified) {
      res.writeHead(304, { 'Last-Modified': modified, 'Cache-Control': 'no-cache' }).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size,
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      // What a static host sends by default: cacheable, revalidated.
      'Cache-Control': 'no-cache',
      'Last-Modified': modified,
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ origin: `http://localhost:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
