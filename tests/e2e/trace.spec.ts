import { test, expect } from '@playwright/test';
import { openApp } from './app';

// A step-through's record through the page's API (window.pytabs.trace), in Chromium with a
// real worker and real IndexedDB: the run is the session's own (its values are saved as
// Run's are), input() asks the person while it records, and Stop ends it.

test('pytabs.trace records a shared list, an answer to input(), and saves the run as Run does', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const lib = window.pytabsLib!;
    const s = await api.createSession('Steps');
    const code = "a = [1, 2]\nb = a\nb.append(int(input('How many? ')))\nprint('a is', a)";
    const running = api.trace(s.id, code, { maxSteps: 1000 });
    while (!api.pendingInput(s.id)) await new Promise((resolve) => setTimeout(resolve, 50));
    api.answerInput(s.id, api.pendingInput(s.id)!.id, '7');
    const result = await running;
    const trace = result.trace!;
    const last = lib.traceStep(trace, trace.steps.length - 1);
    const vars = Object.fromEntries(last.frames[0].variables);
    const list = last.objects.get((vars.a as { ref: number }).ref);
    const saved = await api.listVariables(s.id);
    return { status: result.status, lines: trace.steps.map((st) => st.line), vars, list, stdout: last.stdout, inputs: trace.inputs, saved: saved.map((v) => [v.name, v.preview]) };
  });
  expect(out.status).toBe('ok');
  // The last line, an expression, runs on its own as a notebook's last expression does (its value is shown).
  expect(out.lines).toEqual([0, 1, 2, 3, 3, 0, 4, 4]);
  // b = a: two names, one object.
  expect(out.vars.b).toEqual(out.vars.a);
  expect(out.list).toMatchObject({ kind: 'list', items: [['int', '1'], ['int', '2'], ['int', '7']] });
  expect(out.stdout).toBe('How many? 7\na is [1, 2, 7]\n');
  expect(out.inputs).toEqual([{ step: 4, text: '7' }]);
  expect(out.saved).toEqual([
    ['a', '[1, 2, 7]'],
    ['b', '[1, 2, 7]'],
  ]);
});

test('Stop ends a recording run by interrupt; the steps until then come back and the session goes on', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Endless');
    // Started first: a stop that came while the worker still started would find no run to stop.
    await api.run(s.id, 'n = 0');
    const running = api.trace(s.id, 'n = 0\nwhile True:\n    n += 1', { maxSteps: 1_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const how = await api.stop(s.id);
    const result = await running;
    const after = await api.run(s.id, 'n > 0');
    return { how, ename: result.error?.ename, steps: result.trace?.steps.length ?? 0, reached: result.trace?.stepLimitReached, lastLine: result.trace?.steps.at(-1)?.line, after: after.result?.['text/plain'] };
  });
  expect(out.how).toBe('interrupted');
  expect(out.ename).toBe('KeyboardInterrupt');
  expect(out.steps).toBeGreaterThan(10);
  expect(out.reached).toBe(false);
  expect([2, 3]).toContain(out.lastLine);
  expect(out.after).toBe('True');
});
