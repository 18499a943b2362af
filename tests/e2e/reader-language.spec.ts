import { test, expect } from '@playwright/test';
import { choose, chooseZips, downloaded, FIRST_RUN, firstSessionId, openApp, region, reply, send } from './app';
import { ONE_CHECK } from './hand-ins';

// Shared links, exported sessions and hand-ins open in the reader's language, not the writer's
// (issue 43): made in English, with a text PyTabs wrote in a round (the time limit's error), then
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

test("a hand-in made in English: the teacher, in French, grades it and reads the student's work in French, PyTabs' words in a round included", async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page);
  await firstSessionId(page);
  // The student's work, in English: a cell stopped at the page's time limit, then handed in.
  const handIn = await page.evaluate(async (draft) => {
    const api = window.pytabs!;
    const lib = window.pytabsLib!;
    await api.updateSettings({ runTimeoutSeconds: 2 });
    const teacher = await api.createSession('Teacher');
    const { file } = await lib.saveAsAssignment(api, teacher.id, draft as Parameters<typeof lib.saveAsAssignment>[2]);
    const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
    await lib.sendMessage(api, student, 'while True:\n    pass');
    const handed = await lib.handIn(api, student, 'Eve', []);
    await api.deleteSession(student);
    return { name: handed.name, data: Array.from(handed.data) };
  }, { ...ONE_CHECK, timeLimitSeconds: 3 });

  // The teacher reads in French.
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('combobox', { name: 'Language' }).selectOption('fr');
  await page.getByRole('dialog', { name: 'Réglages' }).getByRole('button', { name: 'Annuler' }).click();
  await page.getByRole('tab', { name: ONE_CHECK.title }).click();
  const panel = region(page, `Devoir : ${ONE_CHECK.title}`);
  await chooseZips(page, 'Noter des rendus', [{ name: handIn.name, data: new Uint8Array(handIn.data) }]);
  await expect(panel.getByText('1 noté(s) sur 1')).toBeVisible({ timeout: 180_000 });
  await panel.getByRole('button', { name: 'Eve' }).click();
  const work = page.getByRole('dialog', { name: 'Travail de Eve' });
  await expect(work).toContainText("TimeoutError: L'exécution a dépassé sa limite de temps de 2 s et a été arrêtée.");
  await expect(work).not.toContainText('took longer than its time limit');
});
