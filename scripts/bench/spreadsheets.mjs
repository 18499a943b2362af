// X1-X3: a 100,000-row × 10-column workbook (numbers, text, dates) read into Python values
// and written from them in a session, against openpyxl doing the same in Debian's CPython
// (read-only and write-only modes, its fast paths); and the worker's peak memory while it
// reads, against the workbook's unpacked size. Both sides build the same rows with the same
// Python code, time themselves with time.perf_counter, and read the same file: the one
// openpyxl wrote.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { pssOf, rendererPids } from './memory.mjs';

const ROWS = 100_000;

/** The rows both sides write, and read back as dicts keyed by HEADER. */
const ROWS_CODE = `
import datetime
HEADER = ['id', 'x', 'name', 'city', 'when', 'k', 'y', 'note', 'day', 'z']
def bench_rows(n):
    base = datetime.datetime(2020, 1, 1)
    return [[i, i * 0.5, f'name {i}', f'city {i % 97}', base + datetime.timedelta(minutes=i), i % 7, -i * 1.25,
             f'note {i % 13}', base + datetime.timedelta(days=i % 1000), i * 3] for i in range(n)]
`;

/** openpyxl's side, run by /usr/bin/python3: writes the workbook to argv[1], reads it back, prints the times. */
const OPENPYXL_CODE = `${ROWS_CODE}
import json, sys, time, openpyxl
path, n = sys.argv[1], int(sys.argv[2])
data = bench_rows(n)
t0 = time.perf_counter()
book = openpyxl.Workbook(write_only=True)
sheet = book.create_sheet('Data')
sheet.append(HEADER)
for row in data:
    sheet.append(row)
book.save(path)
write = time.perf_counter() - t0
del data
t0 = time.perf_counter()
book = openpyxl.load_workbook(path, read_only=True)
values = book['Data'].iter_rows(values_only=True)
header = next(values)
rows = [dict(zip(header, row)) for row in values]
book.close()
read = time.perf_counter() - t0
assert len(rows) == n and rows[5]['when'] == datetime.datetime(2020, 1, 1, 0, 5), rows[5]
print(json.dumps({'read': read * 1000, 'write': write * 1000}))
`;

const READ_CODE = `
import datetime, time
t0 = time.perf_counter()
rows = read_excel('big.xlsx', 'Data')
x1 = (time.perf_counter() - t0) * 1000
assert len(rows) == ${ROWS} and rows[5]['when'] == datetime.datetime(2020, 1, 1, 0, 5), rows[5]
del rows
x1`;

const WRITE_CODE = `${ROWS_CODE}
import os, time
data = [HEADER] + bench_rows(${ROWS})
t0 = time.perf_counter()
write_excel('out.xlsx', {'Data': data})
x2 = (time.perf_counter() - t0) * 1000
del data
os.remove('out.xlsx')
x2`;

function openpyxlRound(file) {
  const run = spawnSync('/usr/bin/python3', ['-c', OPENPYXL_CODE, file, String(ROWS)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openpyxl's side failed (is python3-openpyxl installed?): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Runs code in a session and returns its last expression as a number; fails loudly otherwise. */
async function timed(page, id, code) {
  const r = await page.evaluate(([id, code]) => window.untilOwned(() => window.pytabs.run(id, code)), [id, code]);
  if (r.status !== 'ok' || r.commitError) throw new Error(`run failed: ${JSON.stringify(r.error ?? r.commitError)}`);
  return Number(r.result['text/plain']);
}

/** A new context with the app, a session with big.xlsx in it and its Python started; `work` gets (page, id). */
async function inFreshSession(browser, origin, bytes, { openApp, limits }, work) {
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  try {
    await page.evaluate((limits) => window.pytabs.updateSettings(limits), limits);
    const id = await page.evaluate(() => window.firstSession());
    await page.evaluate(
      async ([id, base64]) => {
        const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        await window.untilOwned(() => window.pytabs.writeFile(id, 'big.xlsx', data));
      },
      [id, Buffer.from(bytes).toString('base64')],
    );
    await timed(page, id, '1');
    // A first visit goes on working for a while (the app installs for offline use, its start
    // snapshot is kept, a spare worker starts): measure once that is done, as on any later visit.
    await page.evaluate(async () => {
      const deadline = performance.now() + 120_000;
      const kept = async () => (await (await caches.open('pytabs-start-snapshot')).keys()).length > 0;
      while (!(navigator.serviceWorker.controller && (await kept()))) {
        if (performance.now() > deadline) throw new Error('the app was not installed for offline use, or its start snapshot not kept, in 2 minutes');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    await page.waitForTimeout(2000);
    return await work(page, id);
  } finally {
    await context.close();
  }
}

/**
 * One round: in a fresh session the first read (X1) and a write (X2); in another, a first
 * read while the renderer's PSS is sampled every 100 ms (X3: its peak above the level just
 * before). Sampling costs CPU on this side, so it never runs while X1 is timed.
 */
async function sessionRound(browser, origin, bytes, options) {
  const { x1, x2 } = await inFreshSession(browser, origin, bytes, options, async (page, id) => ({
    x1: await timed(page, id, READ_CODE),
    x2: await timed(page, id, WRITE_CODE),
  }));
  const memory = await inFreshSession(browser, origin, bytes, options, async (page, id) => {
    const pids = rendererPids(browser.pid);
    const before = pssOf(pids);
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, pssOf(pids))), 100);
    try {
      await timed(page, id, READ_CODE);
    } finally {
      clearInterval(timer);
    }
    return Math.max(peak, pssOf(pids)) - before;
  });
  return { x1, x2, memory };
}

/** The X rows: openpyxl's round and the session's alternating, `reps` of each. */
export async function spreadsheetRows(browser, origin, { reps, openApp, median, log, limits }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pytabs-bench-xlsx-'));
  try {
    const file = path.join(dir, 'big.xlsx');
    const samples = { openpyxlRead: [], openpyxlWrite: [], read: [], write: [], memory: [] };
    let unpacked = 0;
    for (let rep = 0; rep < reps; rep++) {
      const base = openpyxlRound(file);
      const bytes = readFileSync(file);
      unpacked = Object.values(unzipSync(bytes)).reduce((n, part) => n + part.length, 0);
      const app = await sessionRound(browser, origin, bytes, { openApp, limits });
      samples.openpyxlRead.push(base.read);
      samples.openpyxlWrite.push(base.write);
      samples.read.push(app.x1);
      samples.write.push(app.x2);
      samples.memory.push(app.memory);
      log(`X ${rep + 1}/${reps}`, JSON.stringify({ ...base, ...app, memoryMB: Math.round(app.memory / 2 ** 20) }, (_, v) => (typeof v === 'number' ? Math.round(v) : v)));
    }
    const MB = 2 ** 20;
    const med = (k) => median(samples[k]);
    const what = `${ROWS.toLocaleString('en')} rows × 10 columns (numbers, text, dates)`;
    return {
      rows: [
        { id: 'X1', what: `read ${what} into Python values`, value: med('read'), base: med('openpyxlRead'), baseName: 'openpyxl read-only, CPython', target: 1.0 },
        { id: 'X2', what: `write ${what} from Python values`, value: med('write'), base: med('openpyxlWrite'), baseName: 'openpyxl write-only, CPython', target: 1.0 },
        { id: 'X3', what: 'peak memory of the renderer while X1 reads, above the level before', value: med('memory') / MB, base: unpacked / MB, baseName: 'the workbook unpacked', target: null, unit: 'MB' },
      ],
      samples,
      notes:
        `Spreadsheets: the workbook openpyxl wrote is ${(readFileSync(file).length / MB).toFixed(1)} MB, ${(unpacked / MB).toFixed(1)} MB unpacked; ` +
        `both sides time themselves in Python (time.perf_counter), the session's first read and a write inside one run each, in a fresh profile; openpyxl is Debian's, in its CPython. ` +
        `X3 is the renderers' PSS sampled every 100 ms during a first read in another fresh profile. Medians of ${reps}.`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
