import { expect, type Page } from '@playwright/test';
import type { SessionManager } from '../../src/lib';

declare global {
  interface Window {
    pytabs?: SessionManager;
  }
}

/** Opens the app and waits until its API is ready. */
export async function openApp(page: Page, path = '/'): Promise<void> {
  await page.goto(path);
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
}

/** Every key in every store of the app's database, as strings, for asserting what storage holds. */
export function dumpDatabase(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const out: Record<string, string[]> = {};
    for (const name of Array.from(db.objectStoreNames)) {
      const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
        const req = db.transaction(name).objectStore(name).getAllKeys();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      out[name] = keys.map((k) => JSON.stringify(k));
    }
    db.close();
    return out;
  });
}
