import { test, expect, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { createHash } from 'node:crypto';
import { strFromU8, strToU8, unzipSync } from 'fflate';
import * as XLSX from 'xlsx';
import { choose, chooseZips, downloaded, dumpDatabase, FIRST_RUN, openApp, region, reply, send } from './app';
import { asStudent, BOB, CHECKS, json, otherAssignmentHandIn, RIGHT, studentHandIn, variant, withCode, workbook } from './hand-ins';

// A class's round trip, through the UI by role and name, on the built app with real Pyodide,
// real IndexedDB and real .xlsx bytes: the teacher saves an assignment, a student (another
// browser profile) checks and hands in, and the teacher grades that hand-in with 30 generated
// ones (each with its own data.xlsx under the same name) and hostile ones, then downloads the
// grades and reads them back with SheetJS.
test.describe.configure({ mode: 'serial' });

/** The class: 30 hand-ins made from Bob's, each with the right code and its own data.xlsx under the same name. */
function classHandIns(): { name: string; data: Uint8Array }[] {
  return Array.from({ length: 30 }, (_, i) => studentHandIn(bobHandIn, i + 1));
}

let assignmentFile: Uint8Array;
let bobHandIn: Uint8Array;
let teacher: Page;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  teacher = await (await browser.newContext()).newPage();
});

test('a teacher saves a session as an assignment: starter file, instructions, starter code, checks with points', async () => {
  test.setTimeout(180_000);
  await openApp(teacher);
  await choose(teacher, 'Upload files', [{ name: 'data.xlsx', text: workbook([2, 4, 6]) }]);
  await expect(region(teacher, 'Files')).toContainText('data.xlsx');
  await teacher.getByRole('button', { name: 'Save as assignment' }).click();
  const dialog = teacher.getByRole('dialog', { name: 'Save as assignment' });
  await expect(dialog).toContainText('not secret');
  await dialog.getByRole('textbox', { name: 'Title' }).fill('Column sums');
  await dialog.getByRole('textbox', { name: 'Instructions (Markdown)' }).fill('Add up column **n** of `data.xlsx` into `total`, and write `count_rows()`.');
  await dialog.getByRole('textbox', { name: 'Starter code' }).fill("rows = read_excel('data.xlsx', 0)\n");
  await dialog.getByRole('textbox', { name: /^Checks/ }).fill(CHECKS);
  await dialog.getByRole('spinbutton', { name: 'Points for check_total' }).fill('2');
  await expect(dialog.getByRole('spinbutton', { name: 'Points for check_rows' })).toHaveValue('1');
  await dialog.getByRole('spinbutton', { name: 'Time limit per check and per case (seconds)' }).fill('5');
  const { download, data } = await downloaded(teacher, () => dialog.getByRole('button', { name: 'Save assignment' }).click());
  expect(download.suggestedFilename()).toBe('Column sums.pytabs.zip');
  assignmentFile = data;

  const zip = unzipSync(data);
  expect(Object.keys(zip).sort()).toEqual(['assignment.json', 'files/data.xlsx', 'history.ipynb', 'history.json', 'manifest.json', 'manifest.sig']);
  const assignment = json(zip['assignment.json']);
  expect(assignment.checks).toEqual([
    { name: 'check_total', points: 2 },
    { name: 'check_even', points: 1 },
    { name: 'check_rows', points: 1 },
  ]);
  const panel = region(teacher, 'Assignment: Column sums');
  await expect(panel.getByRole('button', { name: 'Grade submissions' })).toBeVisible();
  await expect(panel.locator('strong')).toHaveText('n');
});

test('a student opens it, passes two checks of three, checks without changing a variable, and hands in', async ({ browser }) => {
  test.setTimeout(240_000);
  const student = await (await browser.newContext()).newPage();
  await openApp(student);
  await chooseZips(student, 'Import session', [{ name: 'Column sums.pytabs.zip', data: assignmentFile }]);
  await expect(student.getByRole('heading', { name: 'Column sums', exact: true })).toBeVisible();
  const panel = region(student, 'Assignment: Column sums');
  await expect(panel).toContainText('Add up column n of data.xlsx');
  await expect(panel).toContainText('not secret');
  await expect(student.getByRole('textbox', { name: 'Message' })).toContainText("rows = read_excel('data.xlsx', 0)");

  await send(student, BOB);
  await expect(reply(student, 1)).toContainText('total 12', FIRST_RUN);
  await panel.getByRole('button', { name: 'Check my work' }).click();
  const results = panel.getByRole('list', { name: 'Check results' });
  await expect(results.getByRole('listitem')).toHaveText([
    /^Passed check_total \(2 of 2 points\): total is the sum of column n/,
    /^Passed check_even \(1 of 1 points\)/,
    /^Failed check_rows \(0 of 1 points\): count_rows\(\) should give the number of rows/,
  ]);
  await expect(panel.getByRole('status')).toHaveText('3 of 4 points in this browser.');

  await panel.getByRole('button', { name: 'Hand in' }).click();
  const dialog = student.getByRole('dialog', { name: 'Hand in' });
  await dialog.getByRole('button', { name: 'Save hand-in' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Type your name to hand in.');
  await dialog.getByRole('textbox', { name: 'Your name' }).fill('Bob');
  const { download, data } = await downloaded(student, () => dialog.getByRole('button', { name: 'Save hand-in' }).click());
  expect(download.suggestedFilename()).toBe('Column sums-Bob.pytabs.zip');
  bobHandIn = data;
  const zip = unzipSync(data);
  const submission = json(zip['submission.json']);
  expect(submission.student).toBe('Bob');
  expect(submission.results.map((r: { earned: number }) => r.earned)).toEqual([2, 1, 0]);
  expect(zip['files/data.xlsx']).toBeDefined();

  // check_total cleared its copy of rows; the student's own are as they were, and so is the session.
  await send(student, 'len(rows), total');
  await expect(reply(student, 2)).toContainText('(3, 12)');
  await student.context().close();
});

test('the teacher grades 30 hand-ins with their own data.xlsx and hostile ones, side by side, and downloads the grades', async () => {
  test.setTimeout(600_000);
  const assignment = json(unzipSync(assignmentFile)['assignment.json']);
  const students = classHandIns();
  const loop = variant(bobHandIn, (e) => {
    asStudent(e, 'Loop Larry');
    withCode(e, RIGHT.replace('    return len(rows)', '    while True:\n        pass'));
  });
  const crash = variant(bobHandIn, (e) => {
    asStudent(e, 'Crash Carl');
    withCode(e, `${RIGHT}\nimport os\nos.abort()`);
  });
  const noisy = variant(bobHandIn, (e) => {
    asStudent(e, 'Noisy Nina');
    withCode(e, `${RIGHT}\nfor _ in range(200):\n    print('x' * 100_000)`);
  });
  // A forger: checks that always pass in the file, and claimed full marks.
  const forged = variant(bobHandIn, (e) => {
    asStudent(e, 'Forger Fay');
    withCode(e, RIGHT.replace("total = sum(r['n'] for r in rows)", 'total = 1'));
    const fake = { ...assignment, checkSource: CHECKS.replace(/    assert .*/g, '    pass') };
    const body = [fake.title, fake.instructions, fake.starterCode, fake.checkSource, fake.checks, fake.timeLimitSeconds];
    fake.digest = createHash('sha256').update(JSON.stringify(body, null, 1)).digest('hex');
    e['assignment.json'] = strToU8(JSON.stringify(fake));
    const submission = json(e['submission.json']);
    submission.results = submission.results.map((r: { points: number }) => ({ ...r, passed: true, earned: r.points }));
    e['submission.json'] = strToU8(JSON.stringify(submission));
  });
  // Her work is what the assistant ran for her: one card she skipped (wrong), one it ran (right).
  const asked = variant(bobHandIn, (e) => {
    asStudent(e, 'Ada Asked');
    const history = json(e['history.json']);
    history.rounds[0] = {
      ...history.rounds[0],
      kind: 'ask',
      message: 'Sum column n into total and write count_rows()',
      events: [
        { type: 'code_card', block: 0, step: 1, callId: 'call_1', source: 'tool', proposed: 'total = 1', code: 'total = 1', status: 'skipped' },
        { type: 'code_card', block: 1, step: 2, callId: 'call_2', source: 'tool', proposed: RIGHT, code: RIGHT, status: 'ran' },
        { type: 'code_start', block: 1, total: 2, code: RIGHT },
        { type: 'stdout', block: 1, text: 'total 12\n' },
        { type: 'code_end', block: 1, durationMs: 5, notPersisted: [] },
        { type: 'round_end', durationMs: 10, state: 'finished' },
      ],
    };
    e['history.json'] = strToU8(JSON.stringify(history));
  });
  const otherAssignment = otherAssignmentHandIn(bobHandIn);
  const before = await dumpDatabase(teacher);

  await chooseZips(teacher, 'Grade submissions', [
    { name: 'Column sums-Bob.pytabs.zip', data: bobHandIn },
    ...students,
    { name: 'loop.pytabs.zip', data: loop },
    { name: 'crash.pytabs.zip', data: crash },
    { name: 'noisy.pytabs.zip', data: noisy },
    { name: 'forged.pytabs.zip', data: forged },
    { name: 'asked.pytabs.zip', data: asked },
    { name: 'other.pytabs.zip', data: otherAssignment },
    { name: 'notes.pytabs.zip', data: strToU8('not a zip') },
  ]);
  const grading = region(teacher, 'Grading');
  const progress = grading.getByRole('progressbar', { name: 'Grading progress' });
  await expect(progress).toHaveAttribute('aria-valuemax', '38');
  await expect(grading.getByRole('button', { name: 'Stop' })).toBeEnabled();
  await expect(progress).toHaveAttribute('aria-valuenow', '38', { timeout: 540_000 });
  await expect(grading.getByRole('button', { name: 'Stop' })).toBeDisabled();

  const table = grading.getByRole('table', { name: 'Grades' });
  const row = (name: string) => table.getByRole('row').filter({ has: teacher.getByRole('rowheader', { name, exact: true }) });
  await expect(row('Bob')).toContainText('graded');
  await expect(row('Bob').getByRole('cell').nth(3)).toHaveText('3');
  for (const k of [1, 2, 7, 30]) {
    const r = row(`Student ${String(k).padStart(2, '0')}`);
    await expect(r).toContainText('graded');
    await expect(r.getByRole('cell').nth(3)).toHaveText(k % 2 ? '3' : '4');
    if (k % 2) await expect(r).toContainText(`total ${1000 + 3 * k} should be even`);
  }
  await expect(row('Loop Larry')).toContainText('check_rows did not finish in 5 s');
  await expect(row('Loop Larry').getByRole('cell').nth(3)).toHaveText('3');
  await expect(row('Crash Carl')).toContainText('error');
  await expect(row('Crash Carl')).toContainText('The worker crashed in cell 1');
  await expect(row('Noisy Nina').getByRole('cell').nth(3)).toHaveText('4');
  await expect(row('Forger Fay').getByRole('cell').nth(3)).toHaveText('1');
  await expect(row('Forger Fay')).toContainText('Its copy of the checks was changed after it was handed out; it was ignored');
  // What the assistant ran is replayed (the card she skipped is not): all four points.
  await expect(row('Ada Asked').getByRole('cell').nth(3)).toHaveText('4');
  await expect(row('other.pytabs.zip')).toContainText('It is a hand-in of another assignment ("Word counts"), not of "Column sums".');
  await expect(row('notes.pytabs.zip')).toContainText('refused');

  // A row opens that student's work, read-only; the forger's claimed marks are shown, not used.
  await row('Forger Fay').getByRole('button', { name: 'Forger Fay' }).click();
  const work = teacher.getByRole('dialog', { name: 'Work of Forger Fay' });
  await expect(work).toContainText('total = 1');
  await expect(work).toContainText('data.xlsx');
  await expect(work).toContainText('check_total: passed (2 of 2)');
  await work.getByRole('button', { name: 'Close' }).click();
  await row('Ada Asked').getByRole('button', { name: 'Ada Asked' }).click();
  const herWork = teacher.getByRole('dialog', { name: 'Work of Ada Asked' });
  await expect(herWork).toContainText('Asked the assistant: “Sum column n into total and write count_rows()”. The code it ran:');
  await expect(herWork.getByRole('listitem').first()).toContainText('return len(rows)\n');
  await expect(herWork.getByRole('listitem').first()).not.toContainText('total = 1');
  await herWork.getByRole('button', { name: 'Close' }).click();

  const axe = await new AxeBuilder({ page: teacher }).analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

  // Nothing of a hand-in reached the teacher's storage: the same sessions, files and variables.
  const after = await dumpDatabase(teacher);
  for (const store of ['sessions', 'files', 'fileData', 'variables', 'pickles', 'rounds']) expect(after[store], store).toEqual(before[store]);

  await grading.getByRole('button', { name: 'Download grades' }).click();
  const choice = teacher.getByRole('dialog', { name: 'Download grades' });
  const xlsx = await downloaded(teacher, () => choice.getByRole('button', { name: 'Excel workbook (.xlsx)' }).click());
  const csv = await downloaded(teacher, () => choice.getByRole('button', { name: 'CSV (.csv)' }).click());
  expect(xlsx.download.suggestedFilename()).toBe('Column sums-grades.xlsx');
  expect(csv.download.suggestedFilename()).toBe('Column sums-grades.csv');
  await choice.getByRole('button', { name: 'Close' }).click();
  await expect(choice).toBeHidden();
  const fromXlsx = XLSX.utils.sheet_to_json<Record<string, unknown>>(XLSX.read(xlsx.data).Sheets.Grades);
  const csvBook = XLSX.read(strFromU8(csv.data), { type: 'string', raw: true });
  const fromCsv = XLSX.utils.sheet_to_json<Record<string, unknown>>(csvBook.Sheets[csvBook.SheetNames[0]], { raw: false });
  for (const table of [fromXlsx, fromCsv]) {
    expect(table).toHaveLength(38);
    const byName = new Map(table.map((r) => [String(r.Student), r]));
    for (let k = 1; k <= 30; k++) {
      const r = byName.get(`Student ${String(k).padStart(2, '0')}`)!;
      expect(String(r['Total (4)']), `student ${k}`).toBe(k % 2 ? '3' : '4');
      expect(String(r['check_even (1)'])).toBe(k % 2 ? '0' : '1');
      expect(String(r.Messages ?? '')).toBe(k % 2 ? `check_even: total ${1000 + 3 * k} should be even` : '');
    }
    expect(String(byName.get('Bob')!['Total (4)'])).toBe('3');
    expect(String(byName.get('Forger Fay')!['Total (4)'])).toBe('1');
    expect(String(byName.get('Ada Asked')!['Total (4)'])).toBe('4');
    expect(String(byName.get('Crash Carl')!.Status)).toBe('error');
    expect(String(byName.get('Loop Larry')!.Errors)).toContain('check_rows did not finish in 5 s');
    expect(String(byName.get('other.pytabs.zip')!.Status)).toBe('refused');
  }

  // The table is kept on this device: a reload shows every row again, and a row still opens its work.
  await teacher.reload();
  await expect(table.getByRole('rowheader')).toHaveCount(38);
  await expect(row('Bob').getByRole('cell').nth(3)).toHaveText('3');
  await expect(row('Student 02').getByRole('cell').nth(3)).toHaveText('4');
  await expect(row('Ada Asked').getByRole('cell').nth(3)).toHaveText('4');
  await expect(row('Loop Larry')).toContainText('check_rows did not finish in 5 s');
  await row('Forger Fay').getByRole('button', { name: 'Forger Fay' }).click();
  await expect(teacher.getByRole('dialog', { name: 'Work of Forger Fay' })).toContainText('total = 1');
  await teacher.getByRole('dialog', { name: 'Work of Forger Fay' }).getByRole('button', { name: 'Close' }).click();
});

test('Stop ends a grading run: the hand-ins being graded and those waiting are marked stopped, the rest keep their grades', async () => {
  test.setTimeout(300_000);
  const grading = region(teacher, 'Grading');
  const progress = grading.getByRole('progressbar', { name: 'Grading progress' });
  await chooseZips(teacher, 'Grade submissions', classHandIns());
  await expect(progress).toHaveAttribute('aria-valuemax', '68');
  await expect.poll(async () => Number(await progress.getAttribute('aria-valuenow')), { timeout: 120_000 }).toBeGreaterThan(39);
  await grading.getByRole('button', { name: 'Stop' }).click();
  await expect(progress).toHaveAttribute('aria-valuenow', '68');
  await expect(grading.getByRole('button', { name: 'Stop' })).toBeDisabled();
  const table = grading.getByRole('table', { name: 'Grades' });
  const stopped = await table.getByRole('row').filter({ hasText: 'stopped' }).count();
  expect(stopped).toBeGreaterThan(0);
  expect(stopped).toBeLessThan(30);
  await expect(table.getByRole('row').filter({ hasText: 'grading…' })).toHaveCount(0);
  // The first batch's rows are untouched.
  const bob = table.getByRole('row').filter({ has: teacher.getByRole('rowheader', { name: 'Bob', exact: true }) });
  await expect(bob).toContainText('graded');

  // Clear grades asks first, then the table goes, and a reload does not bring it back.
  await grading.getByRole('button', { name: 'Clear grades' }).click();
  const confirm = teacher.getByRole('dialog', { name: 'Clear grades?' });
  await expect(confirm).toContainText('Download grades first');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(table.getByRole('rowheader')).toHaveCount(68);
  await grading.getByRole('button', { name: 'Clear grades' }).click();
  await confirm.getByRole('button', { name: 'Clear grades' }).click();
  await expect(table).toHaveCount(0);
  await teacher.reload();
  await expect(grading.getByRole('button', { name: 'Grade submissions' })).toBeVisible();
  await expect(table).toHaveCount(0);
});
