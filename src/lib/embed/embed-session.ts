import { formatCount } from '../i18n/format';
import { SaidError, said, tell } from '../i18n/said';
import { newSessionRecord } from '../storage/sessions';
import { findEmbedSession, getEmbedMark, readShareable, replaceSessionContents, writeNewSession, type SessionContents } from '../storage/imports';
import { withStorage, type PortableManager } from '../portability/manager';
import { MAX_SHARE_CHARS, MAX_SHARED_BYTES, encodeShare, type OpenedShare, type SharedSession } from '../portability/share-link';
import { SHARE_VERSION, packShare } from '../portability/share-format';
import { asText } from '../portability/shared-session';
import { embedFragment, type EmbedSettings } from './fragment';
import type { EmbedOptions } from './options';

/** The page an embed is on, as this frame can know it. */
export interface EmbedPage {
  /** The embedding page's origin; null when the browser does not say (then no page may talk to the embed). */
  origin: string | null;
  /** What the embed's session is kept under: the origin and the path the page gave. */
  key: string;
}

export interface FrameFacts {
  /** Whether this document is the top-level one (opened directly, not in an iframe). */
  top: boolean;
  selfOrigin: string;
  /** `location.ancestorOrigins` (Chromium, WebKit); Firefox has none. */
  ancestorOrigins?: ArrayLike<string>;
  referrer: string;
  /** The origin of the page's hello (bridge.ts, parentHelloOrigin), where neither of the others told it. */
  helloOrigin?: string | null;
}

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The embedding page: its origin from `ancestorOrigins` where the browser has it, else from the
 * referrer (origin only: a cross-site referrer carries no more by default), else from the page's
 * hello; `path` is the one the page gave. Each origin comes from the browser, so a page can name
 * paths only of its own.
 */
export function embedPage(frame: FrameFacts, path: string): EmbedPage {
  const origin = frame.top
    ? frame.selfOrigin
    : ((frame.ancestorOrigins?.length ? originOf(frame.ancestorOrigins[0]) : null) ?? originOf(frame.referrer) ?? originOf(frame.helloOrigin ?? ''));
  return { origin, key: `${origin ?? 'unknown page'}${path}` };
}

/** The author's version as a session's contents (files only: no history, no variables), with its embed mark. */
function authorContents(author: OpenedShare | null, now: number, embed: NonNullable<SessionContents['embed']>): SessionContents {
  const encoder = new TextEncoder();
  return {
    files: (author?.session.files ?? []).map((f) => ({ path: f.path, data: encoder.encode(f.text), modifiedAt: now })),
    rounds: [],
    variables: [],
    pickles: [],
    replay: [],
    held: null,
    origin: null,
    embed,
  };
}

/** The author's code, as the embed's editor shows it first: the cells of the link, one after another. */
export function authorCode(author: OpenedShare | null): string {
  return author?.session.cells.join('\n\n') ?? '';
}

export interface EmbedSession {
  sessionId: string;
  /** Whether it was made now (a first visit) rather than found (the reader came back). */
  made: boolean;
  /** Whether the author's version changed since the session was made from it (or last reset to it). */
  authorChanged: boolean;
}

/**
 * The session of this embed on this page: the one kept for it, or a new one holding the
 * author's files (written with its embed mark in one transaction; nothing runs).
 */
export async function openEmbedSession(manager: PortableManager, page: EmbedPage, options: EmbedOptions, author: OpenedShare | null, now = Date.now()): Promise<EmbedSession> {
  const key = author?.key ?? '';
  const found = await withStorage(manager, (db) => findEmbedSession(db, page.key, options.id));
  if (found) return { sessionId: found.record.id, made: false, authorChanged: found.mark.key !== key };
  const sessionId = crypto.randomUUID();
  const contents = authorContents(author, now, { page: page.key, embedId: options.id, key, openedAt: now });
  const name = author?.session.name && author.session.name !== tell(said('lib_shared_session_name')) ? author.session.name : tell(said('lib_embed_session_name', { id: options.id }));
  await withStorage(manager, (db) => writeNewSession(db, newSessionRecord(sessionId, name, now), contents));
  manager.storageChanged(sessionId, false);
  return { sessionId, made: true, authorChanged: false };
}

/**
 * Reset: the session goes back to the author's version (its files; no history, no variables),
 * in one transaction, keeping its id and its embed mark; its Python restarts from that.
 */
export async function resetEmbed(manager: PortableManager, sessionId: string, page: EmbedPage, options: EmbedOptions, author: OpenedShare | null, now = Date.now()): Promise<void> {
  await withStorage(manager, async (db) => {
    const mark = await getEmbedMark(db, sessionId);
    if (!mark || mark.page !== page.key || mark.embedId !== options.id) throw new SaidError(said('lib_embed_not_this'));
    const contents = authorContents(author, now, { page: mark.page, embedId: mark.embedId, key: author?.key ?? '', openedAt: mark.openedAt });
    await replaceSessionContents(db, sessionId, { name: (await db.get('sessions', sessionId))?.name ?? `Embed ${options.id}`, vars: {} }, contents, now);
  });
  manager.storageChanged(sessionId, true);
}

/** Whether `sessionId` is the session of the embed `embedId` on the page `pageKey` (and so may answer that page). */
export async function isEmbedSession(manager: PortableManager, sessionId: string, pageKey: string, embedId: string): Promise<boolean> {
  const mark = await withStorage(manager, (db) => getEmbedMark(db, sessionId));
  return mark !== null && mark.page === pageKey && mark.embedId === embedId;
}

/** A session's name, typed cells and text files, as a link carries them. */
async function textFiles(manager: PortableManager, sessionId: string): Promise<{ name: string; cells: string[]; files: SharedSession['files'] } | null> {
  const stored = await withStorage(manager, (db) => readShareable(db, sessionId));
  if (!stored) return null;
  const files: SharedSession['files'] = [];
  for (const file of stored.files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const text = asText(file.data);
    if (text !== null) files.push({ path: file.path, text });
  }
  const cells = stored.rounds.sort((a, b) => a.seq - b.seq).filter((r) => r.kind !== 'ask').map((r) => r.message);
  return { name: stored.record.name, cells, files };
}

/**
 * Open in PyTabs: a shared link (`#/share?…`) to the app at `appUrl` carrying the reader's code
 * and the session's text files, so it opens as a full session in any browser tab: an embed's
 * storage may be partitioned by the page around it, where the app's own tab cannot see it.
 */
export async function openInPyTabsUrl(manager: PortableManager, sessionId: string, code: string, appUrl: string): Promise<string> {
  const stored = await textFiles(manager, sessionId);
  if (!stored) throw new SaidError(said('lib_embed_gone'));
  const { fragment, bytes } = encodeShare({ name: stored.name, cells: [code], files: stored.files });
  const url = `${appUrl.replace(/#.*$/, '')}${fragment}`;
  if (url.length > MAX_SHARE_CHARS || bytes > MAX_SHARED_BYTES) throw new SaidError(said('lib_embed_too_big', { length: formatCount(url.length), max: formatCount(MAX_SHARE_CHARS) }));
  return url;
}

/** What "Embed" offers for a session: the address and the `<iframe>` snippet, or why there is none. */
export interface EmbedOffer {
  src: string | null;
  snippet: string | null;
  chars: number;
  maxChars: number;
  cells: number;
  files: string[];
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Embed: the session's typed code (its cells, one after another) and text files in an embed's address for the app at `appUrl`. */
export async function embedSession(manager: PortableManager, sessionId: string, appUrl: string, settings: EmbedSettings, height = 360): Promise<EmbedOffer> {
  const stored = await textFiles(manager, sessionId);
  if (!stored) throw new SaidError(said('lib_embed_no_session'));
  const packed = packShare({ name: stored.name, cells: [stored.cells.join('\n\n')], files: stored.files });
  const src = `${appUrl.replace(/#.*$/, '')}${embedFragment(settings, { version: SHARE_VERSION, data: packed.data })}`;
  const fits = src.length <= MAX_SHARE_CHARS && packed.bytes <= MAX_SHARED_BYTES;
  const snippet = `<iframe src="${escapeAttr(src)}" title="${escapeAttr(`Python: ${stored.name}`)}" style="width: 100%; height: ${height}px; border: 0" loading="lazy"></iframe>`;
  return { src: fits ? src : null, snippet: fits ? snippet : null, chars: src.length, maxChars: MAX_SHARE_CHARS, cells: stored.cells.length, files: stored.files.map((f) => f.path) };
}
