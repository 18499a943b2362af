import { test, expect, type Page } from '@playwright/test';
import { firstSessionId, openApp } from './app';

// What the runtime writes, on a page in French (issue 43): a session's start steps (loading
// Python, reading storage, restoring), the time limit's error in a reply, and an embed asked for
// `lang=fr`. Headless Chromium on the built app, real Pyodide and IndexedDB.

/** Every text the start's progress line (the app's, or an embed's status) showed, recorded as it changes. */
async function recordSteps(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { steps: string[] }).steps = seen;
    new MutationObserver(() => {
      for (const node of document.querySelectorAll('#loading-label, .embed-status')) {
        const text = node.textContent?.trim() ?? '';
        if (text && seen.at(-1) !== text) seen.push(text);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

const steps = (page: Page) => page.evaluate(() => (window as unknown as { steps: string[] }).steps);

/** English a start step used to show (PyTabs' words; file names such as pyodide.asm.wasm stay). */
const ENGLISH_STEPS = /Starting Python|Fetching|Fetched|Reading this session|Restoring|from storage| of \d/;

test('in French, a session’s start steps say what happens in French, restoring included', async ({ page }) => {
  await recordSteps(page);
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'fr'));
  await openApp(page);
  const id = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.run(id, 'kept = 42'), id);
  const first = await steps(page);
  expect(first.some((text) => text.includes('Démarrage de Python'))).toBe(true);

  // Again from storage: the start reads the session and restores its variable.
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
  await page.evaluate((id) => window.pytabs!.run(id, 'kept'), id);
  const again = await steps(page);
  expect(again.some((text) => text.includes('Lecture des fichiers et des variables de cette session'))).toBe(true);
  expect(again.some((text) => text.includes('Restauration : 1 variable'))).toBe(true);
  expect([...first, ...again].filter((text) => ENGLISH_STEPS.test(text))).toEqual([]);
});

test('an embed with lang=fr speaks French (<html lang>), its start steps and a run stopped at the time limit included', async ({ page }) => {
  await openApp(page);
  await firstSessionId(page);
  await page.evaluate(() => window.pytabs!.updateSettings({ runTimeoutSeconds: 2 }));

  await recordSteps(page);
  // A document of its own (a fragment alone would change the app's address in place).
  await page.goto('about:blank');
  await page.goto('/#/embed?id=limite&lang=fr');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const embed = page.getByRole('main', { name: /^Python : / });
  await expect(embed.getByText('Appuyez sur Exécuter pour lancer ce code ; Python démarre alors, dans cette page.')).toBeVisible();
  await page.getByRole('textbox', { name: 'Code' }).fill('while True:\n    pass');
  await embed.getByRole('button', { name: 'Exécuter' }).click();

  const error = embed.getByText("TimeoutError: L'exécution a dépassé sa limite de temps de 2 s et a été arrêtée.");
  await expect(error).toBeVisible({ timeout: 120_000 });
  await expect(embed.getByRole('button', { name: 'Réinitialiser' })).toBeVisible();
  await expect(embed.getByRole('button', { name: 'Ouvrir dans PyTabs' })).toBeVisible();
  for (const name of ['Run', 'Stop', 'Reset', 'Open in PyTabs']) await expect(embed.getByRole('button', { name, exact: true })).toHaveCount(0);
  // The English the page writes for the API and logs is not what the reader sees.
  await expect(embed).not.toContainText('took longer than its time limit');
  const seen = await steps(page);
  expect(seen.some((text) => text.startsWith('Démarrage de Python'))).toBe(true);
  expect(seen.filter((text) => ENGLISH_STEPS.test(text))).toEqual([]);
  await page.evaluate(() => window.pytabs?.updateSettings({ runTimeoutSeconds: 0 }));
});

test("the embed client, given no lang, passes its course page's: <html lang>, else the nearest lang around the embed; an author's lang wins", async ({ page }) => {
  // A course page on the app's own origin, which imports the client as README shows.
  const course = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Semaine 1</title></head><body>
    <div id="page"></div><section lang="de"><div id="section"></div></section><div id="author"></div>
    <script type="module">
      import { PyTabsEmbed } from '/embed/pytabs-embed.js';
      const app = location.origin + '/';
      PyTabsEmbed.create(document.querySelector('#page'), { app, id: 'page', code: 'x = 1' }, { title: 'page' });
      PyTabsEmbed.create(document.querySelector('#section'), { app, id: 'section', code: 'x = 1' }, { title: 'section' });
      PyTabsEmbed.create(document.querySelector('#author'), { app, id: 'author', code: 'x = 1', lang: 'es' }, { title: 'author' });
    </script></body></html>`;
  await page.route('**/course/week1.html', (route) => route.fulfill({ contentType: 'text/html', body: course }));
  await page.goto('/course/week1.html');
  for (const [title, lang, run] of [
    ['page', 'fr', 'Exécuter'],
    ['section', 'de', 'Ausführen'],
    ['author', 'es', 'Ejecutar'],
  ]) {
    const embed = page.frameLocator(`iframe[title="${title}"]`);
    await expect(embed.locator('html'), title).toHaveAttribute('lang', lang, { timeout: 30_000 });
    await expect(embed.getByRole('button', { name: run, exact: true }), title).toBeVisible();
  }
});

test('in French, the Variables panel says in French why a variable is not kept (the Python runtime words it)', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'fr'));
  await openApp(page);
  const id = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.run(id, 'carre = lambda x: x * x'), id);
  const variables = page.getByRole('region', { name: 'Variables' });
  const badge = variables.getByRole('button', { name: 'Non gardée' });
  await expect(badge).toHaveAccessibleDescription('une lambda ne peut pas être picklée (une fonction écrite avec un def au premier niveau peut être gardée)', { timeout: 30_000 });
});
