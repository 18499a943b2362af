import { unpackSnapshot } from '../snapshot-codec';
import { countedResponse, type FetchProgress } from '../fetch-progress';
import type { PageSnapshot } from '../worker-api';

export type { PageSnapshot };

interface Download {
  snapshot: Promise<PageSnapshot | undefined>;
  /** The latest progress, and who wants to hear of the next, while the download runs. */
  last: FetchProgress | null;
  watchers: Set<(progress: FetchProgress) => void>;
}

// By core URL. Holds the build's snapshot, which has nothing of any session in it.
const downloads = new Map<string, Download>();

/**
 * The snapshot, fetched once per page. Every worker the page starts gets a copy with its
 * start message, which costs a memory copy; a worker fetching it itself reads 31 MB from
 * the HTTP cache each time, several times slower. Undefined when the build has none (the
 * dev server) or it cannot be fetched: workers then look for it themselves. `watch` hears
 * how the download goes while it is under way (a first start waits for it).
 */
export function pageSnapshot(indexURL: string, watch?: (progress: FetchProgress) => void): Promise<PageSnapshot | undefined> {
  let download = downloads.get(indexURL);
  if (!download) {
    const started: Download = { snapshot: Promise.resolve(undefined), last: null, watchers: new Set() };
    const report = (progress: FetchProgress) => {
      started.last = progress;
      for (const watcher of started.watchers) watcher(progress);
    };
    started.snapshot = fetchSnapshot(indexURL, report)
      .catch(() => undefined)
      .finally(() => started.watchers.clear());
    downloads.set(indexURL, started);
    download = started;
  }
  if (watch && !download.last?.done) {
    download.watchers.add(watch);
    if (download.last) watch(download.last);
  }
  return download.snapshot;
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
