import type { Round } from '../chat/types';
import { MAX_PATH_LENGTH, InvalidPathError, validateExistingPath, validateWorkspacePath } from '../paths';
import { formatBytes } from '../i18n/format';
import { SaidError, said, tell, type Said } from '../i18n/said';
import { newSessionRecord } from '../storage/sessions';
import { dropHeldState, getHeldState, releaseHeldState, writeNewSession, type SessionContents } from '../storage/imports';
import type { Settings } from '../storage/settings';
import { SessionElsewhereError } from '../sessions/ownership';
import { readArchive, type ArchiveRules } from './archive';
import { ASSIGNMENT_ENTRY, MAX_ASSIGNMENT_BYTES, SUBMISSION_ENTRY, readAssignment } from './assignment-file';
import { parseJson } from './checks';
import { ImportError } from './errors';
import { FILES_DIR } from './export';
import { HISTORY, OUTPUT_ENTRY, readHistory } from './history';
import {
  MAX_ENTRIES,
  MAX_FULL_OUTPUT_BYTES,
  MAX_HISTORY_BYTES,
  MAX_IMPORT_BYTES,
  MAX_MANIFEST_BYTES,
  MAX_STATE_LIST_BYTES,
} from './limits';
import { MANIFEST, PYODIDE_VERSION, SIGNATURE, checkManifest, verifyEntries, type Manifest } from './manifest';
import { withStorage, type PortableManager } from './manager';
import { NOTEBOOK, historyFromNotebook } from './notebook';
import { madeOnThisDevice } from './signature';
import { PICKLE_ENTRY, REPLAY, VARIABLES, readState } from './state';
import { sleep } from '../timing';
import { quoteName } from '../quote-name';

/** A file to import: a `.pytabs.zip`, an `.ipynb` or a `.py`. */
export interface ImportFile {
  name: string;
  data: Uint8Array;
}

/** What a new session was made from; 'shared' is a shared link (share-link.ts). */
export type ImportKind = 'session' | 'notebook' | 'python' | 'shared';

/** Saved variables of a session that wait for the person's yes before they load. */
export interface HeldSummary {
  /** The file they came from. */
  source: string;
  variables: string[];
  /** Import, def and class statements that run again when they load. */
  statements: number;
}

export interface ImportResult {
  /** The new session. */
  sessionId: string;
  name: string;
  kind: ImportKind;
  /** Its workspace files. */
  files: string[];
  /** Messages in its history. */
  rounds: number;
  /**
   * Saved variables held back because the file was made on another device: ask the person,
   * then `confirmImportedState` or `discardImportedState`. Null when nothing waits.
   */
  held: HeldSummary | null;
  /** For a notebook: the messages of its code cells, in order, for "Run all" (send each with `sendMessage`). */
  runAll: string[];
  /** Things the person should know, e.g. that it was made with another Pyodide. */
  warnings: Said[];
}

/** What a file becomes, before anything is written: everything in it checked. */
interface Prepared {
  kind: ImportKind;
  name: string;
  vars: Record<string, string>;
  contents: SessionContents;
  runAll: string[];
  warnings: Said[];
}

/** Whether a file is a session, a notebook or Python, by its name, else (a name without extension, as a link may have) by its first bytes. */
export function importKind(name: string, data?: Uint8Array): ImportKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'session';
  if (lower.endsWith('.ipynb')) return 'notebook';
  if (lower.endsWith('.py')) return 'python';
  if (/\.[a-z0-9]+$/.test(lower)) return null;
  if (data && data[0] === 0x50 && data[1] === 0x4b) return 'session';
  if (data && new TextDecoder().decode(data.subarray(0, 200)).trimStart().startsWith('{')) return 'notebook';
  return null;
}

/** A session name from a file name: without its extension, within the manager's rules. */
export function sessionNameFromFile(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const stem = base.replace(/(\.pytabs)?\.zip$|\.ipynb$|\.py$/i, '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return stem.slice(0, 100).trim() || tell(said('lib_imported_session_name'));
}

/**
 * A workspace path from an archive or a shared link, refused when it could leave the workspace or is not a
 * name at all ("..", absolute, empty, control characters, too long). Characters uploads may
 * not use but Python may write (`?`, `<`, `\`) are kept, so a session's own files come back.
 */
export function checkArchivePath(raw: string): string {
  try {
    const path = validateExistingPath(raw);
    if (path.length > MAX_PATH_LENGTH) throw new InvalidPathError(said('lib_import_name_too_long', { max: MAX_PATH_LENGTH }));
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(path)) throw new InvalidPathError(said('lib_import_name_control'));
    return path;
  } catch (error) {
    if (error instanceof InvalidPathError) throw new ImportError(said('lib_import_workspace_file', { name: quoteName(raw.slice(0, 200)), reason: error.said }));
    throw error;
  }
}

/** A workspace cannot hold "a" as a file and as the folder of "a/b": refuses such a pair. */
export function refuseFileFolderClash(paths: string[]): void {
  const all = new Set(paths);
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (all.has(folder)) throw new ImportError(said('lib_import_file_folder', { folder: quoteName(folder), path: quoteName(path) }));
    }
  }
}

const STATIC_LIMITS: Record<string, number> = {
  [MANIFEST]: MAX_MANIFEST_BYTES,
  [SIGNATURE]: 1024,
  [HISTORY]: MAX_HISTORY_BYTES,
  [NOTEBOOK]: MAX_HISTORY_BYTES,
  [VARIABLES]: MAX_STATE_LIST_BYTES,
  [REPLAY]: MAX_STATE_LIST_BYTES,
  [ASSIGNMENT_ENTRY]: MAX_ASSIGNMENT_BYTES,
  [SUBMISSION_ENTRY]: MAX_ASSIGNMENT_BYTES,
  'files/': 0,
  'history/': 0,
  'state/': 0,
  'state/pickles/': 0,
};

/** The entries a `.pytabs.zip` may hold, and how big each may unpack, under this device's settings. */
function archiveRules(settings: Settings): ArchiveRules {
  return {
    maxEntries: MAX_ENTRIES,
    maxTotal: MAX_IMPORT_BYTES,
    limitFor(name) {
      if (name in STATIC_LIMITS) return STATIC_LIMITS[name];
      if (OUTPUT_ENTRY.test(name)) return MAX_FULL_OUTPUT_BYTES;
      if (PICKLE_ENTRY.test(name)) return settings.variableLimitBytes;
      if (name.startsWith(FILES_DIR)) {
        const folder = name.endsWith('/');
        checkArchivePath(name.slice(FILES_DIR.length, folder ? -1 : undefined));
        return folder ? 0 : settings.sessionLimitBytes;
      }
      throw new ImportError(said('lib_import_unexpected_entry', { name: quoteName(name.slice(0, 200)) }));
    },
  };
}

/** A `.pytabs.zip` read and checked whole, without storage: its manifest, entries, files and history. */
export interface SessionArchive {
  manifest: Manifest;
  entries: Map<string, Uint8Array>;
  files: SessionContents['files'];
  rounds: Round[];
}

/**
 * Reads a `.pytabs.zip` under this device's limits: every entry checked against its manifest,
 * every path and the history; throws an ImportError saying what is wrong.
 */
export async function readSessionArchive(data: Uint8Array, settings: Settings, sessionId: string): Promise<SessionArchive> {
  const entries = readArchive(data, archiveRules(settings));
  const manifestBytes = entries.get(MANIFEST);
  if (!manifestBytes) throw new ImportError(said('lib_import_no_manifest'));
  const manifest = checkManifest(parseJson(manifestBytes, MANIFEST));
  await verifyEntries(manifest, entries);
  const files: SessionContents['files'] = [];
  for (const [name, data] of entries) {
    if (!name.startsWith(FILES_DIR)) continue;
    files.push({ path: checkArchivePath(name.slice(FILES_DIR.length)), data, modifiedAt: manifest.entries[name].modifiedAt ?? manifest.exportedAt });
  }
  refuseFileFolderClash(files.map((f) => f.path));
  const history = entries.get(HISTORY);
  const rounds = history ? readHistory(history, sessionId, entries) : [];
  return { manifest, entries, files, rounds };
}

async function prepareSession(manager: PortableManager, file: ImportFile, sessionId: string, trustState: boolean): Promise<Prepared> {
  const settings = manager.getSettings();
  const { manifest, entries, files, rounds } = await readSessionArchive(file.data, settings, sessionId);
  const manifestBytes = entries.get(MANIFEST)!;
  const state = readState(entries, { variableBytes: settings.variableLimitBytes, sessionBytes: settings.sessionLimitBytes });

  const warnings: Said[] = [];
  const contents: SessionContents = { files, rounds, variables: [], pickles: [], replay: [], held: null, origin: null };
  const assignment = entries.get(ASSIGNMENT_ENTRY);
  // A session opened from an assignment (or a hand-in) is the student's side of it.
  if (assignment) contents.assignment = { role: 'student', assignment: await readAssignment(parseJson(assignment, ASSIGNMENT_ENTRY)) };
  if (state) {
    const local = await withStorage(manager, (db) => madeOnThisDevice(db, manifestBytes, entries.get(SIGNATURE)));
    if (trustState || (local && !manifest.stateHeld)) Object.assign(contents, state);
    else contents.held = { source: file.name, ...state };
    if (manifest.pyodide !== PYODIDE_VERSION) {
      warnings.push(said('lib_import_pyodide_differs', { saved: manifest.pyodide, running: PYODIDE_VERSION }));
    }
  }
  return { kind: 'session', name: manifest.session.name, vars: manifest.session.vars, contents, runAll: [], warnings };
}

function prepareNotebook(file: ImportFile, sessionId: string, now: number): Prepared {
  if (file.data.byteLength > MAX_HISTORY_BYTES) {
    throw new ImportError(said('lib_import_notebook_too_big', { size: formatBytes(file.data.byteLength), max: formatBytes(MAX_HISTORY_BYTES) }));
  }
  const { rounds, runAll } = historyFromNotebook(file.data, sessionId, file.name, now);
  const contents: SessionContents = { files: [], rounds, variables: [], pickles: [], replay: [], held: null, origin: null };
  return { kind: 'notebook', name: sessionNameFromFile(file.name), vars: {}, contents, runAll, warnings: [] };
}

function preparePython(file: ImportFile, settings: Settings, now: number): Prepared {
  const base = file.name.split(/[/\\]/).pop() ?? file.name;
  let path: string;
  try {
    path = validateWorkspacePath(base);
  } catch (error) {
    throw new ImportError((error as InvalidPathError).said);
  }
  if (file.data.byteLength > settings.sessionLimitBytes) {
    throw new ImportError(said('lib_import_session_too_big', { size: formatBytes(file.data.byteLength), max: formatBytes(settings.sessionLimitBytes) }));
  }
  // A copy that owns its bytes: storage would keep the whole buffer behind a view.
  const contents: SessionContents = { files: [{ path, data: file.data.slice(), modifiedAt: now }], rounds: [], variables: [], pickles: [], replay: [], held: null, origin: null };
  return { kind: 'python', name: sessionNameFromFile(file.name), vars: {}, contents, runAll: [], warnings: [] };
}

/**
 * Reads and checks a file completely, before anything is written. `trustState` loads saved
 * variables without asking (a reset of a session whose person already said yes).
 */
export async function prepareImport(
  manager: PortableManager,
  file: ImportFile,
  sessionId: string,
  { now = Date.now(), trustState = false } = {},
): Promise<Prepared> {
  try {
    if (file.data.byteLength > MAX_IMPORT_BYTES) {
      throw new ImportError(said('lib_import_too_big', { size: formatBytes(file.data.byteLength), max: formatBytes(MAX_IMPORT_BYTES) }));
    }
    const kind = importKind(file.name, file.data);
    if (kind === 'session') return await prepareSession(manager, file, sessionId, trustState);
    if (kind === 'notebook') return prepareNotebook(file, sessionId, now);
    if (kind === 'python') return preparePython(file, manager.getSettings(), now);
    throw new ImportError(said('lib_import_unknown_kind'));
  } catch (error) {
    if (error instanceof ImportError) throw new ImportError(said('rt_cannot_import', { name: quoteName(file.name.slice(0, 200)), error: error.said ?? error.message }));
    throw error;
  }
}

/** What the UI is told of an imported (or reset) session. */
export function summary(sessionId: string, prepared: Prepared): ImportResult {
  const { contents } = prepared;
  return {
    sessionId,
    name: prepared.name,
    kind: prepared.kind,
    files: contents.files.map((f) => f.path),
    rounds: contents.rounds.length,
    held: contents.held ? heldSummary(contents.held) : null,
    runAll: prepared.runAll,
    warnings: prepared.warnings,
  };
}

function heldSummary(held: NonNullable<SessionContents['held']>): HeldSummary {
  return { source: held.source, variables: held.variables.map((v) => v.name), statements: held.replay.length };
}

/**
 * Imports a file as a NEW session: a `.pytabs.zip` (files, history, session variables and
 * saved variables: those made on another device are held until confirmed), an `.ipynb`
 * (its cells become history, not run: `runAll` lists what "Run all" sends) or a `.py` (a
 * workspace file). Everything is checked first and written in one transaction; a file that
 * fails a check throws an ImportError saying why, and nothing is written.
 */
export async function importSession(
  manager: PortableManager,
  file: ImportFile,
  { origin, now = Date.now() }: { origin?: { url: string }; now?: number } = {},
): Promise<ImportResult> {
  const sessionId = crypto.randomUUID();
  const prepared = await prepareImport(manager, file, sessionId, { now });
  if (origin) {
    prepared.contents.origin = { url: origin.url, name: file.name, data: file.data.slice(), openedAt: now, stateConfirmed: false };
  }
  const record = { ...newSessionRecord(sessionId, prepared.name, now), vars: prepared.vars };
  try {
    await withStorage(manager, (db) => writeNewSession(db, record, prepared.contents));
  } catch (error) {
    throw new SaidError(said('lib_import_storage_refused', { name: quoteName(file.name.slice(0, 200)), error: (error as Error).message }));
  }
  manager.storageChanged(sessionId, false);
  return summary(sessionId, prepared);
}

/** What a session holds back for confirmation, or null. */
export async function heldState(manager: PortableManager, sessionId: string): Promise<HeldSummary | null> {
  const held = await withStorage(manager, (db) => getHeldState(db, sessionId));
  return held ? heldSummary(held) : null;
}

/** Changing a session's storage needs this tab to own it, with no message running. */
/** How long a change waits for the session's Python to finish starting. */
const START_WAIT_MS = 60_000;

export async function claimIdle(manager: PortableManager, sessionId: string): Promise<void> {
  let info = await manager.getSession(sessionId);
  if ((await manager.claim(sessionId)) !== 'owned') throw new SessionElsewhereError();
  // A start is not the person's work: the page may show the session ready a frame before its
  // Python starts (it starts as it opens), so a click then waits for the start instead of failing.
  for (const until = Date.now() + START_WAIT_MS; info.status === 'starting' && Date.now() < until; ) {
    await sleep(100);
    info = await manager.getSession(sessionId);
  }
  if (info.status === 'running' || info.status === 'starting') {
    throw new SaidError(said('lib_session_busy'));
  }
}

/**
 * The person said yes: the held variables load. They go under what the session has of its
 * own (its own values win a name both have, its replay log runs after theirs); Python
 * restarts from storage so they load now.
 */
export async function confirmImportedState(manager: PortableManager, sessionId: string): Promise<void> {
  await claimIdle(manager, sessionId);
  await withStorage(manager, async (db) => {
    if (!(await getHeldState(db, sessionId))) throw new SaidError(said('lib_no_held_variables'));
    // The worker is ended before and after: one must not commit its memory over the change.
    manager.storageChanged(sessionId, true);
    await releaseHeldState(db, sessionId);
  });
  manager.storageChanged(sessionId, true);
}

/** The person said no: the held variables are forgotten; files and history stay. */
export async function discardImportedState(manager: PortableManager, sessionId: string): Promise<void> {
  if (await withStorage(manager, (db) => dropHeldState(db, sessionId))) manager.storageChanged(sessionId, false);
}
