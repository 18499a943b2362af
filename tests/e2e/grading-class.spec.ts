import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { strFromU8 } from 'fflate';
import * as XLSX from 'xlsx';
import { choose, firstSessionId, openApp, region } from './app';
import { asStudent, variant, withCode } from './hand-ins';
import { CASE_NAMES, consoleClass, DRAFT, FORGERIES, MAX_POINTS, SOLUTION, TITLE, type Student } from './console-class';

// A class of 30 hand-ins of a console exercise graded by its program cases in the Grading
// panel, with real Pyodide workers: right programs, ones wrong on some cases (off by one, the
// wrong format, trailing spaces the judge ignores, lines it does not), ones that raise or read
// a line too many, an endless one, and forgeries. Every case's points, every total and which
// rows say "Read this one" are checked, on screen and in the grades file, against what
// console-class.ts says each defect must get. And the forgeries outside checks handed in,
// each reading the expected output in the Python that runs the hand-in or forging the verdict
// there: handed in through the student API and graded in the panel, each gets nothing, flagged.

/** One real hand-in of the exercise, made through the app's API: a student runs the solution (answering its input()) and hands it in. */
async function realHandIn(page: Page): Promise<Uint8Array> {
  const teacher = await firstSessionId(page);
  const data = await page.evaluate(
    async ([teacher, draft, solution]) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      const { file } = await lib.saveAsAssignment(api, teacher, draft);
      const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
      const lines = ['2', '40', '2'];
      const stop = api.subscribeInput((id, request) => {
        if (id === student && request) api.answerInput(id, request.id, lines.shift() ?? null);
      });
      try {
        const round = await lib.sendMessage(api, student, solution);
        if (round.state !== 'finished') throw new Error(`the solution did not finish: ${JSON.stringify(round.events.slice(-3))}`);
      } finally {
        stop();
      }
      const handIn = await lib.handIn(api, student, 'Template', await lib.checkWork(api, student));
      await api.deleteSession(student);
      return Array.from(handIn.data);
    },
    [teacher, DRAFT, SOLUTION] as const,
  );
  return new Uint8Array(data);
}

test('a class of 30 graded by its program cases: every case, every total and every flag as each program deserves', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const base = await realHandIn(page);
  const students = consoleClass();
  const files = students.map((s) => ({
    name: `${TITLE}-${s.name}.pytabs.zip`,
    text: variant(base, (e) => {
      asStudent(e, s.name);
      withCode(e, s.code);
    }),
  }));

  // The student's session is gone: the teacher's is the one tab of that name.
  await expect(page.getByRole('tab', { name: TITLE })).toHaveCount(1);
  await page.getByRole('tab', { name: TITLE }).click();
  const t0 = Date.now();
  await choose(page, 'Grade submissions', files);
  const grading = region(page, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', '30', { timeout: 180_000 });
  console.log(`graded 30 in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const table = grading.getByRole('table', { name: 'Grades' });
  await expect(table.getByRole('rowheader')).toHaveCount(30);
  const columns = [...CASE_NAMES, 'Total'];
  const header = await table.getByRole('columnheader').allTextContents();
  expect(header[columns.length]).toBe(`Total (${MAX_POINTS})`);
  /** Column names without their points. */
  const bare = (names: string[]) => names.map((h) => h.replace(/ \(\d+\)$/, ''));
  const names = bare(header);
  expect(names.slice(1, 1 + columns.length)).toEqual(columns);
  /** What a row must hold, by column: its points per case, its total, its status, and its flag or none; keyed by student and defect, so a failure says whose. */
  const key = (s: Student) => `${s.name} (${s.what})`;
  const expected = Object.fromEntries(
    students.map((s) => [key(s), { ...Object.fromEntries(CASE_NAMES.map((c) => [c, String(s.points[c])])), Total: String(s.total), Status: 'graded', 'Read this one': s.flag ?? '' }]),
  );
  /** A row's cells by column (`get`), its flag shortened to the expected reason when it holds it. */
  const seen = (s: Student, get: (column: string) => string) => {
    const flag = get('Read this one');
    return { ...Object.fromEntries(columns.map((c) => [c, get(c)])), Status: get('Status'), 'Read this one': s.flag && flag.includes(s.flag) ? s.flag : flag };
  };

  const onScreen: Record<string, Record<string, string>> = {};
  for (const s of students) {
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: s.name, exact: true }) });
    // The row header is the Student column; the cells are the rest.
    const cells = ['', ...(await row.getByRole('cell').allTextContents())];
    const get = (column: string) => cells[names.indexOf(column)];
    onScreen[key(s)] = seen(s, get);
    if (s.says) expect(`${get('Messages')} ${get('Errors')}`, key(s)).toContain(s.says);
  }
  expect(onScreen).toEqual(expected);

  // The grades file says the same.
  const download = page.waitForEvent('download');
  await grading.getByRole('button', { name: 'Download grades' }).click();
  await page.getByRole('dialog', { name: 'Download grades' }).getByRole('button', { name: 'CSV (.csv)' }).click();
  const csv = strFromU8(new Uint8Array(readFileSync((await (await download).path())!)));
  const sheet = XLSX.read(csv, { type: 'string', raw: true }).Sheets.Sheet1;
  const [head, ...body] = XLSX.utils.sheet_to_json<string[]>(sheet, { header: 1, raw: false, defval: '' });
  expect(body).toHaveLength(30);
  const inFile: Record<string, Record<string, string>> = {};
  const fileNames = bare(head);
  for (const line of body) {
    const s = students.find((s) => s.name === line[0]);
    if (!s) throw new Error(`the grades file has a row for ${line[0]}, who handed nothing in`);
    inFile[key(s)] = seen(s, (column) => line[fileNames.indexOf(column)]);
  }
  expect(inFile).toEqual(expected);
});

test('forgeries of the program cases handed in through the student API: each gets nothing in the Grading panel, flagged with its line', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const teacher = await firstSessionId(page);
  const handIns = await page.evaluate(
    async ([teacher, draft, forgeries]) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      const { file } = await lib.saveAsAssignment(api, teacher, draft);
      const out: { name: string; data: number[] }[] = [];
      for (const { student: name, code } of forgeries) {
        const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
        const round = await lib.sendMessage(api, student, code);
        if (round.state !== 'finished') throw new Error(`${name}'s program did not finish: ${JSON.stringify(round.events.slice(-3))}`);
        const handIn = await lib.handIn(api, student, name, await lib.checkWork(api, student));
        await api.deleteSession(student);
        out.push({ name: `${name}.pytabs.zip`, data: Array.from(handIn.data) });
      }
      return out;
    },
    [teacher, DRAFT, FORGERIES] as const,
  );
  await page.getByRole('tab', { name: TITLE }).click();
  await choose(
    page,
    'Grade submissions',
    handIns.map((h) => ({ name: h.name, text: new Uint8Array(h.data) })),
  );
  const grading = region(page, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', String(FORGERIES.length), { timeout: 180_000 });
  const table = grading.getByRole('table', { name: 'Grades' });
  const header = (await table.getByRole('columnheader').allTextContents()).map((h) => h.replace(/ \(\d+\)$/, ''));
  const seen: Record<string, { total: string; flagged: boolean }> = {};
  const wanted: Record<string, { total: string; flagged: boolean }> = {};
  for (const forgery of FORGERIES) {
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: forgery.student, exact: true }) });
    const cells = ['', ...(await row.getByRole('cell').allTextContents())];
    const get = (column: string) => cells[header.indexOf(column)];
    seen[forgery.student] = { total: get('Total'), flagged: get('Read this one').includes(forgery.flag) };
    wanted[forgery.student] = { total: '0', flagged: true };
  }
  expect(seen).toEqual(wanted);
});
