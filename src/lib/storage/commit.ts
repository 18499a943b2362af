import type { IDBPTransaction } from 'idb';
import { sessionRange, type PyTabsDB, type PyTabsSchema, type SessionRecord, type VariableRecord } from './db';

/** Everything one run (or one file operation) changed in a session. */
export interface SessionChange {
  files?: { put?: { path: string; data: Uint8Array; modifiedAt: number }[]; delete?: string[] };
  variables?: {
    /** Metadata of changed variables; `pickle` set for those whose bytes changed. */
    put?: (Omit<VariableRecord, 'sessionId'> & { pickle?: Uint8Array })[];
    delete?: string[];
  };
  /** Top-level import/def/class sources to append to the replay log. */
  replay?: string[];
  /** Runs this change counts (one per executed run; more when counts were held back). */
  executions?: number;
  now?: number;
}

/**
 * Writes one change in a single transaction, so a crash or a failed write leaves
 * the previous commit whole. Keeps the session's counters (executions, variable
 * count, storage bytes, last active) in step with what is stored.
 */
export async function commitChange(db: PyTabsDB, sessionId: string, change: SessionChange): Promise<void> {
  const stores = ['sessions', 'files', 'fileData', 'variables', 'pickles', 'replay'] as const;
  const tx = db.transaction(stores, 'readwrite');
  return completeOrAbort(tx, () => writeChange(tx, sessionId, change));
}

/**
 * Counts runs that changed nothing, for several sessions in one transaction on the sessions
 * store alone. Its transaction is opened before the first await, so a read opened after the
 * call sees the counts. A session deleted meanwhile has nothing left to count.
 */
export async function countRuns(db: PyTabsDB, runs: ReadonlyMap<string, number>, now = Date.now()): Promise<void> {
  const tx = db.transaction('sessions', 'readwrite');
  return completeOrAbort(tx, async () => {
    const sessions = tx.objectStore('sessions');
    await Promise.all(
      [...runs].map(async ([sessionId, executions]) => {
        const record = await sessions.get(sessionId);
        if (record) await sessions.put(touch(record, { executions, now }));
      }),
    );
  });
}

/** Runs `write` in `tx` and waits for the commit; a failed write aborts all of it. */
export async function completeOrAbort(tx: { done: Promise<void>; abort(): void }, write: () => Promise<void>): Promise<void> {
  // Keep `done` observed so an abort's rejection is not reported as unhandled.
  tx.done.catch(() => undefined);
  try {
    await write();
  } catch (error) {
    // A request that throws synchronously (a bad key) does not abort the transaction by
    // itself: the writes queued before it would still commit. Abort explicitly.
    try {
      tx.abort();
    } catch {
      // Already finished or aborted.
    }
    throw error;
  }
  await tx.done;
}

/** The session's record after a change: last active, runs counted, active again. */
function touch(record: SessionRecord, change: SessionChange): SessionRecord {
  record.lastActiveAt = change.now ?? Date.now();
  record.totalExecutions += change.executions ?? 0;
  record.status = 'active';
  return record;
}

type CommitTx = IDBPTransaction<PyTabsSchema, ('sessions' | 'files' | 'fileData' | 'variables' | 'pickles' | 'replay')[], 'readwrite'>;

async function writeChange(tx: CommitTx, sessionId: string, change: SessionChange): Promise<void> {
  const sessions = tx.objectStore('sessions');
  const files = tx.objectStore('files');
  const fileData = tx.objectStore('fileData');
  const variables = tx.objectStore('variables');
  const pickles = tx.objectStore('pickles');
  const replay = tx.objectStore('replay');

  const record = await sessions.get(sessionId);
  // internal: a commit to a session erased meanwhile, which the page checks before; the session
  // worker commits too, and a said error's English wording would bring it the whole catalog.
  if (!record) throw new Error(`No session with id ${sessionId}`);
  const writes: Promise<unknown>[] = [];
  // Each request is observed at once: if a later one throws, the abort rejects the earlier ones.
  const track = (...requests: Promise<unknown>[]) => {
    for (const r of requests) {
      r.catch(() => undefined);
      writes.push(r);
    }
  };
  for (const f of change.files?.put ?? []) {
    track(files.put({ sessionId, path: f.path, size: f.data.byteLength, modifiedAt: f.modifiedAt }));
    track(fileData.put({ sessionId, path: f.path, data: f.data }));
  }
  for (const path of change.files?.delete ?? []) {
    track(files.delete([sessionId, path]), fileData.delete([sessionId, path]));
  }
  for (const { pickle, ...meta } of change.variables?.put ?? []) {
    track(variables.put({ ...meta, sessionId }));
    if (pickle) track(pickles.put({ sessionId, name: meta.name, data: pickle }));
    else if (meta.kind !== 'pickle') track(pickles.delete([sessionId, meta.name]));
  }
  for (const name of change.variables?.delete ?? []) {
    track(variables.delete([sessionId, name]), pickles.delete([sessionId, name]));
  }
  for (const source of change.replay ?? []) {
    track(replay.put({ sessionId, seq: record.replaySeq++, source }));
  }
  await Promise.all(writes);

  // Most runs change no file and no variable: their counts and sizes stand, and reading
  // every record of the session again would cost each run time that grows with the session.
  const touched =
    [change.files?.put, change.files?.delete, change.variables?.put, change.variables?.delete].some((list) => list?.length);
  if (touched) {
    const range = sessionRange(sessionId);
    const [fileMeta, varMeta] = await Promise.all([files.getAll(range), variables.getAll(range)]);
    record.variableCount = varMeta.length;
    record.storageBytes =
      fileMeta.reduce((sum, f) => sum + f.size, 0) +
      varMeta.reduce((sum, v) => sum + (v.kind === 'pickle' ? v.sizeBytes : 0), 0) +
      (record.importsBytes ?? 0);
  }
  await sessions.put(touch(record, change));
}
