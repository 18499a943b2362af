import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';

// Errors a beginner can read, in Firefox ESR and WebKitGTK as in Chromium (tests/e2e/explain.spec.ts):
// the explanation above the traceback with the name meant, the line marked in the message, and
// the explanation in French once the page is.

test('a NameError is explained with the name meant and its line marked, then in French', { tag: '@any-host' }, async ({ person, host }) => {
  await person.open(host.url);
  await person.send('total = 0\nfor n in [4, 8, 15]:\n    total = total + n\nprint(totl)');
  const explanation = { role: 'group', name: 'What went wrong, in plain words', within: person.reply(1) };
  await person.expectText(explanation, 'Python does not know the name totl. Did you mean total?', FIRST_RUN);
  await person.expectText({ role: 'group', name: 'Error', within: person.reply(1) }, "NameError: name 'totl' is not defined");
  await person.expectText({ role: 'article', name: 'Message 1' }, 'Error on line 4: print(totl)');
  expect(await person.page.evaluate(() => document.querySelector('article mark')?.textContent)).toBe('Error on line 4: print(totl)');

  await person.chooseLanguage('fr');
  await person.click({ role: 'button', name: 'Annuler' });
  await person.expectText({ role: 'group', name: 'Ce qui ne va pas, en mots simples' }, 'Python ne connaît pas le nom totl. Voulais-tu dire total ?');
  await person.expectText({ role: 'article', namePrefix: 'Message 1' }, 'Erreur à la ligne 4 : print(totl)');
});
