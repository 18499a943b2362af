import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import { chooseZips, downloaded, openApp, region } from './app';

// A teacher with PyTabs in French grades a hand-in made in English (issue 43): the grades table,
// its verdicts (a check's, a program case's first difference, what the code reaches), a refusal
// and the grades file's headers read in French, and no English that PyTabs wrote is left in the
// Grading panel. What people wrote (the assert's message, names) stays as written.

const DRAFT = {
  title: 'Quarante-deux',
  instructions: 'Mettez 42 dans `answer` et affichez-le.',
  starterCode: '',
  checkSource: "def check_answer():\n    assert answer == 42, 'answer should be 42'\n",
  checks: [{ name: 'check_answer', points: 1 }],
  timeLimitSeconds: 10,
  program: { rule: 'judge' as const, cases: [{ name: 'affiche', input: '', expected: '42\n', points: 1 }] },
};

/** The English pieces of PyTabs' grading texts (each message's words between its parameters) that French writes otherwise. */
function englishPieces(): string[] {
  const en = JSON.parse(readFileSync('messages/en.json', 'utf8')) as Record<string, unknown>;
  const fr = JSON.parse(readFileSync('messages/fr.json', 'utf8')) as Record<string, unknown>;
  const pieces = new Set<string>();
  for (const [key, text] of Object.entries(en)) {
    if (!key.startsWith('asg_') || typeof text !== 'string') continue;
    for (const piece of text.split(/\{\w+\}/)) {
      const words = piece.trim();
      if (/\p{L}{2,}\s+\p{L}{2,}/u.test(words) && !String(fr[key]).includes(words)) pieces.add(words);
    }
  }
  return [...pieces];
}

test('in French, a hand-in is graded: the grades table, its verdicts and the grades file’s headers are French', async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page);
  // The assignment and a hand-in made in the page (in English): the check fails with the teacher's
  // words, the case differs on line 1, and the code imports js.
  const { assignment, handIn } = await page.evaluate(async (draft) => {
    const api = window.pytabs!;
    const lib = window.pytabsLib!;
    const teacher = await api.createSession('Teacher');
    const { file } = await lib.saveAsAssignment(api, teacher.id, draft as Parameters<typeof lib.saveAsAssignment>[2]);
    const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
    await lib.sendMessage(api, student, 'import js\nanswer = 41\nprint(answer)');
    const results = await lib.checkWork(api, student);
    const handed = await lib.handIn(api, student, 'Léa', results);
    await api.deleteSession(student);
    return { assignment: { name: file.name, data: Array.from(file.data) }, handIn: { name: handed.name, data: Array.from(handed.data) } };
  }, DRAFT);

  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('combobox', { name: 'Language' }).selectOption('fr');
  await page.getByRole('dialog', { name: 'Réglages' }).getByRole('button', { name: 'Annuler' }).click();
  await page.getByRole('tab', { name: 'Quarante-deux' }).click();

  const panel = region(page, 'Devoir : Quarante-deux');
  await chooseZips(page, 'Noter des rendus', [
    { name: handIn.name, data: new Uint8Array(handIn.data) },
    { name: assignment.name, data: new Uint8Array(assignment.data) },
  ]);
  await expect(panel.getByText('2 noté(s) sur 2')).toBeVisible({ timeout: 180_000 });
  const table = panel.getByRole('table', { name: 'Notes' });
  await expect(table.getByRole('columnheader')).toHaveText([
    'Élève',
    'check_answer (1)',
    'affiche (1)',
    'Total (2)',
    'Durée',
    'État',
    'Messages',
    'Erreurs',
    'Programme testé',
    'À lire',
  ]);
  const [lea, refused] = [table.getByRole('row').nth(1), table.getByRole('row').nth(2)];
  await expect(lea.getByRole('rowheader')).toHaveText('Léa');
  const cells = lea.getByRole('cell');
  await expect(cells.nth(0)).toHaveText('0');
  await expect(cells.nth(1)).toHaveText('0');
  await expect(cells.nth(4)).toHaveText('noté');
  await expect(cells.nth(5)).toHaveText("check_answer : answer should be 42; affiche : ligne 1 : attendu '42', obtenu '41'");
  await expect(cells.nth(6)).toHaveText('');
  await expect(cells.nth(7)).toHaveText('le message 1 (le dernier code)');
  await expect(cells.nth(8)).toHaveText('À lire : cellule 1, ligne 1 : importe le JavaScript du navigateur (js)');
  await expect(cells.nth(1)).toHaveAttribute('title', "ligne 1 : attendu '42', obtenu '41'");
  await expect(refused.getByRole('cell').nth(4)).toHaveText('refusé');
  await expect(refused.getByRole('cell').nth(6)).toHaveText('Ce n’est pas un rendu : il n’a pas de submission.json (une session ou un fichier de devoir ?).');

  // No English that PyTabs wrote, in the panel's text or its names.
  const grading = panel.getByRole('region', { name: 'Notation' });
  const shown = `${await grading.innerText()}\n${await grading.locator('[title], [aria-label]').evaluateAll((els) => els.map((e) => `${e.getAttribute('title') ?? ''} ${e.getAttribute('aria-label') ?? ''}`).join('\n'))}`;
  const english = englishPieces();
  expect(english.length).toBeGreaterThan(50);
  expect(english.filter((piece) => shown.includes(piece))).toEqual([]);

  // The grades file: its headers and PyTabs' words in French, the names as written.
  await panel.getByRole('button', { name: 'Télécharger les notes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Télécharger les notes' });
  const { data } = await downloaded(page, () => dialog.getByRole('button', { name: 'Classeur Excel (.xlsx)' }).click());
  const book = XLSX.read(data, { type: 'array' });
  expect(book.SheetNames).toEqual(['Notes']);
  const rows = XLSX.utils.sheet_to_json<(string | number)[]>(book.Sheets.Notes, { header: 1, defval: '' });
  expect(rows[0]).toEqual(['Élève', 'Fichier', 'check_answer (1)', 'affiche (1)', 'Total (2)', 'Durée (s)', 'État', 'Messages', 'Erreurs', 'Programme testé', 'À lire']);
  expect(rows[1].slice(0, 5)).toEqual(['Léa', handIn.name, 0, 0, 0]);
  expect(rows[1].slice(6)).toEqual([
    'noté',
    "check_answer : answer should be 42; affiche : ligne 1 : attendu '42', obtenu '41'",
    '',
    'le message 1 (le dernier code)',
    'cellule 1, ligne 1 : importe le JavaScript du navigateur (js)',
  ]);
  expect(rows[2][6]).toBe('refusé');
  const csv = await downloaded(page, () => dialog.getByRole('button', { name: 'CSV (.csv)' }).click());
  expect(new TextDecoder().decode(csv.data).split('\n')[0]).toBe('Élève,Fichier,check_answer (1),affiche (1),Total (2),Durée (s),État,Messages,Erreurs,Programme testé,À lire');
});
