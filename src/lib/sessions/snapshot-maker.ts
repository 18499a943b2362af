import * as Comlink from 'comlink';
import type { PageSnapshot, SnapshotMakerApi } from '../worker-api';

/**
 * Makes this runtime's start snapshot here, in a worker of its own (workers/snapshot.worker.ts)
 * that boots Pyodide on `wasm`, the page's compiled module (undefined: it fetches the wasm
 * itself): about one plain boot of processor time, off the page's thread. Resolves to the
 * snapshot, kept in Cache Storage by then (src/lib/local-snapshot.ts), or undefined when it
 * failed; the worker is ended either way.
 */
export function makeSnapshotHere(indexURL: string, wasm: WebAssembly.Module | undefined): Promise<PageSnapshot | undefined> {
  const worker = new Worker(new URL('../../../workers/snapshot.worker.ts', import.meta.url), { type: 'module' });
  const api = Comlink.wrap<SnapshotMakerApi>(worker);
  // A worker that fails to load or dies never answers `make`.
  const failed = new Promise<undefined>((resolve) => worker.addEventListener('error', () => resolve(undefined), { once: true }));
  void api.supplyWasm(wasm).catch(() => undefined);
  const made = api.make(indexURL).catch(() => undefined);
  return Promise.race([made, failed]).finally(() => worker.terminate());
}
