import { hasPersistRequest } from './capabilities';
import type { SettingsStore } from './storage/settings';
import { said, tellInEnglish, type Said } from './i18n/said';

/**
 * Where the browser may delete PyTabs' data, people are told once, with what to do, instead of
 * finding their work gone. Safari's rule (data deleted after 7 days without a visit, unless the
 * app runs from the Home Screen) is told where it can be detected: `navigator.standalone`
 * exists only in Safari on iPhone and iPad, false in a browser tab. Elsewhere the wording stays
 * general, since no engine says when it would evict.
 */
export interface StorageRisk {
  /** What to tell, put in words where it is shown; `text` is it in English (logs, tests). */
  said: Said;
  text: string;
  /** Adding PyTabs to the Home Screen keeps its data (Safari on iPhone and iPad). */
  homeScreen: boolean;
  /** The browser can be asked to keep the data (`navigator.storage.persist`). */
  canAsk: boolean;
}

export interface StorageRiskFacts {
  persisted: boolean;
  persistRequest: boolean;
  /** `navigator.standalone`: undefined outside Safari on iPhone and iPad. */
  standalone: boolean | undefined;
}

/** The key, in the settings store, that remembers the notice was dismissed or acted on; an erase forgets it with the rest. */
export const STORAGE_NOTICE_KEY = 'notice:storage-at-risk';

/** What to tell about this browser's keeping of PyTabs' data; null when nothing is at risk. */
export function storageRisk({ persisted, persistRequest, standalone }: StorageRiskFacts): StorageRisk | null {
  if (standalone === false) {
    return {
      ...told(said('rt_risk_safari')),
      homeScreen: true,
      canAsk: persistRequest && !persisted,
    };
  }
  if (persisted) return null;
  return {
    ...told(said('rt_risk_general')),
    homeScreen: false,
    canAsk: persistRequest,
  };
}

function told(text: Said): { said: Said; text: string } {
  return { said: text, text: tellInEnglish(text) };
}

/** `navigator.standalone` as Safari on iPhone and iPad has it; undefined elsewhere. */
export function homeScreenState(): boolean | undefined {
  const standalone = (globalThis.navigator as { standalone?: unknown } | undefined)?.standalone;
  return typeof standalone === 'boolean' ? standalone : undefined;
}

export async function storageNoticeDone(store: SettingsStore): Promise<boolean> {
  return Boolean(await store.get(STORAGE_NOTICE_KEY));
}

/**
 * The notice this page shows, if any: decided before the app first paints. Told later, it pushed
 * the whole page down under a person's click (Firefox's storage estimate can take seconds), so
 * it asks only `persisted()`, not the estimate.
 */
export async function storageRiskOnOpen(store: SettingsStore, persisted: Promise<boolean> = askPersisted()): Promise<StorageRisk | null> {
  if (await storageNoticeDone(store)) return null;
  return storageRisk({ persisted: await persisted, persistRequest: hasPersistRequest(), standalone: homeScreenState() });
}

/** Whether the browser has made this origin's storage persistent; false where it cannot say. */
export async function askPersisted(): Promise<boolean> {
  try {
    return Boolean(await globalThis.navigator?.storage?.persisted?.());
  } catch {
    return false;
  }
}

/** Remembers that the person dismissed the notice or acted on it, so later visits do not show it again. */
export async function markStorageNoticeDone(store: SettingsStore, now = Date.now()): Promise<void> {
  await store.put(STORAGE_NOTICE_KEY, { doneAt: now });
}
