import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { FIRST_RUN, openApp, reply, send } from './app';

// Settings → This browser, storage at risk told once, an older tab blocking the database's
// upgrade, and the Settings dialog's one Save: in headless Chromium on the built app, by role
// and name as a person would.

const KEY = 'sk-test-e2e-settings-0123456789';

/** Every value of the settings store as text, to look for a key that must not be there. */
function settingsText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const values = await new Promise<unknown[]>((resolve, reject) => {
      const req = db.transaction('settings').objectStore('settings').getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return JSON.stringify(values);
  });
}

function thisBrowser(page: Page) {
  return page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'This browser' });
}

test('Settings → This browser lists the path taken for each capability; offline turns to yes once the app is kept', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  const lines = thisBrowser(page).getByRole('listitem');
  // The preview server sends COOP/COEP: Chromium then has shared memory, and Stop interrupts.
  expect(await page.evaluate(() => typeof SharedArrayBuffer === 'function' && crossOriginIsolated)).toBe(true);
  await expect(lines.filter({ hasText: /^Stop: / })).toHaveText('Stop: interrupts');
  await expect(lines.filter({ hasText: /^Offline: / })).toHaveText(/^Offline: no: not yet/);
  await expect(lines.filter({ hasText: /^Python stack switching \(JSPI\): / })).toHaveText(/: (yes|no \(as in Safari\)), not needed by PyTabs$/);
  await expect(lines.filter({ hasText: /^Downloads decoded as they stream: / })).toHaveText('Downloads decoded as they stream: yes');
  await expect(lines.filter({ hasText: /^One tab per session/ })).toHaveText('One tab per session (Web Locks): yes');
  await expect(lines.filter({ hasText: /^Other tabs told of changes/ })).toHaveText('Other tabs told of changes: at once');
  const persisted = await page.evaluate(() => navigator.storage.persisted());
  await expect(lines.filter({ hasText: /^Keep data on this device/ })).toHaveText(
    persisted ? 'Keep data on this device: granted' : 'Keep data on this device: can ask',
  );
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

  // The service worker controls the page from the start and keeps the app after the first run.
  await send(page, '1 + 1');
  await expect(reply(page, 1)).toContainText('2', FIRST_RUN);
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 60_000 }).toBe(true);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(thisBrowser(page).getByRole('listitem').filter({ hasText: /^Offline: / })).toHaveText('Offline: yes', { timeout: 60_000 });
});

test('Settings → This browser reads in French once French is chosen, in place, with no English line left', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(thisBrowser(page).getByRole('listitem').first()).toHaveText('Stop: interrupts');
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('combobox', { name: 'Language' }).selectOption('fr');
  const lines = page.getByRole('dialog', { name: 'Réglages' }).getByRole('region', { name: 'Ce navigateur' }).getByRole('listitem');
  await expect(lines.first()).toHaveText('Arrêter : interrompt');
  await expect(lines.filter({ hasText: /^Hors ligne : / })).toHaveText(/^Hors ligne : non : pas encore, PyTabs est gardé sur cet appareil/);
  await expect(lines.filter({ hasText: /^Téléchargements/ })).toHaveText('Téléchargements décodés au fil de l’eau : oui');
  await expect(lines.filter({ hasText: /^Un onglet par session/ })).toHaveText('Un onglet par session (Web Locks) : oui');
  await expect(lines.filter({ hasText: /^Un modèle dans ce navigateur : oui, / })).toHaveText(/, avec jusqu’à 4 fils d’exécution/);
  await expect(lines.filter({ hasText: /^input\(\) : / })).toHaveText('input() : vous attend (mémoire partagée)');
  // Every line is French: none starts as an English line of This browser does.
  const en = JSON.parse(readFileSync('messages/en.json', 'utf8')) as Record<string, string>;
  const english = Object.entries(en)
    .filter(([key, text]) => key.startsWith('libb_') && /^[^{:]+: /.test(text))
    .map(([, text]) => text.slice(0, text.indexOf(': ') + 1));
  expect(english).toContain('Stop:');
  const shown = await lines.allTextContents();
  expect(shown).toHaveLength(11);
  for (const line of shown) expect(english.filter((prefix) => line.startsWith(prefix)), line).toEqual([]);
});

test('a browser without shared memory, Web Locks, BroadcastChannel or persist() is told the other paths', async ({ page }) => {
  await page.addInitScript(() => {
    // What a plain host in WebKit, or an older engine, lacks: each path must be found by trying it.
    Object.defineProperty(globalThis, 'SharedArrayBuffer', { value: undefined });
    Object.defineProperty(globalThis, 'BroadcastChannel', { value: undefined });
    Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined });
    Object.defineProperty(StorageManager.prototype, 'persist', { value: undefined });
  });
  await openApp(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const lines = thisBrowser(page).getByRole('listitem');
  await expect(lines.filter({ hasText: /^Stop: / })).toHaveText('Stop: restarts from the last saved state');
  await expect(lines.filter({ hasText: /^One tab per session/ })).toHaveText(/^One tab per session \(Web Locks\): no: /);
  await expect(lines.filter({ hasText: /^Other tabs told of changes/ })).toHaveText('Other tabs told of changes: when you switch to them');
  await expect(lines.filter({ hasText: /^Keep data on this device/ })).toHaveText('Keep data on this device: cannot ask');
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

  // And the app works on those paths: a session runs, owned by this tab.
  await page.getByRole('button', { name: 'New session' }).click();
  await send(page, 'x = 6 * 7\nx');
  await expect(reply(page, 1)).toContainText('42', FIRST_RUN);
});

test('storage at risk is told once, without blocking anything or moving the page, and a dismissal is remembered across visits', async ({ page }) => {
  // Whether the notice was there when the app first painted: one arriving later pushed the page
  // down under a person's click (a Firefox test clicked beside Clear grades).
  await page.addInitScript(() => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector('main')) return;
      (window as { noticeAtFirstPaint?: boolean }).noticeAtFirstPaint = Boolean(document.querySelector('section.storage-notice'));
      seen.disconnect();
    });
    seen.observe(document, { childList: true, subtree: true });
  });
  await openApp(page);
  expect(await page.evaluate(() => navigator.storage.persisted())).toBe(false);
  const notice = page.getByRole('region', { name: 'Your work is kept in this browser only' });
  await expect(notice).toContainText('This browser may delete PyTabs’ data after some time without a visit or when space runs low');
  expect(await page.evaluate(() => (window as { noticeAtFirstPaint?: boolean }).noticeAtFirstPaint)).toBe(true);
  await expect(notice.getByRole('button', { name: 'Keep data on this device' })).toBeVisible();
  // It blocks nothing: the app is used with the notice on screen.
  await page.getByRole('button', { name: 'New session' }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEditable();

  const download = page.waitForEvent('download');
  await notice.getByRole('button', { name: 'Download all my work' }).click();
  expect((await download).suggestedFilename()).toMatch(/\.zip$/);
  await expect(notice).toContainText('handed to the browser as a download');
  await notice.getByRole('button', { name: 'Dismiss the storage notice' }).click();
  await expect(notice).toBeHidden();

  await page.reload();
  await openApp(page);
  await expect(page.getByRole('button', { name: 'New session' }).first()).toBeVisible();
  await expect(notice).toHaveCount(0);
});

test('a tab of an older version blocking the database upgrade is named, and the app opens once it is closed', async ({ page, context }) => {
  // The older PyTabs: schema version 1 (no `imports` store), holding its connection and never
  // letting go on versionchange. Opened from a static file of the same origin, not the app.
  const old = await context.newPage();
  await old.goto('/pyodide/pyodide-lock.json');
  await old.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('pytabs', 1);
        req.onupgradeneeded = () => {
          const db = req.result;
          db.createObjectStore('sessions', { keyPath: 'id' });
          for (const store of ['files', 'fileData']) db.createObjectStore(store, { keyPath: ['sessionId', 'path'] });
          for (const store of ['variables', 'pickles']) db.createObjectStore(store, { keyPath: ['sessionId', 'name'] });
          for (const store of ['replay', 'rounds']) db.createObjectStore(store, { keyPath: ['sessionId', 'seq'] });
          db.createObjectStore('settings', { keyPath: 'key' });
        };
        req.onsuccess = () => {
          (globalThis as unknown as { held: IDBDatabase }).held = req.result;
          resolve();
        };
        req.onerror = () => reject(req.error);
      }),
  );

  await page.goto('/');
  await expect(page.getByRole('alert')).toHaveText(
    'PyTabs is open in another tab with an older version. Close or reload that tab to continue; this page opens by itself once it has.',
  );
  await old.close();
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
  await expect(page.getByRole('button', { name: 'New session' }).first()).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'older version' })).toHaveCount(0);
  const stores = await page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const req = indexedDB.open('pytabs');
        req.onsuccess = () => {
          resolve(Array.from(req.result.objectStoreNames));
          req.result.close();
        };
      }),
  );
  expect(stores).toContain('imports');
});

test('Settings has one Save: the assistant fields are saved with the rest, a bad one is told and nothing typed is lost', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog.getByRole('button', { name: /Save/ })).toHaveCount(1);

  // A key with no Base URL: refused with the reason, the dialog stays, the key is still there.
  await dialog.getByRole('textbox', { name: 'Run time limit (seconds, 0 = none)' }).fill('30');
  await dialog.getByLabel('API key', { exact: true }).fill(KEY);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Assistant: Set the Base URL first: the key is kept for that address only.');
  await expect(dialog.getByLabel('API key', { exact: true })).toHaveValue(KEY);

  await dialog.getByRole('textbox', { name: 'Base URL', exact: true }).fill('http://127.0.0.1:9/v1');
  await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('plain');
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'Settings saved.' })).toBeVisible();
  // Not remembered: held in the page only, never written to storage.
  expect(await settingsText(page)).not.toContain(KEY);

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Run time limit (seconds, 0 = none)' })).toHaveValue('30');
  await expect(dialog.getByRole('textbox', { name: 'Base URL', exact: true })).toHaveValue('http://127.0.0.1:9/v1');
  await expect(dialog.getByRole('textbox', { name: 'Model', exact: true })).toHaveValue('plain');
  await expect(dialog.getByLabel('API key', { exact: true })).toHaveAttribute('placeholder', 'A key is set (hidden); type to replace it');
  await expect(dialog.getByText('The key is held until this page closes.')).toBeVisible();
});
