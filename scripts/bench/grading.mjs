// G1: grading a class. The time to grade 30 hand-ins of a small assignment (one data.xlsx each,
// three checks) divided by 30 times the time to grade one of them alone, in the same page; and
// the renderer memory's peak while the 30 are graded, against its peak while one is.
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
    async ([books, checkSource, code]) => {
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
      window.benchGrading = { assignment, handIns };
    },
    [books, CHECKS, CODE],
  );
}

/** Grades `count` of the hand-ins (from `first`) in a new run; milliseconds, after checking every row got all its points. */
function grade(page, first, count) {
  return page.evaluate(
    async ([first, count]) => {
      const { assignment, handIns } = window.benchGrading;
      const run = new window.pytabsLib.GradingRun(window.pytabs, assignment);
      const t0 = performance.now();
      await run.add(handIns.slice(first, first + count));
      const ms = performance.now() - t0;
      const wrong = run.rows.filter((r) => r.status !== 'graded' || r.total !== (Number(r.student.split(' ')[1]) % 2 ? 3 : 2));
      if (wrong.length) throw new Error(`grading gave wrong rows: ${JSON.stringify(wrong.slice(0, 2))}`);
      return { ms, pool: run.poolSize };
    },
    [first, count],
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
  try {
    await prepare(page);
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
    const { result: batch, peak: batchPeak, cpu: batchCpu } = await withPeak(browser.pid, () => grade(page, 0, CLASS_SIZE));
    for (let rep = 0; rep < reps; rep++) await single(reps + rep + 1);
    const one = median(singles);
    const cpu = { one: median(singleCpu), perHandIn: batchCpu / CLASS_SIZE };
    log('G1', JSON.stringify({ singles: singles.map(Math.round), batch: Math.round(batch.ms), pool: batch.pool, peakMB: Math.round(batchPeak / 2 ** 20), cpuOne: singleCpu, cpuClass: batchCpu }));
    const MB = 2 ** 20;
    return {
      rows: [
        { id: 'G1', what: `grade ${CLASS_SIZE} hand-ins (a data.xlsx each, 3 checks), pool of ${batch.pool}`, value: batch.ms, base: CLASS_SIZE * one, baseName: `${CLASS_SIZE} × one alone`, target: 0.7 },
        { id: 'G1-mem', what: `peak renderer PSS grading ${CLASS_SIZE}, pool of ${batch.pool}`, value: batchPeak / MB, base: median(singlePeaks) / MB, baseName: 'peak grading one', target: batch.pool, unit: 'MB' },
      ],
      samples: { gradeOne: singles, gradeClass: [batch.ms], peakOne: singlePeaks, peakClass: [batchPeak], cpuOne: singleCpu, cpuClass: [batchCpu] },
      notes:
        `Grading: one hand-in alone ${Math.round(one)} ms (median of ${singles.length}, half before the class and half after), ${CLASS_SIZE} in one run ${Math.round(batch.ms)} ms with ${batch.pool} workers at once; memory is the renderers' PSS sampled every 100 ms. ` +
        `CPU (all of the browser's processes): ${cpu.one.toFixed(2)} s for one alone, ${cpu.perHandIn.toFixed(2)} s a hand-in in the class.`,
    };
  } finally {
    await context.close();
  }
}
