// The baselines the app is measured against, driven by scripts/bench.mjs from this page.
import * as Comlink from './comlink.mjs';

const indexURL = new URL('/pyodide/', location.href).href;

let workers = 0;

/**
 * Starts a bare worker that only calls loadPyodide; ms from the first `new Worker` until it
 * resolved. WebKitGTK 2.50 on a cross-origin isolated page often fails a new module worker
 * at once after another one loaded (an error event without a message, within a few ms); the
 * next one loads. So a worker that fails before it loads is replaced, at most 3 times, with
 * the time counted, as the app replaces a broken spare worker; each gets an address of its
 * own, which makes the failure rarer.
 */
async function bareLoad() {
  const t0 = performance.now();
  for (let attempt = 1; ; attempt++) {
    const worker = new Worker(new URL(`./bare-worker.mjs?${++workers}`, import.meta.url), { type: 'module' });
    const done = new Promise((resolve, reject) => {
      worker.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve());
      worker.onerror = (e) => reject(Object.assign(new Error(e.message || 'the worker failed to start'), { beforeLoad: true }));
    });
    worker.postMessage({ indexURL });
    try {
      await done;
      return performance.now() - t0;
    } catch (error) {
      if (!error.beforeLoad || attempt >= 3) throw error;
    } finally {
      worker.terminate();
    }
  }
}

/** `count` bare workers started at once; ms until the last of them has loaded. */
async function bareLoads(count) {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: count }, () => bareLoad()));
  return performance.now() - t0;
}

/**
 * Round trips of runPython('pass') through a bare Comlink worker, after it loaded and after
 * the same warm-up the app's trips get (at least `warmup.trips` trips and `warmup.ms`).
 */
async function comlinkRoundTrips(count, warmup) {
  const worker = new Worker(new URL('./comlink-worker.mjs', import.meta.url), { type: 'module' });
  const api = Comlink.wrap(worker);
  await api.load(indexURL);
  const start = performance.now();
  for (let i = 0; i < warmup.trips || performance.now() - start < warmup.ms; i++) await api.run('pass');
  const times = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await api.run('pass');
    times.push(performance.now() - t0);
  }
  worker.terminate();
  return times;
}

window.bench = { bareLoad, bareLoads, comlinkRoundTrips };

// `?cold` starts a bare load as soon as the page runs, so it is timed from navigation like the app's first session.
if (new URLSearchParams(location.search).has('cold')) {
  window.coldLoad = bareLoad().then(() => performance.now());
}
