// The grade group. G1: the time to grade 30 hand-ins of a small assignment (one data.xlsx each,
// three checks) divided by 30 times the time to grade one of them alone, in the same page; and
// the renderer memory's peak while the 30 are graded, against its peak while one is. G2: the 30
// against what a teacher could do otherwise, a fresh bare Pyodide worker per hand-in running
// the same code and checks (static/grading-worker.mjs), as many at once as grading's pool. G3:
// the 30 graded with five program cases each against the 30 with none.
import * as XLSX from 'xlsx';
import { browserCpuSeconds, rendererMemory } from './memory.mjs';

const CLASS_SIZE = 30;
const CHECKS = [
  'def check_total():',
  "    assert total == sum(r['n'] for r in read_excel('data.xlsx', 0)), 'total should be the sum of column n'",
  'def check_even():',
  "    assert total % 2 == 0, f'total {total} should be even'",
  'def check_rows():',
  "    assert count_rows() == len(read_excel('data.xlsx', 0)), 'count_rows() should give the number of rows'",
].join('\n');
/** G3's cases: each runs the student's program (their code) once more, fed a line it does not read. */
const CASES = Array.from({ length: 5 }, (_, i) => ({ name: `case ${i + 1}`, input: `${i}\n`, expected: 'the total', points: 1 }));
const CODE = "rows = read_excel('data.xlsx', 0)\ntotal = sum(r['n'] for r in rows)\ndef count_rows():\n    return len(rows)\nprint(total)";

/** A workbook with one column n of `values`, as bytes. */
function workbook(values) {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['n'], ...values.map((v) => [v])]), 'Sheet1');
  return [...new Uint8Array(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }))];
}

/**
 * Makes the assignment and CLASS_SIZE real hand-ins in the page through the app's API
 * (Save as assignment, open it as a student, run the code, Hand in with each student's own
 * data.xlsx). Returns nothing: the files stay in the page (window.benchGrading).
 */
async function prepare(page) {
  const books = Array.from({ length: CLASS_SIZE + 1 }, (_, k) => workbook([k, 1000, 2 * k, 7]));
  await page.evaluate(
    async ([books, checkSource, code, cases]) => {
      const lib = window.pytabsLib;
      const pytabs = window.pytabs;
      const teacher = await window.firstSession();
      await window.untilOwned(() => pytabs.writeFile(teacher, 'data.xlsx', new Uint8Array(books[0])));
      const draft = { title: 'G1', instructions: 'Sum column n.', starterCode: '', checkSource, checks: [], timeLimitSeconds: 30 };
      const { assignment, file } = await lib.saveAsAssignment(pytabs, teacher, draft);
      const student = (await lib.importSession(pytabs, { name: file.name, data: file.data })).sessionId;
      const round = await window.untilOwned(() => lib.sendMessage(pytabs, student, code));
      if (round.state !== 'finished') throw new Error(`the student's code failed: ${JSON.stringify(round.events.slice(-3))}`);
      const handIns = [];
      for (let k = 1; k <= books.length - 1; k++) {
        await pytabs.writeFile(student, 'data.xlsx', new Uint8Array(books[k]));
        handIns.push(await lib.handIn(pytabs, student, `Student ${k}`, []));
      }
      // The student's worker is not part of grading: it sleeps, as on the teacher's own device.
      await pytabs.deleteSession(student);
      // The same assignment with program cases, for G3 (its digest kept: grading compares the hand-in's copy with it, nothing more).
      const withCases = { ...assignment, program: { rule: 'judge', cases } };
      window.benchGrading = { assignment, withCases, handIns };
    },
    [books, CHECKS, CODE, CASES],
  );
  return books;
}

/** The points the checks give student k (its total is odd, so check_even fails, for even k). */
const pointsOf = (k) => (k % 2 ? 3 : 2);

/**
 * Grades `count` of the hand-ins (from `first`) in a new run, with the program cases when
 * `cases`; milliseconds, after checking every row got its points and ran every case.
 */
function grade(page, first, count, cases = false) {
  return page.evaluate(
    async ([first, count, cases, caseCount, pointsOf]) => {
      const { assignment, withCases, handIns } = window.benchGrading;
      const expected = new Function(`return ${pointsOf}`)();
      const run = new window.pytabsLib.GradingRun(window.pytabs, cases ? withCases : assignment);
      const t0 = performance.now();
      await run.add(handIns.slice(first, first + count));
      const ms = performance.now() - t0;
      // Cases expect what no program prints: each runs in full and earns nothing.
      const ran = (r) => !cases || (r.results.filter((c) => c.name.startsWith('case ')).length === caseCount && r.results.every((c) => !c.error));
      const wrong = run.rows.filter((r) => r.status !== 'graded' || r.total !== expected(Number(r.student.split(' ')[1])) || !ran(r));
      if (wrong.length) throw new Error(`grading gave wrong rows: ${JSON.stringify(wrong.slice(0, 2))}`);
      return { ms, pool: run.poolSize };
    },
    [first, count, cases, CASES.length, pointsOf.toString()],
  );
}

/**
 * G2's baseline, in `page`, the bench's baseline page (not the app): students 1..30, each in a
 * fresh worker that loads bare Pyodide and runs their code and the checks, `pool` at once;
 * milliseconds, after checking every hand-in got its points.
 */
function gradeBare(page, books, checks, pool) {
  return page.evaluate(
    async ([books, code, checkSource, checks, pool, pointsOf]) => {
      const expected = new Function(`return ${pointsOf}`)();
      const indexURL = new URL('/pyodide/', location.href).href;
      const one = (k) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(`/bench/grading-worker.mjs?${k}`, { type: 'module' });
          worker.onmessage = ({ data }) => {
            worker.terminate();
            if (data.error) reject(new Error(data.error));
            else if (data.points !== expected(k)) reject(new Error(`student ${k} got ${data.points}, not ${expected(k)}`));
            else resolve();
          };
          worker.onerror = (e) => reject(new Error(e.message || 'the bare grader failed to start'));
          worker.postMessage({ indexURL, book: books[k], code, checkSource, checks });
        });
      const next = { k: 1 };
      const t0 = performance.now();
      await Promise.all(Array.from({ length: pool }, async () => {
        while (next.k < books.length) await one(next.k++);
      }));
      return performance.now() - t0;
    },
    [books, CODE, CHECKS, checks, pool, pointsOf.toString()],
  );
}

/** Runs `work` while sampling the renderers' PSS every 100 ms; its result, the peak in bytes and the CPU seconds the browser's processes used meanwhile. */
async function withPeak(browserPid, work) {
  let peak = rendererMemory(browserPid);
  const timer = setInterval(() => (peak = Math.max(peak, rendererMemory(browserPid))), 100);
  const cpu0 = browserCpuSeconds(browserPid);
  try {
    const result = await work();
    return { result, peak, cpu: browserCpuSeconds(browserPid) - cpu0 };
  } finally {
    clearInterval(timer);
    peak = Math.max(peak, rendererMemory(browserPid));
  }
}

/** How long the page is left alone before each measured grading: as a teacher's page is between two, its spare worker ready. */
const SETTLE_MS = 500;

/**
 * The G rows: one page, its hand-ins made once; `reps` single gradings (each hand-in alone, a
 * different one each time) before the class of 30 in one run, and `reps` more after it, so
 * that a machine that slows down or speeds up during the run moves both sides of the ratio.
 */
export async function gradingRows(browser, origin, { reps, openApp, median, log }) {
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  // G2's page, open until the end: a renderer that exits mid-measurement takes its CPU seconds out of the sum.
  const bareContext = await browser.newContext();
  const barePage = await bareContext.newPage();
  try {
    await barePage.goto(`${origin}/bench/`);
    const books = await prepare(page);
    const checks = await page.evaluate(() => window.benchGrading.assignment.checks);
    // One unmeasured grading first: the page's first scratch worker pays for what every later one reuses.
    await grade(page, 0, 1);
    const singles = [];
    const singlePeaks = [];
    const singleCpu = [];
    const single = async (k) => {
      await page.waitForTimeout(SETTLE_MS);
      const { result, peak, cpu } = await withPeak(browser.pid, () => grade(page, k, 1));
      singles.push(result.ms);
      singlePeaks.push(peak);
      singleCpu.push(cpu);
    };
    for (let rep = 0; rep < reps; rep++) await single(rep + 1);
    await page.waitForTimeout(SETTLE_MS);
    // How busy the page's own thread is while the class is graded: the pool's workers wait on it for every message.
    const pageThread = await page.context().newCDPSession(page);
    await pageThread.send('Performance.enable');
    const taskSeconds = async () => (await pageThread.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
    const busy0 = await taskSeconds();
    const { result: batch, peak: batchPeak, cpu: batchCpu } = await withPeak(browser.pid, () => grade(page, 0, CLASS_SIZE));
    const pageBusy = (await taskSeconds()) - busy0;
    await pageThread.detach();
    await page.waitForTimeout(SETTLE_MS);
    const { result: cased, cpu: casedCpu } = await withPeak(browser.pid, () => grade(page, 0, CLASS_SIZE, true));
    await page.waitForTimeout(SETTLE_MS);
    const { result: bareMs, cpu: bareCpu } = await withPeak(browser.pid, () => gradeBare(barePage, books, checks, batch.pool));
    for (let rep = 0; rep < reps; rep++) await single(reps + rep + 1);
    const one = median(singles);
    const perHandIn = (cpu) => `${(cpu / CLASS_SIZE).toFixed(2)} s CPU a hand-in`;
    log('G1-G3', JSON.stringify({ singles: singles.map(Math.round), batch: Math.round(batch.ms), cased: Math.round(cased.ms), bare: Math.round(bareMs), pool: batch.pool, pageBusyMs: Math.round(pageBusy * 1000), peakMB: Math.round(batchPeak / 2 ** 20), cpuOne: singleCpu, cpuClass: batchCpu, cpuCased: casedCpu, cpuBare: bareCpu }));
    const MB = 2 ** 20;
    return {
      rows: [
        { id: 'G1', what: `grade ${CLASS_SIZE} hand-ins (a data.xlsx each, 3 checks), pool of ${batch.pool}; ${perHandIn(batchCpu)}`, value: batch.ms, base: CLASS_SIZE * one, baseName: `${CLASS_SIZE} × one alone, ${median(singleCpu).toFixed(2)} s CPU`, target: 1.1, status: 'guard', why: "the pool never slower than one at a time beyond this machine's noise" },
        { id: 'G1-mem', what: `peak renderer PSS grading ${CLASS_SIZE}, pool of ${batch.pool}`, value: batchPeak / MB, base: median(singlePeaks) / MB, baseName: 'peak grading one', target: batch.pool, unit: 'MB' },
        { id: 'G2', what: `G1's ${CLASS_SIZE}; ${perHandIn(batchCpu)}`, value: batch.ms, base: bareMs, baseName: `a fresh bare Pyodide worker each, ${batch.pool} at once; ${perHandIn(bareCpu)}`, target: 0.2 },
        { id: 'G3', what: `G1's ${CLASS_SIZE} with ${CASES.length} program cases each; ${perHandIn(casedCpu)}`, value: cased.ms, base: batch.ms, baseName: 'G1\'s 30 without cases', target: 1.3 },
      ],
      samples: { gradeOne: singles, gradeClass: [batch.ms], gradeCases: [cased.ms], gradeBare: [bareMs], peakOne: singlePeaks, peakClass: [batchPeak], cpuOne: singleCpu, cpuClass: [batchCpu], cpuCases: [casedCpu], cpuBare: [bareCpu] },
      notes:
        `Grading: one hand-in alone ${Math.round(one)} ms (median of ${singles.length}, half before the class and half after), ${CLASS_SIZE} in one run ${Math.round(batch.ms)} ms with ${batch.pool} workers at once, ` +
        `with ${CASES.length} cases each ${Math.round(cased.ms)} ms, in bare Pyodide workers ${Math.round(bareMs)} ms; memory is the renderers' PSS sampled every 100 ms. ` +
        `CPU (all of the browser's processes): ${median(singleCpu).toFixed(2)} s for one alone; a hand-in in the class ${(batchCpu / CLASS_SIZE).toFixed(2)} s, with cases ${(casedCpu / CLASS_SIZE).toFixed(2)} s, bare ${(bareCpu / CLASS_SIZE).toFixed(2)} s.`,
    };
  } finally {
    await context.close();
    await bareContext.close();
  }
}
