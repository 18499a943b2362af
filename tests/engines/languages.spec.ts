import { readFileSync } from 'node:fs';
import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';
import { arrows } from './step-view';
import { startBarTravel } from '../e2e/screen-checks';

// A language chosen in Settings → Language, in Firefox ESR and WebKitGTK as in Chromium
// (tests/e2e/i18n.spec.ts): applied in place, <html lang> set, kept across a reload; and in
// Arabic the step-through's drawing mirrors with the page (tests/e2e/step-through.spec.ts), and so
// does the moving bar of a session's start (tests/e2e/i18n-journeys.spec.ts).

const ARABIC = JSON.parse(readFileSync(new URL('../../messages/ar.json', import.meta.url), 'utf8')) as Record<string, string>;

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

test('In Arabic a step-through mirrors with the page: the list left of the frame, arrows running left to it, the code left to right', { tag: '@any-host' }, async ({ person, host }) => {
  await person.open(host.url);
  await person.chooseLanguage('ar');
  await person.click({ role: 'button', name: ARABIC.common_cancel });
  expect(await person.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(['ar', 'rtl']);
  await person.fill({ role: 'textbox', name: ARABIC.chat_editor_label }, 'a = [1, 2]\nb = a\nb.append(3)\ntotal = len(a)\ndone = True');
  await person.click({ role: 'button', name: ARABIC.step_through });
  const list = ARABIC.step_object.replace('{type}', 'list').replace('{id}', '1');
  const names = { view: ARABIC.step_view, frame: '<module>', list, ref: ARABIC.step_ref.replace('{object}', list) };
  const view = { role: 'group', name: names.view };
  await person.find(view, { timeout: FIRST_RUN });
  await person.click({ role: 'button', name: ARABIC.step_last, within: view });
  await expect.poll(() => arrows(person, names), { timeout: 10_000 }).toEqual({ arrows: 2, fromRefs: [1, 1], onTheList: true, leftward: true, listLeftOfFrame: true });
  const code = { role: 'list', name: ARABIC.step_code, within: view };
  await person.find(code);
  expect(await person.page.evaluate((t) => getComputedStyle((window as unknown as { __find: (t: unknown) => Element }).__find(t)).direction, code)).toBe('ltr');
});

test("In Arabic the moving bar of a session's start travels right to left", { tag: '@any-host' }, async ({ person, host }) => {
  await person.open(host.url);
  await person.chooseLanguage('ar');
  await person.click({ role: 'button', name: ARABIC.common_cancel });
  await person.click({ role: 'button', name: ARABIC.app_new_session });
  let travel: number | null = null;
  await expect.poll(async () => (travel = await person.page.evaluate(startBarTravel)), { timeout: 30_000, intervals: [50] }).not.toBeNull();
  expect(travel!).toBeLessThan(0);
});
