// T1: a turtle drawing. The time from Send until the reply shows the finished picture of a
// 2,000-segment spiral drawn at speed(0), through the app's own chat (the live view draws as the
// run goes), divided by the time CPython's own turtle (Debian's, python3-tk, under Xvfb) takes
// for the same spiral with tracer(0) and update(); and T1-lt, the longest task on the page's
// thread while a turtle animates at speed 6 (target: none over 50 ms). T1-floor is the same path
// for a program that draws nothing: what every Send pays, turtle or not. T1-py, the drawing timed
// inside Python against CPython's, carries the target (≤ 2.5); T1 and T1-floor are reported.
import { execFileSync } from 'node:child_process';

const SEGMENTS = 2000;
const SPIRAL = `for i in range(${SEGMENTS}):\n    t.forward(i * 0.15)\n    t.left(59)`;
const PYTABS_CODE = `import turtle\nt = turtle.Turtle()\nt.speed(0)\n${SPIRAL}\nturtle.done()`;
// The window opens before the clock starts (a Tk window is not part of the drawing).
const CPYTHON_CODE = [
  'import time, turtle',
  't = turtle.Turtle()',
  't.speed(0)',
  'turtle.tracer(0)',
  't0 = time.perf_counter()',
  SPIRAL,
  'turtle.update()',
  'print((time.perf_counter() - t0) * 1000)',
].join('\n');
const TRIVIAL = 'x = 1';
const ANIMATED = 'import turtle\nt = turtle.Turtle()\nt.speed(6)\nfor i in range(60):\n    t.forward(40 + i)\n    t.left(97)\nturtle.done()';

/** Sends code through the chat as a person does; milliseconds until its reply is done (with a finished turtle picture unless `picture` is false), and the longest task meanwhile. */
async function sendAndWait(page, code, n, picture = true) {
  const timing = page.evaluate(([n, picture]) => {
    const longest = { ms: 0 };
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longest.ms = Math.max(longest.ms, entry.duration);
    });
    observer.observe({ type: 'longtask' });
    // The clock starts when Send is pressed: typing the program (Playwright's fill) is not part of it.
    let t0 = performance.now();
    const send = [...document.querySelectorAll('button')].find((button) => button.textContent.trim() === 'Send');
    const pressed = (event) => {
      if (!(event.target instanceof Node) || !send?.contains(event.target)) return;
      t0 = performance.now();
      document.removeEventListener('click', pressed, true);
    };
    document.addEventListener('click', pressed, true);
    return new Promise((resolve) => {
      const done = () => {
        const reply = document.querySelector(`[aria-label="Reply to message ${n}"]`);
        if (!reply?.textContent.includes('Done in')) return false;
        if (picture && !reply.querySelector('figure[aria-label="Turtle drawing"] svg polyline')) return false;
        observer.disconnect();
        resolve({ ms: performance.now() - t0, longTask: longest.ms });
        return true;
      };
      const watch = new MutationObserver(() => done() && watch.disconnect());
      watch.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  }, [n, picture]);
  await page.getByRole('textbox', { name: 'Message' }).fill(code);
  await page.getByRole('button', { name: 'Send' }).click();
  return timing;
}

export async function turtleRows(browser, origin, { reps, openApp, median, log }) {
  const cpython = [];
  for (let rep = 0; rep < reps; rep++) {
    cpython.push(Number(execFileSync('xvfb-run', ['-a', '/usr/bin/python3', '-c', CPYTHON_CODE], { encoding: 'utf8' }).trim()));
  }
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  let n = 0;
  // The session's start and the turtle module's first import are not part of the drawing.
  await page.getByRole('textbox', { name: 'Message' }).fill('import turtle');
  await page.getByRole('button', { name: 'Send' }).click();
  n++;
  await page.getByRole('group', { name: `Reply to message ${n}` }).getByText('Done in').waitFor({ timeout: 120_000 });
  // A first visit goes on working for a while (the app installs for offline use, its start
  // snapshot is kept, a spare worker loads Python): its cores are the runs' on this 2-core
  // machine, so the runs are measured once that is done, as on any later visit.
  await page.evaluate(async () => {
    const deadline = performance.now() + 120_000;
    const kept = async () => (await (await caches.open('pytabs-start-snapshot')).keys()).length > 0;
    const booted = () => performance.getEntriesByName('pytabs:spare-boot').length > 0;
    while (!(navigator.serviceWorker.controller && (await kept()) && booted())) {
      if (performance.now() > deadline) throw new Error('the app was not installed for offline use, its start snapshot kept or its spare worker started in 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  await page.waitForTimeout(5000);
  // The session's first drawing runs its Python several times slower than the next ones (the
  // interpreter's wasm is not yet optimized, as far as one can tell from outside): it is logged, not measured.
  const first = (await sendAndWait(page, PYTABS_CODE, ++n)).ms;
  const pytabs = [];
  for (let rep = 0; rep < reps; rep++) pytabs.push((await sendAndWait(page, PYTABS_CODE, ++n)).ms);
  const floor = [];
  for (let rep = 0; rep < reps; rep++) floor.push((await sendAndWait(page, TRIVIAL, ++n, false)).ms);
  const inPython = [];
  for (let rep = 0; rep < reps; rep++) {
    // CPython's program itself, its clock inside the session's Python: the drawing without the chat.
    await sendAndWait(page, `${CPYTHON_CODE}\nturtle.done()`, ++n);
    const text = await page.getByRole('group', { name: `Reply to message ${n}` }).innerText();
    inPython.push(Number(/^([\d.]+)$/m.exec(text)?.[1]));
  }
  const animated = [];
  for (let rep = 0; rep < reps; rep++) animated.push((await sendAndWait(page, ANIMATED, ++n)).longTask);
  await context.close();
  log('T1', JSON.stringify({ cpython: cpython.map(Math.round), first: Math.round(first), pytabs: pytabs.map(Math.round), floor: floor.map(Math.round), inPython: inPython.map(Math.round), longTasks: animated.map(Math.round) }));
  const rows = [
    { id: 'T1', what: `turtle: a ${SEGMENTS.toLocaleString('en')}-segment spiral at speed(0), Send until its picture shows`, value: median(pytabs), base: median(cpython), baseName: 'CPython turtle, tracer(0), Xvfb', target: null, why: "what every Send pays (T1-floor) and the drawing in wasm decide it (was ≤ 2; T1-py's is the target)" },
    { id: 'T1-py', what: 'T1 timed inside Python (perf_counter around the drawing, as CPython is timed)', value: median(inPython), base: median(cpython), baseName: 'CPython turtle, tracer(0), Xvfb', target: 2.5 },
    { id: 'T1-floor', what: `T1's path for \`${TRIVIAL}\` (no drawing): what every Send pays`, value: median(floor), base: median(cpython), baseName: 'CPython turtle, tracer(0), Xvfb', target: null },
    { id: 'T1-lt', what: 'turtle: the longest task on the page while a turtle animates at speed 6', value: Math.max(...animated), base: 50, baseName: '50 ms', target: 1 },
  ];
  return {
    rows,
    samples: { turtleFirst: first, turtlePyTabs: pytabs, turtleFloor: floor, turtleInPython: inPython, turtleCPython: cpython, turtleLongTasks: animated },
    notes: `Turtle: CPython's own turtle drew the spiral in ${Math.round(median(cpython))} ms (median of ${cpython.length}, tracer(0), Xvfb); PyTabs from Send to the finished picture in the reply ${Math.round(median(pytabs))} ms, to the reply of \`${TRIVIAL}\` ${Math.round(median(floor))} ms.`,
  };
}
