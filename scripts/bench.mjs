#!/usr/bin/env node
// `npm run bench [-- --quick] [-- --no-build | --dist DIR] [-- --only local,grade,turtle,trace,xlsx,net,gzip,engines,model] [-- --engines firefox,webkit] [-- --json FILE]`:
// builds the app, serves it cross-origin isolated, drives Debian's headless Chromium through
// `window.pytabs`, and prints every row of the performance table as a ratio against a
// baseline measured in the same run (bare Pyodide for most). `--only` picks groups of rows:
// `local` (S1-W1, M1 on localhost), `grade` (G1: 30 hand-ins graded in a pool of workers
// against one graded alone; G2 against a fresh bare Pyodide worker each; G3 with program cases against without), `turtle` (T1: a turtle spiral against CPython's turtle under Xvfb,
// and the page's longest task while a turtle animates), `trace` (D1-D3: recording a 10,000-step step-through against CPython's
// sys.settrace, the longest task while its slider is dragged, and the bytes it keeps), `xlsx` (X1-X3: a 100,000-row workbook read and written in a
// session against openpyxl in Debian's CPython), `net` (N1-N4 on throttled links), `gzip` (N1 and N3 from a
// compressing server), `engines` (S1, S2 and four starts at once in Chromium, Firefox ESR and
// WebKitGTK, on a plain static host and on one with the project's headers; `--engines` picks
// some of them), `model` (L1-L4: the local model in Chromium against native llama.cpp, its memory against its file, a later visit against a first); `--dist`
// measures a build made elsewhere (A/B runs of two builds); `--before DIR` adds to `net` N1 and N3,
// in English and in French, against another build's first visits (issue 43: within 3% of the app before its languages).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @playwright/test is the declared dependency; it re-exports the browser launcher.
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';
import { gradingRows } from './bench/grading.mjs';
import { rendererMemory } from './bench/memory.mjs';
import { appFirstVisit, appIdleVisit, bareFirstVisit, LINKS } from './bench/network.mjs';
import { serve } from './bench/server.mjs';
import { spreadsheetRows } from './bench/spreadsheets.mjs';
import { startRows } from './bench/starts.mjs';
import { turtleRows } from './bench/turtle.mjs';
import { traceRows } from './bench/trace.mjs';
import { localModelRows } from './bench/local-model.mjs';
import { modelMemoryRows } from './bench/local-model-memory.mjs';
import { modelVisitRows } from './bench/local-model-visits.mjs';
import { modelEngineRows } from './bench/local-model-engines.mjs';
import { ENGINES, engineMissing, launchEngine } from './engines.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const args = new Set(argv);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const QUICK = args.has('--quick');
const GROUPS = new Set((option('--only') ?? 'local,grade,turtle,trace,xlsx,net,gzip,engines,model').split(','));
/** Repetitions of every measurement; the table shows medians. */
const REPS = QUICK ? 2 : 5;
const ROUND_TRIPS = QUICK ? 15 : 40;
// Round trips are measured at steady state, on both sides alike: for several seconds after a
// worker's first runs V8 is still optimizing (wasm tier-up, JS JIT), and a trip then costs
// 2-4x its settled time here (R1: ~2.5 ms falling to ~0.7 ms). That cost belongs to the
// start, which S1-S3 and W1 measure; R1, R2 and their baseline are timed after this warm-up.
const WARMUP = { trips: 200, ms: QUICK ? 1000 : 3000 };
// Measuring memory needs the eager measurement that measureUserAgentSpecificMemory otherwise delays.
const BENCH_ARGS = [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'];
// Its own build: others' builds into dist/ (tests, previews) must not change the app under measurement.
const OUT_DIR = option('--dist') ? path.resolve(option('--dist')) : path.join(tmpdir(), 'pytabs-bench-dist');
const BEFORE_DIR = option('--before') && path.resolve(option('--before'));
const MB = 1024 * 1024;
// The N rows' repetitions: every N2 visit takes about a minute on its link, every N4 visit a minute.
const NET_REPS = { school: REPS, crowded: QUICK ? 0 : 3, idle: QUICK ? 0 : 2, gzip: QUICK ? 0 : 3 };
const IDLE_MS = 60_000;
// The engine rows' fresh profiles per engine and host (each a baseline profile and an app
// profile). Quick: one each, without the baseline of four bare loads at once, which takes
// about a minute in WebKitGTK; about 3.5 minutes in all here.
const ENGINE_REPS = QUICK ? 1 : 3;
// Room for R2's 50 MB value to be persisted for real (the default per-variable limit is 10 MB).
const BENCH_LIMITS = { variableLimitBytes: 64 * MB, sessionLimitBytes: 256 * MB };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const log = (...a) => console.error('[bench]', ...a);


/**
 * Defined in every page. `untilOwned` calls `fn` again while the app says the session is open in another
 * tab. Right after a reload the page it replaced may still hold the session's Web Lock; the
 * app itself asks again for about a second, and this covers a slower release on a loaded
 * machine. The wait counts in the measured time, as a user would wait.
 */
function defineHelpers() {
  window.untilOwned = async (fn) => {
    for (;;) {
      try {
        return await fn();
      } catch (error) {
        if (error?.name !== 'SessionElsewhereError') throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  // The session a first visit opens on its own. Asked for too early, the list is still empty
  // and a second session would start beside it: M1's "one session" then held two workers.
  window.firstSession = async () => {
    for (let waited = 0; waited < 10_000; waited += 20) {
      const [first] = await window.pytabs.listSessions();
      if (first) return first.id;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return (await window.pytabs.createSession()).id;
  };
}

/** Opens the app in `context` and waits for its API. */
async function openApp(context, url) {
  await context.addInitScript(defineHelpers);
  const page = await context.newPage();
  page.on('pageerror', (e) => log('page error:', e.message));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && log('worker error:', m.text())));
  await page.goto(url);
  await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 60_000 });
  return page;
}

/** Bare loadPyodide in a fresh context: cold from navigation, then warm (second load, same page), then Comlink round trips. */
async function baselines(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/bench/?cold`);
  await page.waitForFunction(() => Boolean(window.coldLoad));
  const cold = await page.evaluate(() => window.coldLoad);
  const warm = await page.evaluate(() => window.bench.bareLoad());
  const trips = await page.evaluate(([n, warmup]) => window.bench.comlinkRoundTrips(n, warmup), [ROUND_TRIPS, WARMUP]);
  await context.close();
  return { cold, warm, roundTrip: median(trips) };
}

/** Runs code in a session and fails loudly when it does not succeed, so a broken app cannot pass as fast. */
async function run(page, id, code) {
  const r = await page.evaluate(([id, code]) => window.untilOwned(() => window.pytabs.run(id, code)), [id, code]);
  if (r.status !== 'ok' || r.commitError) throw new Error(`run failed: ${JSON.stringify(r.error ?? r.commitError)}\n${code}`);
  return r;
}

/** Median round trip of `pass` through the app, after the warm-up (WARMUP) of unmeasured ones. */
function roundTrips(page, id) {
  return page.evaluate(
    async ([id, n, warmup]) => {
      const trip = async () => {
        const t0 = performance.now();
        const r = await window.pytabs.run(id, 'pass');
        if (r.status !== 'ok' || r.commitError) throw new Error(JSON.stringify(r));
        return performance.now() - t0;
      };
      const start = performance.now();
      for (let i = 0; i < warmup.trips || performance.now() - start < warmup.ms; i++) await trip();
      const times = [];
      for (let i = 0; i < n; i++) times.push(await trip());
      times.sort((a, b) => a - b);
      return times[times.length >> 1];
    },
    [id, ROUND_TRIPS, WARMUP],
  );
}

// S3's session: 20 MB of pickles over several variables (each under the default 10 MB
// limit) of the kinds a data session holds, and 5 imports to replay.
const S3_SETUP = `import json, csv, statistics, datetime, collections
rows = [(i, f"name {i}", i * 0.5) for i in range(200_000)]
floats = [float(i) for i in range(750_000)]
blob = bytes(range(256)) * (6 * 1024 * 1024 // 256)
counts = collections.Counter(i % 1000 for i in range(200_000))
table = {f"key {i}": list(range(20)) for i in range(40_000)}
`;
const R2_VALUE = 'big = bytearray(50 * 1024 * 1024)';
const W1_SETUP = `import json, re
items = list(range(1000))
config = {"name": "w1", "tags": ["a", "b"]}
def total(xs):
    return sum(xs)
`;

/**
 * The app in a fresh context (an empty profile): S1, S2i, S2, R1, R2, S3 and W1, each once.
 * Times are taken inside the page with performance.now().
 */
async function appRound(browser, origin) {
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  const out = {};

  // S1: from navigation until the first session's first run returned. The UI may have
  // created and started a session on its own; that is part of the first visit.
  const s1 = await page.evaluate(async () => {
    const id = await window.firstSession();
    const report = await window.untilOwned(() => window.pytabs.startSession(id));
    const r = await window.pytabs.run(id, 'pass');
    if (r.status !== 'ok') throw new Error(JSON.stringify(r));
    return { ms: performance.now(), snapshot: report.snapshot ?? 'none' };
  });
  out.S1 = s1.ms;
  out.snapshotS1 = s1.snapshot;
  await page.evaluate((limits) => window.pytabs.updateSettings(limits), BENCH_LIMITS);

  // A new session in an app already used in this page: S2i at once, while the first visit's
  // one-time work goes on (the service worker, registered after the first run, downloads
  // the app for offline use; the start snapshot is written to Cache Storage); S2 once both
  // are done, the state of every later visit.
  const newSession = () =>
    page.evaluate(async () => {
      const t0 = performance.now();
      const { id } = await window.pytabs.createSession();
      const report = await window.pytabs.startSession(id);
      const r = await window.pytabs.run(id, 'pass');
      if (r.status !== 'ok') throw new Error(JSON.stringify(r));
      return { ms: performance.now() - t0, id, snapshot: report.snapshot ?? 'none' };
    });
  out.S2i = (await newSession()).ms;
  // Active means installed: its precache is complete.
  await page.evaluate(async () => {
    const deadline = performance.now() + 120_000;
    const kept = async () => (await (await caches.open('pytabs-start-snapshot')).keys()).length > 0;
    while (!(navigator.serviceWorker.controller && (await kept()))) {
      if (performance.now() > deadline) throw new Error('the app was not installed for offline use, or its start snapshot not kept, in 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  const s2 = await newSession();
  out.S2 = s2.ms;
  out.snapshotS2 = s2.snapshot;

  // R1 on that session; R2 on the same session once it also holds a 50 MB value nobody touches.
  await run(page, s2.id, 'x = 1');
  out.R1 = await roundTrips(page, s2.id);
  await run(page, s2.id, R2_VALUE);
  out.R2 = await roundTrips(page, s2.id);
  await run(page, s2.id, 'del big');

  // S3: a session with 20 MB of pickles and 5 imports, reopened after a reload.
  const s3 = await page.evaluate(async () => (await window.pytabs.createSession('S3')).id);
  await run(page, s3, S3_SETUP);
  const stored = await page.evaluate(async (id) => (await window.pytabs.getSession(id)).storageBytes, s3);
  if (stored < 20 * MB * 0.95) throw new Error(`S3's session stores only ${stored} bytes`);
  await page.evaluate((id) => (location.hash = `#/s/${id}`), s3);
  await page.reload();
  await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 60_000 });
  out.S3 = await page.evaluate(async (id) => {
    const r = await window.untilOwned(() => window.pytabs.run(id, 'len(rows) + len(floats)'));
    if (r.status !== 'ok' || r.result?.['text/plain'] !== '950000') throw new Error(JSON.stringify(r));
    return performance.now();
  }, s3);

  // W1: a session with everyday state (S3 is the heavy case) put to sleep by the pool (one
  // live worker allowed), then woken by a run.
  const w1 = await page.evaluate(async () => (await window.pytabs.createSession('W1')).id);
  await run(page, w1, W1_SETUP);
  await page.evaluate(() => window.pytabs.updateSettings({ maxLiveWorkers: 1 }));
  const other = await page.evaluate(async () => (await window.pytabs.createSession('other')).id);
  await run(page, other, 'y = 2');
  const asleep = await page.evaluate(async (id) => (await window.pytabs.getSession(id)).status, w1);
  if (asleep !== 'asleep') throw new Error(`the pool did not put the W1 session to sleep (status ${asleep})`);
  out.W1 = await page.evaluate(async (id) => {
    const t0 = performance.now();
    const r = await window.pytabs.run(id, 'len(items) + len(config)');
    if (r.status !== 'ok' || r.result?.['text/plain'] !== '1002') throw new Error(JSON.stringify(r));
    return performance.now() - t0;
  }, w1);
  await context.close();
  return out;
}

/**
 * The page's memory, workers included, as the browser measures it for a cross-origin isolated
 * page (performance.measureUserAgentSpecificMemory; ForceEagerMeasureMemory makes it answer
 * at once instead of at the next garbage collection), and the renderers' PSS from /proc.
 */
async function measureMemory(page, browserPid) {
  const userAgent = await page.evaluate(async () => (await performance.measureUserAgentSpecificMemory()).bytes);
  return { userAgent, pss: rendererMemory(browserPid) };
}

/** M1: memory with one session in use, then with 20 sessions that were all used, one in use again. */
async function memoryRound(browser, origin) {
  const context = await browser.newContext();
  const page = await openApp(context, `${origin}/`);
  const settle = () => new Promise((r) => setTimeout(r, 1000));
  // The session the app opened on its own (if it did) is the first: one session, one worker.
  const first = await page.evaluate(() => window.firstSession());
  await run(page, first, 'data = list(range(1000))');
  await settle();
  const one = await measureMemory(page, browser.pid);
  for (let i = 1; i < 20; i++) {
    const id = await page.evaluate(async (i) => (await window.pytabs.createSession(`M1-${i}`)).id, i);
    await run(page, id, 'data = list(range(1000))');
  }
  await run(page, first, 'data.append(1)');
  await settle();
  const twenty = await measureMemory(page, browser.pid);
  const live = await page.evaluate(async () =>
    (await window.pytabs.listSessions()).filter((s) => !['asleep', 'inactive'].includes(s.status)).length,
  );
  await context.close();
  return { one, twenty, live };
}

/** The local rows (S1-W1, M1): app and baselines alternating on localhost. */
async function localRows(browser, origin) {
  const samples = { cold: [], warm: [], comlink: [], S1: [], S2i: [], S2: [], S3: [], R1: [], R2: [], W1: [], mOne: [], mTwenty: [], pssOne: [], pssTwenty: [], live: [], snapshot: [] };
  for (let rep = 0; rep < REPS; rep++) {
    // Baseline and app alternate so that load from other work on the machine hits both alike.
    const base = await baselines(browser, origin);
    samples.cold.push(base.cold);
    samples.warm.push(base.warm);
    samples.comlink.push(base.roundTrip);
    const app = await appRound(browser, origin);
    for (const k of ['S1', 'S2i', 'S2', 'S3', 'R1', 'R2', 'W1']) samples[k].push(app[k]);
    samples.snapshot.push(`S1 ${app.snapshotS1}, S2 ${app.snapshotS2}`);
    log(`rep ${rep + 1}/${REPS}`, JSON.stringify({ ...base, ...app }, (_, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)));
  }
  const memReps = QUICK ? 1 : 3;
  for (let rep = 0; rep < memReps; rep++) {
    const m = await memoryRound(browser, origin);
    samples.mOne.push(m.one.userAgent);
    samples.mTwenty.push(m.twenty.userAgent);
    samples.pssOne.push(m.one.pss);
    samples.pssTwenty.push(m.twenty.pss);
    samples.live.push(m.live);
    log(`memory ${rep + 1}/${memReps}`, JSON.stringify(m));
  }
  const med = (k) => median(samples[k]);
  const live = Math.max(...samples.live);
  const rows = [
    { id: 'S1', what: 'first session ever, until its first run returns', value: med('S1'), base: med('cold'), baseName: 'bare cold', target: 0.6 },
    { id: 'S2', what: 'a new session, app used before (installed for offline use)', value: med('S2'), base: med('warm'), baseName: 'bare warm', target: 0.25 },
    { id: 'S2i', what: 'S2 right after the first run, while the app installs for offline use', value: med('S2i'), base: med('warm'), baseName: 'bare warm', target: null },
    { id: 'S3', what: 'reopen after reload: 20 MB pickles + 5 imports', value: med('S3'), base: med('warm'), baseName: 'bare warm', target: 0.6 },
    { id: 'R1', what: 'round trip of `pass` (queue, run, commit)', value: med('R1'), base: med('comlink'), baseName: 'bare Comlink', target: 3 },
    { id: 'R2', what: 'R1 with an untouched 50 MB bytearray held', value: med('R2'), base: med('R1'), baseName: 'R1', target: 1.5 },
    { id: 'W1', what: 'waking a sleeping session (a few variables, 2 imports, a def)', value: med('W1'), base: med('warm'), baseName: 'bare warm', target: 0.5 },
    { id: 'M1', what: `20 sessions used, one in use: ${live} live workers (max 4)`, value: med('mTwenty') / MB, base: med('mOne') / MB, baseName: 'one session', target: 3, unit: 'MB', extra: live <= 4 },
    { id: 'M1-pss', what: 'M1 as renderer PSS (/proc)', value: med('pssTwenty') / MB, base: med('pssOne') / MB, baseName: 'one session', target: 3, unit: 'MB', extra: live <= 4 },
  ];
  const notes = `Localhost: bare cold loadPyodide ${fmt(med('cold'))}, bare warm ${fmt(med('warm'))}, bare Comlink runPython('pass') ${fmt(med('comlink'))}. ` +
    `Memory: performance.measureUserAgentSpecificMemory() (page and its workers), and the PSS of Chromium's renderer processes. ` +
    `Snapshot: ${[...new Set(samples.snapshot)].join('; ')}. Medians of ${REPS} repetitions (M1: ${memReps}).`;
  return { rows, samples, notes };
}

/** Bytes by file, largest first: "pyodide.asm.wasm 9.15, python_stdlib.zip 2.43" (MB). */
function byFile(byPath) {
  return Object.entries(byPath)
    .sort((a, b) => b[1] - a[1])
    .filter(([, n]) => n >= 10_000)
    .map(([p, n]) => `${p.slice(p.lastIndexOf('/') + 1)} ${(n / MB).toFixed(2)}`)
    .join(', ');
}

/**
 * N1-N4: first visits over throttled links, app and bare alternating, each in a fresh
 * context, bytes counted by the server. With `tag` (a compressing server) only N1 and N3.
 */
async function networkRows(browser, server, { reps, crowded, idle, tag = '', before }) {
  const samples = { bareSchool: [], appSchool: [], bareBytes: [], appBytes: [], frSchool: [], frBytes: [], beforeSchool: [], beforeBytes: [], bareCrowded: [], appCrowded: [], bareIdle: [], appIdle: [], snapshot: [] };
  let last = {};
  for (let rep = 0; rep < reps; rep++) {
    // The first `idle` bare visits are also left idle for a minute: after its load a bare page does nothing.
    const bare = await bareFirstVisit(browser, server, LINKS.school, { idleMs: rep < idle ? IDLE_MS : undefined });
    const app = await appFirstVisit(browser, server, LINKS.school, defineHelpers);
    // The same visit from a browser in French: a language costs its own messages only.
    const french = await appFirstVisit(browser, server, LINKS.school, defineHelpers, { locale: 'fr-FR' });
    samples.frSchool.push(french.ms);
    samples.frBytes.push(french.bytes);
    // The other build's first visit, in English: before issue 43 a browser in French got the same app.
    if (before) {
      const earlier = await appFirstVisit(browser, before, LINKS.school, defineHelpers);
      samples.beforeSchool.push(earlier.ms);
      samples.beforeBytes.push(earlier.bytes);
      log(`N1/N3 before ${rep + 1}/${reps}`, JSON.stringify({ ms: Math.round(earlier.ms), MB: +(earlier.bytes / MB).toFixed(3) }));
    }
    samples.bareSchool.push(bare.ms);
    samples.appSchool.push(app.ms);
    samples.bareBytes.push(bare.bytes);
    samples.appBytes.push(app.bytes);
    samples.snapshot.push(app.snapshot);
    if (bare.idle) samples.bareIdle.push(bare.idle.bytes);
    last = { bare: bare.byPath, app: app.byPath };
    log(`${tag}N1/N3 ${rep + 1}/${reps}`, JSON.stringify({ bare: Math.round(bare.ms), app: Math.round(app.ms), bareMB: +(bare.bytes / MB).toFixed(2), appMB: +(app.bytes / MB).toFixed(2), fr: Math.round(french.ms), frMB: +(french.bytes / MB).toFixed(3), enMB: +(app.bytes / MB).toFixed(3), snapshot: app.snapshot }));
  }
  for (let rep = 0; rep < crowded; rep++) {
    const bare = await bareFirstVisit(browser, server, LINKS.crowded);
    const app = await appFirstVisit(browser, server, LINKS.crowded, defineHelpers);
    samples.bareCrowded.push(bare.ms);
    samples.appCrowded.push(app.ms);
    log(`${tag}N2 ${rep + 1}/${crowded}`, JSON.stringify({ bare: Math.round(bare.ms), app: Math.round(app.ms), appMB: +(app.bytes / MB).toFixed(2), snapshot: app.snapshot }));
  }
  for (let rep = 0; rep < idle; rep++) {
    const app = await appIdleVisit(browser, server, LINKS.school, IDLE_MS);
    samples.appIdle.push(app.bytes);
    last.idle = app.byPath;
    log(`${tag}N4 ${rep + 1}/${idle}`, JSON.stringify({ appMB: +(app.bytes / MB).toFixed(2), bareMB: +((samples.bareIdle[rep] ?? 0) / MB).toFixed(2) }));
  }
  const med = (k) => median(samples[k]);
  const school = LINKS.school.name;
  const suffix = tag ? ` (${tag.trim()})` : '';
  const rows = [
    { id: `N1${suffix}`, what: `first session ever at ${school}, until its first run returns`, value: med('appSchool'), base: med('bareSchool'), baseName: 'bare cold, same link', target: tag ? null : 0.8 },
    ...(crowded ? [{ id: 'N2', what: `the same at ${LINKS.crowded.name}`, value: med('appCrowded'), base: med('bareCrowded'), baseName: 'bare cold, same link', target: 0.9 }] : []),
    { id: `N3${suffix}`, what: `bytes sent until that first run returns (${school})`, value: med('appBytes') / MB, base: med('bareBytes') / MB, baseName: 'bare cold', target: tag ? null : 1.15, unit: 'MB' },
    { id: `N1-fr${suffix}`, what: `N1 from a browser in French (the app in French)`, value: med('frSchool'), base: med('appSchool'), baseName: 'N1, the app in English', target: 1.03 },
    { id: `N3-fr${suffix}`, what: `N3 from a browser in French`, value: med('frBytes') / MB, base: med('appBytes') / MB, baseName: 'N3, the app in English', target: 1.03, unit: 'MB', status: 'guard' },
    ...(before ? [
      { id: 'N1-before', what: `N1 against the build in ${BEFORE_DIR}`, value: med('appSchool'), base: med('beforeSchool'), baseName: 'its N1', target: 1.03 },
      { id: 'N1-fr-before', what: 'N1-fr against that build (in English: it had no French)', value: med('frSchool'), base: med('beforeSchool'), baseName: 'its N1', target: 1.03 },
      { id: 'N3-before', what: 'N3 against that build', value: med('appBytes') / MB, base: med('beforeBytes') / MB, baseName: 'its N3', target: 1.03, unit: 'MB' },
      { id: 'N3-fr-before', what: 'N3-fr against that build', value: med('frBytes') / MB, base: med('beforeBytes') / MB, baseName: 'its N3', target: 1.03, unit: 'MB' },
    ] : []),
    ...(idle ? [{ id: 'N4', what: `bytes sent in the first minute, left idle (${school})`, value: med('appIdle') / MB, base: med('bareIdle') / MB, baseName: 'bare cold', target: 1.6, unit: 'MB' }] : []),
  ];
  const notes = `Throttled${suffix}: medians of ${reps} visits at ${school}${crowded ? `, ${crowded} at ${LINKS.crowded.name}` : ''}${idle ? `, ${idle} left idle for ${IDLE_MS / 1000} s` : ''}; ` +
    `the first session's snapshot: ${[...new Set(samples.snapshot)].join(', ')}. Bytes by file (MB of 2^20 bytes, bodies only), app until its first run: ${byFile(last.app)}; ` +
    `bare: ${byFile(last.bare)}${last.idle ? `; app's first idle minute: ${byFile(last.idle)}` : ''}.`;
  return { rows, samples, notes, byPath: last };
}

/** The hosts the engine rows are measured on. */
const HOSTS = {
  plain: { name: 'plain', what: 'a plain static host, no headers' },
  headers: { name: 'headers', what: "a host with the project's headers (COOP/COEP)" },
};

/**
 * S1, S2 and four starts at once per engine and host: Chromium on the plain host (its rows on
 * the host with headers are S1 and S2 above), Firefox ESR and WebKitGTK on both. An engine
 * that is not installed is named in the notes, not measured.
 */
async function engineRows(servers) {
  const parts = [];
  const opts = { reps: ENGINE_REPS, bareFour: !QUICK, log };
  const chosen = option('--engines')?.split(',') ?? ENGINES;
  for (const name of ENGINES.filter((n) => chosen.includes(n))) {
    const missing = engineMissing(name);
    if (missing) {
      parts.push({ rows: [], samples: {}, notes: `${name}: not measured, ${missing}.` });
      continue;
    }
    const engine = await launchEngine(name);
    try {
      for (const host of name === 'chromium' ? ['plain'] : ['plain', 'headers']) parts.push(await startRows(engine, { ...HOSTS[host], ...servers[host] }, opts));
    } finally {
      await engine.close();
    }
  }
  return {
    rows: parts.flatMap((p) => p.rows),
    samples: Object.assign({}, ...parts.map((p) => p.samples)),
    notes: `Engines: fresh profiles, baseline and app alternating, ${ENGINE_REPS} of each per engine and host.\n${parts.map((p) => p.notes).join('\n')}`,
    versions: Object.fromEntries(parts.filter((p) => p.version).map((p) => [p.engine, p.version])),
  };
}

const fmt = (v, unit = 'ms') => `${v < 10 ? v.toFixed(2) : v.toFixed(unit === 'MB' ? 1 : 0)} ${unit}`;

async function main() {
  if (!args.has('--no-build') && !option('--dist')) {
    log('building the app (vite build)');
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn', '--outDir', OUT_DIR, '--emptyOutDir'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  }
  const server = await serve(OUT_DIR);
  const gzipServer = await serve(OUT_DIR, { gzip: true });
  const beforeServer = BEFORE_DIR && (await serve(BEFORE_DIR));
  const plainServer = await serve(OUT_DIR, { headers: false });
  const executablePath = chromiumPath();
  // Launched as a server so its process id is known: M1 reads the memory of its renderers.
  const browserServer = await chromium.launchServer({ executablePath, args: BENCH_ARGS });
  const browser = await chromium.connect(browserServer.wsEndpoint());
  browser.pid = browserServer.process().pid;
  const version = browser.version();
  log(`Chromium ${version}, ${REPS} repetitions, serving ${OUT_DIR} at ${server.origin}, groups ${[...GROUPS].join(',')}`);

  const parts = [];
  try {
    if (GROUPS.has('local')) parts.push(await localRows(browser, server.origin));
    if (GROUPS.has('grade')) parts.push(await gradingRows(browser, server.origin, { reps: QUICK ? 2 : 3, openApp, median, log }));
    if (GROUPS.has('turtle')) parts.push(await turtleRows(browser, server.origin, { reps: QUICK ? 2 : 5, openApp, median, log }));
    if (GROUPS.has('trace')) parts.push(await traceRows(browser, server.origin, { reps: QUICK ? 2 : 5, openApp, median, log }));
    if (GROUPS.has('xlsx')) parts.push(await spreadsheetRows(browser, server.origin, { reps: QUICK ? 1 : 3, openApp, median, log, limits: BENCH_LIMITS }));
    if (GROUPS.has('net')) parts.push(await networkRows(browser, server, { reps: NET_REPS.school, crowded: NET_REPS.crowded, idle: NET_REPS.idle, before: beforeServer }));
    if (GROUPS.has('gzip') && NET_REPS.gzip) parts.push(await networkRows(browser, gzipServer, { reps: NET_REPS.gzip, crowded: 0, idle: 0, tag: 'gzip ' }));
    if (GROUPS.has('engines')) parts.push(await engineRows({ plain: plainServer, headers: server }));
    if (GROUPS.has('model')) parts.push(await localModelRows(browser, OUT_DIR, server.origin, { reps: QUICK ? 1 : 3, median, openApp, log }));
    if (GROUPS.has('model')) parts.push(await modelMemoryRows(OUT_DIR, server.origin, { log }));
    if (GROUPS.has('model')) parts.push(await modelVisitRows(OUT_DIR, server.origin, { log }));
    if (GROUPS.has('model')) parts.push(await modelEngineRows(OUT_DIR, server.origin, { baseline: parts.find((p) => p.samples?.native)?.samples, reps: QUICK ? 1 : 3, median, log, engines: option('--engines')?.split(',') }));
  } finally {
    await browser.close();
    await browserServer.close();
    await server.close();
    await gzipServer.close();
    await plainServer.close();
    await beforeServer?.close();
  }

  const rows = parts.flatMap((p) => p.rows);
  for (const row of rows) {
    row.ratio = row.base == null ? null : row.value / row.base;
    row.met = row.target == null ? null : row.ratio <= row.target && row.extra !== false;
    // A guard is a bound that must hold (else something regressed), a target a ratio aimed at;
    // a reported row has none, and its `why` says what decides it when the runtimes do, not the app.
    row.status ??= row.target == null ? 'reported' : 'target';
  }
  const lines = [
    '| id | what | PyTabs | baseline | ratio | target | met | status |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.id} | ${r.what} | ${fmt(r.value, r.unit)} | ${r.base == null ? '-' : `${fmt(r.base, r.unit)} (${r.baseName})`} | ${r.ratio == null ? '-' : r.ratio.toFixed(2)} | ${r.target == null ? 'none' : `≤ ${r.target}`} | ${r.met == null ? '-' : r.met ? 'yes' : 'no'} | ${r.why ? `${r.status} (${r.why})` : r.status} |`,
    ),
  ];
  console.log(lines.join('\n'));
  console.log(`\n${parts.map((p) => p.notes).join('\n\n')}\nChromium ${version}${QUICK ? ', quick run' : ''}.`);
  const results = {
    date: new Date().toISOString(),
    chromium: version,
    engines: Object.assign({}, ...parts.map((p) => p.versions ?? {})),
    quick: QUICK,
    repetitions: REPS,
    memoryMeasure: 'M1: performance.measureUserAgentSpecificMemory(); M1-pss: PSS of the renderer processes (/proc/<pid>/smaps_rollup)',
    links: LINKS,
    rows,
    notes: parts.map((p) => p.notes),
    samples: parts.map((p) => p.samples),
    bytesByPath: parts.map((p) => p.byPath).filter(Boolean),
  };
  writeFileSync(path.resolve(ROOT, option('--json') ?? 'bench-results.json'), JSON.stringify(results, null, 2) + '\n');
  // A missed ratio is reported, not fatal: the machine's load moves the numbers. A crash is fatal.
  process.exitCode = 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
