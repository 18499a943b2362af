import { openDB, unwrap, type DBSchema, type IDBPDatabase } from 'idb';
import type { VariableInfo } from '../worker-api';
import { said, tellInEnglish, type Said } from '../i18n/said';

/** Bump with a migration in `upgrade` whenever a store or index changes. */
export const SCHEMA_VERSION = 2;
export const DEFAULT_DB_NAME = 'pytabs';

export interface SessionRecord {
  id: string;
  name: string;
  createdAt: number;
  lastActiveAt: number;
  totalExecutions: number;
  variableCount: number;
  /** Bytes of this session's files, pickled variables and `importsBytes`. */
  storageBytes: number;
  /**
   * Bytes this session holds in the `imports` store (held variables, the file it was opened
   * from), kept here so that a commit can count them without reading them. Missing on records
   * written before it was kept: `countImportsBytes` fills it in once.
   */
  importsBytes?: number;
  status: 'active' | 'inactive';
  /** Session variables read by Python's get_session_var. */
  vars: Record<string, string>;
  /** Next sequence number of the replay log. */
  replaySeq: number;
}

/** A workspace file's metadata; its bytes are in `fileData` under the same key. */
export interface FileRecord {
  sessionId: string;
  path: string;
  size: number;
  modifiedAt: number;
}

export interface FileDataRecord {
  sessionId: string;
  path: string;
  data: Uint8Array;
}

export interface VariableRecord extends VariableInfo {
  sessionId: string;
  /** Digest of the pickle, so an unchanged value is not rewritten. */
  hash?: string;
}

export interface PickleRecord {
  sessionId: string;
  name: string;
  data: Uint8Array;
}

/** A top-level import/def/class from a successful run, replayed in order on restore. */
export interface ReplayRecord {
  sessionId: string;
  seq: number;
  source: string;
}

/** A chat round as storage sees it: its key; the chat layer (src/lib/chat/types.ts) types the rest. */
export type RoundRecord = { sessionId: string; seq: number } & Record<string, unknown>;

export interface SettingRecord {
  key: string;
  value: unknown;
}

export interface PyTabsSchema extends DBSchema {
  sessions: { key: string; value: SessionRecord };
  files: { key: [string, string]; value: FileRecord };
  fileData: { key: [string, string]; value: FileDataRecord };
  variables: { key: [string, string]; value: VariableRecord };
  pickles: { key: [string, string]; value: PickleRecord };
  replay: { key: [string, number]; value: ReplayRecord };
  rounds: { key: [string, number]; value: RoundRecord };
  settings: { key: string; value: SettingRecord };
  imports: { key: [string, ImportRecord['kind']]; value: ImportRecord };
}

export type PyTabsDB = IDBPDatabase<PyTabsSchema>;

/**
 * Saved variables of an imported session, held back until the person confirms: they run
 * code when they load (pickles, replayed imports), and the file was made on another device.
 */
export interface HeldStateRecord {
  sessionId: string;
  kind: 'held';
  /** The file they came from, to name it when asking. */
  source: string;
  variables: Omit<VariableRecord, 'sessionId'>[];
  pickles: { name: string; data: Uint8Array }[];
  replay: string[];
}

/** The prepared file a session was opened from by link, kept whole for Reset to original. */
export interface OriginRecord {
  sessionId: string;
  kind: 'origin';
  url: string;
  name: string;
  data: Uint8Array;
  openedAt: number;
  /** Whether the person let its saved variables load; a reset then loads them again without asking. */
  stateConfirmed: boolean;
}

/**
 * The shared link a session was made from, by a digest of its contents: opening the same link
 * again can offer this session instead of making another. It goes when the session goes.
 */
export interface SharedLinkRecord {
  sessionId: string;
  kind: 'shared';
  key: string;
  openedAt: number;
}

/** One check: the name of a `def check_*():` in the check source, and what it is worth. */
export interface CheckSpec {
  name: string;
  points: number;
}

/** One program test: the program run with `input` as its stdin must print `expected`. */
export interface CaseSpec {
  /** Its column in the grades table ("case 1"); unique in the assignment. */
  name: string;
  /** The lines the program reads, each ending in a newline. */
  input: string;
  expected: string;
  points: number;
  /** Seconds this case may run; the assignment's limit when absent. */
  timeLimitSeconds?: number;
}

/**
 * An assignment's program tests: the student's program on each case (workers/python/pytabs/programs.py
 * runs it), its output compared by one rule on the page (src/lib/assignments/compare.ts).
 */
export interface ProgramTests {
  /** The workspace file that is the program ('main.py'); absent: the student's latest Code message (or the one they mark). */
  file?: string;
  /** 'judge': trailing spaces and blank lines ignored; 'exact'; 'numbers' within `tolerance`; 'function': `compareName` in the check source decides. */
  rule: 'judge' | 'exact' | 'numbers' | 'function';
  tolerance?: number;
  compareName?: string;
  cases: CaseSpec[];
}

/** An exercise as the teacher wrote it (src/lib/portability/assignment-file.ts reads and writes it). */
export interface Assignment {
  /** Stays the same when the teacher saves the assignment again: a hand-in is matched by it. */
  id: string;
  title: string;
  /** Markdown, shown above the student's chat. */
  instructions: string;
  /** Put in the student's editor when the session opens. */
  starterCode: string;
  /** Python defining the `def check_*():` functions (and any helpers they use). */
  checkSource: string;
  checks: CheckSpec[];
  /** Seconds a check, or a cell replayed while grading, may run. */
  timeLimitSeconds: number;
  /** Program tests beside the checks; absent in assignments that have none (and in files made before them). */
  program?: ProgramTests;
  /** For a test: the student's session shows no error explanations and offers no assistant (absent: it does). */
  noHelp?: true;
  /** sha256 of everything above but the id: says whether a hand-in was made from this version. */
  digest: string;
}

/** Who a session is to its assignment: the teacher saved it as one, or a student opened one. */
export type AssignmentRole = 'teacher' | 'student';

/** The assignment of a session, in the `imports` store under its id: it goes when the session goes. */
export interface AssignmentRecord {
  sessionId: string;
  kind: 'assignment';
  role: AssignmentRole;
  assignment: Assignment;
  /** The message (its number in the history) the student marked as their answer; absent: their latest Code message. */
  answer?: number;
  /**
   * The teacher's: the digests of the versions saved before this one, oldest first, so grading
   * can tell a hand-in of an earlier version from a forged copy. Absent: not known (a version
   * saved before they were kept).
   */
  earlier?: string[];
}

/**
 * The teacher's grades table for the session's assignment, kept so that a reload or a closed
 * tab does not lose a class's grading. Its rows are grading's (`GradeRow` in
 * src/lib/assignments/grading.ts), which storage keeps as they are. Like the history, it is
 * text and is not counted in the session's storage figure; it goes when the session goes,
 * and no export carries it.
 */
export interface GradesRecord<Row = unknown> {
  sessionId: string;
  kind: 'grades';
  /** The digest of the assignment version the rows were graded with. */
  digest: string;
  rows: Row[];
}

/**
 * Marks a session as an embed's (src/lib/embed): the page that embeds it (its origin, and the
 * path the page gave) and the embed's id name it, and only such a session answers the page's
 * messages. `key` is the digest of the author's version it was made from or last reset to.
 */
export interface EmbedRecord {
  sessionId: string;
  kind: 'embed';
  page: string;
  embedId: string;
  key: string;
  openedAt: number;
}

export type ImportRecord = HeldStateRecord | OriginRecord | SharedLinkRecord | AssignmentRecord | GradesRecord | EmbedRecord;

/** The bytes a session's `imports` records hold: the held pickles and the file it was opened from. */
export function importsBytesOf(held: Pick<HeldStateRecord, 'pickles'> | null, origin: Pick<OriginRecord, 'data'> | null): number {
  return (held?.pickles.reduce((sum, p) => sum + p.data.byteLength, 0) ?? 0) + (origin?.data.byteLength ?? 0);
}

/** Stores whose keys start with the session id; everything of a session lives in these. */
export const SESSION_STORES = ['files', 'fileData', 'variables', 'pickles', 'replay', 'rounds', 'imports'] as const;

/**
 * A failure to open the database, said for the page (errorText tells `said`). Its message is
 * English where English is known: a page that showed English, or the session worker, which
 * opens the database too and knows these two messages by name (workers/runtime/english.ts).
 */
class OpenError extends Error {
  constructor(readonly said: Said) {
    super(tellInEnglish(said));
  }
}

/** The database was written by a newer PyTabs: opening it with this schema could lose data. */
export class NewerSchemaError extends OpenError {
  constructor(name: string) {
    super(said('lib2_db_newer', { name, schema: SCHEMA_VERSION }));
    this.name = 'NewerSchemaError';
  }
}

/** The database is not there: PyTabs' data on this device was erased (or never made). */
export class StorageGoneError extends OpenError {
  constructor(name: string) {
    super(said('lib2_db_gone', { name }));
    this.name = 'StorageGoneError';
  }
}

export interface OpenOptions {
  /** Make the database (or upgrade it) when it is missing or older; false everywhere but the page's manager. */
  create?: boolean;
  /**
   * An older PyTabs in another tab holds the database open and does not let go, so the upgrade
   * waits (IndexedDB's `blocked`). The open goes on by itself once that tab closes or reloads.
   */
  onBlocked?: () => void;
}

/**
 * Opens (and with `create`, makes or upgrades) PyTabs' database. Only the page's manager
 * creates it; everything else (a session's worker, sessions as files, the erase listener)
 * opens it with `create: false`, so that an open that was queued behind an erase of all
 * data fails with StorageGoneError instead of bringing back an empty database.
 */
export async function openDb(name: string = DEFAULT_DB_NAME, { create = true, onBlocked }: OpenOptions = {}): Promise<PyTabsDB> {
  try {
    return tracked(await openSchema(name, create, onBlocked));
  } catch (error) {
    if ((error as DOMException)?.name === 'VersionError') throw new NewerSchemaError(name);
    if (!create && (error as DOMException)?.name === 'AbortError') throw new StorageGoneError(name);
    throw error;
  }
}

function openSchema(name: string, create: boolean, onBlocked?: () => void): Promise<PyTabsDB> {
  return openDB<PyTabsSchema>(name, SCHEMA_VERSION, {
    upgrade(db, oldVersion, _newVersion, transaction) {
      // Aborting the upgrade of a database that did not exist leaves none behind (IndexedDB spec).
      if (oldVersion === 0 && !create) {
        transaction.done.catch(() => undefined);
        transaction.abort();
        return;
      }
      if (oldVersion < 1) {
        db.createObjectStore('sessions', { keyPath: 'id' });
        db.createObjectStore('files', { keyPath: ['sessionId', 'path'] });
        db.createObjectStore('fileData', { keyPath: ['sessionId', 'path'] });
        db.createObjectStore('variables', { keyPath: ['sessionId', 'name'] });
        db.createObjectStore('pickles', { keyPath: ['sessionId', 'name'] });
        db.createObjectStore('replay', { keyPath: ['sessionId', 'seq'] });
        db.createObjectStore('rounds', { keyPath: ['sessionId', 'seq'] });
        db.createObjectStore('settings', { keyPath: 'key' });
      }
      if (oldVersion < 2) db.createObjectStore('imports', { keyPath: ['sessionId', 'kind'] });
    },
    blocked() {
      onBlocked?.();
    },
    // Another tab erases the data (or opens a newer schema): let go, or it waits for this tab.
    // The page hears of it through its own `versionchange` listener (portability/erase.ts).
    blocking(_current, _next, event) {
      (event.target as IDBDatabase).close();
    },
  });
}

/** This realm's transactions, on every connection openDb made, that have not finished (abortUnfinished). */
const unfinished = new Set<IDBTransaction>();

/** `db`, whose transactions are listed in `unfinished` until they complete or abort. */
function tracked(db: PyTabsDB): PyTabsDB {
  const native = unwrap(db) as IDBDatabase;
  const open = native.transaction.bind(native);
  // An own property of this connection: idb's wrapper calls it for db.transaction and its shortcuts (db.get, db.put).
  native.transaction = ((...args: Parameters<IDBDatabase['transaction']>) => {
    const tx = open(...args);
    unfinished.add(tx);
    const drop = () => unfinished.delete(tx);
    tx.addEventListener('complete', drop);
    tx.addEventListener('abort', drop);
    return tx;
  }) as IDBDatabase['transaction'];
  return db;
}

/**
 * Aborts every transaction of this page (or worker) still under way, for a page that goes
 * into the back/forward cache. WebKit freezes such a page with its transactions, and until it
 * is evicted they hold the stores they cover: the next page's writes there wait (an embed whose
 * course page was opened again never started in WebKitGTK: its readwrite transactions on
 * `sessions` and `variables` waited behind reads the frozen page had in flight). What they
 * would have written is lost, as it would be if the page closed.
 */
export function abortUnfinished(): void {
  for (const tx of unfinished) {
    try {
      tx.abort();
    } catch {
      // It finished meanwhile.
    }
  }
  unfinished.clear();
}

/** Every key of one session in a store keyed [sessionId, ...]: arrays sort after all strings and numbers. */
export function sessionRange(sessionId: string): IDBKeyRange {
  return IDBKeyRange.bound([sessionId], [sessionId, []]);
}
