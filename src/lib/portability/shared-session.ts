import { SaidError, said, type Said } from '../i18n/said';
import { newSessionRecord } from '../storage/sessions';
import { findSharedSession, readShareable, writeNewSession, type SessionContents } from '../storage/imports';
import { summary, type ImportResult } from './import';
import { withStorage, type PortableManager } from './manager';
import { importedRound } from './notebook';
import { MAX_SHARE_CHARS, MAX_SHARED_BYTES, encodeShare, type OpenedShare, type SharedSession } from './share-link';

/** What Share made of a session: the link, or why there is none, and what it carries. */
export interface ShareOffer {
  /** The whole link; null when it would be longer than `maxChars`. */
  url: string | null;
  /** Characters of the link (as it would be, when over the limit). */
  chars: number;
  maxChars: number;
  cells: number;
  files: { path: string; size: number }[];
  /** Files a link does not carry, with the reason (binary files: a link carries text). */
  leftOut: { path: string; why: Said }[];
  /** Questions to the assistant: a link carries the code that was typed, not them. */
  questions: number;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's bytes as text when they are UTF-8 without NUL (what a link carries), else null. */
export function asText(data: Uint8Array): string | null {
  try {
    const text = strictUtf8.decode(data);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

/**
 * Share: a link to this session's last saved state, made on the page `pageUrl` (its fragment
 * is replaced). It carries the session's name, every typed Code message in order and the
 * files that are text; over MAX_SHARE_CHARS there is no link, and the offer says how long it
 * would have been.
 */
export async function shareSession(manager: PortableManager, sessionId: string, pageUrl: string): Promise<ShareOffer> {
  const stored = await withStorage(manager, (db) => readShareable(db, sessionId));
  if (!stored) throw new SaidError(said('lib_share_no_session'));
  const rounds = stored.rounds.sort((a, b) => a.seq - b.seq);
  const cells = rounds.filter((r) => r.kind !== 'ask').map((r) => r.message);
  const files: SharedSession['files'] = [];
  const leftOut: ShareOffer['leftOut'] = [];
  for (const file of stored.files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const text = asText(file.data);
    if (text === null) leftOut.push({ path: file.path, why: said('lib_share_not_text') });
    else files.push({ path: file.path, text });
  }
  const { fragment, bytes } = encodeShare({ name: stored.record.name, cells, files });
  const url = new URL(pageUrl);
  url.hash = '';
  const link = `${url.href.replace(/#$/, '')}${fragment}`;
  const fits = link.length <= MAX_SHARE_CHARS && bytes <= MAX_SHARED_BYTES;
  return {
    url: fits ? link : null,
    chars: link.length,
    maxChars: MAX_SHARE_CHARS,
    cells: cells.length,
    files: files.map((f) => ({ path: f.path, size: new TextEncoder().encode(f.text).byteLength })),
    leftOut,
    questions: rounds.length - cells.length,
  };
}

/** The session a shared link made earlier in this browser (still here), by the link's key. */
export async function sessionFromShare(manager: PortableManager, key: string): Promise<{ id: string; name: string } | null> {
  const found = await withStorage(manager, (db) => findSharedSession(db, key));
  return found ? { id: found.id, name: found.name } : null;
}

/** How the chat names where such a session's first messages came from. */
export const SHARED_SOURCE = 'a shared link';

/**
 * Open as a new session: the link's files in its workspace and its cells as history that has
 * not run (`runAll` lists them for "Run all"), remembered under the link's key so that opening
 * the link again can offer this session. Written in one transaction; nothing runs.
 */
export async function openShared(manager: PortableManager, opened: OpenedShare, now = Date.now()): Promise<ImportResult> {
  const sessionId = crypto.randomUUID();
  const { session } = opened;
  const encoder = new TextEncoder();
  const contents: SessionContents = {
    files: session.files.map((f) => ({ path: f.path, data: encoder.encode(f.text), modifiedAt: now })),
    rounds: session.cells.map((cell, i) => importedRound(sessionId, i + 1, cell, [], SHARED_SOURCE, now)),
    variables: [],
    pickles: [],
    replay: [],
    held: null,
    origin: null,
    shared: { key: opened.key, openedAt: now },
  };
  try {
    await withStorage(manager, (db) => writeNewSession(db, newSessionRecord(sessionId, session.name, now), contents));
  } catch (error) {
    throw new SaidError(said('lib_share_storage_refused', { error: (error as Error).message }));
  }
  manager.storageChanged(sessionId, false);
  return summary(sessionId, { kind: 'shared', name: session.name, vars: {}, contents, runAll: session.cells, warnings: [] });
}
