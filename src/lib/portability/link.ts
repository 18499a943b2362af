import { formatBytes } from '../i18n/format';
import { SaidError, said } from '../i18n/said';
import { getOrigin, replaceSessionContents } from '../storage/imports';
import { ImportError } from './errors';
import { claimIdle, importKind, importSession, prepareImport, summary, type ImportResult } from './import';
import { MAX_IMPORT_BYTES } from './limits';
import { withStorage, type PortableManager } from './manager';

/** The address that opens a prepared session: `#/open?from=<URL of a .pytabs.zip or .ipynb>`. */
export const OPEN_ROUTE = '#/open';

/**
 * The file a `#/open?from=<URL>` address asks to open, resolved against the page (so a
 * relative URL names a file beside the app); null for any other address.
 */
export function preparedLinkTarget(hash: string, base: string): string | null {
  if (hash !== OPEN_ROUTE && !hash.startsWith(`${OPEN_ROUTE}?`)) return null;
  const from = new URLSearchParams(hash.slice(OPEN_ROUTE.length + 1)).get('from');
  if (!from) throw new ImportError(said('lib_link_no_from'));
  let url: URL;
  try {
    url = new URL(from, base);
  } catch {
    throw new ImportError(said('lib_link_not_web_address', { address: from.slice(0, 200) }));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ImportError(said('lib_link_not_http', { protocol: url.protocol }));
  return url.href;
}

/** A prepared session as fetched: not yet imported. */
export interface PreparedFile {
  url: string;
  /** Its file name, from the address. */
  name: string;
  data: Uint8Array;
}

function fileName(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(last) || 'prepared session';
  } catch {
    return last || 'prepared session';
  }
}

/**
 * Downloads a prepared session (same origin, or a host that sends CORS headers) and checks
 * it is a session or a notebook, without importing it: the caller asks the person first,
 * then calls `openPrepared`. Each failure is an ImportError that says what went wrong.
 */
export async function fetchPrepared(address: string, { maxBytes = MAX_IMPORT_BYTES, signal }: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<PreparedFile> {
  const url = new URL(address, globalThis.location?.href);
  const page = globalThis.location?.origin;
  let response: Response;
  try {
    // no-cache: a teacher who replaces the file beside the app should not see the old one served.
    response = await fetch(url, { mode: 'cors', credentials: 'same-origin', cache: 'no-cache', signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    if (globalThis.navigator?.onLine === false) throw new ImportError(said('lib_link_offline', { url: url.href }));
    throw new ImportError(url.origin === page ? said('lib_link_network', { url: url.href }) : said('lib_link_network_cors', { url: url.href, host: url.host }));
  }
  if (!response.ok) {
    throw new ImportError(
      response.status === 404 ? said('lib_link_not_found', { url: url.href }) : said('lib_link_status', { url: url.href, status: `${response.status} ${response.statusText}`.trim() }),
    );
  }
  const declared = Number(response.headers.get('Content-Length') ?? NaN);
  if (declared > maxBytes) throw new ImportError(said('lib_link_too_big', { url: url.href, size: formatBytes(declared), max: formatBytes(maxBytes) }));
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ImportError(said('lib_link_over_max', { url: url.href, max: formatBytes(maxBytes) }));
    }
    chunks.push(value);
  }
  const data = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    data.set(chunk, at);
    at += chunk.byteLength;
  }
  const name = fileName(url);
  const kind = importKind(name, data);
  const looksRight = (kind === 'session' && data[0] === 0x50 && data[1] === 0x4b) || (kind === 'notebook' && new TextDecoder().decode(data.subarray(0, 100)).trimStart().startsWith('{'));
  if (!looksRight) {
    const html = /^\s*</.test(new TextDecoder().decode(data.subarray(0, 100)));
    throw new ImportError(said(html ? 'lib_link_web_page' : 'lib_link_not_pytabs', { url: url.href }));
  }
  return { url: url.href, name, data };
}

/**
 * Imports a fetched prepared session as a new session (after the person agreed), keeping
 * the file so that `resetToOriginal` can bring the session back to it.
 */
export function openPrepared(manager: PortableManager, prepared: PreparedFile): Promise<ImportResult> {
  return importSession(manager, { name: prepared.name, data: prepared.data }, { origin: { url: prepared.url } });
}

/** Where a session opened by link came from, or null for any other session. */
export async function sessionOrigin(manager: PortableManager, sessionId: string): Promise<{ url: string; name: string; openedAt: number } | null> {
  const origin = await withStorage(manager, (db) => getOrigin(db, sessionId));
  return origin ? { url: origin.url, name: origin.name, openedAt: origin.openedAt } : null;
}

/**
 * Reset to original: the session's files, history, session variables and saved variables
 * become those of the file it was opened from, again (kept since, so this works offline).
 * Its Python restarts, since its memory holds what is being thrown away. Saved variables the
 * person had let load load again; ones never confirmed are held again.
 */
export async function resetToOriginal(manager: PortableManager, sessionId: string): Promise<ImportResult> {
  const origin = await withStorage(manager, (db) => getOrigin(db, sessionId));
  if (!origin) throw new SaidError(said('lib_link_no_origin'));
  await claimIdle(manager, sessionId);
  const prepared = await prepareImport(manager, { name: origin.name, data: origin.data }, sessionId, { trustState: origin.stateConfirmed });
  // The worker is ended before and after: one must not commit its memory over the reset.
  manager.storageChanged(sessionId, true);
  await withStorage(manager, (db) => replaceSessionContents(db, sessionId, { name: prepared.name, vars: prepared.vars }, prepared.contents));
  manager.storageChanged(sessionId, true);
  return summary(sessionId, prepared);
}
