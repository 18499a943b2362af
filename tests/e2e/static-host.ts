import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
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
 * A plain static host for a built `dist/`, under a sub-path (`/sub/app/`), with the headers
 * `vite preview` sends (COOP/COEP, `Vary: Origin`, `Cache-Control: no-cache`, a weak ETag
 * answered with 304) and nothing else: no compression, no rewrites. The directory it serves
 * can be swapped (a new version deployed), and it can refuse every connection (the network
 * cut) while counting what still reached it.
 */
export class StaticHost {
  readonly served: Served[] = [];
  /** Requests that arrived while the host refused them: none should, with the network cut. */
  readonly refused: string[] = [];
  refusing = false;
  private dir: string;
  private server: Server;
  origin = '';

  constructor(
    dir: string,
    readonly base = '/sub/app/',
  ) {
    this.dir = dir;
    this.server = createServer((req, res) => {
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
      const file = path.join(this.dir, rel || 'index.html');
      if (rel.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
        this.served.push({ path: rel, status: 404, bytes: 0 });
        return void res.writeHead(404).end('not found');
      }
      const body = readFileSync(file);
      const etag = `W/"${createHash('sha1').update(body).digest('hex')}"`;
      const headers = {
        Vary: 'Origin',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cache-Control': 'no-cache',
        ETag: etag,
      };
      if (req.headers['if-none-match'] === etag) {
        this.served.push({ path: rel, status: 304, bytes: 0 });
        return void res.writeHead(304, headers).end();
      }
      this.served.push({ path: rel, status: 200, bytes: req.method === 'HEAD' ? 0 : body.byteLength });
      res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': body.byteLength });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  }

  /** The app's URL. */
  get url(): string {
    return `${this.origin}${this.base}`;
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
