import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { strFromU8 } from 'fflate';
import * as XLSX from 'xlsx';
import { choose, firstSessionId, openApp, region } from './app';
import { asStudent, variant, withCode } from './hand-ins';
import { CASE_NAMES, consoleClass, DRAFT, MAX_POINTS, SOLUTION, TITLE } from './console-class';

// A class of 30 hand-ins of a console exercise graded by its program cases in the Grading
// panel, with real Pyodide workers: right programs, ones wrong on some cases (off by one, the
// wrong format, trailing spaces the judge ignores, lines it does not), ones that raise or read
// a line too many, an endless one, and forgeries. Every case's points, every total and which
// rows say "Read this one" are checked, on screen and in the grades file, against what
// console-class.ts says each defect must get.

/** One real hand-in of the exercise, made through the app's API: a student runs the solution (answering its input()) and hands it in. */
async function realHandIn(page: import('@playwright/test').Page): Promise<Uint8Array> {
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
  expect(header.slice(1, 1 + columns.length).map((h) => h.replace(/ \(\d+\)$/, ''))).toEqual(columns);
  expect(header[columns.length]).toBe(`Total (${MAX_POINTS})`);
  /** What a row must hold: its points per case, its total, its status, and its flag or none. */
  const expected = (s: (typeof students)[number]) => [...CASE_NAMES.map((c) => String(s.points[c])), String(s.total), 'graded', s.flag ?? ''];

  const onScreen = new Map<string, string[]>();
  for (const s of students) {
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: s.name, exact: true }) });
    const cells = await row.getByRole('cell').allTextContents();
    // Cells: the cases, the total, time, status, messages, errors, program tested, read this one.
    const flag = cells.at(-1)!;
    onScreen.set(s.name, [...cells.slice(0, columns.length), cells[columns.length + 1], s.flag && flag.includes(s.flag) ? s.flag : flag]);
    if (s.says) expect(`${cells[columns.length + 2]} ${cells[columns.length + 3]}`, `${s.name} (${s.what})`).toContain(s.says);
  }
  expect(Object.fromEntries(onScreen)).toEqual(Object.fromEntries(students.map((s) => [s.name, expected(s)])));

  // The grades file says the same.
  const download = page.waitForEvent('download');
  await grading.getByRole('button', { name: 'Download grades' }).click();
  await page.getByRole('dialog', { name: 'Download grades' }).getByRole('button', { name: 'CSV (.csv)' }).click();
  const csv = strFromU8(new Uint8Array(readFileSync((await (await download).path())!)));
  const sheet = XLSX.read(csv, { type: 'string', raw: true }).Sheets.Sheet1;
  const [head, ...body] = XLSX.utils.sheet_to_json<string[]>(sheet, { header: 1, raw: false, defval: '' });
  expect(body).toHaveLength(30);
  const at = (name: string) => head.indexOf(name);
  const inFile = new Map(
    body.map((line) => {
      const flag = line[at('Read this one')];
      const student = students.find((s) => s.name === line[0]);
      const cells = header.slice(1, 1 + columns.length).map((h) => line[at(h)]);
      return [line[0], [...cells, line[at('Status')], student?.flag && flag.includes(student.flag) ? student.flag : flag]];
    }),
  );
  expect(Object.fromEntries(inFile)).toEqual(Object.fromEntries(students.map((s) => [s.name, expected(s)])));
});
