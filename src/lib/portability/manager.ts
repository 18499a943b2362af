import type { SessionManager } from '../sessions/manager';
import { openDb, type PyTabsDB } from '../storage/db';

/**
 * What portability needs of the session manager: the name of its database, its settings,
 * a session's status, ownership of a session (only the owning tab changes it), and a way
 * to say storage changed beside it. Unit tests give a stand-in over a real (fake-indexeddb)
 * database; the page gives the manager.
 */
export type PortableManager = Pick<SessionManager, 'dbName' | 'getSettings' | 'getSession' | 'claim' | 'storageChanged' | 'dispose'>;

/**
 * Runs `use` on a connection of its own to the manager's database, closed afterwards: the
 * manager keeps its connection to itself, and each operation here is one short step.
 */
export async function withStorage<T>(manager: Pick<PortableManager, 'dbName'>, use: (db: PyTabsDB) => Promise<T>): Promise<T> {
  const db = await openDb(manager.dbName, { create: false });
  try {
    return await use(db);
  } finally {
    db.close();
  }
}
