import { strFromU8, unzipSync } from 'fflate';
import * as XLSX from 'xlsx';
import { BOB, CHECKS, ENDLESS_CASES, ENDLESS_GRADE, ENDLESS_PROGRAM, handInInPage, json, otherAssignmentHandIn, RIGHT, studentHandIn, variant, asStudent, withCode, workbook } from '../e2e/hand-ins';
import { test, expect } from './fixtures';
import { FIRST_RUN, Person, type Target } from './person';

// A class's round trip in Firefox ESR and WebKitGTK, by role and name, in three fresh profiles'
// worth of browsers: the teacher saves an assignment, a student checks and hands in, and the
// teacher grades that hand-in with two classmates' (each with its own data.xlsx under the same
// name), an endless loop and another assignment's, then downloads the grades. A program endless
// on three of its four cases gets the same row on the first visit and after a reload. Chromium runs the
// class-sized version (tests/e2e/assignments.spec.ts).

const GRADES: Target = { role: 'table', name: 'Grades' };

/** The grades table as a person reads it: each row's cells, by the student's name. */
async function gradeRows(person: Person): Promise<Record<string, string[]>> {
  await person.find(GRADES);
  return person.page.evaluate((table) => {
    type Finder = { __findAll: (t: unknown) => HTMLElement[] };
    const rows = (window as unknown as Finder).__findAll({ role: 'row', within: table });
    const out: Record<string, string[]> = {};
    for (const row of rows.slice(1)) {
      const cells = Array.from(row.children).map((c) => (c.textContent ?? '').trim());
      out[cells[0]] = cells.slice(1);
    }
    return out;
  }, GRADES);
}

test('a class round trip: an assignment saved, checked and handed in by a student, graded with hostile hand-ins, grades downloaded', async ({ person: teacher, host, newProfile }) => {
  test.setTimeout(360_000);
  await teacher.open(host.url);
  await teacher.choose('Upload files', [{ name: 'data.xlsx', data: workbook([2, 4, 6]) }]);
  await teacher.find({ role: 'button', name: 'Preview data.xlsx' });
  await teacher.click({ role: 'button', name: 'Save as assignment' });
  const dialog: Target = { role: 'dialog', name: 'Save as assignment' };
  await teacher.expectText(dialog, 'not secret');
  await teacher.fill({ role: 'textbox', name: 'Title', within: dialog }, 'Column sums');
  await teacher.fill({ role: 'textbox', name: 'Instructions (Markdown)', within: dialog }, 'Add up column **n** of `data.xlsx` into `total`, and write `count_rows()`.');
  await teacher.fill({ role: 'textbox', name: 'Starter code', within: dialog }, "rows = read_excel('data.xlsx', 0)\n");
  await teacher.fill({ role: 'textbox', namePrefix: 'Checks', within: dialog }, CHECKS);
  await teacher.fill({ role: 'spinbutton', name: 'Points for check_total', within: dialog }, '2');
  await teacher.fill({ role: 'spinbutton', name: 'Time limit per check and per case (seconds)', within: dialog }, '5');
  const assignment = await teacher.download(() => teacher.click({ role: 'button', name: 'Save assignment', within: dialog }));
  expect(assignment.name).toBe('Column sums.pytabs.zip');
  expect(json(unzipSync(assignment.data)['assignment.json']).checks).toEqual([
    { name: 'check_total', points: 2 },
    { name: 'check_even', points: 1 },
    { name: 'check_rows', points: 1 },
  ]);

  // The student, in a browser of their own.
  const student = new Person(await (await newProfile()).newPage());
  let handIn: Uint8Array;
  try {
    await student.open(host.url);
    await student.choose('Import session', [{ name: 'Column sums.pytabs.zip', data: assignment.data }]);
    await student.find({ role: 'heading', name: 'Column sums' });
    const panel = student.region('Assignment: Column sums');
    await student.expectText(panel, 'Add up column n of data.xlsx');
    await student.send(BOB);
    await student.expectText(student.reply(1), 'total 12', FIRST_RUN);
    await student.click({ role: 'button', name: 'Check my work', within: panel });
    await student.expectText({ role: 'status', within: panel }, '3 of 4 points in this browser.', FIRST_RUN);
    const results = { role: 'list', name: 'Check results', within: panel };
    await student.expectText(results, 'Failed check_rows (0 of 1 points): count_rows() should give the number of rows');
    await student.expectText(results, 'Passed check_total (2 of 2 points)');
    await student.click({ role: 'button', name: 'Hand in', within: panel });
    const handInDialog: Target = { role: 'dialog', name: 'Hand in' };
    await student.fill({ role: 'textbox', name: 'Your name', within: handInDialog }, 'Bob');
    const saved = await student.download(() => student.click({ role: 'button', name: 'Save hand-in', within: handInDialog }));
    expect(saved.name).toBe('Column sums-Bob.pytabs.zip');
    handIn = saved.data;
    expect(json(unzipSync(handIn)['submission.json']).results.map((r: { earned: number }) => r.earned)).toEqual([2, 1, 0]);
    // The checks ran on copies: the student's own variables are as they were.
    await student.send('len(rows), total');
    await student.expectText(student.reply(2), '(3, 12)', FIRST_RUN);
  } catch (error) {
    console.log(`--- the student's page at the failure:\n${await student.page.evaluate(() => document.body.innerText).catch(String)}\n---`);
    throw error;
  } finally {
    await student.dispose();
  }

  // The teacher grades Bob, two classmates with their own data.xlsx, an endless loop and another assignment's hand-in.
  const loop = variant(handIn, (e) => {
    asStudent(e, 'Loop Larry');
    withCode(e, RIGHT.replace('    return len(rows)', '    while True:\n        pass'));
  });
  await teacher.choose('Grade submissions', [
    { name: 'Column sums-Bob.pytabs.zip', data: handIn },
    studentHandIn(handIn, 1),
    studentHandIn(handIn, 2),
    { name: 'loop.pytabs.zip', data: loop },
    { name: 'other.pytabs.zip', data: otherAssignmentHandIn(handIn) },
  ]);
  const grading = teacher.region('Grading');
  await teacher.expectText(grading, 'Graded 5 of 5', 240_000);
  const rows = await gradeRows(teacher);
  // Cells after the name: check_total, check_even, check_rows, total, time, status, messages, errors.
  expect(rows['Bob'].slice(0, 4)).toEqual(['2', '1', '0', '3']);
  expect(rows['Student 01'].slice(0, 4)).toEqual(['2', '0', '1', '3']);
  expect(rows['Student 01'][6]).toBe('check_even: total 1003 should be even');
  expect(rows['Student 02'].slice(0, 4)).toEqual(['2', '1', '1', '4']);
  expect(rows['Loop Larry'][3]).toBe('3');
  expect(rows['Loop Larry'][7]).toContain('check_rows did not finish in 5 s');
  expect(rows['other.pytabs.zip'][5]).toBe('refused');
  expect(rows['other.pytabs.zip'][7]).toContain('It is a hand-in of another assignment ("Word counts")');

  await teacher.click({ role: 'button', name: 'Download grades', within: grading });
  const choice: Target = { role: 'dialog', name: 'Download grades' };
  const csv = await teacher.download(() => teacher.click({ role: 'button', name: 'CSV (.csv)', within: choice }));
  const xlsx = await teacher.download(() => teacher.click({ role: 'button', name: 'Excel workbook (.xlsx)', within: choice }));
  expect([csv.name, xlsx.name]).toEqual(['Column sums-grades.csv', 'Column sums-grades.xlsx']);
  const csvBook = XLSX.read(strFromU8(csv.data), { type: 'string', raw: true });
  for (const sheet of [csvBook.Sheets[csvBook.SheetNames[0]], XLSX.read(xlsx.data).Sheets.Grades]) {
    const byName = new Map(XLSX.utils.sheet_to_json<Record<string, unknown>>(sheet, { raw: false }).map((r) => [String(r.Student), r]));
    expect([...byName.keys()].sort()).toEqual(['Bob', 'Loop Larry', 'Student 01', 'Student 02', 'other.pytabs.zip']);
    expect(['Bob', 'Student 01', 'Student 02', 'Loop Larry'].map((s) => String(byName.get(s)!['Total (4)']))).toEqual(['3', '3', '4', '3']);
  }
  await teacher.click({ role: 'button', name: 'Close', within: choice });

  // The grades are kept on this device: a reload shows them again.
  await teacher.reload();
  await teacher.expectText(teacher.region('Grading'), 'Graded 5 of 5');
  expect((await gradeRows(teacher))['Student 02'].slice(0, 4)).toEqual(['2', '1', '1', '4']);

  // The kept table is the imports store's 'grades' record on this device.
  const keptTables = () =>
    teacher.page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const open = indexedDB.open('pytabs');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const request = open.result.transaction('imports').objectStore('imports').getAll();
            request.onsuccess = () => {
              resolve((request.result as { kind?: string }[]).filter((r) => r.kind === 'grades').length);
              open.result.close();
            };
            request.onerror = () => reject(request.error);
          };
        }),
    );
  expect(await keptTables()).toBe(1);

  // Clear grades asks first; Cancel keeps them, confirmed they go, also from the device.
  await teacher.click({ role: 'button', name: 'Clear grades', within: teacher.region('Grading') });
  const confirm: Target = { role: 'dialog', name: 'Clear grades?' };
  await teacher.expectText(confirm, 'Download grades first');
  await teacher.click({ role: 'button', name: 'Cancel', within: confirm });
  await teacher.expectGone(confirm);
  expect(Object.keys(await gradeRows(teacher))).toHaveLength(5);
  await teacher.click({ role: 'button', name: 'Clear grades', within: teacher.region('Grading') });
  await teacher.click({ role: 'button', name: 'Clear grades', within: confirm });
  await teacher.expectGone(GRADES);
  // Gone from storage too, so a reload has none to show.
  await expect.poll(keptTables).toBe(0);
  await teacher.reload();
  await teacher.find({ role: 'button', name: 'Grade submissions', within: teacher.region('Grading') });
  expect(await teacher.has(GRADES)).toBe(false);
});

test('a program endless on three of four cases gets the same row on the first visit and after a reload: every case runs', async ({ person: teacher, host }) => {
  // Each endless case ends its worker where Python cannot be interrupted: WebKitGTK takes 25 s to start another on two busy cores.
  test.setTimeout(900_000);
  await teacher.open(host.url);
  const handIn = await teacher.page.evaluate(handInInPage, [ENDLESS_CASES, ENDLESS_PROGRAM] as const);
  /** Grades the hand-in; the table's rows (a reload keeps the earlier ones), each without its time. */
  const graded = async (count: number): Promise<string[][]> => {
    await teacher.click({ role: 'tab', name: 'Count down' });
    await teacher.choose('Grade submissions', [{ name: 'endless.pytabs.zip', data: new Uint8Array(handIn) }]);
    await teacher.expectText(teacher.region('Grading'), `Graded ${count} of ${count}`, 400_000);
    await teacher.find(GRADES);
    const rows = await teacher.page.evaluate((table) => {
      type Finder = { __findAll: (t: unknown) => HTMLElement[] };
      const all = (window as unknown as Finder).__findAll({ role: 'row', within: table });
      const header = Array.from(all[0].children).map((c) => (c.textContent ?? '').trim());
      return all.slice(1).map((row) => Array.from(row.children).map((c) => (c.textContent ?? '').trim()).filter((_, i) => !header[i].startsWith('Time')));
    }, GRADES);
    return rows;
  };
  const [first] = await graded(1);
  const isolatedFirst = await teacher.page.evaluate(() => crossOriginIsolated);
  await teacher.reload();
  const [kept, again] = await graded(2);
  const isolatedAfter = await teacher.page.evaluate(() => crossOriginIsolated);
  console.log(`cross-origin isolated: ${isolatedFirst} on the first visit, ${isolatedAfter} after the reload`);
  expect(first.slice(0, 6)).toEqual(['Endless Eve', ...ENDLESS_GRADE]);
  expect(first.join(' ')).toContain('case 3 did not finish in 3 s');
  expect(kept).toEqual(first);
  expect(again).toEqual(first);
});
