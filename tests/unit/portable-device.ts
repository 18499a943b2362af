import { openDb, type PyTabsDB } from '../../src/lib/storage/db';
import { getSession } from '../../src/lib/storage/sessions';
import { DEFAULT_SETTINGS } from '../../src/lib/storage/settings';
import type { SessionInfo } from '../../src/lib/sessions/manager';
import type { PortableManager } from '../../src/lib/portability';

let n = 0;

/**
 * The manager as sessions-as-files see it (PortableManager), over a real (fake-indexeddb)
 * database of its own: ownership and workers belong to the page (covered end to end), so a
 * claim always succeeds. `overrides` replace any part (settings, what a change or a dispose
 * records). `db` is the test's own connection, to seed and read storage.
 */
export async function portableDevice(prefix: string, overrides: Partial<PortableManager> = {}): Promise<PortableManager & { db: PyTabsDB }> {
  const dbName = `${prefix}-${n++}`;
  const db = await openDb(dbName);
  return {
    db,
    dbName,
    getSettings: () => DEFAULT_SETTINGS,
    getSession: async (id) => {
      const record = await getSession(db, id);
      if (!record) throw new Error(`No session with id ${id}.`);
      return { ...record, status: 'asleep' } as SessionInfo;
    },
    claim: async () => 'owned',
    storageChanged: () => undefined,
    dispose: async () => undefined,
    ...overrides,
  };
}
