import { SaidError, said } from '../i18n/said';
import type { PyTabsDB, SessionRecord } from '../storage/db';
import { listSessionRecords } from '../storage/sessions';
import { readSessionContents, type SessionContents } from '../storage/imports';
import { writeArchive } from './archive';
import { encodeJson } from './checks';
import { historyEntries } from './history';
import { APP_VERSION, FORMAT, FORMAT_VERSION, MANIFEST, PYODIDE_VERSION, SIGNATURE, sha256Hex, type EntryInfo, type Manifest } from './manifest';
import { withStorage, type PortableManager } from './manager';
import { NOTEBOOK, notebookFromHistory } from './notebook';
import { signManifest } from './signature';
import { isEmptyState, stateEntries, type SavedState } from './state';

/** A file for the person to save: its suggested name and its bytes. */
export interface ExportedFile {
  name: string;
  data: Uint8Array;
}

export const FILES_DIR = 'files/';
export const SESSION_SUFFIX = '.pytabs.zip';

/** A name any file system accepts, from a session's name. */
export function fileNameFor(name: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '').slice(0, 100);
  return safe || 'session';
}

/**
 * The state an export carries: what loads when the session starts, plus anything still held
 * for confirmation (underneath, as confirming would put it), in which case all of it stays
 * held wherever the file goes.
 */
function savedState(contents: SessionContents): { state: SavedState; held: boolean } {
  const own: SavedState = {
    variables: contents.variables.map(({ hash: _, ...meta }) => meta),
    pickles: contents.pickles,
    replay: contents.replay,
  };
  const held = contents.held;
  if (!held) return { state: own, held: false };
  const taken = new Set(own.variables.map((v) => v.name));
  return {
    held: true,
    state: {
      variables: [...own.variables, ...held.variables.filter((v) => !taken.has(v.name)).map(({ hash: _, ...meta }) => meta)],
      pickles: [...own.pickles, ...held.pickles.filter((p) => !taken.has(p.name))],
      replay: [...held.replay, ...own.replay],
    },
  };
}

/**
 * Packs a session as `<name>.pytabs.zip`: manifest.json (versions, name, session variables,
 * the sha256 of every other entry), manifest.sig (this device's signature), files/ (the
 * workspace byte for byte), history.ipynb, history.json (lossless), and state/ (pickles,
 * variable metadata and the replay log). Reads one consistent commit of the session.
 */
export async function exportSession(manager: PortableManager, sessionId: string, now = Date.now()): Promise<ExportedFile> {
  return withStorage(manager, async (db) => {
    const read = await readSessionContents(db, sessionId);
    if (!read) throw new SaidError(said('lib_export_no_session'));
    return packSession(db, read.record, read.contents, now);
  });
}

/**
 * The archive of one session as read, signed with this device's key; `extra` entries (an
 * assignment, a hand-in) are listed in the manifest like the others.
 */
export async function packSession(
  db: PyTabsDB,
  record: Pick<SessionRecord, 'name' | 'createdAt' | 'vars'>,
  contents: SessionContents,
  now: number,
  extra: Map<string, Uint8Array> = new Map(),
): Promise<ExportedFile> {
  const entries = new Map<string, Uint8Array>(extra);
  const modified = new Map<string, number>();
  for (const file of contents.files) {
    entries.set(FILES_DIR + file.path, file.data);
    modified.set(FILES_DIR + file.path, file.modifiedAt);
  }
  for (const [name, data] of await historyEntries(contents.rounds)) entries.set(name, data);
  entries.set(NOTEBOOK, encodeJson(notebookFromHistory(contents.rounds)));
  const { state, held } = savedState(contents);
  if (!isEmptyState(state)) for (const [name, data] of stateEntries(state)) entries.set(name, data);

  const listed: Record<string, EntryInfo> = {};
  for (const [name, data] of entries) {
    listed[name] = { sha256: await sha256Hex(data), size: data.byteLength };
    const modifiedAt = modified.get(name);
    if (modifiedAt !== undefined) listed[name].modifiedAt = modifiedAt;
  }
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    app: { name: 'PyTabs', version: APP_VERSION },
    pyodide: PYODIDE_VERSION,
    exportedAt: now,
    session: { name: record.name, createdAt: record.createdAt, vars: record.vars },
    stateHeld: held,
    entries: listed,
  };
  const manifestBytes = encodeJson(manifest);
  const archive = new Map([
    [MANIFEST, manifestBytes],
    [SIGNATURE, await signManifest(db, manifestBytes)],
    ...entries,
  ]);
  return { name: fileNameFor(record.name) + SESSION_SUFFIX, data: writeArchive(archive) };
}

/** Every session's export in one zip ("Download all my work"), each under a name of its own. */
export async function downloadAllWork(manager: PortableManager, now = Date.now()): Promise<ExportedFile> {
  const archive = new Map<string, Uint8Array>();
  for (const record of await withStorage(manager, listSessionRecords)) {
    const file = await exportSession(manager, record.id, now);
    let name = file.name;
    for (let n = 2; archive.has(name); n++) name = file.name.replace(SESSION_SUFFIX, ` (${n})${SESSION_SUFFIX}`);
    archive.set(name, file.data);
  }
  const day = new Date(now).toISOString().slice(0, 10);
  return { name: `pytabs-work-${day}.zip`, data: writeArchive(archive, { store: true }) };
}
