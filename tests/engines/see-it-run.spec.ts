import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';

// Issue 44's "done when" as one journey, in Chromium, Firefox ESR and WebKitGTK: on a plain host (no headers), offline after the first visit (the host refuses
// every request), in French, a student steps through a program where one list has two names,
// sees both names refer to one list, goes back three steps, and meets an error explained in
// French with its line marked.

const PROGRAM = ['notes = [12, 15]', 'copie = notes', 'copie.append(9)', 'n = len(notes)', 'derniere = notes[n]'].join('\n');

test('see it run: offline on a plain host, in French, one list behind two names, back three steps, an error explained with its line marked', async ({ person, host, hostHeaders }) => {
  test.skip(hostHeaders !== 'plain', 'The journey is the plain host’s: no headers, the service worker makes it whole.');
  await person.open(host.url);
  // The student chose French on their first visit; the choice is kept with the app.
  await person.click({ role: 'button', name: 'Settings' });
  await person.find({ role: 'combobox', name: 'Language', within: { role: 'dialog', name: 'Settings' } });
  // A pick in the select, as the browser reports one: its value, then a change event.
  await person.page.evaluate(() => {
    const select = document.getElementById('set-language') as HTMLSelectElement;
    select.value = 'fr';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await person.click({ role: 'button', name: 'Annuler' });
  await person.expectGone({ role: 'dialog', name: 'Réglages' });
  await person.fill({ role: 'textbox', name: 'Message' }, "premier = 'visite'");
  await person.click({ role: 'button', name: 'Envoyer' });
  await person.expectText({ role: 'group', name: 'Réponse au message 1' }, 'Terminé en', FIRST_RUN);
  await person.untilKeptOffline();
  host.refusing = true;
  await person.reload();

  await person.fill({ role: 'textbox', name: 'Message' }, PROGRAM);
  await person.click({ role: 'button', name: 'Pas à pas' });
  const reply = { role: 'group', name: 'Réponse au message 2' };
  const view = { role: 'group', name: 'Exécution pas à pas', within: reply };
  await person.find(view, { timeout: FIRST_RUN });
  const slider = { role: 'slider', name: 'Étape', within: view };
  const said = { role: 'status', within: view };

  // At the end both names refer to one list, drawn once.
  await person.click({ role: 'button', name: 'Fin', within: view });
  // The start, lines 1 to 5, the exception at line 5, the end: eight steps.
  const last = Number(await person.text(slider));
  expect(last).toBe(7);
  const module = { role: 'group', name: '<module>', within: view };
  expect(await person.count({ role: 'button', name: '→ list n°1', within: module })).toBe(2);
  expect(await person.count({ role: 'group', name: 'list n°1', within: view })).toBe(1);

  // Back three steps, by the button and then by keys on it, to where copie.append(9) has just run.
  await person.click({ role: 'button', name: 'Reculer', within: view });
  const back = await person.find({ role: 'button', name: 'Reculer', within: view });
  await back.press('ArrowUp');
  await back.press('ArrowUp');
  await expect.poll(() => person.text(slider)).toBe(String(last - 3));
  await person.expectText(said, 'Ligne 3 : list n°1 contient maintenant 12, 15, 9');
  expect(await person.count({ role: 'button', name: '→ list n°1', within: module })).toBe(2);

  // The run ended in an error: explained in French with the student's names, its line marked.
  await person.expectText({ role: 'group', name: 'Ce qui ne va pas, en mots simples', within: reply }, 'notes a une longueur de 3, donc ses positions vont de 0 à 2. La position 3 n\'existe pas.');
  await person.expectText({ role: 'group', name: 'Erreur', within: reply }, 'IndexError: list index out of range');
  await person.expectText({ role: 'article', namePrefix: 'Message 2' }, 'Erreur à la ligne 5 : derniere = notes[n]');
  expect(await person.page.evaluate(() => Array.from(document.querySelectorAll('article mark'), (m) => m.textContent))).toEqual(['Erreur à la ligne 5 : derniere = notes[n]']);

  // All of it came from the service worker and the browser's storage: the host answered nothing.
  expect(host.refusedBeyondStartChecks).toEqual([]);
});
