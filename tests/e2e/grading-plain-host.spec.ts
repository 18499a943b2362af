import { test, expect, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, unzipSync } from 'fflate';
import { FIRST_RUN, region, reply, send } from './app';
import { asStudent, ENDLESS_CASES, ENDLESS_GRADE, ENDLESS_PROGRAM, handInInPage, json, variant, withCode } from './hand-ins';
import { StaticHost } from './static-host';

// The same file, the same grade: on a plain host's first visit (no cross-origin isolation, so a
// replayed cell that does not stop can only be ended with its worker) a hand-in with an endless
// cell is graded as on any other page: the cell is left out and the rest replayed in a fresh
// worker. A cell the student stopped is not run again. Teacher and student are two browser
// profiles on the same plain host, both on their first visit, through the UI by role and name.
// A program endless on three of its four cases gets the same row on the first visit and after a
// reload: every case runs, each endless one costing a fresh worker. Within a hand-in's time
// budget only: one of seconds, spent by endless cases, leaves the rest "not run" and the row says so.

const DRAFT = {
  title: 'Loop and answer',
  instructions: 'Set `answer` to 42, then `after` to 43.',
  starterCode: '',
  checkSource: "def check_answer():\n    assert answer == 42, 'answer should be 42'\n\ndef check_after():\n    assert after == 43, 'after should be 43'\n",
  checks: [
    { name: 'check_answer', points: 2 },
    { name: 'check_after', points: 2 },
  ],
  timeLimitSeconds: 3,
};

let host: StaticHost;
test.beforeAll(async () => {
  host = await new StaticHost(path.resolve('dist'), '/sub/app/', 'plain').start();
});
test.afterAll(async () => {
  await host.close();
});

async function firstVisit(page: Page): Promise<void> {
  await page.goto(host.url);
  await expect.poll(() => page.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
}

/** A hand-in whose second round is an endless cell the student never stopped (its stop removed from the record). */
function neverStopped(base: Uint8Array): Uint8Array {
  return variant(base, (e) => {
    asStudent(e, 'Never Stopped');
    const history = json(e['history.json']);
    const round = history.rounds[1];
    round.events = round.events.filter((ev: { type: string }) => ev.type !== 'exec_error');
    round.state = 'finished';
    e['history.json'] = strToU8(JSON.stringify(history));
  });
}

/** A forger's copy: checks that always pass, its digest made to match and claimed in submission.json. */
function forgedCopy(base: Uint8Array): Uint8Array {
  return variant(base, (e) => {
    asStudent(e, 'Forger Fay');
    withCode(e, 'answer = 1');
    const fake = json(e['assignment.json']);
    fake.checkSource = fake.checkSource.replace(/    assert .*/g, '    pass');
    const body = [fake.title, fake.instructions, fake.starterCode, fake.checkSource, fake.checks, fake.timeLimitSeconds];
    fake.digest = createHash('sha256').update(JSON.stringify(body, null, 1)).digest('hex');
    e['assignment.json'] = strToU8(JSON.stringify(fake));
    const submission = json(e['submission.json']);
    submission.assignment.digest = fake.digest;
    e['submission.json'] = strToU8(JSON.stringify(submission));
  });
}

test('on a plain host’s first visit an endless cell is left out and the rest replayed fresh, and a cell the student stopped is not run again', async ({ browser }) => {
  test.setTimeout(300_000);
  const teacher = await (await browser.newContext()).newPage();
  await firstVisit(teacher);
  const file = await teacher.evaluate(async (draft) => {
    const api = window.pytabs!;
    const session = await api.createSession('Teacher');
    const { file } = await window.pytabsLib!.saveAsAssignment(api, session.id, draft);
    return Array.from(file.data);
  }, DRAFT);
  // The teacher's tab now reads as the assignment's title.
  await teacher.getByRole('tab', { name: 'Loop and answer' }).click();
  await expect(region(teacher, 'Assignment: Loop and answer').getByRole('button', { name: 'Grade submissions' })).toBeVisible();

  // The student: a right cell, an endless one they stop (its worker ended: nothing can interrupt it here), another right one.
  const student = await (await browser.newContext()).newPage();
  await firstVisit(student);
  const chooser = student.waitForEvent('filechooser');
  await student.getByRole('button', { name: 'Import session' }).click();
  await (await chooser).setFiles([{ name: 'Loop and answer.pytabs.zip', mimeType: 'application/zip', buffer: Buffer.from(file) }]);
  await expect(student.getByRole('tab', { name: 'Loop and answer' })).toHaveAttribute('aria-selected', 'true');
  await send(student, 'answer = 6 * 7');
  await expect(reply(student, 1)).not.toContainText('Error', FIRST_RUN);
  await expect(student.getByRole('button', { name: 'Stop' })).toBeDisabled(FIRST_RUN);
  await send(student, 'while True:\n    pass');
  await expect(student.getByRole('button', { name: 'Stop' })).toBeEnabled();
  await student.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(student, 2)).toContainText('Stopped after', { timeout: 30_000 });
  await send(student, 'after = answer + 1');
  await expect(student.getByRole('button', { name: 'Stop' })).toBeDisabled(FIRST_RUN);
  const panel = region(student, 'Assignment: Loop and answer');
  await panel.getByRole('button', { name: 'Check my work' }).click();
  await expect(panel.getByRole('list', { name: 'Check results' }).getByRole('listitem')).toHaveCount(2, FIRST_RUN);
  await panel.getByRole('button', { name: 'Hand in' }).click();
  const dialog = student.getByRole('dialog', { name: 'Hand in' });
  await dialog.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  const download = student.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Save hand-in' }).click();
  const handIn = new Uint8Array(readFileSync((await (await download).path())!));
  const history = json(unzipSync(handIn)['history.json']);
  expect(history.rounds[1].state).toBe('stopped');

  const crash = variant(handIn, (e) => {
    asStudent(e, 'Crash Carl');
    withCode(e, 'import os\nos.abort()');
  });
  // Three endless cells in one message: each would cost the time limit and a fresh worker, so the third ends the row.
  const endless = variant(handIn, (e) => {
    asStudent(e, 'Endless Ed');
    withCode(e, Array.from({ length: 4 }, () => '```python\nwhile True:\n    pass\n```').join('\n'));
  });
  expect(await teacher.evaluate(() => crossOriginIsolated)).toBe(false);
  const grade = teacher.waitForEvent('filechooser');
  await teacher.getByRole('button', { name: 'Grade submissions' }).click();
  await (await grade).setFiles(
    [
      { name: 'ada.pytabs.zip', data: handIn },
      { name: 'never.pytabs.zip', data: neverStopped(handIn) },
      { name: 'crash.pytabs.zip', data: crash },
      { name: 'forged.pytabs.zip', data: forgedCopy(handIn) },
      { name: 'endless.pytabs.zip', data: endless },
    ].map((f) => ({ name: f.name, mimeType: 'application/zip', buffer: Buffer.from(f.data) })),
  );
  const grading = region(teacher, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', '5', { timeout: 240_000 });
  const table = grading.getByRole('table', { name: 'Grades' });
  const row = (name: string) => table.getByRole('row').filter({ has: teacher.getByRole('rowheader', { name, exact: true }) });
  // Cells: the two checks, then the total.

  // Stopped by the student: noted, not run again (so not "did not finish"), and full marks as in her session.
  await expect(row('Ada')).toContainText('graded');
  await expect(row('Ada').getByRole('cell').nth(2)).toHaveText('4');
  await expect(row('Ada')).toContainText("cell 2 was stopped in the student's session: not run again");
  await expect(row('Ada')).not.toContainText('did not finish');

  // Never stopped: it runs out its time limit once, is left out, and the rest is replayed in a fresh worker.
  await expect(row('Never Stopped')).toContainText('graded');
  await expect(row('Never Stopped').getByRole('cell').nth(2)).toHaveText('4');
  const said = (await row('Never Stopped').textContent()) ?? '';
  expect(said.split('cell 2 did not finish in 3 s').length - 1).toBe(1);
  expect(said).toContain('left out, the other cells replayed without it');

  // A crash says what happened in grading's words, not a session's.
  await expect(row('Crash Carl')).toContainText('error');
  await expect(row('Crash Carl')).toContainText('The worker crashed in cell 1');
  await expect(row('Crash Carl')).not.toContainText('Nothing saved');

  await expect(row('Endless Ed')).toContainText('error');
  await expect(row('Endless Ed')).toContainText('cell 3 did not finish in 3 s');
  await expect(row('Endless Ed')).toContainText('3 cells did not finish; no check ran.');
  await expect(row('Endless Ed')).not.toContainText('cell 4');

  // A forged copy that claims its own digest is not "another version": the teacher saved only one.
  await expect(row('Forger Fay').getByRole('cell').nth(2)).toHaveText('0');
  await expect(row('Forger Fay')).toContainText('Its copy of the checks is no version you saved');
  await expect(row('Forger Fay')).not.toContainText('another version');
});

test('a program endless on three of four cases gets the same row on a plain host’s first visit and after a reload: every case runs', async ({ browser }) => {
  test.setTimeout(300_000);
  const teacher = await (await browser.newContext()).newPage();
  await firstVisit(teacher);
  const handIn = await teacher.evaluate(handInInPage, [ENDLESS_CASES, ENDLESS_PROGRAM] as const);
  /** Grades the hand-in in the panel; its row as `nth` of the table's rows of that student (earlier ones are kept across a reload). */
  const graded = async (nth: number): Promise<string[]> => {
    await teacher.getByRole('tab', { name: 'Count down' }).click();
    const chooser = teacher.waitForEvent('filechooser');
    await teacher.getByRole('button', { name: 'Grade submissions' }).click();
    await (await chooser).setFiles([{ name: 'endless.pytabs.zip', mimeType: 'application/zip', buffer: Buffer.from(handIn) }]);
    const grading = region(teacher, 'Grading');
    const table = grading.getByRole('table', { name: 'Grades' });
    const rows = table.getByRole('row').filter({ has: teacher.getByRole('rowheader', { name: 'Endless Eve', exact: true }) });
    await expect(rows).toHaveCount(nth + 1);
    await expect(rows.nth(nth)).toContainText('graded', { timeout: 200_000 });
    // The cases, the total, the status, the messages and errors: not the time it took.
    const header = (await table.getByRole('columnheader').allTextContents()).slice(1);
    const cells = await rows.nth(nth).getByRole('cell').allTextContents();
    return cells.filter((_, i) => !header[i].startsWith('Time'));
  };
  const first = await graded(0);
  const isolatedFirst = await teacher.evaluate(() => crossOriginIsolated);
  await teacher.reload();
  await expect.poll(() => teacher.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
  const isolatedAfter = await teacher.evaluate(() => crossOriginIsolated);
  const again = await graded(1);
  console.log(`cross-origin isolated: ${isolatedFirst} on the first visit, ${isolatedAfter} after the reload`);
  // CPython's row: the three endless cases out of time, the fourth passed.
  expect(first.slice(0, 5)).toEqual(ENDLESS_GRADE);
  expect(first.join(' ')).toContain('case 3 did not finish in 3 s');
  expect(first.join(' ')).not.toContain('not run');
  expect(again).toEqual(first);
});

/** Eight cases, endless (`ENDLESS_PROGRAM` on a number not 0) on five: 10 s of time limits alone, more than `BUDGET_MS`. */
const BUDGET_INPUTS = ['0', '1', '2', '0', '3', '4', '5', '0'];
const BUDGET_CASES = {
  ...ENDLESS_CASES,
  timeLimitSeconds: 2,
  program: { rule: 'judge' as const, cases: BUDGET_INPUTS.map((n, i) => ({ name: `case ${i + 1}`, input: `${n}\n`, expected: 'done\n', points: 1 })) },
};
const BUDGET_MS = 8_000;

test('a hand-in whose time budget is spent on a plain host’s first visit: what ran has its verdict, the rest is not run and named, the total counts what ran', async ({ browser }) => {
  test.setTimeout(300_000);
  const teacher = await (await browser.newContext()).newPage();
  await firstVisit(teacher);
  const handIn = await teacher.evaluate(handInInPage, [BUDGET_CASES, ENDLESS_PROGRAM] as const);
  expect(await teacher.evaluate(() => crossOriginIsolated)).toBe(false);
  // Graded through the library with a budget of seconds (the panel's is minutes): its row as the panel would show it.
  const row = await teacher.evaluate(
    async ([data, budgetMs]) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      const found = await Promise.all((await api.listSessions()).map((s) => lib.sessionAssignment(api, s.id)));
      const assignment = found.find((a) => a?.role === 'teacher')!.assignment;
      const run = new lib.GradingRun(api, assignment, undefined, { budgetMs });
      await run.add([{ name: 'endless.pytabs.zip', data: new Uint8Array(data) }]);
      return run.rows[0];
    },
    [handIn, BUDGET_MS] as const,
  );
  const results = row.results;
  // Kept said, as the grades record holds them: "did not finish in 2 s".
  const DID_NOT_FINISH = { key: 'asg_did_not_finish', params: { seconds: 2 } };
  const ran = results.findIndex((r) => r.error === 'NotRun');
  console.log(`${ran} of ${results.length} cases ran within ${BUDGET_MS / 1000} s; the row took ${Math.round(row.ms)} ms`);
  expect(row.status).toBe('graded');
  expect(results.map((r) => r.name)).toEqual(BUDGET_CASES.program.cases.map((c) => c.name));
  // At least the first case and the first endless one ran; five endless cases cannot all run in the budget.
  expect(ran).toBeGreaterThanOrEqual(2);
  // What ran before the budget was spent: CPython's verdicts, each endless case out of its time.
  for (const [i, result] of results.slice(0, ran).entries()) {
    if (BUDGET_INPUTS[i] === '0') expect([result.name, result.passed, result.earned, result.error]).toEqual([result.name, true, 1, null]);
    else expect([result.name, result.passed, result.error, result.message]).toEqual([result.name, false, 'TimeoutError', DID_NOT_FINISH]);
  }
  // The rest: not run, each saying why, and named in the row's errors (said: "not run: this hand-in's time budget (8 s) was spent").
  const skipped = results.slice(ran);
  const budgetSpent = { key: 'asg_not_run', params: { why: { key: 'asg_budget_spent', params: { seconds: 8 } } } };
  for (const result of skipped) {
    expect([result.name, result.passed, result.earned, result.error, result.message]).toEqual([result.name, false, 0, 'NotRun', budgetSpent]);
  }
  const timedOut = results.slice(0, ran).filter((r) => r.error === 'TimeoutError');
  expect(row.errors).toEqual([
    ...timedOut.map((r) => ({ key: 'asg_subject', params: { name: r.name, text: DID_NOT_FINISH } })),
    { key: 'asg_budget_not_run', params: { seconds: 8, names: skipped.map((r) => r.name).join(', ') } },
  ]);
  expect(row.total).toBe(BUDGET_INPUTS.slice(0, ran).filter((n) => n === '0').length);
});
