import { test, expect, type Page } from '@playwright/test';
import { openApp } from './app';

// Correctness of the fast paths: whatever a run that returned left in its variables is
// what comes back after a reload or after the session slept, including values changed in
// place (no rebinding) through an alias or through a function defined in an earlier run.

/** Runs code in a session; returns its shown value, or throws with the error. */
async function run(page: Page, id: string, code: string): Promise<string | undefined> {
  const r = await page.evaluate(
    async ([id, code]) => {
      // Right after a reload the page it replaced may hold the session's Web Lock for a moment.
      for (let tries = 0; ; tries++) {
        try {
          return await window.pytabs!.run(id, code);
        } catch (error) {
          if ((error as Error).name !== 'SessionElsewhereError' || tries > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
    [id, code],
  );
  if (r.commitError) throw new Error(`commit failed: ${r.commitError}`);
  if (r.status !== 'ok' && !code.includes('1 / 0')) throw new Error(`${code}\n${r.error?.traceback}`);
  return r.result?.['text/plain'];
}

const newSession = (page: Page, name: string) =>
  page.evaluate(async (name) => (await window.pytabs!.createSession(name)).id, name);

test('values changed in place, through aliases and earlier functions, survive a reload', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'In place');
  await run(
    page,
    id,
    [
      'import array',
      'lst = []',
      "table = {'rows': [1, 2], 'drop': 0}",
      'store = []',
      'ba = bytearray(b"abc")',
      'nums = array.array("d", [1.0, 2.0])',
      'seen = set()',
      'class Box:',
      '    def __init__(self):',
      '        self.items = []',
      'box = Box()',
      'def remember(v):',
      '    store.append(v)',
      '    box.items.append(v)',
    ].join('\n'),
  );
  // Each of these only mutates: no variable is rebound.
  await run(page, id, 'lst.append(1)');
  await run(page, id, "rows = table['rows']");
  await run(page, id, 'rows.append(3)');
  await run(page, id, "del table['drop']");
  await run(page, id, 'remember(42)');
  await run(page, id, 'ba[0] = ord("z")\nnums[1] = 9.5\nseen.add("x")');
  // A run that fails after mutating still leaves its mutation, and it returned: it is kept.
  await run(page, id, 'lst.append(2)\n1 / 0');

  const check = "(lst, table, rows, store, box.items, bytes(ba), nums.tolist(), seen)";
  const expected = "([1, 2], {'rows': [1, 2, 3]}, [1, 2, 3], [42], [42], b'zbc', [1.0, 9.5], {'x'})";
  expect(await run(page, id, check)).toBe(expected);

  await page.reload();
  await openApp(page);
  expect(await run(page, id, check)).toBe(expected);

  // Mutating again after the restore is seen too (the restore's bookkeeping is not stale).
  await run(page, id, 'lst.append(3)\nremember(7)');
  await page.reload();
  await openApp(page);
  expect(await run(page, id, '(lst, store, box.items)')).toBe('([1, 2, 3], [42, 7], [42, 7])');
});

test('a session put to sleep by the worker limit wakes with its state', async ({ page }) => {
  await openApp(page);
  await page.evaluate(() => window.pytabs!.updateSettings({ maxLiveWorkers: 1 }));
  const a = await newSession(page, 'Sleeper');
  const b = await newSession(page, 'Other');
  await run(page, a, 'import json\nitems = [1]\ndef twice(v):\n    return 2 * v');
  await run(page, a, 'items.append(2)');
  await run(page, b, 'other = 1');
  const statuses = await page.evaluate(async () =>
    Object.fromEntries((await window.pytabs!.listSessions()).map((s) => [s.name, s.status])),
  );
  expect(statuses.Sleeper).toBe('asleep');
  expect(statuses.Other).toBe('idle');
  expect(await run(page, a, 'json.dumps(items), twice(21)')).toBe("('[1, 2]', 42)");
  const after = await page.evaluate(async () =>
    Object.fromEntries((await window.pytabs!.listSessions()).map((s) => [s.name, s.status])),
  );
  expect(after).toMatchObject({ Sleeper: 'idle', Other: 'asleep' });
});

test('sessions start from the build memory snapshot', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Snapshot');
  const report = await page.evaluate((id) => window.pytabs!.startSession(id), id);
  expect(report.snapshotError).toBeUndefined();
  expect(report.snapshot).toBe('used');
  // And the interpreter restored from it is a working one, with its own random numbers.
  expect(await run(page, id, 'import random, statistics\nstatistics.mean([1, 2, 3])')).toBe('2');
  const other = await newSession(page, 'Snapshot 2');
  const draws = [await run(page, id, 'random.random()'), await run(page, other, 'import random\nrandom.random()')];
  expect(draws[0]).not.toBe(draws[1]);
});
