import { test, expect, type Browser, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import { choose, FIRST_RUN, openApp, region, reply, send } from '../../tests/e2e/app';
import { dismissStorageNotice, renameSession, sessionAction, shoot } from './shoot';

// docs/images/grading.png: a teacher's grading table. The teacher saves an assignment, four
// students (each a browser profile of their own) open it, write their code and hand in, and the
// teacher grades the four hand-ins: every step through the app, as people do it.

const TITLE = 'Week 3 averages';
const SCORES = [72, 50, 88, 64, 95, 41, 77, 50];

const CHECKS = `def check_mean():
    "mean is the average of the scores"
    scores = [r['score'] for r in read_excel('scores.xlsx', 0)]
    expected = sum(scores) / len(scores)
    assert abs(mean - expected) < 1e-9, f"mean should be {expected}, not {mean}"

def check_top():
    "top is the highest score"
    assert top == max(r['score'] for r in read_excel('scores.xlsx', 0)), f"top should be the highest score, not {top}"

def check_passed():
    "passed(limit) counts the scores at or above limit"
    assert passed(50) == 7, f"passed(50) should be 7 (a score of 50 passes), not {passed(50)}"`;

const RIGHT = `scores = [r['score'] for r in read_excel('scores.xlsx', 0)]
mean = sum(scores) / len(scores)
top = max(scores)

def passed(limit):
    return sum(1 for s in scores if s >= limit)

print(mean, top, passed(50))`;

/** Each student's work: right, or with the slips students make. */
const STUDENTS: { name: string; code: string; points: string }[] = [
  { name: 'Amira Haddad', code: RIGHT, points: '4' },
  { name: 'Ben Carter', code: RIGHT.replace('s >= limit', 's > limit'), points: '3' },
  { name: 'Chloé Martin', code: RIGHT.replace('top = max(scores)', 'top = scores[-1]').replace('s >= limit', 's > limit'), points: '2' },
  { name: 'Dev Patel', code: RIGHT.replace('sum(scores) / len(scores)', 'sum(scores) // len(scores)').replace('s >= limit', 's > limit'), points: '1' },
];

function workbook(): string {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['score'], ...SCORES.map((s) => [s])]), 'Scores');
  return XLSX.write(book, { type: 'binary', bookType: 'xlsx' }) as string;
}

async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; data: Buffer }> {
  const event = page.waitForEvent('download');
  await click();
  const file = await event;
  return { name: file.suggestedFilename(), data: readFileSync(await file.path()) };
}

/** A student opens the assignment in their own browser, writes their code, checks it and hands in. */
async function handIn(browser: Browser, assignment: { name: string; data: Buffer }, student: (typeof STUDENTS)[number]): Promise<{ name: string; data: Buffer }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await openApp(page);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import session' }).click();
    await (await chooser).setFiles({ name: assignment.name, mimeType: 'application/zip', buffer: assignment.data });
    const panel = region(page, `Assignment: ${TITLE}`);
    await expect(panel).toBeVisible();
    await send(page, student.code);
    await expect(reply(page, 1)).toContainText('Done in', FIRST_RUN);
    await panel.getByRole('button', { name: 'Hand in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hand in' });
    await dialog.getByRole('textbox', { name: 'Your name' }).fill(student.name);
    return await download(page, () => dialog.getByRole('button', { name: 'Save hand-in' }).click());
  } finally {
    await context.close();
  }
}

// The assignment's panel takes at most 45% of the window's height: a tall window shows all of the
// table without scrolling, and the picture is the top of it, down to the panel's end.
test.use({ viewport: { width: 1280, height: 1600 } });

test('docs/images/grading.png', async ({ page, browser }) => {
  test.setTimeout(480_000);
  await openApp(page);
  await dismissStorageNotice(page);
  await renameSession(page, TITLE);
  await choose(page, 'Upload files', [{ name: 'scores.xlsx', text: Buffer.from(workbook(), 'binary') }]);
  await expect(region(page, 'Files')).toContainText('scores.xlsx');
  // The teacher's own solution first, so the checks are known to pass on it.
  await send(page, RIGHT);
  await expect(reply(page, 1)).toContainText('67.125 95 7', FIRST_RUN);
  await sessionAction(page, 'Save as assignment');
  const dialog = page.getByRole('dialog', { name: 'Save as assignment' });
  await dialog.getByRole('textbox', { name: 'Title' }).fill(TITLE);
  await dialog
    .getByRole('textbox', { name: 'Instructions (Markdown)' })
    .fill('Read the scores in `scores.xlsx`. Put their average in `mean` and the highest in `top`, and write `passed(limit)`, which counts the scores of at least `limit`.');
  await dialog.getByRole('textbox', { name: 'Starter code' }).fill("scores = [r['score'] for r in read_excel('scores.xlsx', 0)]\n");
  await dialog.getByRole('textbox', { name: /^Checks/ }).fill(CHECKS);
  await dialog.getByRole('spinbutton', { name: 'Points for check_mean' }).fill('2');
  const assignment = await download(page, () => dialog.getByRole('button', { name: 'Save assignment' }).click());

  const handIns = [];
  for (const student of STUDENTS) handIns.push(await handIn(browser, assignment, student));

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Grade submissions' }).click();
  await (await chooser).setFiles(handIns.map((h) => ({ name: h.name, mimeType: 'application/zip', buffer: h.data })));
  const grading = region(page, 'Grading');
  await expect(grading.getByRole('progressbar', { name: 'Grading progress' })).toHaveAttribute('aria-valuenow', String(STUDENTS.length), FIRST_RUN);
  const table = grading.getByRole('table', { name: 'Grades' });
  for (const student of STUDENTS) {
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: student.name, exact: true }) });
    await expect(row).toContainText('graded');
    await expect(row.getByRole('cell').nth(3)).toHaveText(student.points);
  }
  await shoot(page, 'grading.png', { upTo: region(page, `Assignment: ${TITLE}`) });
});
