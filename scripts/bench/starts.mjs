// Starts per engine and per host, for the bench's engine rows: S1 and S2 (defined as the
// Chromium rows are) and four sessions started at once, in Chromium, Firefox ESR and WebKitGTK,
// on a plain static host and on one with the project's headers, each against bare `loadPyodide`
// workers in the same engine, from the same server, in the same run. Everything goes through
// scripts/engines.mjs's surface (a fresh profile, its page, goto, evaluate), so the three
// engines are measured by one code path (scripts/engines.mjs).
// Page functions are sent as source (WebDriver, BiDi): each is self-contained.

/** No wait in a page may hang the bench: a start here takes seconds, not minutes. */
const PAGE_DEADLINE_MS = 180_000;
/**
 * Nor may a browser that went away: MiniBrowser has exited under a bench here while
 * WebKitWebDriver went on waiting for its script (up to its 10-minute script timeout).
 */
const CALL_DEADLINE_MS = 300_000;

/** `promise`, or a failure naming `what` once CALL_DEADLINE_MS have passed. */
function within(promise, what, ms = CALL_DEADLINE_MS) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Runs `round` in a fresh profile; one that fails (a browser that crashed or hung) is run once more, and said so. */
async function inFreshProfile(engine, what, log, round) {
  for (let attempt = 1; ; attempt++) {
    const profile = await within(engine.newProfile(), `${what}: opening a profile`);
    try {
      return await round(profile);
    } catch (error) {
      if (attempt > 1) throw error;
      log(`${what} failed, once more in a fresh profile: ${error.message}`);
    } finally {
      await within(profile.close(), `${what}: closing its profile`, 30_000).catch(() => undefined);
    }
  }
}

/** Resolves with window.coldLoad (the bare load the page started at navigation) once it is there. */
async function coldLoad(deadline) {
  while (!window.coldLoad) {
    if (performance.now() > deadline) throw new Error('the baseline page never started its load');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return window.coldLoad;
}

/**
 * The app's first visit in a fresh profile: ms from navigation until the first session's first
 * run returned (the session the app opens on its own, as S1 in bench.mjs).
 */
async function firstStart(deadline) {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const untilOwned = async (fn) => {
    for (;;) {
      try {
        return await fn();
      } catch (error) {
        if (error?.name !== 'SessionElsewhereError' || performance.now() > deadline) throw error;
        await sleep(20);
      }
    }
  };
  while (!window.pytabs) {
    if (performance.now() > deadline) throw new Error('the app did not open');
    await sleep(10);
  }
  let id;
  while (!id && performance.now() < deadline) {
    id = (await window.pytabs.listSessions())[0]?.id;
    if (!id) await sleep(20);
  }
  id ??= (await window.pytabs.createSession()).id;
  const report = await untilOwned(() => window.pytabs.startSession(id));
  const r = await window.pytabs.run(id, 'pass');
  if (r.status !== 'ok') throw new Error(JSON.stringify(r));
  // Where the time went: the app's marks on the page's timeline (the first of each), and the worker's load.
  const marks = {};
  for (const mark of performance.getEntriesByType('mark')) {
    const name = mark.name.replace(/^pytabs:/, '');
    if (name !== mark.name && !(name in marks)) marks[name] = mark.startTime;
  }
  marks.domContentLoaded = performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd;
  marks.workerLoadMs = report.loadMs;
  for (const [phase, ms] of Object.entries(report.phases ?? {})) marks[`worker.${phase}`] = ms;
  return { ms: performance.now(), snapshot: `${report.snapshot ?? 'none'} (wasm ${report.wasm ?? '?'})`, isolated: globalThis.crossOriginIsolated === true, marks };
}

/**
 * Waits (up to `waitMs`) for what every later visit has: the service worker controlling the page
 * (its precache complete) and the start snapshot kept on the device. Says what it found.
 */
async function installed(waitMs) {
  const until = performance.now() + waitMs;
  const kept = async () => (globalThis.caches ? (await (await caches.open('pytabs-start-snapshot')).keys()).length > 0 : false);
  let state = { controlled: false, snapshotKept: false };
  while (performance.now() < until) {
    state = { controlled: Boolean(navigator.serviceWorker?.controller), snapshotKept: await kept() };
    if (state.controlled && state.snapshotKept) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return state;
}

/** S2: a new session in the app used before, until its first run returned. */
async function laterStart() {
  const t0 = performance.now();
  const { id } = await window.pytabs.createSession();
  const report = await window.pytabs.startSession(id);
  const r = await window.pytabs.run(id, 'pass');
  if (r.status !== 'ok') throw new Error(JSON.stringify(r));
  const ms = performance.now() - t0;
  // Where the time went, in ms from the start of S2: the app's marks since, and the worker's load.
  const marks = { workerLoadMs: report.loadMs };
  for (const [phase, ms] of Object.entries(report.phases ?? {})) marks[`worker.${phase}`] = ms;
  for (const mark of performance.getEntriesByType('mark')) {
    const name = mark.name.replace(/^pytabs:/, '');
    if (name !== mark.name && mark.startTime >= t0 && !(name in marks)) marks[name] = mark.startTime - t0;
  }
  return { ms, snapshot: `${report.snapshot ?? 'none'} (wasm ${report.wasm ?? '?'})`, marks };
}

/** Four new sessions started at once; ms until each has run a cell. */
async function fourAtOnce() {
  const t0 = performance.now();
  await Promise.all(
    [1, 2, 3, 4].map(async (i) => {
      const { id } = await window.pytabs.createSession(`four ${i}`);
      const r = await window.pytabs.run(id, `n = ${i}`);
      if (r.status !== 'ok') throw new Error(JSON.stringify(r));
    }),
  );
  return performance.now() - t0;
}

/** The baselines: a cold bare load timed from navigation, a warm one, and (with `four`) four at once. */
async function baselineRound(profile, origin, four) {
  const page = await profile.newPage();
  await within(page.goto(`${origin}/bench/?cold`), 'the baseline page');
  const cold = await within(page.evaluate(coldLoad, PAGE_DEADLINE_MS), 'the cold bare load');
  const warm = await within(page.evaluate(() => window.bench.bareLoad()), 'the warm bare load');
  return { cold, warm, four: four ? await within(page.evaluate(() => window.bench.bareLoads(4)), 'four bare loads') : null, version: profile.version };
}

/**
 * The app, in the order bench.mjs takes its Chromium rows: S1; S2i, a new session at once,
 * while the first visit's one-time work goes on; S2 once the app is installed for offline use
 * (the state of every later visit); then four at once.
 */
async function appRound(profile, origin) {
  const page = await profile.newPage();
  await within(page.goto(`${origin}/`), 'the app page');
  const s1 = await within(page.evaluate(firstStart, PAGE_DEADLINE_MS), 'S1');
  const s2i = await within(page.evaluate(laterStart), 'S2i');
  const state = await within(page.evaluate(installed, 120_000), 'installing for offline use');
  const s2 = await within(page.evaluate(laterStart), 'S2');
  const four = await within(page.evaluate(fourAtOnce), 'four at once');
  return { S1: s1.ms, S2i: s2i.ms, S2: s2.ms, four, snapshotS1: s1.snapshot, snapshotS2: s2.snapshot, isolated: s1.isolated, marks: s1.marks, marksS2i: s2i.marks, marksS2: s2.marks, ...state };
}

/** The medians of each mark over the rounds, in the order they come: where a first start's time went. */
function timeline(rounds) {
  const names = [...new Set(rounds.flatMap((marks) => Object.keys(marks ?? {})))];
  const medians = names.map((name) => [name, median(rounds.map((marks) => marks?.[name]).filter((v) => typeof v === 'number'))]);
  return medians
    .filter(([, v]) => Number.isFinite(v))
    // The page's marks, then the worker's (ms from its start message), each in time order.
    .sort((a, b) => Number(isWorkers(a[0])) - Number(isWorkers(b[0])) || a[1] - b[1])
    .map(([name, v]) => `${name} ${Math.round(v)}`)
    .join(', ');
}

const isWorkers = (name) => name === 'workerLoadMs' || name.startsWith('worker.');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The rows of one engine on one host: `reps` rounds, baseline and app alternating so that load
 * from other work on the machine hits both alike. `bareFour: false` leaves out the baseline of
 * four at once (in WebKitGTK four bare loads at once take about a minute).
 */
export async function startRows(engine, host, { reps, bareFour = true, log }) {
  const samples = { cold: [], warm: [], bareFour: [], S1: [], S2i: [], S2: [], four: [], state: [], marks: [], marksS2i: [], marksS2: [] };
  let version = '';
  for (let rep = 0; rep < reps; rep++) {
    const what = `${engine.name} ${host.name} ${rep + 1}/${reps}`;
    const base = await inFreshProfile(engine, `${what} baseline`, log, (profile) => baselineRound(profile, host.origin, bareFour));
    const app = await inFreshProfile(engine, `${what} app`, log, (profile) => appRound(profile, host.origin));
    version = base.version;
    samples.cold.push(base.cold);
    samples.warm.push(base.warm);
    samples.bareFour.push(base.four);
    for (const k of ['S1', 'S2i', 'S2', 'four', 'marks', 'marksS2i', 'marksS2']) samples[k].push(app[k]);
    samples.state.push(
      `S1 ${app.snapshotS1}, S2 ${app.snapshotS2}, ${app.isolated ? '' : 'not '}isolated, ${app.controlled ? '' : 'no '}service worker, snapshot ${app.snapshotKept ? '' : 'not '}kept`,
    );
    const round = (v) => (typeof v === 'number' ? Math.round(v) : v);
    log(what, JSON.stringify({ bare: base, app }, (_, v) => round(v)));
  }
  const med = (k) => median(samples[k]);
  const tag = `${engine.name} ${host.name}`;
  const rows = [
    { id: `S1 ${tag}`, what: `first session ever, until its first run returns (${host.what})`, value: med('S1'), base: med('cold'), baseName: 'bare cold', target: 0.6 },
    { id: `S2 ${tag}`, what: 'a new session, app used before (installed for offline use)', value: med('S2'), base: med('warm'), baseName: 'bare warm', target: 0.25 },
    { id: `S2i ${tag}`, what: 'S2 right after the first run, while the app installs for offline use', value: med('S2i'), base: med('warm'), baseName: 'bare warm', target: null },
    { id: `S2x4 ${tag}`, what: 'four new sessions started at once, until each has run a cell', value: med('four'), base: bareFour ? med('bareFour') : null, baseName: 'four bare at once', target: null },
  ];
  const notes = `${tag} (${version}, medians of ${reps}): bare cold ${samples.cold.map(Math.round).join('/')} ms, warm ${samples.warm.map(Math.round).join('/')} ms; ` +
    `app S1 ${samples.S1.map(Math.round).join('/')} ms, S2i ${samples.S2i.map(Math.round).join('/')} ms, S2 ${samples.S2.map(Math.round).join('/')} ms; ${[...new Set(samples.state)].join('; ')}; ` +
    `S1's timeline (ms from navigation, medians): ${timeline(samples.marks)}; S2i's (ms from its start): ${timeline(samples.marksS2i)}; S2's: ${timeline(samples.marksS2)}.`;
  return { rows, samples: { [tag]: samples }, notes, engine: engine.name, version };
}
