import defaultWasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import compatWasmUrl from '@wllama/wllama-compat/wasm/wllama.wasm?url';
import workerUrl from '../../../workers/model.worker.ts?worker&url';
import { hasJspi, hasMemory64 } from '../capabilities';
import { MODEL_RUNTIME_CACHE } from '../offline/model-runtime';
import { said, SaidError } from '../i18n/said';

/** The model worker's script (built from workers/model.worker.ts); client.ts starts it from here. */
export const MODEL_WORKER_URL = workerUrl;

/** A kept model cannot start: its runtime was never kept on this device and the network does not give it now. */
export class RuntimeNotKept extends SaidError {
  constructor() {
    super(said('chat_runtime_not_kept'));
    this.name = 'RuntimeNotKept';
  }
}

/**
 * The runtime's files this browser runs: the worker and the wasm wllama picks here (its default
 * build needs JSPI and Memory64, the worker decides the same way), as absolute addresses.
 */
function runtimeFiles(): string[] {
  const wasm = hasJspi() && hasMemory64() ? defaultWasmUrl : compatWasmUrl;
  return [workerUrl, wasm].map((url) => new URL(url, document.baseURI).href);
}

/** Whether the runtime is kept: yes, no because a file could not be fetched (offline), or no because this browser would not store it. */
export type RuntimeKept = 'kept' | 'unreachable' | 'not-stored';

/**
 * Keeps the runtime's missing files in the cache the service worker serves them from, so that a
 * kept model also starts offline although it was never loaded.
 */
export async function keepModelRuntime(): Promise<RuntimeKept> {
  if (typeof caches === 'undefined') return 'not-stored';
  const cache = await caches.open(MODEL_RUNTIME_CACHE);
  for (const url of runtimeFiles()) {
    if (await cache.match(url)) continue;
    const response = await fetch(url).catch(() => null);
    if (!response?.ok) return 'unreachable';
    if (!(await cache.put(url, response).then(() => true, () => false))) return 'not-stored';
  }
  return 'kept';
}

/**
 * Before a kept model starts: its runtime kept, or kept now. Only a runtime neither kept nor
 * reachable stops it, with RuntimeNotKept, which says what to do; one the browser would not
 * store is still fetched by the worker.
 */
export async function ensureModelRuntime(): Promise<void> {
  if ((await keepModelRuntime()) === 'unreachable') throw new RuntimeNotKept();
}
