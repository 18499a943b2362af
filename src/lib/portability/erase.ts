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
 * What holds up an erase's delete: 'tab', another tab's connection that does not close
 * (an older version of the app, a worker stuck in a run); 'browser', nothing that the page
 * is told of (WebKit has kept a connection of a worker ended while it opened storage).
 */
export type EraseHolder = 'tab' | 'browser';

/** The erase a manager's page is doing, while it does it: `onDataErased` tells that page once it is done. */
const erasing = new WeakMap<Pick<PortableManager, 'dispose'>, Promise<EraseReport>>();

/**
 * Erase all data on this device: stops every worker of this tab, deletes PyTabs' databases
 * (sessions, files, variables, history, settings, remembered keys, the device key that signs
 * exports), its caches and service worker, and its keys in localStorage/sessionStorage.
 * Every tab lets go of the database when it is deleted (each connection closes itself on
 * `versionchange`, storage/db.ts, and `onDataErased` tells each page, this one once the
 * erase is done); a delete not done within a second makes `onBlocked` say what holds it,
 * and the erase waits on. Afterwards this tab's manager is disposed: reload the page to
 * start as on a first visit.
 */
export function eraseAllData(manager: PortableManager, { onBlocked }: { onBlocked?: (holder: EraseHolder) => void } = {}): Promise<EraseReport> {
  const done = eraseEverything(manager, onBlocked);
  erasing.set(manager, done);
  const forget = () => void (erasing.get(manager) === done && erasing.delete(manager));
  done.then(forget, forget);
  return done;
}

async function eraseEverything(manager: PortableManager, onBlocked: ((holder: EraseHolder) => void) | undefined): Promise<EraseReport> {
  // Every worker of this tab has ended, and let go of storage, before the delete is asked for.
  await manager.dispose();
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
 * How long a delete may take before the person is told what holds it. A session worker
 * closes its connection on `versionchange` like the page does, but its answer crosses
 * threads, and Chromium reports "blocked" before it arrives (tens of ms).
 */
const LET_GO_MS = 1000;

/**
 * Deletes a database, and resolves once it is gone. WebKit holds a delete up without a
 * `blocked` event when it keeps a connection that no page can close: that is told too.
 */
async function deleteWhenLetGo(name: string, onBlocked: ((holder: EraseHolder) => void) | undefined): Promise<void> {
  let blockedByTab = false;
  let told = false;
  const timer = setTimeout(() => {
    told = true;
    onBlocked?.(blockedByTab ? 'tab' : 'browser');
  }, LET_GO_MS);
  try {
    await deleteDB(name, {
      blocked: () => {
        blockedByTab = true;
        if (told) onBlocked?.('tab');
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
 * Calls `listener` once when the data is erased (by another tab as its delete begins, by
 * this tab once its erase is done; an erase here that fails says so itself) or a newer
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
    void manager.dispose();
    listener('erased');
    return () => undefined;
  }
  const handler = (event: IDBVersionChangeEvent) => {
    db.removeEventListener('versionchange', handler);
    listening.delete(db);
    void manager.dispose();
    const erasingHere = erasing.get(manager);
    if (event.newVersion !== null) listener('upgraded');
    else if (erasingHere) erasingHere.then(() => listener('erased'), () => undefined);
    else listener('erased');
  };
  db.addEventListener('versionchange', handler);
  listening.add(db);
  return () => {
    db.removeEventListener('versionchange', handler);
    listening.delete(db);
    db.close();
  };
}
