import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countedResponse, fetchStep, fileNameOf, type FetchProgress } from '../../src/lib/fetch-progress';
import { interceptLoad } from '../../workers/runtime/load-fetches';
import { tellInEnglish } from '../../src/lib/i18n';

// Download progress on real HTTP responses from a local server: one that declares its
// length, one that streams without it, and one whose declared length is the compressed size.

const BODY = new Uint8Array(300_000).map((_, i) => i % 251);
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/sized.bin') return void res.writeHead(200, { 'Content-Length': BODY.length }).end(BODY);
    if (req.url === '/chunked.bin') {
      res.writeHead(200);
      res.write(BODY.subarray(0, 100_000));
      setTimeout(() => res.end(BODY.subarray(100_000)), 150);
      return;
    }
    // A compressed transfer: the declared length is the compressed size, the body arrives decoded.
    if (req.url === '/gzipped.bin') {
      const packed = gzipSync(BODY);
      return void res.writeHead(200, { 'Content-Length': packed.length, 'Content-Encoding': 'gzip' }).end(packed);
    }
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function collect(url: string): Promise<{ steps: FetchProgress[]; bytes: Uint8Array }> {
  const steps: FetchProgress[] = [];
  const response = countedResponse(await fetch(url), fileNameOf(url), (p) => steps.push({ ...p }));
  return { steps, bytes: new Uint8Array(await response.arrayBuffer()) };
}

describe('countedResponse', () => {
  it('passes every byte through and reports the declared size, ending with done', async () => {
    const { steps, bytes } = await collect(`${base}/sized.bin`);
    expect(Buffer.from(bytes).equals(Buffer.from(BODY))).toBe(true);
    expect(steps[0]).toEqual({ file: 'sized.bin', loaded: 0, total: BODY.length, done: false });
    expect(steps.at(-1)).toEqual({ file: 'sized.bin', loaded: BODY.length, total: BODY.length, done: true });
    const step = fetchStep(steps.at(-1)!);
    expect({ ...step, said: tellInEnglish(step.said) }).toEqual({ said: 'Fetched sized.bin: 293 KB of 293 KB', loaded: BODY.length, total: BODY.length });
  });

  it('says how much has come when the size is unknown, and reports along the way', async () => {
    const { steps } = await collect(`${base}/chunked.bin`);
    expect(steps[0]!.total).toBeNull();
    expect(tellInEnglish(fetchStep(steps[0]!).said)).toBe('Fetching chunked.bin: 0 B');
    expect(steps.some((s) => !s.done && s.loaded >= 100_000)).toBe(true);
    expect(steps.at(-1)).toMatchObject({ loaded: BODY.length, done: true });
  });

  it('drops a declared size that the decoded body outgrows (a compressed transfer)', async () => {
    const { steps, bytes } = await collect(`${base}/gzipped.bin`);
    expect(bytes.length).toBe(BODY.length);
    expect(steps[0]!.total).toBeLessThan(BODY.length);
    expect(steps.at(-1)).toMatchObject({ loaded: BODY.length, total: BODY.length, done: true });
    // Along the way: once more has come than was declared, the size counts as unknown.
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(BODY.subarray(0, 200_000));
        await new Promise((resolve) => setTimeout(resolve, 150));
        controller.enqueue(BODY.subarray(200_000));
        controller.close();
      },
    });
    const along: FetchProgress[] = [];
    const counted = countedResponse(new Response(slow, { headers: { 'Content-Length': '1000' } }), 'slow.bin', (p) => along.push({ ...p }));
    await counted.arrayBuffer();
    expect(along.map((p) => [p.loaded, p.total, p.done])).toEqual([
      [0, 1000, false],
      [200_000, null, false],
      [BODY.length, null, false],
      [BODY.length, BODY.length, true],
    ]);
  });

  it('keeps the status and headers a consumer needs', async () => {
    const counted = countedResponse(await fetch(`${base}/sized.bin`), 'sized.bin', () => undefined);
    expect(counted.status).toBe(200);
    expect(counted.headers.get('Content-Length')).toBe(String(BODY.length));
  });
});

describe("a load's fetch hook", () => {
  it('hands over the very response fetch made, counts a clone, and puts fetch back', async () => {
    const original = globalThis.fetch;
    const steps: FetchProgress[] = [];
    const load = interceptLoad(`${base}/`, { onFetch: (p) => steps.push({ ...p }) });
    try {
      expect(globalThis.fetch).not.toBe(original);
      const response = await fetch(`${base}/sized.bin`);
      // The original keeps its URL (V8 caches compiled wasm by it).
      expect(response.url).toBe(`${base}/sized.bin`);
      expect((await response.arrayBuffer()).byteLength).toBe(BODY.length);
      await expect.poll(() => steps.at(-1)?.done).toBe(true);
      expect(steps.at(-1)).toMatchObject({ file: 'sized.bin', loaded: BODY.length });
      const missing = await fetch(`${base}/nothing.bin`);
      expect(missing.status).toBe(404);
      expect(steps.some((s) => s.file === 'nothing.bin')).toBe(false);
    } finally {
      load.restore();
    }
    expect(globalThis.fetch).toBe(original);
  });
});
