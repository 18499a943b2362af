import { hasGzipStreams } from '../capabilities';
import { gunzippedScript, isServedFile } from '../served-file';
import type { CoreFiles } from '../worker-api';

/** Each core's files, by its indexURL, once the page holds them: a core's, no session's data. */
const held = new Map<string, CoreFiles>();
/** Cores whose files were asked for: each is fetched once per page. */
const asked = new Set<string>();

/**
 * Fetches Pyodide's files from `indexURL` once, for the page to hand every session worker it
 * starts from then on (CoreFiles). Called once a session has started, and only from a cache
 * (the service worker's, or the HTTP cache its worker filled): never a second download beside
 * a first visit's on a slow link. A file that cannot be had so leaves the workers fetching
 * their own, as before.
 */
export function fetchCoreFiles(indexURL: string): void {
  if (asked.has(indexURL) || typeof fetch === 'undefined') return;
  asked.add(indexURL);
  void load(indexURL).then(
    (files) => void (files && held.set(indexURL, files)),
    () => undefined,
  );
}

/** The core's files if the page holds them already: a start never waits for them. */
export function coreFilesInHand(indexURL: string): CoreFiles | undefined {
  return held.get(indexURL);
}

async function load(indexURL: string): Promise<CoreFiles | undefined> {
  const [script, stdlib, lock] = await Promise.all([moduleScript(indexURL), file(`${indexURL}python_stdlib.zip`), file(`${indexURL}pyodide-lock.json`)]);
  if (!script || !stdlib || !lock) return undefined;
  return { script, stdlib, lockFile: new TextDecoder().decode(lock) };
}

/** Pyodide's module script, from its gzip copy where the browser can decode one (as a worker reads it: workers/runtime/pyodide-script.ts). */
async function moduleScript(indexURL: string): Promise<Uint8Array | null> {
  const plain = `${indexURL}pyodide.asm.mjs`;
  const text = hasGzipStreams() ? await gunzippedScript(await cached(`${plain}.gz`)) : null;
  if (text) return new Uint8Array(await text.arrayBuffer());
  return file(plain);
}

/** `url` from a cache only (a 504 when no cache has it; a service worker answers from its own). */
function cached(url: string): Promise<Response | null> {
  return fetch(url, { cache: 'only-if-cached', mode: 'same-origin' }).catch(() => null);
}

async function file(url: string): Promise<Uint8Array | null> {
  const response = await cached(url);
  return isServedFile(response) ? new Uint8Array(await response.arrayBuffer()) : null;
}
