import { test, expect } from './fixtures';

// A language chosen in Settings → Language, in Firefox ESR and WebKitGTK as in Chromium
// (tests/e2e/i18n.spec.ts): applied in place, <html lang> set, kept across a reload.

test('French from Settings → Language applies in place and is kept across a reload', { tag: '@any-host' }, async ({ person, host }) => {
  await person.open(host.url);
  await person.click({ role: 'button', name: 'Settings' });
  await person.find({ role: 'combobox', name: 'Language', within: { role: 'dialog', name: 'Settings' } });
  // A pick in the select, as the browser reports one: its value, then a change event.
  await person.page.evaluate(() => {
    const select = document.getElementById('set-language') as HTMLSelectElement;
    select.value = 'fr';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
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
