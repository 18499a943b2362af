import path from 'node:path';
import { test, expect, type Locator } from '@playwright/test';
import { FIRST_RUN, openApp, reply } from './app';
import { StaticHost } from './static-host';
import { arrowEnds, inside, stepThrough } from './step-view';

// The parts of a step-through a person meets past the first list behind two names, through the
// UI by role and name on the built app with real Pyodide: arrows from the elements of lists and
// the values of dicts, the limits said on screen, the output so far moving with the steps,
// input() answered while recording, and Stop while recording.

/** Waits until exactly one arrow starts on each of `refs`, and each of those ends on `object`. */
async function expectArrowsFrom(view: Locator, refs: Locator, object: Locator): Promise<void> {
  const count = await refs.count();
  await expect
    .poll(async () => {
      const ends = await arrowEnds(view);
      const target = (await object.boundingBox())!;
      return Promise.all(
        (await refs.all()).map(async (ref) => {
          const box = (await ref.boundingBox())!;
          const from = ends.filter((arrow) => inside(arrow.start, box));
          return { arrows: from.length, onTheObject: from.every((arrow) => inside(arrow.end, target)) };
        }),
      );
    })
    .toEqual(Array(count).fill({ arrows: 1, onTheObject: true }));
}

test('arrows run from the elements of a list of lists and from the values of a dict to the inner objects; a name and an element that share a list point to one drawn list', async ({ page }) => {
  await openApp(page);
  const view = await stepThrough(page, ["grid = [[1, 2], [3, 4]]", 'row = grid[0]', "book = {'pages': [10, 20]}", 'done = True'].join('\n'));
  await view.getByRole('button', { name: 'Last' }).click();
  const frame = view.getByRole('group', { name: '<module>' });
  const object = (name: string) => view.getByRole('group', { name, exact: true });
  const grid = object('list #1');
  const book = object('dict #4');

  // The outer list holds two references, drawn as marks, not as their values.
  await expect(grid.getByRole('button')).toHaveText(['→ list #2', '→ list #3']);
  await expect(book.getByRole('listitem')).toHaveText("'pages': → list #5");
  // Every mark in the view has its arrow: three names, two elements, one value.
  await expect(view.getByRole('button', { name: /^→ / })).toHaveCount(6);
  await expect.poll(async () => (await arrowEnds(view)).length).toBe(6);

  // row = grid[0]: the name and the outer list's first element point to one list, drawn once.
  await expect(object('list #2')).toHaveCount(1);
  await expect(object('list #2').getByRole('listitem')).toHaveText(['0 1', '1 2']);
  const toRow = view.getByRole('button', { name: '→ list #2' });
  await expect(frame.getByRole('button', { name: '→ list #2' })).toHaveCount(1);
  await expect(grid.getByRole('button', { name: '→ list #2' })).toHaveCount(1);
  await expectArrowsFrom(view, toRow, object('list #2'));
  await expectArrowsFrom(view, grid.getByRole('button', { name: '→ list #3' }), object('list #3'));
  await expectArrowsFrom(view, book.getByRole('button', { name: '→ list #5' }), object('list #5'));
  await expectArrowsFrom(view, frame.getByRole('button', { name: '→ list #1' }), grid);
  await expectArrowsFrom(view, frame.getByRole('button', { name: '→ dict #4' }), book);

  // An element's mark does what a name's does: it takes the reader to the object.
  await grid.getByRole('button', { name: '→ list #3' }).click();
  await expect(object('list #3')).toBeFocused();
});

test('a program longer than the step limit: the limit is said on screen and the run goes on to its end, its output complete', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  // 3,000 turns of a two-line loop: over 6,000 steps, past the 5,000 recorded by default.
  const view = await stepThrough(page, ['total = 0', 'for i in range(3000):', '    total += i', "print('total', total)"].join('\n'));
  await expect(view.getByText('Step limit (5000) reached: the program ran on to its end without recording.')).toBeVisible();
  await expect(view.getByText(/^Object limit/)).toHaveCount(0);
  const slider = view.getByRole('slider', { name: 'Step' });
  await expect(slider).toHaveAttribute('max', '4999');
  // Past the limit the loop ran to its end: the reply has its last line, printed unrecorded.
  await expect(reply(page, 1)).toContainText('total 4498500');
  await expect(reply(page, 1)).toContainText('Done in');
  await view.getByRole('button', { name: 'Last' }).click();
  await expect(view.getByRole('region', { name: 'Output so far' })).not.toContainText('total 4498500');
});

test('a step with more objects than are drawn says so, and a list longer than its items shown says how many are not shown', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  // 130 numbers in one list (100 shown), and three lists of 90 lists each: 274 objects, past the 200 drawn.
  const view = await stepThrough(page, ['nums = list(range(130))', 'a = [[i] for i in range(90)]', 'b = [[i] for i in range(90)]', 'c = [[i] for i in range(90)]'].join('\n'));
  await expect(view.getByText('Object limit (200 per step) reached: some objects are not drawn.')).toBeVisible();
  await expect(view.getByText(/^Step limit/)).toHaveCount(0);
  await view.getByRole('button', { name: 'Last' }).click();
  const objects = view.getByRole('region', { name: 'Objects' });
  await expect(objects.getByRole('group')).toHaveCount(200);
  const nums = objects.getByRole('group', { name: 'list #1', exact: true });
  await expect(nums.getByRole('listitem')).toHaveCount(100);
  await expect(nums.getByRole('listitem').last()).toHaveText('99 99');
  await expect(nums.getByText('Not shown: 30')).toBeVisible();
});

test('"Output so far" follows the steps: forward past a print shows its text, back hides it again, by button and by the arrow keys', async ({ page }) => {
  await openApp(page);
  const view = await stepThrough(page, ["print('one')", 'x = 2', "print('two', x)", 'done = True'].join('\n'));
  const output = view.getByRole('region', { name: 'Output so far' });
  const said = view.getByRole('status');
  const slider = view.getByRole('slider', { name: 'Step' });
  // Steps: the call, lines 1 to 4 about to run, the return.
  await view.getByRole('button', { name: 'Forward' }).click();
  await expect(said).toHaveText('Line 1 runs next');
  await expect(output).not.toContainText('one');
  await view.getByRole('button', { name: 'Forward' }).click();
  await expect(output).toContainText('one');
  await expect(output).not.toContainText('two');
  // The keys a person steps with, on the view: Right and Down go forward, Up and Left back.
  await view.focus();
  await page.keyboard.press('ArrowRight');
  await expect(slider).toHaveValue('3');
  await page.keyboard.press('ArrowDown');
  await expect(slider).toHaveValue('4');
  await expect(said).toHaveText('Line 3: nothing changed');
  await expect(output).toContainText('one\ntwo 2', { useInnerText: true });
  await page.keyboard.press('ArrowUp');
  await expect(slider).toHaveValue('3');
  await expect(output).toContainText('one');
  await expect(output).not.toContainText('two');
  await page.keyboard.press('ArrowLeft');
  await view.getByRole('button', { name: 'Back' }).click();
  await expect(slider).toHaveValue('1');
  await expect(output).not.toContainText('one');
});

test('input() while recording: the question is answered in the chat’s field, and the step-through holds the answer in its output and its variable', async ({ page }) => {
  await openApp(page);
  await page.getByRole('textbox', { name: 'Message' }).fill(["name = input('Your name? ')", "greeting = 'Hello, ' + name", 'print(greeting)'].join('\n'));
  await page.getByRole('button', { name: 'Step through' }).click();
  const field = page.getByRole('textbox', { name: 'Input for Session 1', exact: true });
  await expect(field).toBeFocused(FIRST_RUN);
  await page.keyboard.type('Ada');
  await page.keyboard.press('Enter');
  const view = reply(page, 1).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible();
  await expect(reply(page, 1)).toContainText('Hello, Ada');

  const slider = view.getByRole('slider', { name: 'Step' });
  await slider.fill('2');
  await expect(view.getByRole('status')).toHaveText("Line 1: name is 'Ada'");
  const frame = view.getByRole('group', { name: '<module>' });
  await expect(frame.getByRole('definition')).toHaveText(["'Ada'"]);
  await expect(view.getByRole('region', { name: 'Output so far' })).toContainText('Your name? Ada');
  await view.getByRole('button', { name: 'Last' }).click();
  await expect(frame.getByRole('definition')).toHaveText(["'Ada'", "'Hello, Ada'"]);
  await expect(view.getByRole('region', { name: 'Output so far' })).toContainText('Your name? Ada\nHello, Ada', { useInnerText: true });
});

// A slow loop that never ends on its own: a tenth of a second a turn keeps it far from the step limit.
const ENDLESS = ['import time', 'n = 0', 'while True:', '    n += 1', '    if n == 3:', "        print('running')", '    time.sleep(0.1)'].join('\n');

test('Stop while recording ends the round as stopped, and the steps recorded until the stop are drawn', async ({ page }) => {
  await openApp(page);
  await page.getByRole('textbox', { name: 'Message' }).fill(ENDLESS);
  await page.getByRole('button', { name: 'Step through' }).click();
  await expect(reply(page, 1)).toContainText('running', FIRST_RUN);
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 1)).toContainText('KeyboardInterrupt');
  await expect(reply(page, 1)).toContainText('Stopped after');

  const view = reply(page, 1).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible();
  await expect(view.getByText(/^Step limit/)).toHaveCount(0);
  await view.getByRole('button', { name: 'Last' }).click();
  // The last step drawn is the last one recorded before the stop: in the loop, n counted past 3.
  await expect(view.getByRole('status')).toHaveText(/^Line [4-7]: /);
  const n = view.getByRole('group', { name: '<module>' }).getByRole('definition').nth(1);
  expect(Number(await n.textContent())).toBeGreaterThanOrEqual(3);
  await expect(view.getByRole('region', { name: 'Output so far' })).toContainText('running');
});

test.describe('on a host without cross-origin isolation', () => {
  let host: StaticHost;
  test.beforeEach(async () => {
    host = await new StaticHost(path.resolve('dist'), '/sub/app/', 'plain').start();
  });
  test.afterEach(async () => {
    await host.close();
  });

  test('Stop while recording restarts the session, so no steps come back: the round ends stopped without a step view', async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto(host.url);
    await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    // Here a step-through that ends on its own is drawn as anywhere.
    await stepThrough(page, 'a = [1, 2]\nb = a');

    await page.getByRole('textbox', { name: 'Message' }).fill(ENDLESS);
    await page.getByRole('button', { name: 'Step through' }).click();
    await expect(reply(page, 2)).toContainText('running', FIRST_RUN);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(reply(page, 2)).toContainText('Stopped after');
    await expect(reply(page, 2)).toContainText('the session restarted');
    await expect(reply(page, 2).getByRole('group', { name: 'Step-through' })).toHaveCount(0);
    // The session works again, and steps through again.
    await stepThrough(page, 'c = [3]\nd = c', 3);
    await expect(reply(page, 1).getByRole('group', { name: 'Step-through' })).toBeVisible();
  });
});
