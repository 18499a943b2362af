import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { firstSessionId, openApp } from './app';
import { unmarked } from './screen-checks';

// Languages (issue 43), in headless Chromium on the built app: chosen in Settings → Language and
// applied in place, kept across a reload; Arabic right to left; the site's default file and the
// browser's languages when the person chose nothing; the pseudo-language marking every text of
// the side panels, the top bar and Settings.

/** Settings → Language, found by the names of the dialog and the select in the language shown. */
async function chooseLanguage(page: Page, names: { settings: string; language: string }, value: string): Promise<void> {
  await page.getByRole('dialog', { name: names.settings }).getByRole('combobox', { name: names.language }).selectOption(value);
}

const ENGLISH = { settings: 'Settings', language: 'Language' };

async function openSettings(page: Page, buttonName = 'Settings'): Promise<void> {
  await page.getByRole('button', { name: buttonName }).click();
}

test('French from Settings → Language: in place, nothing open lost, <html lang="fr">, kept across a reload', async ({ page }) => {
  await openApp(page);
  await firstSessionId(page);
  await page.getByRole('textbox', { name: 'Message' }).fill('print("bonjour")');
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  await openSettings(page);
  await chooseLanguage(page, ENGLISH, 'fr');

  const settings = page.getByRole('dialog', { name: 'Réglages' });
  await expect(settings).toBeVisible();
  await expect(settings.getByRole('region', { name: 'Utilisation hors ligne' })).toBeVisible();
  await expect(settings.getByRole('region', { name: 'Vos données' })).toBeVisible();
  await expect(settings.getByRole('button', { name: 'Enregistrer les réglages' })).toBeVisible();
  await expect(settings.getByLabel('Taille maximale d’une variable (Mo)')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await settings.getByRole('button', { name: 'Annuler' }).click();

  await expect(page.getByRole('button', { name: 'Toutes les sessions' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Liste des sessions' })).toContainText('0 variable · 0 exécution');
  await expect(page.getByRole('button', { name: 'Fichiers', exact: true })).toBeVisible();
  await expect(page.getByText('Aucun fichier pour l’instant.')).toBeVisible();
  // Switched in place: the page was not reloaded and the message being written is still there.
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveText('print("bonjour")');

  await expect(page.getByRole('button', { name: 'Nouvelle session' })).toBeVisible();
  await expect(page.getByRole('tablist', { name: 'Sessions' })).toBeVisible();

  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('button', { name: 'Toutes les sessions' })).toBeVisible();
  await openSettings(page, 'Réglages');
  await expect(page.getByRole('dialog', { name: 'Réglages' }).getByRole('combobox', { name: 'Langue' })).toHaveValue('fr');
});

test('Erase all data forgets the language chosen: the next visit is in the browser\'s language again', async ({ page }) => {
  await openApp(page);
  await firstSessionId(page);
  await openSettings(page);
  await chooseLanguage(page, ENGLISH, 'fr');
  const settings = page.getByRole('dialog', { name: 'Réglages' });
  await settings.getByRole('button', { name: 'Effacer toutes les données de cet appareil' }).click();
  await page.getByRole('dialog', { name: 'Effacer toutes les données de cet appareil ?' }).getByRole('button', { name: 'Tout effacer' }).click();
  await expect(page.getByRole('alert')).toContainText('Toutes les données de PyTabs sur cet appareil ont été effacées.');
  expect(await page.evaluate(() => localStorage.getItem('pytabs-language'))).toBeNull();
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Recharger' }).click()]);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByRole('button', { name: 'Settings' })).toBeVisible();
});

test('Arabic reads right to left: <html dir="rtl">, the side panels mirrored, the Settings dialog axe clean', async ({ page }) => {
  await openApp(page);
  await firstSessionId(page);
  const sidebar = page.locator('aside.sidebar');
  const main = page.locator('.main-column');
  const ltr = { side: (await sidebar.boundingBox())!, main: (await main.boundingBox())! };
  expect(ltr.side.x).toBeGreaterThan(ltr.main.x);

  await openSettings(page);
  await chooseLanguage(page, ENGLISH, 'ar');
  const settings = page.getByRole('dialog', { name: 'الإعدادات' });
  await expect(settings).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');

  const axe = await new AxeBuilder({ page }).include('dialog[open]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

  await settings.getByRole('button', { name: 'إلغاء' }).click();
  const rtl = { side: (await sidebar.boundingBox())!, main: (await main.boundingBox())! };
  // The sidebar moved to the left of the conversation, and kept its width.
  expect(rtl.side.x).toBeLessThan(rtl.main.x);
  expect(Math.round(rtl.side.width)).toBe(Math.round(ltr.side.width));
  // Code stays left to right.
  await expect(page.locator('.editor')).toHaveCSS('direction', 'ltr');
});

test("the site's site.json sets the language when the person chose nothing; the person's choice wins over it", async ({ page }) => {
  // The context's route: once the service worker controls the page, it is the one that asks for site.json.
  await page.context().route('**/site.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ language: 'de' }) }));
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByRole('button', { name: 'Alle Sitzungen' })).toBeVisible();
  await openSettings(page, 'Einstellungen');
  const settings = page.getByRole('dialog', { name: 'Einstellungen' });
  await expect(settings.getByRole('combobox', { name: 'Sprache' })).toHaveValue('');
  await expect(settings.getByRole('option', { name: 'Automatisch (Deutsch)' })).toBeAttached();
  await chooseLanguage(page, { settings: 'Einstellungen', language: 'Sprache' }, 'es');
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Todas las sesiones' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
});

test.describe('without a site file', () => {
  test.use({ locale: 'pt-BR' });
  test("the browser's languages pick the language", async ({ page }) => {
    await openApp(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'pt-BR');
    await expect(page.getByRole('button', { name: 'Todas as sessões' })).toBeVisible();
  });
});

test('pseudo-language: the top bar, the Settings dialog and the session list, files and variables panels show no unmarked text', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'en-XA'));
  await openApp(page);
  await firstSessionId(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
  // Session names are the person's (a link each); user code stays as written.
  const panels = page.locator('aside.sidebar');
  await expect(panels.locator('.panel').first()).toBeVisible();
  const sessionList = page.locator('section.panel').filter({ has: page.locator('.session-drop') });
  expect(await unmarked(sessionList, 'a[href^="#/s/"]')).toEqual([]);
  const checked: string[] = [];
  for (const panel of await panels.locator('section.panel').all()) {
    const title = (await panel.locator('h2').innerText()).trim();
    // The Files, Variables and Session variables panels (a fresh session has no assignment's; i18n-journeys.spec.ts checks those).
    if (!/^⟦(Ƒîļéš|Ṽáŕîáƀļéš|Šéššîöñ ṽáŕîáƀļéš)/.test(title)) continue;
    expect({ title, left: await unmarked(panel, 'code') }).toEqual({ title, left: [] });
    checked.push(title);
  }
  expect(checked).toHaveLength(3);
  // The top bar, less the sessions' names (the person's).
  expect(await unmarked(page.locator('header.topbar'), '.tab-name')).toEqual([]);
  await page.getByRole('button', { name: /^⟦Šéţţîñĝš/ }).click();
  const settings = page.getByRole('dialog', { name: /^⟦Šéţţîñĝš/ });
  await expect(settings).toBeVisible();
  await expect(settings.locator('#storage-usage, .storage p').first()).toBeVisible();
  // Left out: the language names, which each language writes in its own words; the servers the
  // assistant offers by their product's name; code shown as code.
  const skip = ['#set-language option', ...['openai', 'ollama', 'lmstudio'].map((id) => `#asst-preset option[value=${id}]`), 'code'].join(',');
  expect(await unmarked(settings, skip)).toEqual([]);
});

test("the pseudo-language check reads images' alt texts and progress bars' and sliders' value texts", async ({ page }) => {
  await page.setContent('<main><p>⟦Ṕļöţ⟧</p><img alt="A plot" src="data:,"><div role="slider" aria-label="⟦Šţéṗ⟧" aria-valuenow="2" aria-valuetext="step 2 of 5"></div><img alt="⟦Ƒîĝûŕé⟧" src="data:,"></main>');
  expect(await unmarked(page.locator('main'), '')).toEqual(['A', 'plot', 'step', 'of']);
});

test.describe('in a French browser', () => {
  test.use({ locale: 'fr-FR' });

  test('storage left by a newer PyTabs: the page says why in French words, whenever the database answers', async ({ page }) => {
    // The database is made at a newer schema from another page of the same site, before the app opens.
    await page.goto('embed-origins.json');
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = indexedDB.open('pytabs', 99);
          req.onupgradeneeded = () => req.result.createObjectStore('from-the-future');
          req.onsuccess = () => {
            req.result.close();
            resolve();
          };
          req.onerror = () => reject(req.error);
        }),
    );
    await page.goto('./');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('PyTabs n’a pas pu ouvrir son stockage (IndexedDB) : ');
    await expect(alert).toContainText('viennent d’une version de PyTabs plus récente que cette page (schéma');
    await expect(alert).not.toContainText('lib2_db_newer');
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  });
});
