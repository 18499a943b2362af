import { test, expect } from '@playwright/test';
import { FIRST_RUN, openApp, reply } from './app';

// Step through on a Code message, in Chromium with a real worker and real IndexedDB, found by
// role and name as a person (or a screen reader) finds it.

const PROGRAM = ['a = [1, 2]', 'b = a', 'b.append(3)', 'total = len(a)', 'done = True'].join('\n');

test('Step through shows one list behind two names, goes back by button and keyboard, says each step, and is kept with the round', async ({ page }) => {
  await openApp(page);
  await page.getByRole('textbox', { name: 'Message' }).fill(PROGRAM);
  await page.getByRole('button', { name: 'Step through' }).click();

  const view = reply(page, 1).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible(FIRST_RUN);
  const slider = view.getByRole('slider', { name: 'Step' });
  const said = view.getByRole('status');
  await expect(slider).toHaveValue('0');
  await expect(said).toHaveText('The program starts');

  await view.getByRole('button', { name: 'Last' }).click();
  // call, lines 1 to 5, return: seven steps.
  await expect(slider).toHaveAttribute('max', '6');
  await expect(slider).toHaveValue('6');
  const frame = view.getByRole('group', { name: '<module>' });
  // b = a: both names refer to list #1, drawn once.
  await expect(frame.getByRole('button', { name: '→ list #1' })).toHaveCount(2);
  const list = view.getByRole('group', { name: 'list #1', exact: true });
  await expect(list).toHaveCount(1);
  await expect(list.getByRole('listitem')).toHaveText(['0 1', '1 2', '2 3']);
  await frame.getByRole('button', { name: '→ list #1' }).first().click();
  await expect(list).toBeFocused();

  // Back three steps: once by button, twice by keyboard on the view.
  await view.getByRole('button', { name: 'Back' }).click();
  await expect(slider).toHaveValue('5');
  await expect(said).toHaveText('Line 4: total is 3');
  await view.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(said).toHaveText('Line 3: list #1 now holds 1, 2, 3');
  await page.keyboard.press('ArrowLeft');
  await expect(slider).toHaveValue('3');
  await expect(said).toHaveText('Line 2: b is list #1');
  // Line 2 just ran, line 3 runs next, said in words too; the list does not hold 3 yet.
  const code = view.getByRole('list', { name: 'Code' });
  await expect(code.getByRole('listitem').nth(1)).toContainText('just ran');
  await expect(code.getByRole('listitem').nth(2)).toContainText('next to run');
  await expect(list.getByRole('listitem')).toHaveText(['0 1', '1 2']);

  await page.keyboard.press('Home');
  await expect(slider).toHaveValue('0');
  await page.keyboard.press('End');
  await expect(slider).toHaveValue('6');
  await slider.fill('2');
  await expect(said).toHaveText('Line 1: a is list #1');
  await expect(view.getByRole('button', { name: 'Back' })).toBeEnabled();
  await view.getByRole('button', { name: 'First' }).click();
  await expect(view.getByRole('button', { name: 'Back' })).toBeDisabled();

  // The record is kept with the round: a reload draws it again.
  await page.reload();
  const again = reply(page, 1).getByRole('group', { name: 'Step-through' });
  await expect(again).toBeVisible(FIRST_RUN);
  await again.getByRole('button', { name: 'Last' }).click();
  await expect(again.getByRole('group', { name: '<module>' }).getByRole('button', { name: '→ list #1' })).toHaveCount(2);
});
