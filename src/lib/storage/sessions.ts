import { said, SaidError, tell } from '../i18n/said';
import { SESSION_STORES, sessionRange, type ImportRecord, type PyTabsDB, type SessionRecord } from './db';
import { sessionPrefsKey } from './assistant-settings';

export function newSessionRecord(id: string, name: string, now = Date.now()): SessionRecord {
  return {
    id,
    name,
    createdAt: now,
    lastActiveAt: now,
    totalExecutions: 0,
    variableCount: 0,
    storageBytes: 0,
    importsBytes: 0,
    status: 'active',
    vars: {},
    replaySeq: 0,
  };
}

export async function putSession(db: PyTabsDB, record: SessionRecord): Promise<void> {
  await db.put('sessions', record);
}

/** A new session's name as the language shown says "Session 3": a name, kept as written from then on. */
const sessionLabel = (n: number) => tell(said('libb_session_default', { n }));

/** "Session N" for the Nth of the person's sessions, or the first N above it that no session has. */
export function nextSessionName(names: readonly string[], label = sessionLabel): string {
  const taken = new Set(names);
  let n = names.length + 1;
  while (taken.has(label(n))) n++;
  return label(n);
}

/**
 * Stores a new session named `name`, else the next free "Session N" among the person's
 * sessions, read in the add's own transaction: readwrite transactions on the store run one
 * at a time, so two tabs or two quick clicks never get the same name. Refuses an id already
 * in use, so a caller-chosen id cannot replace a session.
 */
export async function addNewSession(db: PyTabsDB, id: string, name?: string, now = Date.now()): Promise<SessionRecord> {
  const tx = db.transaction(['sessions', 'imports'], 'readwrite');
  const sessions = tx.objectStore('sessions');
  const [all, marks] = await Promise.all([sessions.getAll(), tx.objectStore('imports').getAllKeys()]);
  const record = newSessionRecord(id, name ?? nextSessionName(personal(all, marks).map((r) => r.name)), now);
  await Promise.all([sessions.add(record), tx.done]);
  return record;
}

export function getSession(db: PyTabsDB, id: string): Promise<SessionRecord | undefined> {
  return db.get('sessions', id);
}

/**
 * The person's sessions, oldest first. Embeds' sessions (src/lib/embed, marked in `imports`)
 * are kept apart from them, so they are left out unless `embeds` asks for them too: the
 * session list, "Session N" names and Download all my work never show one.
 */
export async function listSessionRecords(db: PyTabsDB, { embeds = false }: { embeds?: boolean } = {}): Promise<SessionRecord[]> {
  const tx = db.transaction(['sessions', 'imports']);
  const [all, marks] = await Promise.all([
    tx.objectStore('sessions').getAll(),
    // Keys only: the embed mark is the key [sessionId, 'embed'].
    embeds ? [] : tx.objectStore('imports').getAllKeys(),
    tx.done,
  ]);
  return personal(all, marks).sort((a, b) => a.createdAt - b.createdAt);
}

/** The records that are not an embed's, by the embed marks among the `imports` store's keys. */
function personal(records: SessionRecord[], importKeys: [string, ImportRecord['kind']][]): SessionRecord[] {
  const embedded = new Set(importKeys.filter(([, kind]) => kind === 'embed').map(([sessionId]) => sessionId));
  return records.filter((r) => !embedded.has(r.id));
}

/** Applies `change` to the stored record inside one transaction; throws if the session is gone. */
export async function updateSession(
  db: PyTabsDB,
  id: string,
  change: (record: SessionRecord) => void,
): Promise<SessionRecord> {
  const tx = db.transaction('sessions', 'readwrite');
  const record = await tx.store.get(id);
  if (!record) throw new SaidError(said('libb_no_session', { id }));
  change(record);
  await tx.store.put(record);
  await tx.done;
  return record;
}

/** Removes a session and everything keyed by its id, in one transaction. */
export async function deleteSessionData(db: PyTabsDB, id: string): Promise<void> {
  const tx = db.transaction(['sessions', 'settings', ...SESSION_STORES], 'readwrite');
  await Promise.all([
    tx.objectStore('sessions').delete(id),
    tx.objectStore('settings').delete(sessionPrefsKey(id)),
    ...SESSION_STORES.map((store) => tx.objectStore(store).delete(sessionRange(id))),
    tx.done,
  ]);
}
