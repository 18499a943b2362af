import { test, expect } from '@playwright/test';
import { openApp } from './app';

// The notice of sessions the cleanup policy deleted (issue 43) is PyTabs' own text: in French,
// with the plural French gives the count, on the built app with its real storage.

test('in French, the sessions the cleanup policy deleted are counted in French, with its plural', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'fr'));
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const old = await page.evaluate(async () => {
    const api = window.pytabs!;
    const ids = [(await api.createSession('Ancienne 1')).id, (await api.createSession('Ancienne 2')).id];
    api.dispose();
    // Last used 40 days ago: past the default policy's 30 days.
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const store = db.transaction('sessions', 'readwrite').objectStore('sessions');
    for (const id of ids) {
      const record = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = store.get(id);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      store.put({ ...record, lastActiveAt: Date.now() - 40 * 24 * 3600 * 1000 });
    }
    await new Promise((resolve) => (store.transaction.oncomplete = resolve));
    db.close();
    return ids;
  });

  await page.reload();
  await expect(page.getByText('2 sessions inutilisées ont été supprimées par la règle de nettoyage (voir Réglages).')).toBeVisible({ timeout: 30_000 });
  const left = await page.evaluate(async () => (await window.pytabs!.listSessions()).map((s) => s.id));
  expect(left.filter((id) => old.includes(id))).toEqual([]);
});
