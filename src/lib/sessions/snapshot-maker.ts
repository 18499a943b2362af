import * as Comlink from 'comlink';
import type { PageSnapshot, SnapshotMakerApi } from '../worker-api';

/** A snapshot being made on this device, in a worker of its own (workers/snapshot.worker.ts). */
export interface SnapshotMaker {
  /** The snapshot, kept in Cache Storage by then (src/lib/local-snapshot.ts); undefined when it failed or was stopped. */
  result: Promise<PageSnapshot | undefined>;
  /** Lets it boot, on the page's compiled wasm (undefined: it fetches the wasm itself). */
  supplyWasm(module: WebAssembly.Module | undefined): void;
  /** Ends it, wherever it is. */
  stop(): void;
}

/**
 * Starts making this runtime's start snapshot here: the worker loads its script and
 * Pyodide's files at once, and boots once it is given the wasm. About one plain boot of
 * processor time, off the page's thread.
 */
export function startSnapshotMaker(indexURL: string): SnapshotMaker {
  const worker = new Worker(new URL('../../../workers/snapshot.worker.ts', import.meta.url), { type: 'module' });
  const api = Comlink.wrap<SnapshotMakerApi>(worker);
  let stopped!: () => void;
  const ended = new Promise<undefined>((resolve) => {
    stopped = () => resolve(undefined);
    worker.addEventListener('error', stopped, { once: true });
  });
  const made = api.make(indexURL).catch(() => undefined);
  const result = Promise.race([made, ended]).finally(() => worker.terminate());
  return {
    result,
    supplyWasm: (module) => void api.supplyWasm(module).catch(() => undefined),
    stop: () => stopped(),
  };
}
