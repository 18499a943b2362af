import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach } from 'vitest';
import { openDb, SESSION_STORES, StorageGoneError, type PyTabsDB } from '../../src/lib/storage/db';
import { commitChange } from '../../src/lib/storage/commit';
import { addNewSession, getSession, newSessionRecord, putSession, deleteSessionData, listSessionRecords } from '../../src/lib/storage/sessions';
import { listFileRecords, readAllFiles, readFileData } from '../../src/lib/storage/files';
import { clearVariables, listVariableRecords, readRestoreState } from '../../src/lib/storage/variables';
import { readSettings, writeSettings, DEFAULT_SETTINGS } from '../../src/lib/storage/settings';
import { applyCleanup } from '../../src/lib/sessions/cleanup';
import { RunCounts } from '../../src/lib/sessions/run-counts';
import { setLocale } from '../../src/lib/i18n/catalog';
import { errorText } from '../../src/lib/i18n/said';

let db: PyTabsDB;
let n = 0;
const bytes = (s: string) => new TextEncoder().encode(s);
const DAY = 24 * 60 * 60 * 1000;

beforeEach(async () => {
  db = await openDb(`storage-test-${n++}`);
  await putSession(db, newSessionRecord('a', 'A', 1000));
  // 'ab' starts with 'a': a range over session 'a' must not reach it.
  await putSession(db, newSessionRecord('ab', 'AB', 1000));
});

function variable(name: string, size: number, kind: 'pickle' | 'replay' | 'none' = 'pickle') {
  return { name, type: 'int', sizeBytes: size, preview: '1', persisted: kind !== 'none', kind, hash: `h-${name}-${size}` } as const;
}

describe('commitChange', () => {
  it('writes files, variables and replay in one go and keeps the counters true', async () => {
    await commitChange(db, 'a', {
      executions: 1,
      now: 5000,
      files: { put: [{ path: 'data.csv', data: bytes('x\n1\n'), modifiedAt: 4000 }] },
      variables: { put: [{ ...variable('x', 10), pickle: new Uint8Array(10) }, variable('f', 100, 'replay')] },
      replay: ['def f(): pass', 'import math'],
    });
    const rec = (await getSession(db, 'a'))!;
    expect(rec.totalExecutions).toBe(1);
    expect(rec.variableCount).toBe(2);
    // Files plus pickled variables only: a replayed def holds no bytes.
    expect(rec.storageBytes).toBe(4 + 10);
    expect(rec.lastActiveAt).toBe(5000);
    expect(rec.replaySeq).toBe(2);
    const state = await readRestoreState(db, 'a');
    expect(state.replay.map((r) => r.source)).toEqual(['def f(): pass', 'import math']);
    expect(state.pickles.map((p) => p.name)).toEqual(['x']);
    expect(new TextDecoder().decode(await readFileData(db, 'a', 'data.csv'))).toBe('x\n1\n');
  });

  it('deletes variables and files and drops a pickle when a variable stops being pickled', async () => {
    await commitChange(db, 'a', {
      files: { put: [{ path: 'a.txt', data: bytes('aaa'), modifiedAt: 1 }] },
      variables: { put: [{ ...variable('x', 10), pickle: new Uint8Array(10) }, { ...variable('y', 5), pickle: new Uint8Array(5) }] },
    });
    await commitChange(db, 'a', {
      files: { delete: ['a.txt'] },
      variables: { put: [{ ...variable('y', 5_000_000, 'none'), reason: 'too big' }], delete: ['x'] },
    });
    const state = await readRestoreState(db, 'a');
    expect(state.pickles).toEqual([]);
    expect((await listVariableRecords(db, 'a')).map((v) => [v.name, v.kind])).toEqual([['y', 'none']]);
    expect(await listFileRecords(db, 'a')).toEqual([]);
    expect((await getSession(db, 'a'))!.storageBytes).toBe(0);
  });

  it('leaves the previous commit intact when a write fails', async () => {
    await commitChange(db, 'a', { variables: { put: [{ ...variable('x', 3), pickle: new Uint8Array([1, 2, 3]) }] } });
    const bad = { ...variable('y', 3), name: undefined as unknown as string, pickle: new Uint8Array(3) };
    await expect(commitChange(db, 'a', { executions: 1, variables: { put: [{ ...variable('z', 1), pickle: new Uint8Array(1) }, bad] } })).rejects.toThrow();
    expect((await listVariableRecords(db, 'a')).map((v) => v.name)).toEqual(['x']);
    expect((await getSession(db, 'a'))!.totalExecutions).toBe(0);
  });

  it('counts runs that changed nothing without touching files, variables or the sizes', async () => {
    await commitChange(db, 'a', {
      executions: 1,
      now: 2000,
      files: { put: [{ path: 'a.txt', data: bytes('aaa'), modifiedAt: 1 }] },
      variables: { put: [{ ...variable('x', 10), pickle: new Uint8Array(10) }] },
    });
    await commitChange(db, 'a', { executions: 3, now: 9000 });
    const rec = (await getSession(db, 'a'))!;
    expect([rec.totalExecutions, rec.lastActiveAt, rec.status]).toEqual([4, 9000, 'active']);
    expect([rec.variableCount, rec.storageBytes]).toEqual([1, 3 + 10]);
    expect((await listVariableRecords(db, 'a')).map((v) => v.name)).toEqual(['x']);
    expect((await listFileRecords(db, 'a')).map((f) => f.path)).toEqual(['a.txt']);
    expect((await getSession(db, 'ab'))!.totalExecutions).toBe(0);
  });

  it('refuses a session that does not exist', async () => {
    await expect(commitChange(db, 'nope', { executions: 1 })).rejects.toThrow('No session with id nope');
  });
});

describe('RunCounts', () => {
  it('writes quiet runs of several sessions at once, seen by any read opened after the flush', async () => {
    const counts = new RunCounts(() => db);
    counts.add('a', 1);
    counts.add('a', 2);
    counts.add('ab', 1);
    // Deleted before its count was written: nothing to count, and the others still are.
    counts.add('gone', 1);
    const flushed = counts.flush();
    // Not awaited: the flush opened its transaction first, so this read waits for it.
    const [a, ab] = await Promise.all([getSession(db, 'a'), getSession(db, 'ab')]);
    expect([a!.totalExecutions, ab!.totalExecutions]).toEqual([3, 1]);
    expect(a!.lastActiveAt).toBeGreaterThan(1000);
    await flushed;
    expect(await getSession(db, 'gone')).toBeUndefined();
    // Nothing pending: a flush writes nothing more.
    await counts.flush();
    expect((await getSession(db, 'a'))!.totalExecutions).toBe(3);
  });

  it('keeps the counts of a write that failed for the next flush', async () => {
    const closed = await openDb(`storage-test-closed-${n}`);
    closed.close();
    let target: PyTabsDB = closed;
    const counts = new RunCounts(() => target);
    counts.add('a', 2);
    await counts.flush();
    expect((await getSession(db, 'a'))!.totalExecutions).toBe(0);
    target = db;
    counts.add('a', 1);
    await counts.flush();
    expect((await getSession(db, 'a'))!.totalExecutions).toBe(3);
  });
});

describe('new sessions', () => {
  it('never share a name: each takes the next free "Session N" among the stored ones, also from two tabs at once', async () => {
    await putSession(db, newSessionRecord('4', 'Session 4', 2000));
    // Two tabs: two connections to the same database, each making three sessions at once.
    const other = await openDb(db.name);
    const made = await Promise.all([db, other, db, other, db, other].map((tab, i) => addNewSession(tab, `new-${i}`)));
    other.close();
    const names = (await listSessionRecords(db)).map((r) => r.name);
    expect(made.map((r) => r.name).sort()).toEqual(['Session 10', 'Session 5', 'Session 6', 'Session 7', 'Session 8', 'Session 9']);
    expect(new Set(names).size).toBe(names.length);
    // A name given is kept as it is, and an id in use is refused without touching its session.
    expect((await addNewSession(db, 'named', 'Session 5')).name).toBe('Session 5');
    await expect(addNewSession(db, 'a')).rejects.toThrow();
    expect((await getSession(db, 'a'))?.name).toBe('A');
  });
});

describe('session ranges', () => {
  it('delete removes one session from every store and nothing of a session whose id it prefixes', async () => {
    for (const id of ['a', 'ab']) {
      await commitChange(db, id, {
        files: { put: [{ path: 'f.txt', data: bytes(id), modifiedAt: 1 }] },
        variables: { put: [{ ...variable('v', 1), pickle: new Uint8Array(1) }] },
        replay: ['import os'],
      });
      await db.put('rounds', { sessionId: id, seq: 0, text: 'hi' });
      await db.put('imports', { sessionId: id, kind: 'held', source: 'x.pytabs.zip', variables: [], pickles: [], replay: [] });
    }
    await deleteSessionData(db, 'a');
    for (const store of SESSION_STORES) {
      const keys = (await db.getAllKeys(store)) as unknown[][];
      expect(keys.every((k) => k[0] === 'ab'), store).toBe(true);
      expect(keys.length, store).toBeGreaterThan(0);
    }
    expect((await listSessionRecords(db)).map((s) => s.id)).toEqual(['ab']);
    expect((await readAllFiles(db, 'ab')).map((f) => new TextDecoder().decode(f.data))).toEqual(['ab']);
  });

  it('clearVariables keeps files and the session, and recounts storage', async () => {
    await commitChange(db, 'a', {
      files: { put: [{ path: 'f.txt', data: bytes('12345'), modifiedAt: 1 }] },
      variables: { put: [{ ...variable('v', 100), pickle: new Uint8Array(100) }] },
      replay: ['import os'],
    });
    await clearVariables(db, 'a');
    const state = await readRestoreState(db, 'a');
    expect([state.variables, state.pickles, state.replay]).toEqual([[], [], []]);
    const rec = (await getSession(db, 'a'))!;
    expect([rec.variableCount, rec.storageBytes]).toEqual([0, 5]);
    expect((await listFileRecords(db, 'a')).map((f) => f.path)).toEqual(['f.txt']);
  });
});

describe('settings', () => {
  it('has the documented defaults and validates changes', async () => {
    expect(await readSettings(db)).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS.variableLimitBytes).toBe(10 * 1024 * 1024);
    expect(DEFAULT_SETTINGS.sessionLimitBytes).toBe(100 * 1024 * 1024);
    await writeSettings(db, { inactiveAfterDays: 2, deleteAfterDays: 3 });
    expect((await readSettings(db)).deleteAfterDays).toBe(3);
    await expect(writeSettings(db, { variableLimitBytes: -1 })).rejects.toThrow('positive');
    await expect(writeSettings(db, { deleteAfterDays: 1 })).rejects.toThrow('no sooner');
    await expect(writeSettings(db, { packageIndexUrl: 'not a url' })).rejects.toThrow('not a valid URL');
    expect((await readSettings(db)).inactiveAfterDays).toBe(2);
  });
});

describe('cleanup policy', () => {
  it('marks sessions inactive after 7 days and deletes them after 30, configurable', async () => {
    const now = 100 * DAY;
    await putSession(db, { ...newSessionRecord('fresh', 'fresh'), lastActiveAt: now - 6 * DAY });
    await putSession(db, { ...newSessionRecord('idle', 'idle'), lastActiveAt: now - 8 * DAY });
    await putSession(db, { ...newSessionRecord('old', 'old'), lastActiveAt: now - 31 * DAY });
    await commitChange(db, 'old', { files: { put: [{ path: 'f', data: bytes('x'), modifiedAt: 0 }] }, now: now - 31 * DAY });
    await db.delete('sessions', 'a');
    await db.delete('sessions', 'ab');
    const report = await applyCleanup(db, { inactiveAfterDays: 7, deleteAfterDays: 30 }, now);
    expect(report).toEqual({ markedInactive: ['idle'], deleted: ['old'] });
    expect((await getSession(db, 'idle'))!.status).toBe('inactive');
    expect((await getSession(db, 'fresh'))!.status).toBe('active');
    expect(await listFileRecords(db, 'old')).toEqual([]);

    const custom = await applyCleanup(db, { inactiveAfterDays: 1, deleteAfterDays: 5 }, now, (id) => id === 'fresh');
    expect(custom).toEqual({ markedInactive: [], deleted: ['idle'] });
    expect((await listSessionRecords(db)).map((s) => s.id)).toEqual(['fresh']);
  });
});

describe('schema', () => {
  it('opens a version 1 database with its data and adds the imports store', async () => {
    const name = `storage-v1-${n++}`;
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onupgradeneeded = () => {
        const old = req.result;
        old.createObjectStore('sessions', { keyPath: 'id' });
        for (const store of ['files', 'fileData']) old.createObjectStore(store, { keyPath: ['sessionId', 'path'] });
        for (const store of ['variables', 'pickles']) old.createObjectStore(store, { keyPath: ['sessionId', 'name'] });
        for (const store of ['replay', 'rounds']) old.createObjectStore(store, { keyPath: ['sessionId', 'seq'] });
        old.createObjectStore('settings', { keyPath: 'key' });
        const tx = req.transaction!;
        tx.objectStore('sessions').put(newSessionRecord('old', 'Old work', 1000));
        tx.objectStore('files').put({ sessionId: 'old', path: 'a.txt', size: 2, modifiedAt: 1 });
        tx.objectStore('fileData').put({ sessionId: 'old', path: 'a.txt', data: bytes('hi') });
      };
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
      req.onerror = () => reject(req.error);
    });
    const upgraded = await openDb(name);
    expect(upgraded.version).toBe(2);
    expect(Array.from(upgraded.objectStoreNames)).toContain('imports');
    expect((await getSession(upgraded, 'old'))!.name).toBe('Old work');
    expect(new TextDecoder().decode(await readFileData(upgraded, 'old', 'a.txt'))).toBe('hi');
    upgraded.close();
  });

  it('lets go when another connection deletes the database, so the delete is not blocked', async () => {
    const name = `storage-erase-${n++}`;
    const open = await openDb(name);
    let blocked = false;
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase(name);
      req.onblocked = () => (blocked = true);
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    });
    expect(blocked).toBe(false);
    expect(() => open.transaction('sessions')).toThrow();
  });

  it('opened without create, a missing database is StorageGoneError and is not made', async () => {
    const name = `storage-gone-${n++}`;
    await expect(openDb(name, { create: false })).rejects.toBeInstanceOf(StorageGoneError);
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name);
  });

  it('says that the data was erased in the language shown, and in English in its message for logs', async () => {
    const name = `storage-gone-${n++}`;
    const gone = await openDb(name, { create: false }).catch((error: unknown) => error);
    await setLocale('fr');
    try {
      expect(errorText(gone)).toBe(`Le stockage de PyTabs (« ${name} ») a disparu : les données de cet appareil ont été effacées. Rechargez la page pour recommencer.`);
    } finally {
      await setLocale('en');
    }
    expect((gone as Error).message).toBe(`PyTabs' storage ("${name}") is gone: the data on this device was erased. Reload the page to start again.`);
  });

  it('an open without create queued behind an erase fails instead of bringing the database back', async () => {
    const name = `storage-gone-${n++}`;
    const open = await openDb(name);
    await putSession(open, newSessionRecord('s', 'S'));
    const deleted = new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase(name);
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    });
    // Asked for after the delete (a worker starting late): IndexedDB runs it after the delete.
    const late = openDb(name, { create: false });
    await deleted;
    await expect(late).rejects.toBeInstanceOf(StorageGoneError);
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name);
    // The page's own open (a reload) is a first visit.
    const fresh = await openDb(name);
    expect(await fresh.getAll('sessions')).toEqual([]);
    fresh.close();
  });
});
