import { countClone, fileNameOf, requestURL, type FetchProgress } from '../../src/lib/fetch-progress.ts';
import type { CoreFiles } from '../../src/lib/worker-api';

/** What one load's hook saw; `restore` puts fetch and WebAssembly back as they were. */
export interface LoadFetches {
  /** Whether Pyodide instantiated the page's module instead of its own download. */
  wasmUsed: () => boolean;
  /** Whether Pyodide read its standard library from the page's copy instead of downloading it. */
  filesUsed: () => boolean;
  restore: () => void;
}

/**
 * The worker's one hook on Pyodide's downloads, for the length of one load (the worker is
 * a single session's, so its fetch is that load's alone). Every download that succeeds is
 * counted on a clone for the start's progress (`onFetch`), the response itself left as the
 * browser made it: a constructed Response has no URL, and without one V8 cannot reuse its
 * cached compile of a wasm. With `compiled` (the page's module), Pyodide's fetch of
 * `pyodide.asm.wasm` is answered, once the page said whether it has a module, with an
 * empty stand-in, and the module is instantiated in its place: Pyodide (314) hands that
 * fetch to `WebAssembly.instantiateStreaming`. Should Pyodide load its wasm another way,
 * neither hook is reached and the load goes on as before, only slower; `wasmUsed` (the
 * start report's `wasm: 'page'`, checked end to end) says whether the module was used.
 * With `files` (the page's copies, CoreFiles), Pyodide's fetch of its standard library is
 * answered from them (the lock file it is given: packages.ts), and `filesUsed` says so.
 */
export function interceptLoad(
  indexURL: string,
  {
    compiled,
    onFetch,
    onInstantiated,
    files,
  }: {
    compiled?: Promise<WebAssembly.Module | undefined>;
    onFetch?: (progress: FetchProgress) => void;
    onInstantiated?: () => void;
    files?: Pick<CoreFiles, 'stdlib'>;
  },
): LoadFetches {
  if (!compiled && !onFetch && !files) return { wasmUsed: () => false, filesUsed: () => false, restore: () => undefined };
  // The page's copies by the URL Pyodide fetches each from (indexURL ends with '/').
  const handed = new Map<string, Uint8Array>(files ? [[`${indexURL}python_stdlib.zip`, files.stdlib]] : []);
  let answered = 0;
  // Only a browser worker has a page's module; in Node indexURL is a directory, not a URL.
  const wasmURL = compiled ? new URL('pyodide.asm.wasm', indexURL).href : null;
  const { fetch: originalFetch } = globalThis;
  const originalInstantiate = WebAssembly.instantiateStreaming;
  const standIn = new Response(new Uint8Array(0), { headers: { 'Content-Type': 'application/wasm' } });
  let module: WebAssembly.Module | undefined;
  let used = false;
  globalThis.fetch = async (input, init) => {
    const url = requestURL(input);
    const copy = handed.get(url);
    if (copy !== undefined) {
      handed.delete(url);
      answered++;
      return new Response(copy as Uint8Array<ArrayBuffer>);
    }
    if (compiled && url === wasmURL) {
      module = await compiled.catch(() => undefined);
      if (module) return standIn;
    }
    const response = await originalFetch(input, init);
    if (onFetch && response.ok) countClone(response, fileNameOf(url), onFetch);
    return response;
  };
  if (compiled) {
    WebAssembly.instantiateStreaming = async (source, imports) => {
      // Pyodide passes the fetch's promise, which the hook above settles only once the page
      // said whether it has a module: look at `module` after it, not before.
      const response = await source;
      if (response === standIn && module) {
        used = true;
        const instance = await WebAssembly.instantiate(module, imports);
        onInstantiated?.();
        return { module, instance };
      }
      return originalInstantiate(response, imports);
    };
  }
  return {
    wasmUsed: () => used,
    filesUsed: () => answered > 0,
    restore: () => {
      globalThis.fetch = originalFetch;
      WebAssembly.instantiateStreaming = originalInstantiate;
    },
  };
}
