import { Inflate } from 'fflate';
import { formatBytes } from '../i18n/format';
import { said, tell } from '../i18n/said';
import { joinChunks } from './archive';
import { list, parseJson, record, text } from './checks';
import { ImportError } from './errors';
import { checkArchivePath, refuseFileFolderClash } from './import';
import { MAX_MESSAGE_CHARS } from './limits';
import { SHARE_VERSION, packShare, type SharedSession } from './share-format';
import { quoteName } from '../quote-name';

export { SHARE_VERSION, type SharedFile, type SharedSession } from './share-format';

/**
 * A session in a link: `#/share?v=1&z=<data>` (share-format.ts). It is in the fragment, which
 * browsers never send to the host, so the page's host never sees the code.
 */
export const SHARE_ROUTE = '#/share';

/**
 * The longest link Share makes, in characters: mail, chats and course pages keep a link this
 * long whole, and every browser's address bar takes it (Chromium and Firefox allow far more).
 */
export const MAX_SHARE_CHARS = 16 * 1024;
/** The longest fragment a link may have to be opened: links from elsewhere get some room, never unbounded. */
export const MAX_FRAGMENT_CHARS = 64 * 1024;
/** The most a link's contents may unpack to, checked while unpacking (a zip bomb stops here). */
export const MAX_SHARED_BYTES = 1024 * 1024;
export const MAX_SHARED_CELLS = 1000;
export const MAX_SHARED_FILES = 200;

/**
 * Compressed input goes in slices this big, with the size checked after each: DEFLATE unpacks
 * at most ~1032 times its input, so no slice can take more than ~0.5 MB past the limit.
 */
const SLICE = 512;

/** A link read and checked: its contents and a digest of them, which names the link whatever its compression. */
export interface OpenedShare {
  session: SharedSession;
  key: string;
}

function fromBase64Url(data: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(data) || data.length % 4 === 1) throw new ImportError(said('lib_share_not_base64'));
  const binary = atob(data.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (data.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The link's fragment for a session, and how many bytes its contents unpack to. */
export function encodeShare(session: SharedSession): { fragment: string; bytes: number } {
  const { data, bytes } = packShare(session);
  return { fragment: `${SHARE_ROUTE}?v=${SHARE_VERSION}&z=${data}`, bytes };
}

/** Whether an address's fragment is a shared link (checked or not). */
export function isShareLink(hash: string): boolean {
  return hash === SHARE_ROUTE || hash.startsWith(`${SHARE_ROUTE}?`);
}

/** Unpacks raw DEFLATE data, stopping as soon as the output passes `max`. */
function inflateCapped(data: Uint8Array, max: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const inflate = new Inflate((chunk) => {
    size += chunk.length;
    if (size > max) throw new ImportError(said('lib_share_too_big', { max: formatBytes(max) }));
    chunks.push(chunk);
  });
  try {
    if (!data.length) inflate.push(data, true);
    for (let at = 0; at < data.length; at += SLICE) inflate.push(data.subarray(at, at + SLICE), at + SLICE >= data.length);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(said('lib_share_damaged', { error: (error as Error).message }));
  }
  return joinChunks(chunks, size);
}

function checkSession(value: unknown): SharedSession {
  const root = record(value, said('lib_what_data'));
  // eslint-disable-next-line no-control-regex
  const name = text(root.name ?? '', said('lib_what_name'), 1000).replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 100).trim() || tell(said('lib_shared_session_name'));
  const cells = list(root.cells, said('lib_what_cells'), MAX_SHARED_CELLS).map((cell, i) => text(cell, said('lib_what_cell', { number: i + 1 }), MAX_MESSAGE_CHARS));
  const seen = new Set<string>();
  const files = list(root.files ?? [], said('lib_what_files'), MAX_SHARED_FILES).map((value, i) => {
    const file = record(value, said('lib_what_file', { number: i + 1 }));
    const path = checkArchivePath(text(file.path, said('lib_what_file_path', { number: i + 1 }), 1000));
    if (seen.has(path)) throw new ImportError(said('lib_share_twice', { name: quoteName(path) }));
    seen.add(path);
    return { path, text: text(file.text, said('lib_what_file_named', { name: quoteName(path) }), MAX_SHARED_BYTES) };
  });
  refuseFileFolderClash(files.map((f) => f.path));
  return { name, cells, files };
}

async function digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Reads a session from a fragment's parameters (`v`, `z`), with the same caps and checks as a
 * shared link; an ImportError says what is wrong, before anything is written.
 */
export async function readSharedParams(params: URLSearchParams): Promise<OpenedShare> {
  const version = params.get('v');
  if (version !== String(SHARE_VERSION)) {
    throw new ImportError(version === null ? said('lib_share_no_version') : said('lib_share_version', { version: version.slice(0, 20), reads: SHARE_VERSION }));
  }
  const data = params.get('z');
  if (!data) throw new ImportError(said('lib_share_no_data'));
  const json = inflateCapped(fromBase64Url(data), MAX_SHARED_BYTES);
  const session = checkSession(parseJson(json, said('lib_what_data')));
  return { session, key: await digest(json) };
}

/**
 * Reads a shared link's fragment; null when the address is not a shared link. A link that is
 * too long, damaged, of another version, unpacks to too much, or names files that could
 * leave the workspace throws an ImportError saying which, before anything is written.
 */
export async function decodeShare(hash: string): Promise<OpenedShare | null> {
  if (!isShareLink(hash)) return null;
  try {
    if (hash.length > MAX_FRAGMENT_CHARS) throw new ImportError(said('lib_share_too_long', { length: hash.length, max: MAX_FRAGMENT_CHARS }));
    return await readSharedParams(new URLSearchParams(hash.slice(SHARE_ROUTE.length + 1)));
  } catch (error) {
    if (error instanceof ImportError) throw new ImportError(said('lib_share_cannot_open', { reason: error.said ?? error.message }));
    throw error;
  }
}
