import type { SessionManager } from '../sessions/manager';
import { openDb, type PyTabsDB } from '../storage/db';

/**
 * What portability needs of the session manager: the name of its database, its settings,
 * a session's status, ownership of a session (only the owning tab changes it), and a way
 * to say storage changed beside it. Unit tests give a stand-in over a real (fake-indexeddb)
 * database; the page gives the manager.
 */
export type PortableManager = Pick<SessionManager, 'dbName' | 'getSettings' | 'getSession' | 'claim' | 'storageChanged' | 'dispose'>;

/** One connection per database, opened on first use: opening one costs tens of ms, and the session view reads through it after every change. */
const connections = new Map<string, Promise<PyTabsDB>>();

function connection(dbName: string): Promise<PyTabsDB> {
  let db = connections.get(dbName);
  if (!db) {
    const opening = openDb(dbName, { create: false });
    connections.set(dbName, opening);
    // It closes itself when the data is erased or upgraded (storage/db.ts): the next use opens anew.
    const forget = () => {
      if (connections.get(dbName) === opening) connections.delete(dbName);
    };
    opening.then((open) => open.addEventListener('versionchange', forget), forget);
    db = opening;
  }
  return db;
}

/**
 * Runs `use` on portability's own connection to the manager's database (the manager keeps
 * its connection to itself); each operation here is one short step in its own transactions.
 */
export async function withStorage<T>(manager: Pick<PortableManager, 'dbName'>, use: (db: PyTabsDB) => Promise<T>): Promise<T> {
  return use(await connection(manager.dbName));
}
