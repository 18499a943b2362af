import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchProgress } from '../../src/lib/fetch-progress';
import { downloadSnapshot, expectedDownloadMs } from '../../src/lib/sessions/snapshot-source';
import { packSnapshot } from '../../src/lib/snapshot-codec';

// How a first visit judges the link and downloads the build's snapshot, on real HTTP from a
// local server: a download paced at a known rate, and the snapshot's gzip copy served as a
// file, as a host that decodes it on the way would serve it, or not at all.

const RAW = new Uint8Array(64 * 4096).map((_, i) => ((i >> 12) % 3 === 0 ? 0 : (i * 7) % 251));
const PACKED = packSnapshot(RAW);
const GZIPPED = gzipSync(PACKED);
const PACED = { chunk: 20_000, chunks: 15, everyMs: 20 };
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/paced.bin') {
      res.writeHead(200, { 'Content-Length': PACED.chunk * PACED.chunks });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(new Uint8Array(PACED.chunk));
        if (++sent === PACED.chunks) {
          clearInterval(timer);
          res.end();
        }
      }, PACED.everyMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (req.url === '/snapshot.bin.gz') return void res.writeHead(200, { 'Content-Type': 'application/gzip' }).end(GZIPPED);
    // A host that sends .gz files with Content-Encoding: the fetch decodes them itself.
    if (req.url === '/decoded/snapshot.bin.gz') return void res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(GZIPPED);
    if (req.url === '/fallback/snapshot.bin.gz') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a first visit's snapshot download", () => {
  it('is expected to take as long as an earlier download from the origin says, and nothing is said without one', async () => {
    const url = `${base}/paced.bin`;
    const t0 = performance.now();
    await (await fetch(url)).arrayBuffer();
    const took = performance.now() - t0;
    const size = PACED.chunk * PACED.chunks;
    // Twice the bytes at the rate the paced body came in (its first bytes to its last).
    const expected = (await expectedDownloadMs(url, 2 * size))!;
    expect(expected).toBeGreaterThan(2 * (PACED.chunks - 2) * PACED.everyMs * 0.8);
    expect(expected).toBeLessThanOrEqual(2 * took);
    expect(await expectedDownloadMs(`${base}/never-fetched.bin`, size)).toBeUndefined();
    expect(await expectedDownloadMs(url, 0)).toBeUndefined();
  });

  it('decodes the gzip copy as it streams, counting what came over the link, also when the host decoded it already', async () => {
    const steps: FetchProgress[] = [];
    const packed = await downloadSnapshot(`${base}/snapshot.bin.gz`, (p) => steps.push({ ...p }));
    expect(Buffer.from(packed!).equals(Buffer.from(PACKED))).toBe(true);
    expect(steps.at(-1)).toMatchObject({ file: 'snapshot.bin.gz', loaded: GZIPPED.length, done: true });
    const decoded = await downloadSnapshot(`${base}/decoded/snapshot.bin.gz`, () => undefined);
    expect(Buffer.from(decoded!).equals(Buffer.from(PACKED))).toBe(true);
  });

  it('is nothing when the file is missing or the host answers with its HTML page', async () => {
    expect(await downloadSnapshot(`${base}/missing/snapshot.bin.gz`, () => undefined)).toBeUndefined();
    expect(await downloadSnapshot(`${base}/fallback/snapshot.bin.gz`, () => undefined)).toBeUndefined();
  });
});
