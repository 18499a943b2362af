import { deleteDB } from 'idb';
import { hasServiceWorkers } from '../capabilities';
import { openDb, StorageGoneError, type PyTabsDB } from '../storage/db';
import type { PortableManager } from './manager';

/**
 * What of this origin counts as PyTabs': databases and Cache Storage caches whose names
 * start with this, and Workbox's caches for the app's own scope. Other apps on the same
 * origin (a school site with several tools under sub-paths) keep theirs.
 */
export const PYTABS_PREFIX = 'pytabs';

export interface EraseReport {
  databases: string[];
  caches: string[];
  serviceWorkers: number;
}

/** The app's folder (its service worker's scope), e.g. https://school.example/python/. */
function appScope(): string | null {
  return typeof document === 'undefined' ? null : new URL('./', document.baseURI).href;
}

/**
 * Erase all data on this device: stops every worker of this tab, deletes PyTabs' databases
 * (sessions, files, variables, history, settings, remembered keys, the device key that signs
 * exports), its caches and service worker, and its keys in localStorage/sessionStorage.
 * Every tab lets go of the database when it is deleted (each connection closes itself on
 * `versionchange`, storage/db.ts, and `onDataErased` tells each page, this one included);
 * a tab that does not within a second (an older version of the app, a worker stuck in a
 * run) makes `onBlocked` fire, and the erase waits for it to close. Afterwards this tab's
 * manager is disposed: reload the page to start as on a first visit.
 */
export async function eraseAllData(manager: PortableManager, { onBlocked }: { onBlocked?: () => void } = {}): Promise<EraseReport> {
  manager.dispose();
  const names = new Set([manager.dbName]);
  for (const info of (await indexedDB.databases?.()) ?? []) if (info.name?.startsWith(PYTABS_PREFIX)) names.add(info.name);
  for (const name of names) await deleteWhenLetGo(name, onBlocked);

  const scope = appScope();
  const caches: string[] = [];
  if (typeof globalThis.caches !== 'undefined') {
    for (const name of await globalThis.caches.keys()) {
      if (name.startsWith(PYTABS_PREFIX) || (scope && name.startsWith('workbox-') && name.endsWith(scope))) {
        await globalThis.caches.delete(name);
        caches.push(name);
      }
    }
  }
  for (const storage of [globalThis.localStorage, globalThis.sessionStorage]) {
    if (!storage) continue;
    for (const key of Object.keys(storage)) if (key.startsWith(PYTABS_PREFIX)) storage.removeItem(key);
  }
  let serviceWorkers = 0;
  const registrations = hasServiceWorkers() ? await navigator.serviceWorker.getRegistrations() : [];
  for (const registration of registrations) {
    if (scope && registration.scope.startsWith(scope) && (await registration.unregister())) serviceWorkers++;
  }
  return { databases: [...names], caches, serviceWorkers };
}

/**
 * How long a delete may be blocked before the person is told a tab does not let go. A
 * session worker closes its connection on `versionchange` like the page does, but its
 * answer crosses threads, and Chromium reports "blocked" before it arrives (tens of ms).
 */
const LET_GO_MS = 1000;

async function deleteWhenLetGo(name: string, onBlocked: (() => void) | undefined): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await deleteDB(name, {
      blocked: () => {
        timer ??= setTimeout(() => onBlocked?.(), LET_GO_MS);
      },
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The connections `onDataErased` listens on. Firefox collects a connection that nothing
 * references, listener and all, and the page then never hears of an erase: each is held
 * here until its listener is removed.
 */
const listening = new Set<PyTabsDB>();

/** Why this tab's database was closed under it. */
export type DataGoneReason = 'erased' | 'upgraded';

/**
 * Calls `listener` once when the data is erased (by any tab, this one too) or a newer
 * version of PyTabs that changes the database opens in another tab ('upgraded'). It
 * listens on a connection of its own, and resolves once it does; by the time the
 * listener runs, the manager's connection has closed itself (storage/db.ts) and this also
 * stops the tab's workers. The page should say so and offer Reload. Resolves to the
 * unsubscribe function.
 */
export async function onDataErased(manager: Pick<PortableManager, 'dbName' | 'dispose'>, listener: (reason: DataGoneReason) => void): Promise<() => void> {
  let db: PyTabsDB;
  try {
    db = await openDb(manager.dbName, { create: false });
  } catch (error) {
    // Erased between the manager's opening and this one.
    if (!(error instanceof StorageGoneError)) throw error;
    manager.dispose();
    listener('erased');
    return () => undefined;
  }
  const handler = (event: IDBVersionChangeEvent) => {
    db.removeEventListener('versionchange', handler);
    listening.delete(db);
    manager.dispose();
    listener(event.newVersion === null ? 'erased' : 'upgraded');
  };
  db.addEventListener('versionchange', handler);
  listening.add(db);
  return () => {
    db.removeEventListener('versionchange', handler);
    listening.delete(db);
    db.close();
  };
}
