import { test, expect } from '@playwright/test';
import { choose, downloaded, FIRST_RUN, firstSessionId, openApp, reply, send } from './app';

// Shared links and exported sessions open in the reader's language, not the writer's (issue
// 43): made in English, with a text PyTabs wrote in a round (the time limit's error), then
// opened in a browser whose language is French. Headless Chromium on the built app, real
// Pyodide and IndexedDB.

test('a shared link and an exported session made in English read in French in a French browser, PyTabs\' words in a round included', async ({ page, browser }) => {
  await openApp(page);
  await firstSessionId(page);
  await page.evaluate(() => window.pytabs!.updateSettings({ runTimeoutSeconds: 2 }));
  await send(page, 'while True:\n    pass');
  await expect(reply(page, 1)).toContainText('The run took longer than its time limit of 2 s and was stopped.', FIRST_RUN);

  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const share = page.getByRole('dialog', { name: 'Share a link' });
  const link = await share.getByRole('textbox', { name: /^Link to / }).inputValue();
  await page.keyboard.press('Escape');
  await expect(share).toBeHidden();
  const { data: exported } = await downloaded(page, () => page.getByRole('button', { name: 'Export session' }).click());

  const context = await browser.newContext({ locale: 'fr-FR' });
  try {
    const reader = await context.newPage();
    await openApp(reader, link);
    await expect(reader.locator('html')).toHaveAttribute('lang', 'fr');
    const shared = reader.getByRole('dialog', { name: 'Ouvrir une session partagée ?' });
    await expect(shared).toContainText(/Le lien contient « [^»]+ » : 1 cellule\(s\) et 0 fichier\(s\)\. Rien ne s’est exécuté/);
    await shared.getByRole('button', { name: 'Ouvrir comme nouvelle session' }).click();
    await expect(reader.getByRole('region', { name: 'Cellules du lien' })).toContainText('1 cellule(s)');

    await choose(reader, 'Importer une session', [{ name: 'Session 1.pytabs.zip', text: exported }], 'application/zip');
    await expect(reader.getByRole('tab')).toHaveCount(2);
    const round = reader.getByText("L'exécution a dépassé sa limite de temps de 2 s et a été arrêtée.");
    await expect(round).toBeVisible();
    await expect(reader.locator('section.chat')).not.toContainText('took longer than its time limit');
  } finally {
    await context.close();
  }
});
