import { readFileSync } from 'node:fs';
import { expect, type Download, type Frame, type Locator, type Page } from '@playwright/test';
import type { PyTabsApi } from '../../src/lib/api';

declare global {
  interface Window {
    pytabs?: PyTabsApi;
  }
}

/** Opens the app and waits until its API is ready. */
export async function openApp(page: Page, path = '/'): Promise<void> {
  await page.goto(path);
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
}

/** The session the app opens on its own: it makes one just after `window.pytabs` appears, so this waits for it. */
export async function firstSessionId(page: Page): Promise<string> {
  let id: string | undefined;
  await expect.poll(async () => (id = await page.evaluate(async () => (await window.pytabs!.listSessions())[0]?.id)), { timeout: 30_000 }).toBeTruthy();
  return id!;
}

/** Every key in every store of the app's database (of a page, or of an embed's frame), as strings, for asserting what storage holds. */
export function dumpDatabase(page: Page | Frame): Promise<Record<string, string[]>> {
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

/** A session's first reply waits for its Python to start: seconds per session on two cores. */
export const FIRST_RUN = { timeout: 90_000 };

/** Types a message in the composer and presses Send. */
export async function send(page: Page, code: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(code);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The reply to the open session's nth message. */
export function reply(page: Page, n: number): Locator {
  return page.getByRole('group', { name: `Reply to message ${n}` });
}

/** A panel of the page by its exact name ("Files", "Variables", "Session variables", ...). */
export function region(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

/** Clicks a button that opens the file picker and chooses files (text or bytes) in it, as a person would. */
export async function choose(page: Page, button: string, files: { name: string; text: string | Uint8Array }[], mimeType = 'text/plain'): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: button }).click();
  await (await chooser).setFiles(files.map((f) => ({ name: f.name, mimeType, buffer: Buffer.from(f.text) })));
}

/** `choose` for .zip files (sessions, hand-ins). */
export function chooseZips(page: Page, button: string, files: { name: string; data: Uint8Array }[]): Promise<void> {
  return choose(page, button, files.map((f) => ({ name: f.name, text: f.data })), 'application/zip');
}

/** What a click made the browser download: the download and its bytes. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; data: Uint8Array }> {
  const event = page.waitForEvent('download');
  await click();
  const download = await event;
  return { download, data: new Uint8Array(readFileSync(await download.path())) };
}
