import type { loadPyodide } from 'pyodide';
import { hasGzipStreams } from '../../src/lib/capabilities';
import { gunzippedScript } from '../../src/lib/served-file';

/** Pyodide's module factory, which loadPyodide takes as `createPyodideModule` instead of importing `pyodide.asm.mjs` itself. */
export type CreatePyodideModule = NonNullable<NonNullable<Parameters<typeof loadPyodide>[0]>['createPyodideModule']>;

/**
 * Pyodide's module script imported from the page's copy (`given`, CoreFiles) or its gzip copy
 * (0.26 of 1.25 MB), decoded as it streams, through a blob URL (the script resolves nothing
 * against its own URL once Pyodide sets `locateFile`); else (a browser without
 * DecompressionStream, or no copy) the plain file, as Pyodide would import it.
 */
export async function pyodideScript(indexURL: string, given?: Uint8Array): Promise<CreatePyodideModule> {
  if (given) {
    const source = URL.createObjectURL(new Blob([given as Uint8Array<ArrayBuffer>], { type: 'text/javascript' }));
    try {
      return ((await import(/* @vite-ignore */ source)) as { default: CreatePyodideModule }).default;
    } catch {
      // The worker's own copy follows.
    } finally {
      URL.revokeObjectURL(source);
    }
  }
  const plain = new URL('pyodide.asm.mjs', indexURL).href;
  let source = plain;
  if (hasGzipStreams()) {
    try {
      const text = await gunzippedScript(await fetch(`${plain}.gz`));
      if (text) source = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    } catch {
      // The plain file follows.
    }
  }
  try {
    return ((await import(/* @vite-ignore */ source)) as { default: CreatePyodideModule }).default;
  } finally {
    if (source !== plain) URL.revokeObjectURL(source);
  }
}
