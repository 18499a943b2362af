import { readFileSync } from 'node:fs';
import { test, expect, type Locator } from '@playwright/test';
import { FIRST_RUN, openApp, reply } from './app';
import { expectAxeClean, expectNoOverflow } from './screen-checks';
import { arrowEnds, inside, stepThrough } from './step-view';

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

/** Waits until the view draws exactly one arrow from each of `refs`, all ending on `object`, and no other. */
async function expectArrows(view: Locator, refs: Locator, object: Locator): Promise<void> {
  const count = await refs.count();
  await expect
    .poll(async () => {
      const ends = await arrowEnds(view);
      const target = (await object.boundingBox())!;
      const from = await Promise.all((await refs.all()).map(async (ref) => (await ref.boundingBox())!));
      return {
        arrows: ends.length,
        allEndOnTheObject: ends.every((arrow) => inside(arrow.end, target)),
        oneFromEachRef: from.map((box) => ends.filter((arrow) => inside(arrow.start, box)).length),
      };
    })
    .toEqual({ arrows: count, allEndOnTheObject: true, oneFromEachRef: Array(count).fill(1) });
}

test('Step through draws an arrow from each name to the object it refers to: two to one list for b = a, following the page as it narrows', async ({ page }) => {
  await openApp(page);
  const view = await stepThrough(page, PROGRAM);
  const slider = view.getByRole('slider', { name: 'Step' });
  const frame = view.getByRole('group', { name: '<module>' });
  const list = view.getByRole('group', { name: 'list #1', exact: true });
  const refs = frame.getByRole('button', { name: '→ list #1' });

  // After line 1: one name, one arrow.
  await slider.fill('2');
  await expect(refs).toHaveCount(1);
  await expectArrows(view, refs, list);
  // After b = a: two names, two arrows, both ending on the one list.
  await slider.fill('3');
  await expect(refs).toHaveCount(2);
  await expectArrows(view, refs, list);
  // Frames beside objects on a wide page: the arrows run toward the inline end.
  const frameBox = (await frame.boundingBox())!;
  expect((await list.boundingBox())!.x).toBeGreaterThan(frameBox.x + frameBox.width);

  // A phone's width stacks them: the arrows follow, into the list below.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(async () => (await list.boundingBox())!.y).toBeGreaterThan((await frame.boundingBox())!.y + (await frame.boundingBox())!.height - 1);
  await expectArrows(view, refs, list);
});

test('"Next time this line runs" moves to the next step about to run the line picked (or the current one), and says when there is none', async ({ page }) => {
  await openApp(page);
  const view = await stepThrough(page, ['total = 0', 'for x in [1, 2, 3]:', '    total = total + x', 'print(total)'].join('\n'));
  const slider = view.getByRole('slider', { name: 'Step' });
  const said = view.getByRole('status');
  // The first step calls the program: no line is about to run, none picked.
  await expect(view.getByRole('button', { name: 'Next time this line runs' })).toBeDisabled();
  await view.getByRole('button', { name: 'Forward' }).click();
  await expect(view.getByRole('button', { name: 'Next time line 1 runs' })).toBeEnabled();

  const line3 = view.getByRole('list', { name: 'Code' }).getByRole('button', { name: 'Line 3' });
  await line3.click();
  await expect(line3).toHaveAttribute('aria-pressed', 'true');
  const jump = view.getByRole('button', { name: 'Next time line 3 runs' });
  await jump.click();
  await expect(slider).toHaveValue('3');
  await expect(said).toHaveText('Line 2: x is 1');
  await jump.click();
  await expect(said).toHaveText('Line 2: x is 2');
  await jump.click();
  await expect(slider).toHaveValue('7');
  await expect(said).toHaveText('Line 2: x is 3');
  await jump.click();
  await expect(said).toHaveText('Line 3 does not run again after this step');
  await expect(slider).toHaveValue('7');

  // Unpicked, it follows the line about to run: line 2, once more, to end the loop.
  await view.getByRole('button', { name: 'Back' }).click();
  await line3.click();
  await expect(line3).toHaveAttribute('aria-pressed', 'false');
  await view.getByRole('button', { name: 'Next time line 2 runs' }).click();
  await expect(slider).toHaveValue('8');
  await expect(said).toHaveText('Line 3: total is 6');
});

for (const size of [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
]) {
  test.describe(`at ${size.width} × ${size.height}`, () => {
    test.use({ viewport: size, isMobile: true, hasTouch: true });

    test('the step-through fits the screen, its controls are touch-sized and work, and its arrows land on the list', async ({ page }) => {
      await openApp(page);
      const view = await stepThrough(page, PROGRAM);
      const slider = view.getByRole('slider', { name: 'Step' });
      await view.getByRole('button', { name: 'Last' }).tap();
      await expect(slider).toHaveValue('6');
      await expectNoOverflow(page, size.width, 'the step-through at its last step');
      await expectAxeClean(page, 'the step-through at its last step');

      for (const name of ['First', 'Back', 'Forward', 'Last', 'Next time this line runs']) {
        const button = view.getByRole('button', { name });
        await button.scrollIntoViewIfNeeded();
        const box = (await button.boundingBox())!;
        expect({ name, width: box.width >= 44, height: box.height >= 44, onScreen: box.x >= 0 && box.x + box.width <= size.width }).toEqual({ name, width: true, height: true, onScreen: true });
      }
      const line = view.getByRole('button', { name: 'Line 2' });
      const lineBox = (await line.boundingBox())!;
      expect(Math.min(lineBox.width, lineBox.height)).toBeGreaterThanOrEqual(44);

      const refs = view.getByRole('group', { name: '<module>' }).getByRole('button', { name: '→ list #1' });
      await expect(refs).toHaveCount(2);
      await expectArrows(view, refs, view.getByRole('group', { name: 'list #1', exact: true }));

      // By touch: back three steps, then pick line 3 and go to it.
      await view.getByRole('button', { name: 'Back' }).tap();
      await view.getByRole('button', { name: 'Back' }).tap();
      await view.getByRole('button', { name: 'Back' }).tap();
      await expect(view.getByRole('status')).toHaveText('Line 2: b is list #1');
      await view.getByRole('button', { name: 'First' }).tap();
      await view.getByRole('button', { name: 'Line 3' }).tap();
      await view.getByRole('button', { name: 'Next time line 3 runs' }).tap();
      await expect(slider).toHaveValue('3');
      await expectNoOverflow(page, size.width, 'the step-through at step 4');
    });
  });
}

const ARABIC = JSON.parse(readFileSync(new URL('../../messages/ar.json', import.meta.url), 'utf8')) as Record<string, string>;

test('In Arabic the heap view mirrors with the page: frames at the right, arrows running left to the list, the code left to right', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'ar'));
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('textbox', { name: ARABIC.chat_editor_label }).fill(PROGRAM);
  await page.getByRole('button', { name: ARABIC.step_through, exact: true }).click();
  const view = page.getByRole('group', { name: ARABIC.step_view });
  await expect(view).toBeVisible(FIRST_RUN);
  await view.getByRole('button', { name: ARABIC.step_last }).click();
  const frame = view.getByRole('group', { name: '<module>' });
  const list = view.getByRole('group', { name: ARABIC.step_object.replace('{type}', 'list').replace('{id}', '1'), exact: true });
  const refs = frame.getByRole('button', { name: ARABIC.step_ref.replace('{object}', ARABIC.step_object.replace('{type}', 'list').replace('{id}', '1')) });
  await expect(refs).toHaveCount(2);
  await expectArrows(view, refs, list);
  const frameBox = (await frame.boundingBox())!;
  const listBox = (await list.boundingBox())!;
  expect(listBox.x + listBox.width).toBeLessThan(frameBox.x);
  for (const arrow of await arrowEnds(view)) expect(arrow.end.x).toBeLessThan(arrow.start.x);
  expect(await view.getByRole('list', { name: ARABIC.step_code }).evaluate((e) => getComputedStyle(e).direction)).toBe('ltr');
});
