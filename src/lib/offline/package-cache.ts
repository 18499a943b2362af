import pyodidePackage from 'pyodide/package.json';

/**
 * The Cache Storage that keeps package files (wheels) and custom indexes' lock files for
 * offline use. Shared by the service worker (what a session loads) and the page (Settings'
 * "Make packages available offline"). Named by the Pyodide version: packages are built for
 * one Pyodide, and the service worker drops the caches of other versions.
 */
export const PYODIDE_VERSION: string = pyodidePackage.version;
export const PACKAGE_CACHE_PREFIX = 'pytabs-packages-';
export const PACKAGE_CACHE = `${PACKAGE_CACHE_PREFIX}${PYODIDE_VERSION}`;

/** The header a kept file carries with the SHA-256 (base64) its bytes were checked against. */
const DIGEST_HEADER = 'X-PyTabs-SHA256';

/** The official package CDN for the shipped Pyodide (the same as workers/runtime/packages.ts' default). */
export const OFFICIAL_PACKAGE_INDEX = `https://cdn.jsdelivr.net/pyodide/v${PYODIDE_VERSION}/full/`;

export async function sha256Base64(bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return btoa(String.fromCharCode(...digest));
}

/** A lock file's hex SHA-256 as the base64 that Subresource Integrity uses. */
export function hexToBase64(hex: string): string {
  const pairs = hex.match(/[0-9a-f]{2}/gi) ?? [];
  return btoa(String.fromCharCode(...pairs.map((pair) => parseInt(pair, 16))));
}

/** The SHA-256 (base64) in a request's integrity metadata ("sha256-…"), or null when it names none. */
export function integritySha256(integrity: string): string | null {
  for (const token of integrity.trim().split(/\s+/)) {
    const match = /^sha256-([A-Za-z0-9+/]+={0,2})(\?.*)?$/.exec(token);
    if (match) return match[1];
  }
  return null;
}

/**
 * Whether a response arrived whole: a 200 the page may read (not opaque), and as many
 * bytes as it declared. Content-Length of an encoded transfer counts the encoded bytes,
 * so it is only compared when the body was not re-encoded.
 */
export function isComplete(response: Response, bytes: ArrayBuffer): boolean {
  if (response.status !== 200 || response.type === 'opaque' || response.type === 'error') return false;
  const declared = response.headers.get('Content-Length');
  if (declared === null || response.headers.has('Content-Encoding')) return true;
  return Number(declared) === bytes.byteLength;
}

/** Keeps a file whose bytes were checked against `sha256` (base64), with the response's headers. */
export async function keepPackageFile(cache: Cache, url: string, response: Response, bytes: ArrayBuffer, sha256: string): Promise<void> {
  const headers = new Headers(response.headers);
  headers.set(DIGEST_HEADER, sha256);
  headers.set('Content-Length', String(bytes.byteLength));
  headers.delete('Content-Encoding');
  await cache.put(url, new Response(bytes, { status: 200, statusText: response.statusText, headers }));
}

/** Whether the cache holds `url` checked against `sha256` (base64), without reading its bytes. */
export async function isKept(cache: Cache, url: string, sha256: string): Promise<{ kept: boolean; size: number | null }> {
  const response = await cache.match(url, { ignoreVary: true });
  if (!response) return { kept: false, size: null };
  const length = Number(response.headers.get('Content-Length'));
  return { kept: response.headers.get(DIGEST_HEADER) === sha256, size: length > 0 ? length : null };
}

/**
 * The kept file for `url` if its bytes still hash to `sha256` (base64); a kept file that does
 * not (the index republished it, or the lock file changed) is dropped, so the caller fetches
 * it anew instead of handing Pyodide bytes its integrity check would refuse.
 */
export async function keptPackageFile(cache: Cache, url: string, sha256: string): Promise<Response | null> {
  const response = await cache.match(url, { ignoreVary: true });
  if (!response) return null;
  const bytes = await response.arrayBuffer();
  if ((await sha256Base64(bytes)) !== sha256) {
    await cache.delete(url, { ignoreVary: true });
    return null;
  }
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
}
