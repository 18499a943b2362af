// The step-through group. D1: recording a 10,000-step program through `pytabs.trace` (the
// page's call until its result, the commit after the run included) divided by Debian's
// CPython recording the same steps with the same data under sys.settrace: the same recorder
// (workers/python/pytabs/trace.py, which imports nothing of the browser), timed inside Python
// around the run and the record's JSON. D3: the bytes of that trace as it is kept (its JSON,
// UTF-8), reported against the same steps written out in full, each with its variables and
// objects (what sharing scopes and snapshots saves). D2: the longest task on the page while a
// person drags the Step through view's slider across those steps (the round sent with them,
// drawn after a reload as a kept one is), against 50 ms.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STEPS = 10_000;
// Five steps a round (the for line, the body, step's call, its line, its return): a little over 10,000 in all.
const PROGRAM = 'def step(total, x):\n    return total + x\ndata = [3, 1, 2]\ntotal = 0\nfor i in range(2000):\n    total = step(total, data[i % 3])';
const CPYTHON = [
  'import json, sys, time',
  'from pytabs.trace import Recorder',
  'source = sys.stdin.read()',
  "namespace = {'__name__': '__main__'}",
  't0 = time.perf_counter()',
  `recorder = Recorder({'maxSteps': ${STEPS}}, lambda f: f == '<cell-1>', frozenset(namespace))`,
  'with recorder.recording():',
  "    exec(compile(source, '<cell-1>', 'exec'), namespace)",
  'record = recorder.record()',
  "kept = json.dumps(record, ensure_ascii=False, separators=(',', ':'))",
  'ms = (time.perf_counter() - t0) * 1000',
  "print(json.dumps({'ms': ms, 'steps': len(record['steps'])}))",
].join('\n');

/** Sends PROGRAM with Step through's record of STEPS steps, reloads, and drags the view's slider from its first step to its last. */
async function dragAcross(page) {
  await page.evaluate(
    async ([code, steps]) => {
      const id = await window.firstSession();
      await window.untilOwned(() => window.pytabsLib.sendMessage(window.pytabs, id, code, { trace: { maxSteps: steps } }));
    },
    [PROGRAM, STEPS],
  );
  await page.reload();
  await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 60_000 });
  // The session's start is over before the drag: its long tasks are not the slider's.
  await page.evaluate(async () => window.untilOwned(async () => window.pytabs.startSession(await window.firstSession())));
  const slider = page.getByRole('group', { name: 'Step-through' }).last().getByRole('slider', { name: 'Step' });
  await slider.scrollIntoViewIfNeeded({ timeout: 60_000 });
  const box = await slider.boundingBox();
  await page.evaluate(() => {
    window.__longestTask = 0;
    // Long tasks are reported from 50 ms only: the longest gap between frames says how smooth it was below that.
    window.__longestFrame = 0;
    let last = performance.now();
    const frame = (now) => {
      window.__longestFrame = Math.max(window.__longestFrame, now - last);
      last = now;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longestTask = Math.max(window.__longestTask, entry.duration);
    }).observe({ type: 'longtask' });
  });
  const y = box.y + box.height / 2;
  const moves = 200;
  const t0 = Date.now();
  await page.mouse.move(box.x + 1, y);
  await page.mouse.down();
  for (let i = 1; i <= moves; i++) await page.mouse.move(box.x + 1 + ((box.width - 2) * i) / moves, y);
  await page.mouse.up();
  const ms = Date.now() - t0;
  const reached = Number(await slider.inputValue());
  if (reached !== STEPS - 1) throw new Error(`the drag ended at step ${reached}, not ${STEPS - 1}`);
  // A task still running at the last move is reported when it ends.
  await page.waitForTimeout(500);
  return { ...(await page.evaluate(() => ({ longest: window.__longestTask, longestFrame: window.__longestFrame }))), moves, ms };
}

export async function traceRows(browser, origin, { reps, openApp, median, log }) {
  const cpython = [];
  for (let rep = 0; rep < reps; rep++) {
    const out = JSON.parse(execFileSync('/usr/bin/python3', ['-c', CPYTHON], { input: PROGRAM, encoding: 'utf8', env: { ...process.env, PYTHONPATH: path.join(ROOT, 'workers/python') } }));
    if (out.steps !== STEPS) throw new Error(`CPython recorded ${out.steps} steps, not ${STEPS}`);
    cpython.push(out.ms);
  }
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  const measured = await page.evaluate(
    async ([code, steps, reps]) => {
      const id = await window.firstSession();
      await window.untilOwned(() => window.pytabs.startSession(id));
      // The first recording warms the interpreter's wasm and the recorder's code: logged, not measured.
      const time = async () => {
        const t0 = performance.now();
        const r = await window.untilOwned(() => window.pytabs.trace(id, code, { maxSteps: steps }));
        const ms = performance.now() - t0;
        if (r.status !== 'ok' || r.commitError || r.trace?.steps.length !== steps || !r.trace.stepLimitReached) throw new Error(`the recording failed: ${JSON.stringify(r.error ?? r.commitError ?? r.trace?.steps.length)}`);
        return { ms, worker: r.durationMs, trace: r.trace };
      };
      const first = (await time()).ms;
      const runs = [];
      let trace = null;
      for (let rep = 0; rep < reps; rep++) {
        const run = await time();
        runs.push({ ms: run.ms, worker: run.worker });
        trace = run.trace;
      }
      const bytes = (value) => new TextEncoder().encode(JSON.stringify(value)).length;
      const full = trace.steps.map((_, i) => {
        const view = window.pytabsLib.traceStep(trace, i);
        return { ...view, objects: [...view.objects.values()] };
      });
      return { first, runs, kept: bytes(trace), full: bytes(full), objects: trace.objects.length, scopes: trace.scopes.length };
    },
    [PROGRAM, STEPS, reps],
  );
  const drag = await dragAcross(page);
  await context.close();
  const pytabs = measured.runs.map((r) => r.ms);
  log('D2', JSON.stringify(drag));
  log('D', JSON.stringify({ cpython: cpython.map(Math.round), first: Math.round(measured.first), pytabs: pytabs.map(Math.round), worker: measured.runs.map((r) => Math.round(r.worker)), kept: measured.kept, full: measured.full }));
  const KB = 1000;
  return {
    rows: [
      { id: 'D1', what: `step-through: recording a ${STEPS.toLocaleString('en')}-step program (pytabs.trace, call to result)`, value: median(pytabs), base: median(cpython), baseName: 'the same recorder in CPython, sys.settrace', target: 3 },
      { id: 'D2', what: `step-through: the longest task on the page while the slider is dragged across ${STEPS.toLocaleString('en')} steps`, value: drag.longest, base: 50, baseName: '50 ms', target: 1 },
      { id: 'D3', what: `step-through: a kept ${STEPS.toLocaleString('en')}-step trace (its JSON, UTF-8)`, value: measured.kept / KB, base: measured.full / KB, baseName: 'the same steps written out in full', target: null, unit: 'kB' },
    ],
    samples: { traceCPython: cpython, traceFirst: measured.first, tracePyTabs: pytabs, traceWorker: measured.runs.map((r) => r.worker), traceKept: measured.kept, traceFull: measured.full },
    notes: `Step-through: the program loops 2,000 times over a call (${STEPS.toLocaleString('en')} steps recorded of a few more, the limit reached); CPython recorded them in ${Math.round(median(cpython))} ms (median of ${cpython.length}, timed in Python); PyTabs' first recording in the page took ${Math.round(measured.first)} ms (not measured). The kept trace holds ${measured.objects} object snapshots and ${measured.scopes} scopes. D2 dragged the slider in ${drag.moves} moves over ${drag.ms} ms (0 ms: no task of 50 ms or more, the least the browser reports); the longest gap between two frames meanwhile was ${Math.round(drag.longestFrame)} ms.`,
  };
}
