import { checkPackedSnapshot } from './snapshot-codec';

/*
 * The start snapshot kept on this device, in Cache Storage under its runtime key (the
 * snapshot's file name, which covers the runtime sources and the Pyodide version): the
 * build's, once a page downloaded it, or one a worker of its own made here after the first
 * session was up (src/lib/sessions/snapshot-maker.ts). Nothing of any session is in it.
 * Without Cache Storage (an insecure origin, some private modes) nothing is kept, and each
 * page load decides again where its snapshot comes from.
 */

const CACHE = 'pytabs-start-snapshot';

const keyOf = (indexURL: string, file: string) => new URL(`local-snapshot/${file}`, indexURL).href;

async function openCache(): Promise<Cache | undefined> {
  try {
    return await globalThis.caches?.open(CACHE);
  } catch {
    return undefined;
  }
}

/**
 * The kept snapshot of this runtime as it is kept (packed, as workers read it);
 * undefined when there is none (or it is unreadable, and then it is dropped).
 */
export async function readLocalSnapshot(indexURL: string, file: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const cache = await openCache();
  const key = keyOf(indexURL, file);
  try {
    const response = await cache?.match(key);
    if (!response) return undefined;
    const packed = new Uint8Array(await response.arrayBuffer());
    checkPackedSnapshot(packed);
    return packed;
  } catch {
    await cache?.delete(key).catch(() => false);
    return undefined;
  }
}

/** Keeps `packed` (snapshot-codec's form) as this runtime's snapshot, in place of any other runtime's. */
export async function keepLocalSnapshot(indexURL: string, file: string, packed: Uint8Array<ArrayBuffer>): Promise<void> {
  const cache = await openCache();
  if (!cache) return;
  const key = keyOf(indexURL, file);
  // Snapshots of other runtimes belong to builds this origin no longer serves.
  for (const request of await cache.keys()) if (request.url !== key) await cache.delete(request);
  await cache.put(key, new Response(packed, { headers: { 'Content-Type': 'application/octet-stream' } }));
}

/** Forgets this runtime's kept snapshot (one that failed to restore). */
export async function dropLocalSnapshot(indexURL: string, file: string): Promise<void> {
  await (await openCache())?.delete(keyOf(indexURL, file));
}
