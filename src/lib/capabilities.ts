/**
 * What this browser can do, each found by trying the thing itself, never by a proxy: WebKitGTK
 * behind COOP/COEP reports `crossOriginIsolated === true` with no `SharedArrayBuffer`, and a
 * user-agent string says nothing about a private window. Every path that needs one of these
 * asks here and has a way for when it is missing.
 */

/**
 * Shared memory a worker can wait on: `SharedArrayBuffer` and `Atomics` exist and a buffer can
 * be posted (which needs a cross-origin isolated page). Stop interrupts Python through it.
 */
export function hasSharedMemory(): boolean {
  if (typeof SharedArrayBuffer !== 'function' || typeof Atomics !== 'object') return false;
  try {
    const channel = new MessageChannel();
    channel.port1.postMessage(new SharedArrayBuffer(1));
    channel.port1.close();
    channel.port2.close();
    return true;
  } catch {
    return false;
  }
}

/** WebAssembly stack switching (JSPI): Pyodide's paths that suspend wasm need it; Safari has none. */
export function hasJspi(): boolean {
  return typeof WebAssembly === 'object' && typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === 'function';
}

/** WebAssembly 64-bit memory: the local model's runtime (llama.cpp's fast build) needs it and JSPI; Safari has neither. */
export function hasMemory64(): boolean {
  try {
    new WebAssembly.Memory({ address: 'i64', initial: 1n } as unknown as WebAssembly.MemoryDescriptor);
    return true;
  } catch {
    return false;
  }
}

/** `DecompressionStream('gzip')`: the app decodes its .gz copies as they stream. */
export function hasGzipStreams(): boolean {
  if (typeof DecompressionStream !== 'function') return false;
  try {
    new DecompressionStream('gzip');
    return true;
  } catch {
    return false;
  }
}

/** The Service Worker API is exposed (a Firefox private window hides it). Registering can still fail. */
export function hasServiceWorkers(): boolean {
  return typeof navigator === 'object' && 'serviceWorker' in navigator && Boolean(navigator.serviceWorker);
}

/** Web Locks: one tab owns a session at a time. */
export function hasWebLocks(): boolean {
  return typeof navigator === 'object' && typeof navigator.locks?.request === 'function';
}

/** BroadcastChannel: other tabs hear of every change at once. */
export function hasBroadcastChannel(): boolean {
  return typeof BroadcastChannel === 'function';
}

/** `navigator.storage.persist`: the page can ask the browser not to evict its data. */
export function hasPersistRequest(): boolean {
  return typeof navigator === 'object' && typeof navigator.storage?.persist === 'function';
}
