import { test, expect } from '@playwright/test';
import { zipSync } from 'fflate';
import { choose, dumpDatabase, openApp } from './app';

// With PyTabs in French, what sessions-as-files refuse reads in French (issue 43): a file that is
// not a session, and a shared link that carries none. The file's name stays as written, and
// nothing is saved.

test('in French, an import refusal and a broken shared link are told in French, and nothing is saved', async ({ page }) => {
  await openApp(page);
  await expect(page.getByRole('tab')).toHaveCount(1);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('combobox', { name: 'Language' }).selectOption('fr');
  await page.getByRole('dialog', { name: 'Réglages' }).getByRole('button', { name: 'Annuler' }).click();
  const before = (await dumpDatabase(page)).sessions;

  await choose(page, 'Importer une session', [{ name: 'devoir.docx', text: zipSync({ 'word/document.xml': new TextEncoder().encode('<w/>') }) }], 'application/zip');
  await expect(page.getByRole('alert')).toHaveText(
    /Impossible d'importer "devoir\.docx" : PyTabs importe des sessions \(\.pytabs\.zip\), des notebooks Jupyter \(\.ipynb\) et des fichiers Python \(\.py\)\./,
  );
  await expect(page.getByRole('alert')).not.toContainText('imports sessions');

  await page.goto('/#/share?v=1');
  await expect(page.getByRole('alert')).toContainText('Impossible d’ouvrir ce lien partagé : il ne porte aucune session (il faut « z=<données> »).');
  await expect(page.getByRole('tab')).toHaveCount(1);
  expect((await dumpDatabase(page)).sessions).toEqual(before);
});
