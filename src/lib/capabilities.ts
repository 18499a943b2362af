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

/** What WebGPU offers here: a hardware GPU, only a software one (SwiftShader, no GPU for the browser), or nothing. */
export interface WebGpuFacts {
  kind: 'hardware' | 'software' | 'none';
  /** The adapter's vendor and architecture, as the browser tells them ('' when there is none). */
  name: string;
  /** Its shaders can compute in 16-bit floats (`shader-f16`): llama.cpp's WebGPU backend takes no GPU without it. */
  f16: boolean;
}

interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean };
  features?: { has(name: string): boolean };
}

/** Asks WebGPU for an adapter (in a page or a worker); a browser without WebGPU, or one that gives none, is 'none'. */
export async function webGpu(): Promise<WebGpuFacts> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } } | undefined)?.gpu;
  const adapter = gpu ? await gpu.requestAdapter().catch(() => null) : null;
  if (!adapter) return { kind: 'none', name: '', f16: false };
  const name = [adapter.info?.vendor, adapter.info?.architecture].filter(Boolean).join(' ') || 'an unnamed GPU';
  const software = Boolean(adapter.info?.isFallbackAdapter) || adapter.info?.architecture === 'swiftshader';
  return { kind: software ? 'software' : 'hardware', name, f16: Boolean(adapter.features?.has('shader-f16')) };
}
