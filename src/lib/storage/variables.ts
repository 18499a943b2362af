import { importsBytesOf, sessionRange, type PyTabsDB, type ReplayRecord, type VariableRecord } from './db';

export function listVariableRecords(db: PyTabsDB, sessionId: string): Promise<VariableRecord[]> {
  return db.getAll('variables', sessionRange(sessionId));
}

/** What a worker needs to restore a session: the replay log, the variables and their pickles. */
export async function readRestoreState(db: PyTabsDB, sessionId: string) {
  const tx = db.transaction(['variables', 'pickles', 'replay']);
  const range = sessionRange(sessionId);
  const [variables, pickles, replay] = await Promise.all([
    tx.objectStore('variables').getAll(range),
    tx.objectStore('pickles').getAll(range),
    tx.objectStore('replay').getAll(range) as Promise<ReplayRecord[]>,
    tx.done,
  ]);
  return { variables, pickles, replay: replay.sort((a, b) => a.seq - b.seq) };
}

/** Forgets every variable of a session and its replay log (and imported ones held back), keeping files and the session. */
export async function clearVariables(db: PyTabsDB, sessionId: string): Promise<void> {
  const tx = db.transaction(['sessions', 'variables', 'pickles', 'replay', 'files', 'imports'], 'readwrite');
  const range = sessionRange(sessionId);
  const sessions = tx.objectStore('sessions');
  const [record, files, origin] = await Promise.all([
    sessions.get(sessionId),
    tx.objectStore('files').getAll(range),
    tx.objectStore('imports').get([sessionId, 'origin']),
  ]);
  await Promise.all([
    tx.objectStore('variables').delete(range),
    tx.objectStore('pickles').delete(range),
    tx.objectStore('replay').delete(range),
    tx.objectStore('imports').delete([sessionId, 'held']),
  ]);
  if (record) {
    record.variableCount = 0;
    // Held variables go; the file the session was opened from stays.
    record.importsBytes = importsBytesOf(null, origin?.kind === 'origin' ? origin : null);
    record.storageBytes = files.reduce((sum, f) => sum + f.size, 0) + record.importsBytes;
    await sessions.put(record);
  }
  await tx.done;
}
