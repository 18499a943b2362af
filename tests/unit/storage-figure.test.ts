import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach } from 'vitest';
import { openDb, type PyTabsDB, type SessionRecord } from '../../src/lib/storage/db';
import { commitChange } from '../../src/lib/storage/commit';
import { getSession, newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { clearVariables } from '../../src/lib/storage/variables';
import {
  countImportsBytes,
  dropHeldState,
  releaseHeldState,
  replaceSessionContents,
  writeNewSession,
  type SessionContents,
} from '../../src/lib/storage/imports';

// The sessions list shows each session's storage figure: what the `imports` store holds for a
// session (variables held back after an import, the file it was opened from) is part of it.

let db: PyTabsDB;
let n = 0;
const bytes = (size: number) => new Uint8Array(size).fill(7);

beforeEach(async () => {
  db = await openDb(`storage-figure-${n++}`);
});

function contents(change: Partial<SessionContents> = {}): SessionContents {
  return { files: [], rounds: [], variables: [], pickles: [], replay: [], held: null, origin: null, ...change };
}

const held = {
  source: 'lesson.pytabs.zip',
  variables: [{ name: 'table', type: 'list', sizeBytes: 300, preview: '[…]', persisted: true, kind: 'pickle' as const }],
  pickles: [{ name: 'table', data: bytes(300) }],
  replay: [],
};
const origin = { url: 'https://school.example/lesson.pytabs.zip', name: 'lesson.pytabs.zip', data: bytes(5000), openedAt: 1, stateConfirmed: false };

async function figure(id: string): Promise<number> {
  return (await getSession(db, id))!.storageBytes;
}

describe('a session storage figure counts the imports store', () => {
  it('counts held variables and the origin file from the import, through commits, a release, a drop, a clear and a reset', async () => {
    const file = { path: 'data.csv', data: bytes(40), modifiedAt: 1 };
    await writeNewSession(db, newSessionRecord('s', 'Lesson', 1), contents({ files: [file], held, origin }));
    expect(await figure('s')).toBe(40 + 300 + 5000);

    // A run that writes a file recounts from metadata and keeps the imports counted.
    await commitChange(db, 's', { executions: 1, files: { put: [{ path: 'out.txt', data: bytes(10), modifiedAt: 2 }] } });
    expect(await figure('s')).toBe(40 + 10 + 300 + 5000);

    // Let in: the held pickle becomes the session's own (counted as a variable), the origin stays.
    expect(await releaseHeldState(db, 's')).toBe(true);
    expect(await figure('s')).toBe(40 + 10 + 300 + 5000);
    expect((await getSession(db, 's'))!.importsBytes).toBe(5000);

    await clearVariables(db, 's');
    expect(await figure('s')).toBe(40 + 10 + 5000);

    // Reset to original keeps the origin file beside the contents it writes again.
    await replaceSessionContents(db, 's', { name: 'Lesson', vars: {} }, contents({ files: [file], held }));
    expect(await figure('s')).toBe(40 + 300 + 5000);

    expect(await dropHeldState(db, 's')).toBe(true);
    expect(await figure('s')).toBe(40 + 5000);
  });

  it('counts a session stored before imports were counted, once', async () => {
    const legacy: SessionRecord = { ...newSessionRecord('old', 'Old', 1), storageBytes: 40 };
    delete legacy.importsBytes;
    await putSession(db, legacy);
    await putSession(db, newSessionRecord('new', 'New', 1));
    await db.put('imports', { ...held, sessionId: 'old', kind: 'held' });
    await db.put('imports', { ...origin, sessionId: 'old', kind: 'origin' });

    await countImportsBytes(db);
    expect(await figure('old')).toBe(40 + 300 + 5000);
    expect(await figure('new')).toBe(0);
    await countImportsBytes(db);
    expect(await figure('old')).toBe(40 + 300 + 5000);
  });
});

describe('an upgrade blocked by an older tab', () => {
  it('is told, and the open goes on once that tab lets go', async () => {
    const name = `storage-blocked-${n++}`;
    // An older PyTabs: schema version 1, and no versionchange handler that would let go.
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore('sessions', { keyPath: 'id' });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    let blocked = 0;
    const opening = openDb(name, { onBlocked: () => blocked++ });
    await expect.poll(() => blocked).toBe(1);
    let opened = false;
    void opening.then(() => (opened = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened).toBe(false);
    old.close();
    const upgraded = await opening;
    expect(Array.from(upgraded.objectStoreNames)).toContain('imports');
    upgraded.close();
  });
});
