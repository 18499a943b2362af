import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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
/** Files a compressing host leaves as they are: compressing them again gains nothing. */
const PRECOMPRESSED = new Set(['.zip', '.gz', '.br']);

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const COMLINK = fileURLToPath(import.meta.resolve('comlink/dist/esm/comlink.mjs'));
// The bare grader (G2) reads a workbook with the SheetJS the app uses.
const SHEETJS = fileURLToPath(import.meta.resolve('xlsx/xlsx.mjs'));

/**
 * The rules of a Netlify/Cloudflare `_headers` file (the build copies public/_headers into
 * dist/): a path pattern (`*` matches anything) followed by indented `Name: value` lines.
 */
function headerRules(file) {
  if (!existsSync(file)) throw new Error(`${file} is missing: the host with the project's headers serves what it says`);
  const rules = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      const pattern = line.trim().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
      rules.push({ match: new RegExp(`^${pattern}$`), headers: {} });
    } else if (rules.length) {
      const colon = line.indexOf(':');
      rules.at(-1).headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
  }
  return (url) => Object.assign({}, ...rules.filter((r) => r.match.test(url)).map((r) => r.headers));
}

/**
 * Serves the built app and the baseline workers from one origin, so both sides get the same
 * files, headers and HTTP cache. `headers: true` is a host that sends the project's headers
 * (the build's `_headers`: COOP/COEP, the session worker's CSP) to every path, the baseline
 * pages included; `headers: false` is a plain static host that sends none of them (GitHub
 * Pages, a school's web space), where the page is not cross-origin isolated.
 * The app is served by the bench itself (not `vite preview`) so a preview someone else
 * started on the usual port cannot serve a stale build into the numbers.
 *
 * `gzip: true` answers like a host that compresses (gzip -6, `Content-Encoding`) every file
 * but archives; by default nothing is compressed on the way, as many static hosts serve
 * `.wasm` and `.bin`. `measure()` counts what the server sent from then on: every byte
 * written to the sockets (headers included), and the same by path.
 */
export function serve(distDir, { gzip = false, headers = true } = {}) {
  const projectHeaders = headers ? headerRules(path.join(distDir, '_headers')) : () => ({});
  const routes = (url) => {
    if (url === '/bench/comlink.mjs') return COMLINK;
    if (url === '/bench/xlsx.mjs') return SHEETJS;
    const file = url.endsWith('/') ? `${url}index.html` : url;
    if (file.startsWith('/bench/')) return path.join(BENCH_DIR, 'static', file.slice('/bench/'.length));
    return path.join(distDir, file);
  };
  // Compressed once per file and kept, as a host that precompresses (or caches its compression) does.
  const compressed = new Map();
  const gzipped = (file, modified) => {
    const key = `${file} ${modified}`;
    if (!compressed.has(key)) compressed.set(key, gzipSync(readFileSync(file), { level: 6 }));
    return compressed.get(key);
  };
  const sockets = new Set();
  let closedBytes = 0;
  const bodies = new Map();
  const sent = () => [...sockets].reduce((n, socket) => n + socket.bytesWritten, closedBytes);

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
    const compress = gzip && !PRECOMPRESSED.has(path.extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = compress ? gzipped(file, modified) : null;
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': body ? body.length : statSync(file).size,
      ...(body ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
      ...projectHeaders(url),
      // What a static host sends by default: cacheable, revalidated.
      'Cache-Control': 'no-cache',
      'Last-Modified': modified,
    });
    // What this response put on its socket, headers included, counted when it ends or is given up
    // (HTTP/1.1: one response at a time per socket).
    const { socket } = res;
    const before = socket?.bytesWritten ?? 0;
    res.on('close', () => bodies.set(url, (bodies.get(url) ?? 0) + (socket?.bytesWritten ?? before) - before));
    if (body) res.end(body);
    else createReadStream(file).pipe(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closedBytes += socket.bytesWritten;
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        origin: `http://localhost:${port}`,
        /** Starts counting; the returned function tells the bytes sent since, and the bodies by path. */
        measure() {
          const start = sent();
          bodies.clear();
          return () => ({ bytes: sent() - start, byPath: Object.fromEntries(bodies) });
        },
        close: () =>
          new Promise((r) => {
            for (const socket of sockets) socket.destroy();
            server.close(r);
          }),
      });
    });
  });
}
