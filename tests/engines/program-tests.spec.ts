import { unzipSync } from 'fflate';
import { asStudent, json, variant, withCode } from '../e2e/hand-ins';
import { test, expect } from './fixtures';
import { FIRST_RUN, Person, type Target } from './person';

// A console exercise in Firefox ESR and WebKitGTK, by role and name: the teacher's run keeps the
// typed lines apart from stdout (window.pytabs' history), a case is recorded from it and one
// filled from the solution; a student passes one case of two and hands in; the teacher grades
// that hand-in, a right one and a forger's. Chromium runs the longer version (tests/e2e/program-tests.spec.ts).

const SOLUTION = 'n = int(input())\ntotal = 0\nfor _ in range(n):\n    total += int(input())\nprint(total)';
const ANN = "n = int(input())\nprint(sum(int(input()) for _ in range(n)) if n else 'nothing')";

async function answerLines(person: Person, session: string, lines: string[]): Promise<void> {
  for (const line of lines) {
    const field = await person.find({ role: 'textbox', name: `Input for ${session}` }, { timeout: FIRST_RUN });
    await field.type(line);
    await field.press('Enter');
  }
}

/** The grades table's rows, each row's cells after the name, by the student's name. */
async function gradeRows(person: Person): Promise<Record<string, string[]>> {
  const table: Target = { role: 'table', name: 'Grades' };
  await person.find(table);
  return person.page.evaluate((t) => {
    type Finder = { __findAll: (t: unknown) => HTMLElement[] };
    const out: Record<string, string[]> = {};
    for (const row of (window as unknown as Finder).__findAll({ role: 'row', within: t }).slice(1)) {
      const cells = Array.from(row.children).map((c) => (c.textContent ?? '').trim());
      out[cells[0]] = cells.slice(1);
    }
    return out;
  }, table);
}

test('a console exercise: the typed lines kept apart, cases recorded and checked, a class graded by its cases', async ({ person: teacher, host, newProfile }) => {
  test.setTimeout(360_000);
  await teacher.open(host.url);
  await teacher.send(SOLUTION);
  await answerLines(teacher, 'Session 1', ['3', '10', '20', '12']);
  await teacher.expectText(teacher.reply(1), 'Done in');
  await teacher.expectText(teacher.reply(1), '3\n10\n20\n12\n42');
  const stored = await teacher.page.evaluate(async () => {
    const api = (window as unknown as { pytabs: { listSessions(): Promise<{ id: string }[]>; history(id: string): { list(): Promise<{ events: { type: string; text?: string }[] }[]> } } }).pytabs;
    const [session] = await api.listSessions();
    const [round] = await api.history(session.id).list();
    return round.events.filter((e) => e.type === 'stdout' || e.type === 'input').map((e) => `${e.type}:${e.text}`);
  });
  expect(stored).toEqual(['input:3', 'input:10', 'input:20', 'input:12', 'stdout:42\n']);

  await teacher.click({ role: 'button', name: 'Save as assignment' });
  const dialog: Target = { role: 'dialog', name: 'Save as assignment' };
  await teacher.fill({ role: 'textbox', name: 'Title', within: dialog }, 'Sum of N');
  await teacher.fill({ role: 'textbox', namePrefix: 'Checks', within: dialog }, ' ');
  await teacher.click({ role: 'button', name: 'Add a case from my last run', within: dialog });
  await teacher.click({ role: 'button', name: 'Add a case', within: dialog });
  await teacher.fill({ role: 'textbox', namePrefix: 'Input of case 2', within: dialog }, '0');
  await teacher.click({ role: 'button', name: 'Fill expected output from my solution: case 2', within: dialog });
  const expected: Target = { role: 'textbox', name: 'Expected output of case 2', within: dialog };
  await expect
    .poll(() =>
      teacher.page.evaluate((t) => {
        type Finder = { __findAll: (t: unknown) => HTMLTextAreaElement[] };
        return (window as unknown as Finder).__findAll(t)[0]?.value;
      }, expected),
    )
    .toBe('0\n');
  await teacher.fill({ role: 'spinbutton', name: 'Time limit per check and per case (seconds)', within: dialog }, '5');
  const assignment = await teacher.download(() => teacher.click({ role: 'button', name: 'Save assignment', within: dialog }));
  expect(json(unzipSync(assignment.data)['assignment.json']).program.cases).toEqual([
    { name: 'case 1', input: '3\n10\n20\n12\n', expected: '42\n', points: 1 },
    { name: 'case 2', input: '0\n', expected: '0\n', points: 1 },
  ]);

  const student = new Person(await (await newProfile()).newPage());
  let handIn: Uint8Array;
  try {
    await student.open(host.url);
    await student.choose('Import session', [{ name: 'Sum of N.pytabs.zip', data: assignment.data }]);
    const panel = student.region('Assignment: Sum of N');
    await student.expectText(panel, 'there is no Code message to test yet');
    await student.send(ANN);
    await answerLines(student, 'Sum of N', ['1', '5']);
    await student.expectText(student.reply(1), 'Done in');
    await student.expectText(panel, 'test message 1 (your latest code)');
    await student.click({ role: 'button', name: 'Check my work', within: panel });
    await student.expectText({ role: 'status', within: panel }, '1 of 2 points in this browser.', FIRST_RUN);
    const results: Target = { role: 'list', name: 'Check results', within: panel };
    await student.expectText(results, "Failed case 2 (0 of 1 points): line 1: expected '0', got 'nothing'");
    await student.expectText({ role: 'group', name: 'Case case 2', within: results }, 'nothing');
    await student.click({ role: 'button', name: 'Hand in', within: panel });
    const handInDialog: Target = { role: 'dialog', name: 'Hand in' };
    await student.fill({ role: 'textbox', name: 'Your name', within: handInDialog }, 'Ann');
    handIn = (await student.download(() => student.click({ role: 'button', name: 'Save hand-in', within: handInDialog }))).data;
  } catch (error) {
    console.log(`--- the student's page at the failure:\n${await student.page.evaluate(() => document.body.innerText).catch(String)}\n---`);
    throw error;
  } finally {
    await student.dispose();
  }

  const right = variant(handIn, (e) => {
    asStudent(e, 'Rita Right');
    withCode(e, 'n = int(input())\nprint(sum(int(input()) for _ in range(n)))');
  });
  const forger = variant(handIn, (e) => {
    asStudent(e, 'Fay Forger');
    withCode(e, "import pytabs.programs\npytabs.programs.run_program = lambda *a, **k: {'stdout': '42\\n', 'stderr': '', 'ended': 'finished', 'error': None, 'message': '', 'ms': 0}\nprint('anything')");
  });
  await teacher.choose('Grade submissions', [
    { name: 'Sum of N-Ann.pytabs.zip', data: handIn },
    { name: 'right.pytabs.zip', data: right },
    { name: 'forger.pytabs.zip', data: forger },
  ]);
  await teacher.expectText(teacher.region('Grading'), 'Graded 3 of 3', 240_000);
  const rows = await gradeRows(teacher);
  // Cells after the name: case 1, case 2, total, time, status, messages, errors, program tested, read this one.
  expect(rows['Ann'].slice(0, 3)).toEqual(['1', '0', '1']);
  expect(rows['Ann'][7]).toBe('message 1 (the latest code)');
  expect(rows['Rita Right'].slice(0, 3)).toEqual(['1', '1', '2']);
  expect(rows['Rita Right'][8]).toBe('');
  expect(rows['Fay Forger'].slice(0, 3)).toEqual(['0', '0', '0']);
  expect(rows['Fay Forger'][8]).toContain("changed what grading runs on (pytabs.programs.run_program)");
});
