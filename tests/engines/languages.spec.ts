import { test, expect } from './fixtures';

// A language chosen in Settings → Language, in Firefox ESR and WebKitGTK as in Chromium
// (tests/e2e/i18n.spec.ts): applied in place, <html lang> set, kept across a reload.

test('French from Settings → Language applies in place and is kept across a reload', { tag: '@any-host' }, async ({ person, host }) => {
  await person.open(host.url);
  await person.chooseLanguage('fr');
  await person.find({ role: 'combobox', name: 'Langue', within: { role: 'dialog', name: 'Réglages' } });
  await person.find({ role: 'button', name: 'Enregistrer les réglages' });
  expect(await person.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(['fr', 'ltr']);
  await person.click({ role: 'button', name: 'Annuler' });
  await person.find({ role: 'button', name: 'Toutes les sessions' });
  await person.find({ role: 'button', name: 'Nouvelle session' });

  await person.reload();
  await person.find({ role: 'button', name: 'Toutes les sessions' });
  expect(await person.page.evaluate(() => document.documentElement.lang)).toBe('fr');
});
