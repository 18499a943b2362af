import { unpackSnapshot } from '../snapshot-codec';
import { gunzippedBody } from '../gunzip';
import { countClone, countedResponse, type FetchProgress } from '../fetch-progress';
import type { PageSnapshot } from '../worker-api';

export type { PageSnapshot };

/** One download the page makes once for all its workers, and who wants to hear how it goes. */
interface Download<T> {
  result: Promise<T | undefined>;
  /** The latest progress, and who wants to hear of the next, while the download runs. */
  last: FetchProgress | null;
  watchers: Set<(progress: FetchProgress) => void>;
}

// By what and core URL. They hold the build's snapshot and Pyodide's compiled wasm, which
// have nothing of any session in them.
const downloads = new Map<string, Download<unknown>>();

/** Starts `fetchIt` once per key; `watch` hears how it goes while it is under way. Undefined when it fails. */
function once<T>(key: string, fetchIt: (report: (progress: FetchProgress) => void) => Promise<T | undefined>, watch?: (progress: FetchProgress) => void): Promise<T | undefined> {
  let download = downloads.get(key) as Download<T> | undefined;
  if (!download) {
    const started: Download<T> = { result: Promise.resolve(undefined), last: null, watchers: new Set() };
    const report = (progress: FetchProgress) => {
      started.last = progress;
      for (const watcher of started.watchers) watcher(progress);
    };
    started.result = fetchIt(report)
      .catch(() => undefined)
      .finally(() => started.watchers.clear());
    downloads.set(key, started);
    download = started;
  }
  if (watch && !download.last?.done) {
    download.watchers.add(watch);
    if (download.last) watch(download.last);
  }
  return download.result;
}

/**
 * The snapshot, fetched once per page. Every worker the page starts gets a copy in a message
 * after its start, which costs a memory copy; a worker fetching it itself reads 31 MB from
 * the HTTP cache each time, several times slower. Undefined when the build has none (the
 * dev server) or it cannot be fetched: workers then look for it themselves. `watch` hears
 * how the download goes while it is under way (a first start waits for it).
 */
export function pageSnapshot(indexURL: string, watch?: (progress: FetchProgress) => void): Promise<PageSnapshot | undefined> {
  return once(`snapshot ${indexURL}`, (report) => fetchSnapshot(indexURL, report), watch);
}

/**
 * Pyodide's wasm compiled by the page, once, as soon as the app opens: each worker it starts
 * gets the module and instantiates it (workers/runtime/snapshot.ts), instead of downloading
 * 9.6 MB and compiling them after its start message arrived. Reopening a session after a
 * reload took ~0.28 s less (S3: 10 reopenings per build, medians 782 vs 1064 ms). The
 * page fetches the gzip copy (3.6 MB; the HTML preloads it) and compiles it as it is
 * decoded, else the plain file. Undefined when neither can be fetched or compiled: workers
 * then fetch it themselves.
 */
export function pageWasm(indexURL: string, watch?: (progress: FetchProgress) => void): Promise<WebAssembly.Module | undefined> {
  return once(
    `wasm ${indexURL}`,
    async (report) => {
      const gzipped = await fetch(`${indexURL}pyodide.asm.wasm.gz`);
      if (gzipped.ok && gzipped.body) {
        countClone(gzipped, 'pyodide.asm.wasm.gz', report);
        const body = await gunzippedBody(gzipped.body);
        return WebAssembly.compileStreaming(new Response(body, { headers: { 'Content-Type': 'application/wasm' } }));
      }
      const response = await fetch(`${indexURL}pyodide.asm.wasm`);
      if (!response.ok) return undefined;
      countClone(response, 'pyodide.asm.wasm', report);
      return WebAssembly.compileStreaming(response);
    },
    watch,
  );
}

/** The snapshot's file name: from the page (the build names it there, and preloads it), else from its manifest. */
async function snapshotFile(indexURL: string): Promise<string | undefined> {
  const named = globalThis.document?.querySelector<HTMLMetaElement>('meta[name="pytabs-snapshot"]')?.content;
  if (named) return named;
  const manifest = await fetch(`${indexURL}snapshot.json`);
  if (!manifest.ok) return undefined;
  return ((await manifest.json()) as { file: string }).file;
}

async function fetchSnapshot(indexURL: string, report: (progress: FetchProgress) => void): Promise<PageSnapshot | undefined> {
  const file = await snapshotFile(indexURL);
  if (!file) return undefined;
  const response = await fetch(`${indexURL}${file}`);
  if (!response.ok) return undefined;
  const packed = new Uint8Array(await countedResponse(response, file, report).arrayBuffer());
  return { file, bytes: unpackSnapshot(packed) };
}
