import { test, expect, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { strFromU8, unzipSync } from 'fflate';
import { chooseZips, downloaded, FIRST_RUN, openApp, region, reply, send } from './app';
import { asStudent, json, variant, withCode } from './hand-ins';

// A console exercise checked by its input and output, through the UI by role and name, with
// real Pyodide: the teacher records a case from a run of their solution, types two more and
// fills one's expected output from the solution; a student's program passes some cases,
// checked and handed in; the teacher grades it with generated hand-ins, a column per case.
// Cases compared by the teacher's own function get the same verdicts in Check my work and in
// grading, where the function runs in a worker of its own.
test.describe.configure({ mode: 'serial' });

const SOLUTION = 'n = int(input())\ntotal = 0\nfor _ in range(n):\n    total += int(input())\nprint(total)';
/** Right but when there are no numbers: it says so instead of printing 0. */
const ANN = "n = int(input())\nprint(sum(int(input()) for _ in range(n)) if n else 'nothing')";

/** Serious or critical accessibility violations on the page as it is. */
async function axeViolations(page: Page): Promise<string[]> {
  const axe = await new AxeBuilder({ page }).analyze();
  return axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Answers the session's waiting input() with each line in turn. */
async function answerLines(page: Page, session: string, lines: string[]): Promise<void> {
  for (const line of lines) {
    const field = page.getByRole('textbox', { name: `Input for ${session}`, exact: true });
    await expect(field).toBeFocused(FIRST_RUN);
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
  }
}

let teacher: Page;
let assignmentFile: Uint8Array;
let annHandIn: Uint8Array;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  teacher = await (await browser.newContext()).newPage();
});

test('a teacher makes a console exercise: a case recorded from their run, one filled from their solution, one typed', async () => {
  test.setTimeout(180_000);
  await openApp(teacher);
  await send(teacher, SOLUTION);
  await answerLines(teacher, 'Session 1', ['3', '10', '20', '12']);
  await expect(reply(teacher, 1)).toContainText('Done in');
  await expect(reply(teacher, 1).locator('pre.stream')).toHaveText('3\n10\n20\n12\n42\n');

  await teacher.getByRole('button', { name: 'Save as assignment' }).click();
  const dialog = teacher.getByRole('dialog', { name: 'Save as assignment' });
  await dialog.getByRole('textbox', { name: 'Title' }).fill('Sum of N');
  await dialog.getByRole('textbox', { name: 'Instructions (Markdown)' }).fill('Read N, then N numbers, one per line; print their sum.');
  await dialog.getByRole('textbox', { name: /^Checks/ }).fill('');
  await dialog.getByRole('button', { name: 'Add a case from my last run' }).click();
  await expect(dialog.getByRole('textbox', { name: /^Input of case 1/ })).toHaveValue('3\n10\n20\n12\n');
  await expect(dialog.getByRole('textbox', { name: 'Expected output of case 1' })).toHaveValue('42\n');

  await dialog.getByRole('button', { name: 'Add a case', exact: true }).click();
  await dialog.getByRole('textbox', { name: 'Name of case 2' }).fill('no numbers');
  await dialog.getByRole('textbox', { name: /^Input of case 2/ }).fill('0');
  await dialog.getByRole('button', { name: 'Fill expected output from my solution: case 2' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Expected output of case 2' })).toHaveValue('0\n');

  await dialog.getByRole('button', { name: 'Add a case', exact: true }).click();
  await dialog.getByRole('textbox', { name: /^Input of case 3/ }).fill('2\n5\n-5');
  // Pasted as a person would, trailing spaces and blank lines and all: the judge's rule ignores them.
  await dialog.getByRole('textbox', { name: 'Expected output of case 3' }).fill('0  \n\n');
  await dialog.getByRole('spinbutton', { name: 'Points for case 3' }).fill('2');
  await dialog.getByRole('spinbutton', { name: 'Time limit per check and per case (seconds)' }).fill('5');
  expect(await axeViolations(teacher)).toEqual([]);
  const { download, data } = await downloaded(teacher, () => dialog.getByRole('button', { name: 'Save assignment' }).click());
  expect(download.suggestedFilename()).toBe('Sum of N.pytabs.zip');
  assignmentFile = data;
  const assignment = json(unzipSync(data)['assignment.json']);
  expect(assignment.version).toBe(2);
  expect(assignment.program).toEqual({
    rule: 'judge',
    cases: [
      { name: 'case 1', input: '3\n10\n20\n12\n', expected: '42\n', points: 1 },
      { name: 'no numbers', input: '0\n', expected: '0\n', points: 1 },
      { name: 'case 3', input: '2\n5\n-5\n', expected: '0  \n\n', points: 2 },
    ],
  });
  // The teacher's own solution passes every case.
  const panel = region(teacher, 'Assignment: Sum of N');
  await panel.getByRole('button', { name: 'Check my work' }).click();
  await expect(panel.getByRole('status')).toHaveText('4 of 4 points in this browser.');
});

test('a student passes two cases of three, sees what differs, marks their answer, and hands in', async ({ browser }) => {
  test.setTimeout(240_000);
  const student = await (await browser.newContext()).newPage();
  await openApp(student);
  await chooseZips(student, 'Import session', [{ name: 'Sum of N.pytabs.zip', data: assignmentFile }]);
  const panel = region(student, 'Assignment: Sum of N');
  await expect(panel).toContainText('3 program case(s) test nothing yet: there is no Code message to test yet.');

  await send(student, ANN);
  await answerLines(student, 'Sum of N', ['2', '1', '2']);
  await expect(reply(student, 1)).toContainText('Done in');
  await expect(panel).toContainText('3 program case(s) test message 1 (your latest code).');
  await panel.getByRole('button', { name: 'Check my work' }).click();
  const results = panel.getByRole('list', { name: 'Check results' });
  await expect(results.getByRole('listitem')).toHaveText([
    /^Passed case 1 \(1 of 1 points\)/,
    /^Failed no numbers \(0 of 1 points\): line 1: expected '0', got 'nothing'/,
    /^Passed case 3 \(2 of 2 points\)/,
  ]);
  const failed = results.getByRole('group', { name: 'Case no numbers' });
  await expect(failed).toContainText('Input0');
  await expect(failed).toContainText('Expected output0');
  await expect(failed).toContainText("Your program's outputnothing");
  await expect(results.getByRole('listitem').nth(1)).toContainText('First line that differs: line 1.');
  await expect(panel.getByRole('status')).toHaveText('3 of 4 points in this browser.');
  expect(await axeViolations(student)).toEqual([]);

  // A later message that only tries something: the student keeps message 1 as their answer.
  await send(student, "print('trying something')");
  await expect(reply(student, 2)).toContainText('Done in');
  await expect(panel).toContainText('test message 2 (your latest code)');
  await panel.getByRole('combobox', { name: 'Program to test' }).selectOption('1');
  await expect(panel).toContainText('test message 1 (marked as your answer)');
  await panel.getByRole('button', { name: 'Check my work' }).click();
  await expect(panel.getByRole('status')).toHaveText('3 of 4 points in this browser.');

  await panel.getByRole('button', { name: 'Hand in' }).click();
  const dialog = student.getByRole('dialog', { name: 'Hand in' });
  await dialog.getByRole('textbox', { name: 'Your name' }).fill('Ann');
  const { data } = await downloaded(student, () => dialog.getByRole('button', { name: 'Save hand-in' }).click());
  annHandIn = data;
  const zip = unzipSync(data);
  const submission = json(zip['submission.json']);
  expect(submission.answer).toBe(1);
  expect(submission.results.map((r: { earned: number }) => r.earned)).toEqual([1, 0, 2]);
  // The hand-in keeps what Ann typed apart from what her program printed.
  const events = json(zip['history.json']).rounds[0].events.filter((e: { type: string }) => e.type === 'stdout' || e.type === 'input');
  expect(events.map((e: { type: string; text: string }) => [e.type, e.text])).toEqual([
    ['input', '2'],
    ['input', '1'],
    ['input', '2'],
    ['stdout', '3\n'],
  ]);
  await student.context().close();
});

test('the teacher grades the class by its cases: a column per case, the points of each, and the program tested', async () => {
  test.setTimeout(300_000);
  const right = variant(annHandIn, (e) => {
    asStudent(e, 'Rita Right');
    withCode(e, "import sys\nn = int(input())\nprint(sum(int(input()) for _ in range(n)))");
  });
  const wrong = variant(annHandIn, (e) => {
    asStudent(e, 'Walt Wrong');
    withCode(e, 'n = int(input())\nprint(n)');
  });
  const endless = variant(annHandIn, (e) => {
    asStudent(e, 'Lou Loop');
    withCode(e, 'n = int(input())\nwhile n == 0:\n    pass\nprint(sum(int(input()) for _ in range(n)))');
  });
  // Forgeries: a program that makes every output agree, and one that posts to the page from Python.
  const forger = variant(annHandIn, (e) => {
    asStudent(e, 'Fay Forger');
    withCode(e, "import pytabs.programs\npytabs.programs.run_program = lambda *a, **k: {'stdout': '42\\n', 'stderr': '', 'ended': 'finished', 'error': None, 'message': '', 'ms': 0}\nprint('anything')");
  });
  const poster = variant(annHandIn, (e) => {
    asStudent(e, 'Pat Poster');
    withCode(e, "import js\njs.postMessage('forged')\nn = int(input())\nprint(sum(int(input()) for _ in range(n)))");
  });
  await chooseZips(teacher, 'Grade submissions', [
    { name: 'Sum of N-Ann.pytabs.zip', data: annHandIn },
    { name: 'right.pytabs.zip', data: right },
    { name: 'wrong.pytabs.zip', data: wrong },
    { name: 'endless.pytabs.zip', data: endless },
    { name: 'forger.pytabs.zip', data: forger },
    { name: 'poster.pytabs.zip', data: poster },
  ]);
  const grading = region(teacher, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', '6', { timeout: 240_000 });
  const table = grading.getByRole('table', { name: 'Grades' });
  await expect(table.getByRole('columnheader')).toHaveText([
    'Student', 'case 1 (1)', 'no numbers (1)', 'case 3 (2)', 'Total (4)', 'Time', 'Status', 'Messages', 'Errors', 'Program tested', 'Read this one',
  ]);
  const row = (name: string) => table.getByRole('row').filter({ has: teacher.getByRole('rowheader', { name, exact: true }) });
  const points = async (name: string) => (await row(name).getByRole('cell').allTextContents()).slice(0, 4);
  await expect(row('Ann')).toContainText('graded');
  // Ann marked message 1 (her program), not her later try: her grade is her program's.
  expect(await points('Ann')).toEqual(['1', '0', '2', '3']);
  await expect(row('Ann')).toContainText('message 1 (marked as the answer)');
  await expect(row('Rita Right')).toContainText('graded');
  expect(await points('Rita Right')).toEqual(['1', '1', '2', '4']);
  await expect(row('Walt Wrong')).toContainText('graded');
  expect(await points('Walt Wrong')).toEqual(['0', '1', '0', '1']);
  await expect(row('Walt Wrong')).toContainText("case 1: line 1: expected '42', got '3'");
  await expect(row('Lou Loop')).toContainText('no numbers did not finish in 5 s');
  expect(await points('Lou Loop')).toEqual(['1', '0', '2', '3']);
  // The forger gets nothing and is flagged with why; the poster's output is right, and it is flagged to be read.
  expect(await points('Fay Forger')).toEqual(['0', '0', '0', '0']);
  const flagOf = (name: string) => row(name).getByRole('cell').last();
  await expect(flagOf('Fay Forger')).toContainText("Read this one: cell 1, line 1: imports PyTabs' internals (pytabs)");
  await expect(flagOf('Fay Forger')).toContainText("case 1: the hand-in's code changed what grading runs on (pytabs.programs.run_program)");
  expect(await points('Pat Poster')).toEqual(['1', '1', '2', '4']);
  await expect(flagOf('Pat Poster')).toHaveText("Read this one: cell 1, line 1: imports the browser's JavaScript (js)");
  for (const clean of ['Ann', 'Rita Right', 'Walt Wrong', 'Lou Loop']) await expect(flagOf(clean)).toHaveText('');
  expect(await axeViolations(teacher)).toEqual([]);

  const { data } = await downloaded(teacher, async () => {
    await grading.getByRole('button', { name: 'Download grades' }).click();
    await teacher.getByRole('dialog', { name: 'Download grades' }).getByRole('button', { name: 'CSV (.csv)' }).click();
  });
  const csv = strFromU8(data).split('\n');
  expect(csv[0]).toBe('Student,File,case 1 (1),no numbers (1),case 3 (2),Total (4),Time (s),Status,Messages,Errors,Program tested,Read this one');
  expect(csv.find((line) => line.startsWith('Pat Poster,'))).toContain("cell 1, line 1: imports the browser's JavaScript (js)");
  expect(csv.find((line) => line.startsWith('Rita Right,'))).toMatch(/^Rita Right,right\.pytabs\.zip,1,1,2,4,/);
});

test("cases compared by the teacher's function: Check my work and grading give the same verdicts and messages", async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const draft = {
    title: 'Shout',
    instructions: 'Print hello, in any case.',
    starterCode: '',
    // It runs where no student's code ran: the mark every hand-in's program leaves in its Python is not there.
    checkSource: [
      'import builtins',
      '',
      'def compare_output(expected, actual):',
      "    assert not hasattr(builtins, 'student_was_here'), 'compared beside the student\\'s code'",
      '    assert actual.strip().lower() == expected.strip(), f"say {expected.strip()}, in any case"',
      '',
    ].join('\n'),
    checks: [],
    timeLimitSeconds: 5,
    program: { rule: 'function', compareName: 'compare_output', cases: [{ name: 'hello', input: '', expected: 'hello\n', points: 1 }] },
  };
  const handIns = await page.evaluate(async (draft) => {
    const api = window.pytabs!;
    const lib = window.pytabsLib!;
    const session = await api.createSession('Shout teacher');
    const { file } = await lib.saveAsAssignment(api, session.id, draft as Parameters<typeof lib.saveAsAssignment>[2]);
    const out: { name: string; data: number[]; claimed: [boolean, unknown][] }[] = [];
    for (const [name, printed] of [['Hal Loud', "print('HELLO')"], ['Bea Bye', "print('bye')"]]) {
      const code = `import builtins\nbuiltins.student_was_here = True\n${printed}`;
      const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
      await lib.sendMessage(api, student, code);
      const results = await lib.checkWork(api, student);
      const handIn = await lib.handIn(api, student, name, results);
      await api.deleteSession(student);
      out.push({ name, data: Array.from(handIn.data), claimed: results.map((r) => [r.passed, r.message]) });
    }
    return out;
  }, draft);
  expect(handIns.map((h) => h.claimed)).toEqual([[[true, '']], [[false, 'say hello, in any case']]]);
  await page.getByRole('tab', { name: 'Shout' }).click();
  await chooseZips(page, 'Grade submissions', handIns.map((h) => ({ name: `${h.name}.pytabs.zip`, data: new Uint8Array(h.data) })));
  const grading = region(page, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', '2', { timeout: 120_000 });
  const table = grading.getByRole('table', { name: 'Grades' });
  const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  await expect(row('Hal Loud').getByRole('cell').first()).toHaveText('1');
  await expect(row('Bea Bye').getByRole('cell').first()).toHaveText('0');
  await expect(row('Bea Bye')).toContainText('hello: say hello, in any case');
});
