import { checkPackedSnapshot } from '../snapshot-codec';
import { hasGzipStreams } from '../capabilities';
import { gunzippedBody } from '../gunzip';
import { countClone, type FetchProgress } from '../fetch-progress';
import { dropLocalSnapshot, keepLocalSnapshot, readLocalSnapshot } from '../local-snapshot';
import type { PageSnapshot, StartReport } from '../worker-api';
import { whenIdle } from './idle';
import { makeSnapshotHere } from './snapshot-maker';
import { heldSnapshot } from './snapshot-share';
import { buildSnapshot, downloadSnapshot, DOWNLOAD_MAY_WIN_MS, DOWNLOAD_WINS_MS, expectedDownloadMs, type BuildSnapshot } from './snapshot-source';

export type { PageSnapshot };

/** One download the page makes once for all its workers, and who wants to hear how it goes. */
interface Download<T> {
  result: Promise<T | undefined>;
  /** The latest progress, and who wants to hear of the next, while the download runs. */
  last: FetchProgress | null;
  watchers: Set<(progress: FetchProgress) => void>;
  /** Settles once the download itself is over (or failed), maybe before what is made of it. */
  fetched: Promise<void>;
}

// By what and core URL. They hold the start snapshot and Pyodide's compiled wasm, which
// have nothing of any session in them.
const downloads = new Map<string, Download<unknown>>();

/** Where a page's snapshot came from, by core URL, until its first start is over (keepStartSnapshot). */
interface SnapshotOrigin {
  file: string;
  /**
   * Kept on this device, downloaded, or none yet: the first start boots plainly, and one is
   * got for the starts after it ('later': downloaded, or made here when the link is slow).
   */
  from: 'device' | 'network' | 'later';
  /** The build's file as downloaded, to keep on this device. */
  packed?: Uint8Array<ArrayBuffer>;
  /** For 'later': how long the download would take, by the wasm's rate (undefined: not known). */
  expectedMs?: number;
}
const origins = new Map<string, SnapshotOrigin>();

/** Starts `fetchIt` once per key; `watch` hears how it goes while it is under way. Undefined when it fails. */
function once<T>(key: string, fetchIt: (report: (progress: FetchProgress) => void) => Promise<T | undefined>, watch?: (progress: FetchProgress) => void): Promise<T | undefined> {
  let download = downloads.get(key) as Download<T> | undefined;
  if (!download) {
    let fetched = () => undefined as void;
    const started: Download<T> = {
      result: Promise.resolve(undefined),
      last: null,
      watchers: new Set(),
      fetched: new Promise<void>((resolve) => (fetched = resolve)),
    };
    const report = (progress: FetchProgress) => {
      // 'pytabs:wasm-fetched', 'pytabs:snapshot-fetched': when the bytes were in, before what is made of them.
      if (progress.done && !started.last?.done) performance.mark(`pytabs:${key.split(' ')[0]}-fetched`);
      started.last = progress;
      if (progress.done) fetched();
      for (const watcher of started.watchers) watcher(progress);
    };
    started.result = fetchIt(report)
      .catch(() => undefined)
      .finally(() => {
        started.watchers.clear();
        fetched();
      });
    downloads.set(key, started);
    download = started;
  }
  if (watch && !download.last?.done) {
    download.watchers.add(watch);
    if (download.last) watch(download.last);
  }
  return download.result;
}

const snapshotKey = (indexURL: string) => `snapshot ${indexURL}`;

/**
 * The start snapshot, found once per page: the one kept on this device, else (a first
 * visit) the build's when the link brings it sooner than Python boots (firstSnapshot),
 * else null, and the page's workers boot Python plainly. The page holds it packed (15 MB,
 * snapshot-codec; in shared memory alone where the page has it, heldSnapshot); every worker it
 * starts is handed those bytes (snapshot-share.ts) and restores Python's memory from them
 * (host.ts). A worker fetching it itself reads it from the HTTP cache each time, several times
 * slower. Undefined when
 * the build has none (the dev server): workers then look for it themselves. `watch` hears
 * how a download goes while it is under way (a first start waits for it).
 */
export function pageSnapshot(indexURL: string, watch?: (progress: FetchProgress) => void): Promise<PageSnapshot | null | undefined> {
  return once(
    snapshotKey(indexURL),
    async (report) => {
      const found = await findSnapshot(indexURL, report);
      return found ? heldSnapshot(found) : found;
    },
    watch,
  );
}

async function findSnapshot(indexURL: string, report: (progress: FetchProgress) => void): Promise<PageSnapshot | null | undefined> {
  const build = await buildSnapshot(indexURL);
  if (!build) return undefined;
  const { file } = build;
  const kept = await readLocalSnapshot(indexURL, file);
  if (kept) {
    origins.set(indexURL, { file, from: 'device' });
    performance.mark('pytabs:snapshot-found', { detail: 'device' });
    return { file, bytes: kept };
  }
  const first = await firstSnapshot(indexURL, build, report);
  performance.mark('pytabs:snapshot-found', { detail: origins.get(indexURL)?.from });
  return first;
}

/**
 * A first visit's snapshot. On a fast link the build's is downloaded before the first start
 * (the wasm, which every start needs first, says how fast the link is). On a slower one the
 * first session does not wait for it: its worker boots Python plainly, which on a 20 Mbit/s
 * line is sooner than downloading 6 MB more, and one is got after that start for the starts
 * after it (keepStartSnapshot).
 */
async function firstSnapshot(indexURL: string, build: BuildSnapshot, report: (progress: FetchProgress) => void): Promise<PageSnapshot | null> {
  const { file } = build;
  await wasmFetched(indexURL);
  // Only the gzip copy's size is named: a browser that cannot decode it makes the snapshot here.
  const expectedMs = hasGzipStreams() ? await expectedDownloadMs(`${indexURL}pyodide.asm.wasm.gz`, build.bytes) : undefined;
  if (expectedMs !== undefined && expectedMs <= DOWNLOAD_WINS_MS) {
    const packed = await downloadSnapshot(`${indexURL}${file}.gz`, report);
    if (packed) {
      checkPackedSnapshot(packed);
      origins.set(indexURL, { file, from: 'network', packed });
      return { file, bytes: packed };
    }
  }
  origins.set(indexURL, { file, from: 'later', expectedMs });
  return null;
}

/**
 * The snapshot for the starts after a plain first one: downloaded when that is expected
 * within DOWNLOAD_MAY_WIN_MS, else made here by a worker of its own (which also keeps it).
 * Kept on this device, and from then on what pageSnapshot gives this page's next starts.
 */
async function laterSnapshot(indexURL: string, origin: SnapshotOrigin): Promise<void> {
  const { file, expectedMs } = origin;
  let snapshot: PageSnapshot | undefined;
  const packed = expectedMs !== undefined && expectedMs <= DOWNLOAD_MAY_WIN_MS ? await downloadSnapshot(`${indexURL}${file}.gz`, () => undefined) : undefined;
  if (packed) {
    checkPackedSnapshot(packed);
    await keepLocalSnapshot(indexURL, file, packed);
    snapshot = { file, bytes: packed };
  } else {
    snapshot = await makeSnapshotHere(indexURL, await pageWasm(indexURL));
  }
  if (snapshot?.file !== file) return;
  const done: Download<PageSnapshot | null> = { result: Promise.resolve(heldSnapshot(snapshot)), last: null, watchers: new Set(), fetched: Promise.resolve() };
  downloads.set(snapshotKey(indexURL), done);
}

/** Settles once the page's download of the wasm is over, before its compile is. */
function wasmFetched(indexURL: string): Promise<void> {
  void pageWasm(indexURL);
  return downloads.get(`wasm ${indexURL}`)!.fetched;
}

/** Keeping a start snapshot waits for an idle page, a couple of seconds at most. */
const KEEP_WHEN_IDLE = { within: 2000, otherwise: 200 };

/**
 * After the page's first start that succeeded, in idle time: keeps a downloaded snapshot on
 * this device, for every later visit, or (after a plain first start) gets one for the next
 * starts. A kept one that failed to restore is dropped, and the next visit gets another.
 */
export function keepStartSnapshot(indexURL: string, report: StartReport): void {
  const origin = origins.get(indexURL);
  if (!origin) return;
  origins.delete(indexURL);
  if (origin.from === 'device' && report.snapshot === 'fallback') void dropLocalSnapshot(indexURL, origin.file).catch(() => undefined);
  if (origin.from === 'network' && report.snapshot === 'used') void whenIdle(() => keepLocalSnapshot(indexURL, origin.file, origin.packed!), KEEP_WHEN_IDLE);
  if (origin.from === 'later') void whenIdle(() => laterSnapshot(indexURL, origin), KEEP_WHEN_IDLE);
}


/**
 * Pyodide's wasm compiled by the page, once, as soon as the app opens: each worker it starts
 * gets the module and instantiates it (workers/runtime/snapshot.ts), instead of downloading
 * 9.6 MB and compiling them after its start message arrived. Reopening a session after a
 * reload took ~0.28 s less (S3: 10 reopenings per build, medians 782 vs 1064 ms). The
 * page fetches the gzip copy (3.6 MB; the HTML preloads it) and compiles it as it is
 * decoded (where this browser can decode gzip as it streams), else the plain file. Undefined when neither can be fetched or compiled: workers
 * then fetch it themselves.
 */
export function pageWasm(indexURL: string, watch?: (progress: FetchProgress) => void): Promise<WebAssembly.Module | undefined> {
  return once(
    `wasm ${indexURL}`,
    async (report) => {
      const gzipped = hasGzipStreams() ? await fetch(`${indexURL}pyodide.asm.wasm.gz`) : null;
      if (gzipped?.ok && gzipped.body) {
        countClone(gzipped, 'pyodide.asm.wasm.gz', report);
        const body = await gunzippedBody(gzipped.body);
        return compiled(WebAssembly.compileStreaming(new Response(body, { headers: { 'Content-Type': 'application/wasm' } })));
      }
      const response = await fetch(`${indexURL}pyodide.asm.wasm`);
      if (!response.ok) return undefined;
      countClone(response, 'pyodide.asm.wasm', report);
      return compiled(WebAssembly.compileStreaming(response));
    },
    watch,
  );
}

/** `module`, marked on the page's timeline once compiled (the bench reads where a first start's time goes). */
async function compiled(module: Promise<WebAssembly.Module>): Promise<WebAssembly.Module> {
  const done = await module;
  performance.mark('pytabs:wasm-compiled');
  return done;
}
