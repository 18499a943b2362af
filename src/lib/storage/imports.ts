import { said, SaidError } from '../i18n/said';
import type { Round } from '../chat/types';
import { completeOrAbort } from './commit';
import {
  type AssignmentRecord,
  importsBytesOf,
  SESSION_STORES,
  sessionRange,
  type HeldStateRecord,
  type OriginRecord,
  type PyTabsDB,
  type ReplayRecord,
  type SessionRecord,
  type SharedLinkRecord,
  type EmbedRecord,
  type VariableRecord,
} from './db';

/** Everything of one session: what an export packs and an import or a reset writes. */
export interface SessionContents {
  files: { path: string; data: Uint8Array; modifiedAt: number }[];
  rounds: Round[];
  /** Saved variables that load when its Python starts. */
  variables: Omit<VariableRecord, 'sessionId'>[];
  pickles: { name: string; data: Uint8Array }[];
  replay: string[];
  /** Saved variables held back until the person confirms them. */
  held: Omit<HeldStateRecord, 'sessionId' | 'kind'> | null;
  /** The prepared file it was opened from by link. */
  origin: Omit<OriginRecord, 'sessionId' | 'kind'> | null;
  /** The shared link it was made from (written with a new session only; never exported). */
  shared?: Omit<SharedLinkRecord, 'sessionId' | 'kind'>;
  /** The assignment it was opened from (written with a new session, or a reset; never exported with the session). */
  assignment?: Omit<AssignmentRecord, 'sessionId' | 'kind'>;
  /** The embed it belongs to (written with a new session, or again by a reset; never exported). */
  embed?: Omit<EmbedRecord, 'sessionId' | 'kind'>;
}

const ALL = ['sessions', ...SESSION_STORES] as const;

/** A session record with its contents, read in one transaction, so an export never mixes two commits. */
export async function readSessionContents(db: PyTabsDB, sessionId: string): Promise<{ record: SessionRecord; contents: SessionContents } | null> {
  const tx = db.transaction(ALL);
  const range = sessionRange(sessionId);
  const [record, files, data, variables, pickles, replay, rounds, imports] = await Promise.all([
    tx.objectStore('sessions').get(sessionId),
    tx.objectStore('files').getAll(range),
    tx.objectStore('fileData').getAll(range),
    tx.objectStore('variables').getAll(range),
    tx.objectStore('pickles').getAll(range),
    tx.objectStore('replay').getAll(range) as Promise<ReplayRecord[]>,
    tx.objectStore('rounds').getAll(range) as unknown as Promise<Round[]>,
    tx.objectStore('imports').getAll(range),
    tx.done,
  ]);
  if (!record) return null;
  const bytes = new Map(data.map((d) => [d.path, d.data]));
  const held = imports.find((r): r is HeldStateRecord => r.kind === 'held');
  const origin = imports.find((r): r is OriginRecord => r.kind === 'origin');
  return {
    record,
    contents: {
      files: files.map((f) => ({ path: f.path, modifiedAt: f.modifiedAt, data: bytes.get(f.path) ?? new Uint8Array() })),
      rounds,
      variables: variables.map(({ sessionId: _, ...meta }) => meta),
      pickles: pickles.map(({ name, data }) => ({ name, data })),
      replay: replay.sort((a, b) => a.seq - b.seq).map((r) => r.source),
      held: held ? { source: held.source, variables: held.variables, pickles: held.pickles, replay: held.replay } : null,
      origin: origin ? { url: origin.url, name: origin.name, data: origin.data, openedAt: origin.openedAt, stateConfirmed: origin.stateConfirmed } : null,
    },
  };
}

type WriteTx = ReturnType<typeof writeTx>;
const writeTx = (db: PyTabsDB) => db.transaction(ALL, 'readwrite');

/**
 * Queues every write of `contents` under `record.id` and keeps the record's counters true to
 * them; `keptOrigin` is the file the session was opened from when it stays in storage beside them.
 */
function putContents(tx: WriteTx, record: SessionRecord, contents: SessionContents, keptOrigin: OriginRecord | null = null): Promise<unknown>[] {
  const sessionId = record.id;
  const writes: Promise<unknown>[] = [];
  const track = (request: Promise<unknown>) => {
    // Observed at once: if a later request throws, the abort rejects the earlier ones.
    request.catch(() => undefined);
    writes.push(request);
  };
  for (const f of contents.files) {
    track(tx.objectStore('files').put({ sessionId, path: f.path, size: f.data.byteLength, modifiedAt: f.modifiedAt }));
    track(tx.objectStore('fileData').put({ sessionId, path: f.path, data: f.data }));
  }
  for (const round of contents.rounds) track(tx.objectStore('rounds').put({ ...round, sessionId, id: `${sessionId}:${round.seq}` }));
  for (const meta of contents.variables) track(tx.objectStore('variables').put({ ...meta, sessionId }));
  for (const p of contents.pickles) track(tx.objectStore('pickles').put({ sessionId, name: p.name, data: p.data }));
  contents.replay.forEach((source, seq) => track(tx.objectStore('replay').put({ sessionId, seq, source })));
  if (contents.held) track(tx.objectStore('imports').put({ ...contents.held, sessionId, kind: 'held' }));
  if (contents.origin) track(tx.objectStore('imports').put({ ...contents.origin, sessionId, kind: 'origin' }));
  if (contents.shared) track(tx.objectStore('imports').put({ ...contents.shared, sessionId, kind: 'shared' }));
  if (contents.assignment) track(tx.objectStore('imports').put({ ...contents.assignment, sessionId, kind: 'assignment' }));
  if (contents.embed) track(tx.objectStore('imports').put({ ...contents.embed, sessionId, kind: 'embed' }));
  record.replaySeq = contents.replay.length;
  record.variableCount = contents.variables.length;
  record.importsBytes = importsBytesOf(contents.held, contents.origin ?? keptOrigin);
  record.storageBytes =
    contents.files.reduce((sum, f) => sum + f.data.byteLength, 0) +
    contents.pickles.reduce((sum, p) => sum + p.data.byteLength, 0) +
    record.importsBytes;
  track(tx.objectStore('sessions').put(record));
  return writes;
}

/** Writes a new session and all of its contents in one transaction; fails whole if its id is taken. */
export async function writeNewSession(db: PyTabsDB, record: SessionRecord, contents: SessionContents): Promise<void> {
  const tx = writeTx(db);
  await completeOrAbort(tx, async () => {
    if (await tx.objectStore('sessions').get(record.id)) throw new SaidError(said('libb_session_exists', { id: record.id }));
    await Promise.all(putContents(tx, record, contents));
  });
}

/**
 * Puts a session back to `contents` in one transaction: everything stored under its id goes
 * (the file it came from stays), keeping its id, creation time and run count.
 */
export async function replaceSessionContents(
  db: PyTabsDB,
  sessionId: string,
  change: Pick<SessionRecord, 'name' | 'vars'>,
  contents: SessionContents,
  now = Date.now(),
): Promise<void> {
  const tx = writeTx(db);
  await completeOrAbort(tx, async () => {
    const [record, origin] = await Promise.all([tx.objectStore('sessions').get(sessionId), tx.objectStore('imports').get([sessionId, 'origin'])]);
    if (!record) throw new SaidError(said('libb_no_session', { id: sessionId }));
    const range = sessionRange(sessionId);
    await Promise.all([
      ...SESSION_STORES.filter((s) => s !== 'imports').map((s) => tx.objectStore(s).delete(range)),
      tx.objectStore('imports').delete([sessionId, 'held']),
    ]);
    const kept = origin?.kind === 'origin' ? origin : null;
    await Promise.all(putContents(tx, { ...record, ...change, lastActiveAt: now, status: 'active' }, contents, kept));
  });
}

export async function getHeldState(db: PyTabsDB, sessionId: string): Promise<HeldStateRecord | null> {
  const held = await db.get('imports', [sessionId, 'held']);
  return held?.kind === 'held' ? held : null;
}

export async function getOrigin(db: PyTabsDB, sessionId: string): Promise<OriginRecord | null> {
  const origin = await db.get('imports', [sessionId, 'origin']);
  return origin?.kind === 'origin' ? origin : null;
}

/**
 * Lets held state load, in one transaction: its replay log goes before the session's own
 * and its variables are added where the session has none of that name, so anything the
 * person did since the import wins. Returns false when nothing was held.
 */
export async function releaseHeldState(db: PyTabsDB, sessionId: string): Promise<boolean> {
  const tx = writeTx(db);
  let released = false;
  await completeOrAbort(tx, async () => {
    const imports = tx.objectStore('imports');
    const [held, origin, record] = await Promise.all([
      imports.get([sessionId, 'held']),
      imports.get([sessionId, 'origin']),
      tx.objectStore('sessions').get(sessionId),
    ]);
    if (held?.kind !== 'held' || !record) return;
    const range = sessionRange(sessionId);
    const variables = tx.objectStore('variables');
    const replay = tx.objectStore('replay');
    const [own, ownReplay, files] = await Promise.all([
      variables.getAll(range),
      replay.getAll(range) as Promise<ReplayRecord[]>,
      tx.objectStore('files').getAll(range),
    ]);
    const taken = new Set(own.map((v) => v.name));
    const added = held.variables.filter((v) => !taken.has(v.name));
    const pickles = held.pickles.filter((p) => !taken.has(p.name));
    const sources = [...held.replay, ...ownReplay.sort((a, b) => a.seq - b.seq).map((r) => r.source)];
    await replay.delete(range);
    await Promise.all([
      ...sources.map((source, seq) => replay.put({ sessionId, seq, source })),
      ...added.map((meta) => variables.put({ ...meta, sessionId })),
      ...pickles.map((p) => tx.objectStore('pickles').put({ sessionId, name: p.name, data: p.data })),
      imports.delete([sessionId, 'held']),
      ...(origin?.kind === 'origin' ? [imports.put({ ...origin, stateConfirmed: true })] : []),
    ]);
    const all = [...own, ...added];
    record.replaySeq = sources.length;
    record.variableCount = all.length;
    record.importsBytes = importsBytesOf(null, origin?.kind === 'origin' ? origin : null);
    record.storageBytes =
      files.reduce((sum, f) => sum + f.size, 0) +
      all.reduce((sum, v) => sum + (v.kind === 'pickle' ? v.sizeBytes : 0), 0) +
      record.importsBytes;
    await tx.objectStore('sessions').put(record);
    released = true;
  });
  return released;
}

/** Forgets held state; the session keeps its files and history. Returns false when nothing was held. */
export async function dropHeldState(db: PyTabsDB, sessionId: string): Promise<boolean> {
  const tx = db.transaction(['imports', 'sessions'], 'readwrite');
  const imports = tx.objectStore('imports');
  const sessions = tx.objectStore('sessions');
  const [held, record] = await Promise.all([imports.get([sessionId, 'held']), sessions.get(sessionId)]);
  if (held?.kind === 'held') {
    await imports.delete([sessionId, 'held']);
    // A record that never counted its imports (countImportsBytes) has nothing of them to take off.
    if (record?.importsBytes !== undefined) {
      const freed = importsBytesOf(held, null);
      record.importsBytes = Math.max(0, record.importsBytes - freed);
      record.storageBytes = Math.max(0, record.storageBytes - freed);
      await sessions.put(record);
    }
  }
  await tx.done;
  return Boolean(held);
}

/**
 * Counts the `imports` store in the storage figure of sessions stored before it was counted
 * there (their records have no `importsBytes`), once; later writes keep it true.
 */
export async function countImportsBytes(db: PyTabsDB): Promise<void> {
  const tx = db.transaction(['sessions', 'imports'], 'readwrite');
  const sessions = tx.objectStore('sessions');
  const uncounted = (await sessions.getAll()).filter((r) => r.importsBytes === undefined);
  for (const record of uncounted) {
    const held = await tx.objectStore('imports').get([record.id, 'held']);
    const origin = await tx.objectStore('imports').get([record.id, 'origin']);
    record.importsBytes = importsBytesOf(held?.kind === 'held' ? held : null, origin?.kind === 'origin' ? origin : null);
    record.storageBytes += record.importsBytes;
    await sessions.put(record);
  }
  await tx.done;
}

/** The session a shared link with this key made, if it is still here (one small read per session). */
export async function findSharedSession(db: PyTabsDB, key: string): Promise<SessionRecord | null> {
  const tx = db.transaction(['sessions', 'imports']);
  const sessions = await tx.objectStore('sessions').getAll();
  const marks = await Promise.all(sessions.map((s) => tx.objectStore('imports').get([s.id, 'shared'])));
  const index = marks.findIndex((mark) => mark?.kind === 'shared' && mark.key === key);
  return index < 0 ? null : sessions[index];
}

/** What a shared link carries of a session: its history and its files, read in one transaction. */
export async function readShareable(db: PyTabsDB, sessionId: string): Promise<{ record: SessionRecord; rounds: Round[]; files: { path: string; data: Uint8Array }[] } | null> {
  const tx = db.transaction(['sessions', 'rounds', 'fileData']);
  const range = sessionRange(sessionId);
  const [record, rounds, files] = await Promise.all([
    tx.objectStore('sessions').get(sessionId),
    tx.objectStore('rounds').getAll(range) as unknown as Promise<Round[]>,
    tx.objectStore('fileData').getAll(range),
    tx.done,
  ]);
  return record ? { record, rounds, files: files.map(({ path, data }) => ({ path, data })) } : null;
}

/** The session of the embed `embedId` on the page `page`, if it is still here (one small read per session). */
export async function findEmbedSession(db: PyTabsDB, page: string, embedId: string): Promise<{ record: SessionRecord; mark: EmbedRecord } | null> {
  const tx = db.transaction(['sessions', 'imports']);
  const sessions = await tx.objectStore('sessions').getAll();
  const marks = await Promise.all(sessions.map((s) => tx.objectStore('imports').get([s.id, 'embed'])));
  const index = marks.findIndex((mark) => mark?.kind === 'embed' && mark.page === page && mark.embedId === embedId);
  return index < 0 ? null : { record: sessions[index], mark: marks[index] as EmbedRecord };
}

/** The embed a session belongs to, or null for any other session. */
export async function getEmbedMark(db: PyTabsDB, sessionId: string): Promise<EmbedRecord | null> {
  const mark = await db.get('imports', [sessionId, 'embed']);
  return mark?.kind === 'embed' ? mark : null;
}
