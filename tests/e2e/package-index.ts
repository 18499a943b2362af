import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';

// A Pyodide package index that a test builds and serves itself (the Pyodide CDN is not
// reachable from the machines these tests run on): pure-Python wheels and a lock file for
// the Pyodide version the app ships.

/** A minimal wheel: the package and its dist-info, as pip and Pyodide expect. */
export function wheel(name: string, source: string): Uint8Array {
  const info = `${name}-1.0.dist-info`;
  const files: Record<string, string> = {
    [`${name}/__init__.py`]: source,
    [`${info}/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: 1.0\n`,
    [`${info}/WHEEL`]: 'Wheel-Version: 1.0\nGenerator: pytabs-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
  };
  files[`${info}/RECORD`] = [...Object.keys(files), `${info}/RECORD`].map((path) => `${path},,`).join('\n') + '\n';
  return zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])));
}

export function lockEntry(name: string, data: Uint8Array, depends: string[] = []) {
  return {
    name,
    version: '1.0',
    file_name: `${name}-1.0-py3-none-any.whl`,
    install_dir: 'site',
    package_type: 'package',
    sha256: createHash('sha256').update(data).digest('hex'),
    imports: [name],
    depends,
    unvendored_tests: false,
  };
}

/** The app's own lock file, whose `info` (the ABI) a custom index's lock file must match. */
export function coreLockInfo(): unknown {
  return JSON.parse(readFileSync(new URL('../../node_modules/pyodide/pyodide-lock.json', import.meta.url), 'utf8')).info;
}

/**
 * Serves wheels and their lock file, cross-origin as a school's index or the CDN would
 * (CORS and CORP allowed), answering HEAD with the size. `publish` replaces a package's
 * wheel and lock entry; `refusing` drops every connection and counts it.
 */
export class TestPackageIndex {
  readonly requests: string[] = [];
  readonly refused: string[] = [];
  refusing = false;
  /** Milliseconds each wheel takes to start arriving, to watch progress. */
  delayMs = 0;
  private readonly packages = new Map<string, { entry: ReturnType<typeof lockEntry>; wheel: Uint8Array }>();
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => this.respond(req, res, new URL(req.url ?? '/', 'http://index').pathname));
  }

  /** Answers a request for `path` (below the index's root, starting with '/'): its own server's, or a host's that serves the index beside the app. */
  respond(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (this.refusing) {
      this.refused.push(path);
      req.socket.destroy();
      return;
    }
    this.requests.push(`${req.method} ${path}`);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    let body: Uint8Array | string | null = null;
    let type = 'application/zip';
    if (path === '/pyodide-lock.json') {
      body = JSON.stringify({ info: coreLockInfo(), packages: Object.fromEntries([...this.packages].map(([key, p]) => [key, p.entry])) });
      type = 'application/json';
    } else {
      body = [...this.packages.values()].find((p) => `/${p.entry.file_name}` === path)?.wheel ?? null;
    }
    if (body === null) return void res.writeHead(404).end('not found');
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const send = () => {
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': length });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (type === 'application/zip' && req.method === 'GET' && this.delayMs > 0) setTimeout(send, this.delayMs);
    else send();
  }

  /** Adds or replaces a package (keyed by its normalized name, as Pyodide's lock file is). */
  publish(name: string, source: string, depends: string[] = []): void {
    const data = wheel(name, source);
    this.packages.set(name.replace(/_/g, '-'), { entry: lockEntry(name, data, depends), wheel: data });
  }

  /** A package's lock file entry as served now. */
  entry(name: string): ReturnType<typeof lockEntry> {
    return this.packages.get(name.replace(/_/g, '-'))!.entry;
  }

  /** Serves other bytes for the package than its lock entry's SHA-256 names, as a broken mirror would. */
  corrupt(name: string): void {
    this.packages.get(name.replace(/_/g, '-'))!.wheel = wheel(name, '# altered on the way\n');
  }

  wheelSizes(names: string[]): number[] {
    return names.map((name) => this.packages.get(name.replace(/_/g, '-'))!.wheel.byteLength);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
