import { commitChange, type SessionChange } from './commit';
import { sessionRange, type FileRecord, type PyTabsDB, type RoundRecord, type VariableRecord } from './db';
import { listFileRecords, readAllFiles, readFileData } from './files';
import { clearVariables, listVariableRecords, readRestoreState } from './variables';

/** What a session's start restores from storage. */
export interface StoredSession {
  files: Awaited<ReturnType<typeof readAllFiles>>;
  state: Awaited<ReturnType<typeof readRestoreState>>;
}

/**
 * One session's storage, with its id bound in: code that holds it (a session's worker,
 * the chat history of one session) cannot name another session's keys.
 */
export class SessionStore {
  constructor(
    private readonly db: PyTabsDB,
    readonly sessionId: string,
  ) {}

  /** Writes everything one run (or file operation) changed, in one transaction. */
  commit(change: SessionChange): Promise<void> {
    return commitChange(this.db, this.sessionId, change);
  }

  /** The session's files and variables, as a start restores them. */
  async readAll(): Promise<StoredSession> {
    const [files, state] = await Promise.all([readAllFiles(this.db, this.sessionId), readRestoreState(this.db, this.sessionId)]);
    return { files, state };
  }

  /** Forgets the session's variables and replay log; files and history stay. */
  clear(): Promise<void> {
    return clearVariables(this.db, this.sessionId);
  }

  listFiles(): Promise<FileRecord[]> {
    return listFileRecords(this.db, this.sessionId);
  }

  readFile(path: string): Promise<Uint8Array | undefined> {
    return readFileData(this.db, this.sessionId, path);
  }

  listVariables(): Promise<VariableRecord[]> {
    return listVariableRecords(this.db, this.sessionId);
  }

  /** The session's chat history. */
  get history(): RoundHistory {
    return new RoundHistory(this.db, this.sessionId);
  }
}

/**
 * One session's chat history in the `rounds` store. Storage knows a round only by its key;
 * the chat layer (src/lib/chat) gives it its type.
 */
export class RoundHistory {
  constructor(
    private readonly db: PyTabsDB,
    readonly sessionId: string,
  ) {}

  /**
   * Stores a new round under the session's next sequence number. Reading the last number
   * and writing the round share one transaction, so two messages sent at once (from two
   * tabs, say) never get the same number.
   */
  async insert<R extends RoundRecord>(make: (seq: number) => R): Promise<R> {
    const tx = this.db.transaction('rounds', 'readwrite');
    const last = await tx.store.openCursor(sessionRange(this.sessionId), 'prev');
    const round = make(last ? last.value.seq + 1 : 1);
    // internal: a fault of the calling code (every caller makes the round for this history's session), never of the person.
    if (round.sessionId !== this.sessionId) throw new Error('A round must belong to the session whose history stores it.');
    await tx.store.put(round);
    await tx.done;
    return round;
  }

  async put(round: RoundRecord): Promise<void> {
    // internal: as in insert.
    if (round.sessionId !== this.sessionId) throw new Error('A round must belong to the session whose history stores it.');
    await this.db.put('rounds', round);
  }

  /** The history, oldest first (the key order). */
  async list<R extends RoundRecord>(): Promise<R[]> {
    return (await this.db.getAll('rounds', sessionRange(this.sessionId))) as R[];
  }
}
