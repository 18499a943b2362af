import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDb, type PyTabsDB } from '../../src/lib/storage/db';
import { newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { RUNTIME_SOURCES } from '../../workers/runtime/python-files';
import { WorkerSession } from '../../workers/runtime/session';
import { SessionStore } from '../../src/lib/storage/session-store';
import { loadSessionPyodide, makeSnapshot, snapshotFileName, type RuntimeSources } from '../../workers/runtime/snapshot';
import { interceptLoad } from '../../workers/runtime/load-fetches';
import { packageIndex } from '../../workers/runtime/packages';
import { snapshotForWorker } from '../../src/lib/sessions/snapshot-share';
import { checkPackedSnapshot, packSnapshot, snapshotImage } from '../../src/lib/snapshot-codec';

// Guards Pyodide's private snapshot API (_makeSnapshot, makeMemorySnapshot, _loadSnapshot):
// made here in Node as the build makes it, a snapshot must give a session that works, and a
// missing or broken one must fall back to the plain load.

const indexURL = path.dirname(fileURLToPath(import.meta.resolve('pyodide/package.json'))) + '/';
const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };
let snapshot: Uint8Array;
let packed: Uint8Array;
let snapshotPath: string;
let db: PyTabsDB;

/** Byte-for-byte equality, without a deep comparison's per-element work on 15-30 MB. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/** Serves `files` (path → bytes) to the fetch of loadSessionPyodide; anything else is a 404. */
function serveFiles(files: Record<string, Uint8Array>): void {
  vi.stubGlobal('fetch', async (url: string) =>
    url in files ? new Response(new Blob([files[url] as Uint8Array<ArrayBuffer>])) : new Response('missing', { status: 404 }),
  );
}

beforeAll(async () => {
  // The build reads the runtime from disk (vite.config.ts), the worker from its bundle: both must name the same snapshot.
  const dir = fileURLToPath(new URL('../../workers/python/pytabs/', import.meta.url));
  const fromDisk: RuntimeSources = Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.py'))
      .map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
  );
  expect(await snapshotFileName(fromDisk)).toBe(await snapshotFileName(RUNTIME_SOURCES));
  snapshot = await makeSnapshot(fromDisk);
  packed = packSnapshot(snapshot);
  snapshotPath = indexURL + (await snapshotFileName(RUNTIME_SOURCES));
  db = await openDb('snapshot-test');
  await putSession(db, newSessionRecord('snap', 'From the snapshot'));
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('memory snapshot', () => {
  it('is named after the runtime it holds, so a changed runtime never restores a stale one', async () => {
    const changed = { ...RUNTIME_SOURCES, 'state.py': RUNTIME_SOURCES['state.py'] + '\n# changed\n' };
    expect(await snapshotFileName(changed)).not.toBe(await snapshotFileName(RUNTIME_SOURCES));
  });

  it('travels without its zero pages, reads back as the same bytes, and refuses a truncated file', async () => {
    expect(packed.byteLength).toBeLessThan(snapshot.byteLength * 0.6);
    const shared = new Uint8Array(new SharedArrayBuffer(packed.byteLength));
    shared.set(packed);
    // Packed, shared, and raw bytes (a build from before the packing) read alike.
    for (const bytes of [packed, shared, snapshot]) {
      const image = snapshotImage(bytes);
      expect(image.length).toBe(snapshot.byteLength);
      expect(sameBytes(image.slice(0, image.length), snapshot)).toBe(true);
      // A range across pages, kept and left out, in an array of its own (Pyodide decodes the header from one).
      const part = image.slice(4000, 70_000);
      expect(part.buffer).toBeInstanceOf(ArrayBuffer);
      expect(sameBytes(part, snapshot.subarray(4000, 70_000))).toBe(true);
      // Copied into memory that holds something else: the pages of zeros are written as zeros.
      const heap = new Uint8Array(snapshot.byteLength).fill(0xa5);
      image.copyTo(heap, 1000);
      expect(sameBytes(heap.subarray(0, snapshot.byteLength - 1000), snapshot.subarray(1000))).toBe(true);
      expect(heap.subarray(snapshot.byteLength - 1000).every((b) => b === 0xa5)).toBe(true);
    }
    expect(() => snapshotImage(packed.subarray(0, packed.length - 100))).toThrow('truncated');
    // The page checks the file it holds packed without unpacking it, as strictly.
    expect(() => checkPackedSnapshot(packed)).not.toThrow();
    expect(() => checkPackedSnapshot(packed.subarray(0, packed.length - 100))).toThrow('truncated');
    expect(() => checkPackedSnapshot(new Uint8Array([...packed, 0]))).toThrow('does not account for');
    // A cut file is no snapshot: the worker boots the plain way.
    serveFiles({ [snapshotPath]: packed.subarray(0, packed.length - 100) });
    expect((await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES)).snapshot).toBe('none');
  });

  it('starts a working, persistent session with the runtime already imported', async () => {
    serveFiles({ [snapshotPath]: packed });
    const loaded = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
    expect(loaded.snapshot).toBe('used');
    const pyodide = loaded.pyodide;
    const session = new WorkerSession(pyodide, new SessionStore(db, 'snap'));
    await session.start();
    const r = await session.run("import json\nitems = [1]\nitems.append(2)\nprint('hi')\njson.dumps(items)", () => {}, {}, limits);
    expect(r.status).toBe('ok');
    expect(r.result?.['text/plain']).toBe("'[1, 2]'");
    // The user's namespace is a fresh interpreter's; the runtime's path is on sys.path once.
    const main = await session.run("sorted(k for k in globals() if not k.startswith('_'))", () => {}, {}, limits);
    expect(main.result?.['text/plain']).toBe("['items', 'json']");
    const paths = await session.run("__import__('sys').path.count('/pytabs_runtime')", () => {}, {}, limits);
    expect(paths.result?.['text/plain']).toBe('1');
    // Errors still show the user's own frames, read from the runtime files written after the restore.
    const err = await session.run('def f():\n    return 1 / 0\nf()', () => {}, {}, limits);
    expect(err.error?.traceback).toContain('ZeroDivisionError');
    expect(err.error?.traceback).not.toContain('pytabs');

    // A second session from the same snapshot restores what the first committed.
    const again = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
    const restored = new WorkerSession(again.pyodide, new SessionStore(db, 'snap'));
    const report = await restored.start();
    expect(report.failed).toEqual([]);
    expect((await restored.run('items', () => {}, {}, limits)).result?.['text/plain']).toBe('[1, 2]');
  });

  it('holds the runtime\'s stdin and spreadsheet modules compiled, and its spreadsheets work once the bridge is registered', async () => {
    serveFiles({ [snapshotPath]: packed });
    const { pyodide, snapshot: used } = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
    expect(used).toBe('used');
    const modules = pyodide.pyimport('sys').modules;
    expect(['pytabs.stdin', 'pytabs.spreadsheets', 'pytabs_sheetjs'].map((name) => modules.has(name))).toEqual([true, true, false]);
    const session = new WorkerSession(pyodide, null);
    const r = await session.run("write_excel('t.xlsx', [{'n': 1}, {'n': 2}])\nsum(r['n'] for r in read_excel('t.xlsx', 0))", () => {}, {}, limits);
    expect(r.error).toBeUndefined();
    expect(r.result?.['text/plain']).toBe('3');
  });

  it('uses the copy the page hands over, packed as the page holds it or not, but only if it is the snapshot of this runtime', async () => {
    serveFiles({});
    const file = await snapshotFileName(RUNTIME_SOURCES);
    const given = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, { file, bytes: snapshot });
    expect(given.snapshot).toBe('used');
    const givenPacked = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, { file, bytes: packed });
    expect(givenPacked.snapshot).toBe('used');
    expect(givenPacked.pyodide.runPython("__import__('sys').modules['pytabs.runtime'].__name__")).toBe('pytabs.runtime');
    const stale = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, { file: 'snapshot-0000.bin', bytes: snapshot });
    expect(stale.snapshot).toBe('none');
  });

  it("restores from the page's one shared copy, packed or not, and leaves the page's bytes as they were", async () => {
    serveFiles({});
    const file = await snapshotFileName(RUNTIME_SOURCES);
    for (const bytes of [packed, snapshot]) {
      const page = { file, bytes: bytes.slice() };
      const first = snapshotForWorker(page);
      expect(first.snapshot.bytes.buffer instanceof SharedArrayBuffer).toBe(true);
      expect(first.transfer).toHaveLength(0);
      // The next worker reads the same shared bytes: the page copied them once.
      expect(snapshotForWorker(page).snapshot.bytes === first.snapshot.bytes).toBe(true);
      const loaded = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, first.snapshot);
      expect(loaded.snapshot).toBe('used');
      expect(loaded.pyodide.runPython('6 * 7')).toBe(42);
      expect(sameBytes(first.snapshot.bytes, bytes)).toBe(true);
      expect(sameBytes(page.bytes, bytes)).toBe(true);
    }
  });

  it('compiles each of the small modules Emscripten wraps JS functions in once per load, and puts WebAssembly.Module back', async () => {
    serveFiles({ [snapshotPath]: packed });
    const original = WebAssembly.Module;
    const small: string[] = [];
    const counting = new Proxy(original, {
      construct(target, args: [BufferSource], newTarget) {
        const source = args[0];
        const bytes = ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : new Uint8Array(source);
        if (bytes.byteLength <= 1024) small.push(bytes.join());
        return Reflect.construct(target, args, newTarget);
      },
    });
    WebAssembly.Module = counting;
    try {
      const { pyodide, snapshot: used } = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
      expect(used).toBe('used');
      expect(WebAssembly.Module).toBe(counting);
      // Compiled once each: as many compiles as distinct modules (Pyodide 314 wraps 260 functions in 29).
      expect(small.length).toBeGreaterThan(0);
      expect(small.length).toBe(new Set(small).size);
      // The shared modules work: JS functions called from Python, through the table.
      const session = new WorkerSession(pyodide, null);
      const r = await session.run("import json, datetime\nprint(json.dumps([1, 2]))\ndatetime.date(2026, 11, 27).isoformat()", () => {}, {}, limits);
      expect(r.result?.['text/plain']).toBe("'2026-11-27'");
    } finally {
      WebAssembly.Module = original;
    }
  });

  it('hands each worker a transferable copy where the page cannot share memory', () => {
    vi.stubGlobal('SharedArrayBuffer', undefined);
    const page = { file: 'snapshot-x.bin', bytes: packed.slice() };
    const { snapshot: handed, transfer } = snapshotForWorker(page);
    // Identity and bytes checked by hand: a matcher's deep walk of 15 MB runs out of memory.
    expect(handed.bytes !== page.bytes && sameBytes(handed.bytes, page.bytes)).toBe(true);
    expect(transfer.length === 1 && transfer[0] === handed.bytes.buffer).toBe(true);
  });

  it('waits for a snapshot still on its way, and looks for it itself when the page has none', async () => {
    serveFiles({});
    const file = await snapshotFileName(RUNTIME_SOURCES);
    let hand!: (snapshot: { file: string; bytes: Uint8Array } | undefined) => void;
    const later = loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, new Promise((resolve) => (hand = resolve)));
    // Pyodide loads its script meanwhile; nothing is instantiated before the snapshot is here.
    await new Promise((resolve) => setTimeout(resolve, 50));
    hand({ file, bytes: snapshot });
    expect((await later).snapshot).toBe('used');
    expect((await later).pyodide.runPython('6 * 7')).toBe(42);

    serveFiles({ [snapshotPath]: packed });
    const fetched = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, Promise.resolve(undefined));
    expect(fetched.snapshot).toBe('used');
    serveFiles({});
    const none = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, Promise.resolve(undefined));
    expect(none.snapshot).toBe('none');
    expect(none.pyodide.runPython('6 * 7')).toBe(42);
  });

  it('boots plainly, looking for no snapshot, when the page chose that (null)', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(String(url));
      return new Response(new Blob([packed as Uint8Array<ArrayBuffer>]));
    });
    const chose = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, Promise.resolve(null));
    expect(chose.snapshot).toBe('none');
    expect(chose.pyodide.runPython('6 * 7')).toBe(42);
    // Also when the page's answer comes while Pyodide loads.
    let hand!: (snapshot: null) => void;
    const later = loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, new Promise((resolve) => (hand = resolve)));
    setTimeout(() => hand(null), 20);
    expect((await later).snapshot).toBe('none');
    expect(asked.filter((url) => url.includes('snapshot-'))).toEqual([]);
  });

  it("lets go of the snapshot's bytes once restored, where Pyodide would keep them for good", async () => {
    serveFiles({});
    const file = await snapshotFileName(RUNTIME_SOURCES);
    const { pyodide, snapshot: how } = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES, { file, bytes: snapshot });
    expect(how).toBe('used');
    // Pyodide's private record of its load options, which held the snapshot: it must still be
    // where the worker clears it (else each worker keeps 31 MB), with the rest of it intact.
    const config = (pyodide as unknown as { _api: { config?: Record<string, unknown> } })._api.config;
    expect(config).toBeDefined();
    expect(config).toHaveProperty('indexURL', indexURL);
    // A boolean: a failing comparison of 31 MB would take vitest half a minute to print.
    expect(config?._loadSnapshot === undefined).toBe(true);
    expect(pyodide.runPython('1 + 1')).toBe(2);
  });

  it('takes an HTML fallback page for a missing snapshot, not for a broken one', async () => {
    vi.stubGlobal('fetch', async () => new Response('<!doctype html>', { headers: { 'Content-Type': 'text/html' } }));
    expect((await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES)).snapshot).toBe('none');
  });

  it('gives every session its own random numbers', async () => {
    serveFiles({ [snapshotPath]: snapshot });
    const draws = [];
    for (let i = 0; i < 2; i++) {
      const { pyodide } = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
      draws.push(pyodide.runPython('import random\nrandom.random()', { globals: pyodide.toPy({}) }));
    }
    expect(draws[0]).not.toBe(draws[1]);
  });

  it('falls back to the plain load when the snapshot is missing or broken', async () => {
    serveFiles({});
    const none = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
    expect(none.snapshot).toBe('none');
    expect(none.pyodide.runPython('1 + 1')).toBe(2);

    serveFiles({ [snapshotPath]: snapshot.slice(0, 1024) });
    const broken = await loadSessionPyodide({ indexURL }, RUNTIME_SOURCES);
    expect(broken.snapshot).toBe('fallback');
    expect(broken.snapshotError).toBeTruthy();
    const session = new WorkerSession(broken.pyodide, null);
    expect((await session.run('2 * 21', () => {}, {}, limits)).result?.['text/plain']).toBe('42');
  });

  it("instantiates the page's compiled wasm in place of Pyodide's download, also when the module comes late", async () => {
    // The smallest valid module: Pyodide's own fetch and instantiateStreaming calls, as it makes them in a browser.
    const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    const base = 'http://localhost/pyodide/';
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string | URL) => {
      fetched.push(String(url));
      return new Response(bytes, { headers: { 'Content-Type': 'application/wasm' } });
    });
    const { instantiateStreaming } = WebAssembly;
    let give!: (module: WebAssembly.Module | undefined) => void;
    const counted: string[] = [];
    const late = interceptLoad(base, { compiled: new Promise((resolve) => (give = resolve)), onFetch: (p) => p.done && counted.push(p.file) });
    // Instantiation is asked for while the fetch still waits for the page's answer.
    const instantiated = WebAssembly.instantiateStreaming(fetch(new URL('pyodide.asm.wasm', base)), {});
    give(await WebAssembly.compile(bytes));
    const { module } = await instantiated;
    expect(WebAssembly.Module.exports(module)).toEqual([]);
    // The same hook counts the load's other downloads; the stand-in is no download.
    await (await fetch(`${base}python_stdlib.zip`)).arrayBuffer();
    await vi.waitFor(() => expect(counted).toEqual(['python_stdlib.zip']));
    expect([late.wasmUsed(), fetched]).toEqual([true, [`${base}python_stdlib.zip`]]);
    late.restore();
    // One restore puts both back.
    expect(WebAssembly.instantiateStreaming).toBe(instantiateStreaming);

    // Without a module from the page, the wasm is fetched and compiled as before.
    fetched.length = 0;
    const none = interceptLoad(base, { compiled: Promise.resolve(undefined) });
    await WebAssembly.instantiateStreaming(fetch(new URL('pyodide.asm.wasm', base)), {});
    expect([none.wasmUsed(), fetched]).toEqual([false, [`${base}pyodide.asm.wasm`]]);
    none.restore();
  });

  it("answers Pyodide's fetch of its standard library from the page's copy, once", async () => {
    const base = 'http://localhost/pyodide/';
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string | URL) => {
      fetched.push(String(url));
      return new Response('from the server');
    });
    const stdlib = new Uint8Array([0x50, 0x4b, 5, 6]);
    const load = interceptLoad(base, { files: { stdlib } });
    expect(load.filesUsed()).toBe(false);
    expect(new Uint8Array(await (await fetch(`${base}python_stdlib.zip`)).arrayBuffer())).toEqual(stdlib);
    expect(load.filesUsed()).toBe(true);
    // Anything else, and a second fetch of the same file, goes to the network as before.
    expect(await (await fetch(`${base}python_stdlib.zip`)).text()).toBe('from the server');
    expect(await (await fetch(`${base}other.zip`)).text()).toBe('from the server');
    expect(fetched).toEqual([`${base}python_stdlib.zip`, `${base}other.zip`]);
    load.restore();
    // Without the page's copies Pyodide downloads them itself.
    const own = interceptLoad(base, { onFetch: () => undefined });
    await fetch(`${base}python_stdlib.zip`);
    expect(own.filesUsed()).toBe(false);
    own.restore();
  });

  it("reads the core's lock file from the page's copy instead of fetching it", async () => {
    const base = 'http://localhost/pyodide/';
    const fetched: string[] = [];
    const served = { info: { abi_version: 'served' }, packages: {} };
    vi.stubGlobal('fetch', async (url: string | URL) => {
      fetched.push(String(url));
      return Response.json(served);
    });
    const copy = { info: { abi_version: 'copy' }, packages: {} };
    expect(await packageIndex(base, undefined, JSON.stringify(copy)).config.lockFileContents).toEqual(copy);
    expect(fetched).toEqual([]);
    expect(await packageIndex(base).config.lockFileContents).toEqual(served);
    expect(fetched).toEqual([`${base}pyodide-lock.json`]);
  });
});
