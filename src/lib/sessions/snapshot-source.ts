import { countedResponse, fileNameOf, type FetchProgress } from '../fetch-progress';
import { gunzippedBody } from '../gunzip';
import { isServedFile } from '../served-file';
import { sleep } from '../timing';

/*
 * A first visit has no start snapshot on the device. Its first session waits for the
 * build's (its gzip copy, 6 MB) only when the link brings it sooner than Python boots;
 * otherwise that session boots plainly, and the snapshot for the starts after it is then
 * downloaded, or made here where the link is slow (a plain boot of processor time, 1.5-2 s
 * on an idle machine here). The link is known once the wasm, which every start needs
 * first, has come in.
 */

/** A download expected within this time is waited for by the first start (sooner than a plain boot on any processor). */
export const DOWNLOAD_WINS_MS = 1500;

/**
 * After a plain first start, a download expected within this time gets the snapshot for
 * the next starts; a slower one is left, and the snapshot made here. The wasm shared the
 * link with the app's own scripts, so its rate understates the link (at 20 Mbit/s it came
 * in at 1.1-1.4 MB/s here): under about 6 Mbit/s by that measure the snapshot is made here,
 * and the first visit downloads nothing more than a bare Pyodide does.
 */
export const DOWNLOAD_MAY_WIN_MS = 8000;

/** The build's snapshot as the build named it: in the page's HTML, else in its manifest beside the core. */
export interface BuildSnapshot {
  file: string;
  /** The size of its gzip copy (`<file>.gz`), which the page downloads; 0 when unknown. */
  bytes: number;
}

export async function buildSnapshot(indexURL: string): Promise<BuildSnapshot | undefined> {
  const meta = globalThis.document?.querySelector<HTMLMetaElement>('meta[name="pytabs-snapshot"]');
  if (meta?.content) return { file: meta.content, bytes: Number(meta.dataset.bytes) || 0 };
  const manifest = await fetch(`${indexURL}snapshot.json`);
  if (!manifest.ok) return undefined;
  const { file, bytes } = (await manifest.json()) as { file: string; bytes?: number };
  return { file, bytes: bytes ?? 0 };
}

/** The browser's timing of a download may be recorded a moment after its last bytes were read. */
const TIMING_WAIT_MS = 300;

/**
 * How long downloading `bytes` would take at the rate an earlier download from the same
 * origin came in (`url`, the wasm), by the browser's timing of it. Undefined when that one
 * came from a cache (or revalidated, or was not timed): it then says nothing of the link.
 */
export async function expectedDownloadMs(url: string, bytes: number): Promise<number | undefined> {
  if (!bytes || !globalThis.performance?.getEntriesByName) return undefined;
  let entries = performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[];
  for (let waited = 0; !entries.length && waited < TIMING_WAIT_MS; waited += 10) {
    await sleep(10);
    entries = performance.getEntriesByName(url, 'resource') as PerformanceResourceTiming[];
  }
  // Over the network it sent at least its body; revalidated (304) or cached, less or nothing.
  const timed = entries.find((e) => e.encodedBodySize > 0 && e.transferSize >= e.encodedBodySize);
  const ms = timed ? timed.responseEnd - timed.responseStart : 0;
  return timed && ms > 0 ? (bytes / timed.encodedBodySize) * ms : undefined;
}

/**
 * Downloads the build's snapshot from its gzip copy `url`, decoded as it streams, to the
 * packed form (snapshot-codec.ts); undefined when it fails.
 */
export async function downloadSnapshot(url: string, report: (progress: FetchProgress) => void): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    const response = await fetch(url);
    if (!isServedFile(response) || !response.body) return undefined;
    const body = await gunzippedBody(countedResponse(response, fileNameOf(url), report).body!);
    return new Uint8Array(await new Response(body).arrayBuffer());
  } catch {
    return undefined;
  }
}
