/** The build's memory snapshot of a booted Pyodide (workers/runtime/snapshot.ts), as a page hands it to workers. */
export interface PageSnapshot {
  /** Its file name beside the core; the worker checks it names the snapshot of its own runtime. */
  file: string;
  bytes: Uint8Array;
}

// By core URL. Holds the build's snapshot, which has nothing of any session in it.
const loaded = new Map<string, Promise<PageSnapshot | undefined>>();

/**
 * The snapshot, fetched once per page. Every worker the page starts gets a copy with its
 * start message, which costs a memory copy; a worker fetching it itself reads 31 MB from
 * the HTTP cache each time, several times slower. Undefined when the build has none (the
 * dev server) or it cannot be fetched: workers then look for it themselves.
 */
export function pageSnapshot(indexURL: string): Promise<PageSnapshot | undefined> {
  let snapshot = loaded.get(indexURL);
  if (!snapshot) {
    snapshot = fetchSnapshot(indexURL).catch(() => undefined);
    loaded.set(indexURL, snapshot);
  }
  return snapshot;
}

async function fetchSnapshot(indexURL: string): Promise<PageSnapshot | undefined> {
  const manifest = await fetch(`${indexURL}snapshot.json`);
  if (!manifest.ok) return undefined;
  const { file } = (await manifest.json()) as { file: string };
  const response = await fetch(`${indexURL}${file}`);
  if (!response.ok) return undefined;
  return { file, bytes: new Uint8Array(await response.arrayBuffer()) };
}
