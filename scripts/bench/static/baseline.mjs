// The baselines the app is measured against, driven by scripts/bench.mjs from this page.
import * as Comlink from './comlink.mjs';

const indexURL = new URL('/pyodide/', location.href).href;

/** Starts a bare worker that only calls loadPyodide; ms from `new Worker` until it resolved. */
async function bareLoad() {
  const t0 = performance.now();
  const worker = new Worker(new URL('./bare-worker.mjs', import.meta.url), { type: 'module' });
  const done = new Promise((resolve, reject) => {
    worker.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve());
    worker.onerror = (e) => reject(new Error(e.message));
  });
  worker.postMessage({ indexURL });
  await done;
  const ms = performance.now() - t0;
  worker.terminate();
  return ms;
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

window.bench = { bareLoad, comlinkRoundTrips };

// `?cold` starts a bare load as soon as the page runs, so it is timed from navigation like the app's first session.
if (new URLSearchParams(location.search).has('cold')) {
  window.coldLoad = bareLoad().then(() => performance.now());
}
