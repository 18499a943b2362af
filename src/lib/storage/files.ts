import { sessionRange, type FileRecord, type PyTabsDB } from './db';

export function listFileRecords(db: PyTabsDB, sessionId: string): Promise<FileRecord[]> {
  return db.getAll('files', sessionRange(sessionId));
}

export async function readFileData(db: PyTabsDB, sessionId: string, path: string): Promise<Uint8Array | undefined> {
  return (await db.get('fileData', [sessionId, path]))?.data;
}

/** Every file of a session with its bytes, for loading a workspace into a worker. */
export async function readAllFiles(
  db: PyTabsDB,
  sessionId: string,
): Promise<{ path: string; data: Uint8Array; modifiedAt: number }[]> {
  const tx = db.transaction(['files', 'fileData']);
  const [meta, data] = await Promise.all([
    tx.objectStore('files').getAll(sessionRange(sessionId)),
    tx.objectStore('fileData').getAll(sessionRange(sessionId)),
    tx.done,
  ]);
  const bytes = new Map(data.map((d) => [d.path, d.data]));
  return meta.map((m) => ({ path: m.path, modifiedAt: m.modifiedAt, data: bytes.get(m.path) ?? new Uint8Array() }));
}
