import { test, expect, type Browser, type Page } from '@playwright/test';
import { chooseZips, downloaded, FIRST_RUN, openApp, region, reply, send } from './app';
import { assignmentFileInPage, ONE_CHECK } from './hand-ins';

// A step-through is kept with its round beyond this browser: exported and imported as a session
// file, and handed in and opened by the teacher, the round's step view draws again, and any step
// reads as it did (the list behind two names, its items at that step). Chromium, real Pyodide,
// real IndexedDB, the real files.

const PROGRAM = ['a = [1, 2]', 'b = a', 'b.append(3)', 'total = len(a)', 'done = True'].join('\n');

/** Steps through PROGRAM in the open session as its message `seq`, and waits for its step view. */
async function stepThrough(page: Page, seq: number): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(PROGRAM);
  await page.getByRole('button', { name: 'Step through' }).click();
  await expect(reply(page, seq).getByRole('group', { name: 'Step-through' })).toBeVisible(FIRST_RUN);
}

/** Reads message `seq`'s step view as a student would: the last step, then back three, and what the list holds there. */
async function expectStepsDrawn(page: Page, seq: number): Promise<void> {
  const view = reply(page, seq).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible();
  const slider = view.getByRole('slider', { name: 'Step' });
  await view.getByRole('button', { name: 'Last' }).click();
  await expect(slider).toHaveValue('6');
  await expect(view.getByRole('group', { name: '<module>' }).getByRole('button', { name: '→ list #1' })).toHaveCount(2);
  for (let i = 0; i < 3; i++) await view.getByRole('button', { name: 'Back' }).click();
  await expect(slider).toHaveValue('3');
  await expect(view.getByRole('status')).toHaveText('Line 2: b is list #1');
  await expect(view.getByRole('group', { name: 'list #1', exact: true }).getByRole('listitem')).toHaveText(['0 1', '1 2']);
}

/** A fresh browser (another person's) that imports `file` with Import session and opens it. */
async function importedElsewhere(browser: Browser, file: { name: string; data: Uint8Array }, heading: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await openApp(page);
  await chooseZips(page, 'Import session', [file]);
  await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
  return page;
}

test('a step-through survives Export session and Import session in another browser: its steps draw and read again', async ({ page, browser }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await stepThrough(page, 1);
  await expectStepsDrawn(page, 1);
  await page.evaluate(async () => window.pytabs!.renameSession((await window.pytabs!.listSessions())[0].id, 'Aliases'));
  const { data } = await downloaded(page, () => page.getByRole('button', { name: 'Export session' }).click());

  const other = await importedElsewhere(browser, { name: 'Aliases.pytabs.zip', data }, 'Aliases');
  try {
    await expectStepsDrawn(other, 1);
    // Stored as imported: a reload draws it from storage.
    await other.reload();
    await openApp(other);
    await other.getByRole('tab', { name: 'Aliases' }).click();
    await expectStepsDrawn(other, 1);
  } finally {
    await other.context().close();
  }
});

test("a student's step-through survives their hand-in: the teacher who opens it steps through it too", async ({ page, browser }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const assignment = await page.evaluate(assignmentFileInPage, ONE_CHECK);
  await chooseZips(page, 'Import session', [{ name: 'Crash course.pytabs.zip', data: new Uint8Array(assignment) }]);
  await expect(page.getByRole('heading', { name: 'Crash course', exact: true })).toBeVisible();
  await stepThrough(page, 1);
  await send(page, 'answer = 6 * 7');
  await expect(reply(page, 2)).toContainText('Done in', FIRST_RUN);
  const panel = region(page, 'Assignment: Crash course');
  await panel.getByRole('button', { name: 'Hand in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Hand in' });
  await dialog.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  const { download, data } = await downloaded(page, () => dialog.getByRole('button', { name: 'Save hand-in' }).click());
  expect(download.suggestedFilename()).toBe('Crash course-Ada.pytabs.zip');

  const teacher = await importedElsewhere(browser, { name: download.suggestedFilename(), data }, 'Crash course');
  try {
    await expectStepsDrawn(teacher, 1);
  } finally {
    await teacher.context().close();
  }
});
