import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.zip': 'application/zip',
};

/** One request the host saw: its path below the sub-path, status, and the body bytes it sent. */
export interface Served {
  path: string;
  status: number;
  bytes: number;
}

/**
 * Which headers the host adds: `isolated` the COOP/COEP pair `vite preview` sends; `plain` none
 * at all (GitHub Pages, a school's web space); `project` the rules of the build's own `_headers`
 * file (COOP/COEP and the session worker's CSP), as Netlify or Cloudflare Pages apply them.
 */
export type HostHeaders = 'isolated' | 'plain' | 'project';

/** `_headers` rules (Netlify's format: a path pattern, then indented `Name: value` lines). */
function headerRules(file: string): { pattern: RegExp; headers: Record<string, string> }[] {
  const rules: { pattern: RegExp; headers: Record<string, string> }[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      const pattern = line.trim().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
      rules.push({ pattern: new RegExp(`^${pattern}$`), headers: {} });
      continue;
    }
    const colon = line.indexOf(':');
    rules.at(-1)!.headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return rules;
}

/**
 * A plain static host for a built `dist/`, under a sub-path (`/sub/app/`): `Vary: Origin`,
 * `Cache-Control: no-cache`, a weak ETag answered with 304, the headers `headers` names, and
 * nothing else: no compression, no rewrites. The directory it serves can be swapped (a new
 * version deployed), it can refuse every connection (the network cut) while counting what
 * still reached it, and `delay` can hold chosen files back (a slow link).
 */
export class StaticHost {
  readonly served: Served[] = [];
  /** Requests that arrived while the host refused them: none should, with the network cut. */
  readonly refused: string[] = [];

  /**
   * What was refused besides what every start asks by design, offline too: the service worker's
   * update check (sw.js) and the deployer's site.json, read fresh so a change applies at once.
   */
  get refusedBeyondStartChecks(): string[] {
    return this.refused.filter((p) => !p.endsWith('/sw.js') && !p.endsWith('/site.json'));
  }
  refusing = false;
  /** Milliseconds to hold a file back before answering, by its path below the sub-path. */
  delay: (path: string) => number = () => 0;
  /**
   * Origins this host adds to the session worker's connect-src, sending the build's policy for
   * that script with them, as a deployer whose package index is on another origin does.
   */
  workerConnectSrc = '';
  /** Other servers' answers for paths below the sub-path that start with a prefix (a package index beside the app). */
  private readonly mounts = new Map<string, (req: IncomingMessage, res: ServerResponse, path: string) => void>();
  private dir: string;
  private server: Server;
  origin = '';

  constructor(
    dir: string,
    readonly base = '/sub/app/',
    readonly headers: HostHeaders = 'isolated',
  ) {
    this.dir = dir;
    this.server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      if (this.refusing) {
        this.refused.push(url.pathname);
        req.socket.destroy();
        return;
      }
      if (url.pathname === this.base.slice(0, -1)) return void res.writeHead(301, { Location: this.base }).end();
      if (!url.pathname.startsWith(this.base)) return void res.writeHead(404).end();
      // Recorded as asked: '' is the directory, another URL than index.html to the browser's caches.
      const rel = decodeURIComponent(url.pathname.slice(this.base.length));
      for (const [prefix, handler] of this.mounts) if (rel.startsWith(prefix)) return handler(req, res, `/${rel.slice(prefix.length)}`);
      const file = path.join(this.dir, rel || 'index.html');
      if (rel.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
        this.served.push({ path: rel, status: 404, bytes: 0 });
        return void res.writeHead(404).end('not found');
      }
      const wait = this.delay(rel);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const body = readFileSync(file);
      const etag = `W/"${createHash('sha1').update(body).digest('hex')}"`;
      const headers = { Vary: 'Origin', 'Cache-Control': 'no-cache', ETag: etag, ...this.extraHeaders(rel) };
      if (req.headers['if-none-match'] === etag) {
        this.served.push({ path: rel, status: 304, bytes: 0 });
        return void res.writeHead(304, headers).end();
      }
      this.served.push({ path: rel, status: 200, bytes: req.method === 'HEAD' ? 0 : body.byteLength });
      res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': body.byteLength });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  }

  private extraHeaders(rel: string): Record<string, string> {
    const policy = this.workerConnectSrc && /^assets\/session\.worker-[^/]+\.js$/.test(rel) ? this.workerPolicy(rel) : {};
    return { ...this.headersOfMode(rel), ...policy };
  }

  private workerPolicy(rel: string): Record<string, string> {
    const rule = headerRules(path.join(this.dir, '_headers')).find((r) => r.pattern.test(`/${rel}`) && r.headers['Content-Security-Policy']);
    if (!rule) throw new Error('_headers has no policy for the session worker');
    return { 'Content-Security-Policy': rule.headers['Content-Security-Policy'].replace(/connect-src ([^;]*)/, `connect-src $1 ${this.workerConnectSrc}`) };
  }

  private headersOfMode(rel: string): Record<string, string> {
    if (this.headers === 'plain') return {};
    if (this.headers === 'isolated') return { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
    const out: Record<string, string> = {};
    for (const rule of headerRules(path.join(this.dir, '_headers'))) if (rule.pattern.test(`/${rel}`)) Object.assign(out, rule.headers);
    return out;
  }

  /** The app's URL. */
  get url(): string {
    return `${this.origin}${this.base}`;
  }

  /** Lets `handler` answer the paths below `prefix` (e.g. 'pyodide-packages/'), given the rest of the path from '/'. */
  mount(prefix: string, handler: (req: IncomingMessage, res: ServerResponse, path: string) => void): void {
    this.mounts.set(prefix, handler);
  }

  /** Serves another directory from now on (a new version deployed). */
  deploy(dir: string): void {
    this.dir = dir;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
