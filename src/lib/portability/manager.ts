import type { SessionManager } from '../sessions/manager';

/**
 * What portability needs of the session manager: its storage and settings, ownership of a
 * session (only the owning tab changes it), and a way to say storage changed beside it.
 * Unit tests give a stand-in over a real (fake-indexeddb) database; the page gives the manager.
 */
export type PortableManager = Pick<SessionManager, 'db' | 'dbName' | 'getSettings' | 'getSession' | 'claim' | 'storageChanged' | 'dispose'>;
