// First visits over a throttled link, for the bench's N rows: the app and a bare
// `loadPyodide` worker, each in a fresh browser context (an empty profile and HTTP cache).

/** No wait of a visit may hang the bench: the slowest visit seen here took about a minute. */
const VISIT_TIMEOUT_MS = 300_000;

/** The links of the N rows: CDP's emulation of a link's bandwidth and round-trip time. */
export const LINKS = {
  school: { name: '20 Mbps / 40 ms', mbps: 20, rttMs: 40 },
  crowded: { name: '3 Mbps / 60 ms', mbps: 3, rttMs: 60 },
};

/**
 * A page in `context` whose requests go over `link` (none: localhost as it is). The page's CDP session throttles its
 * dedicated workers' fetches too (but does not report their bytes: the server counts them).
 */
export async function pageOnLink(context, link) {
  const page = await context.newPage();
  page.setDefaultTimeout(VISIT_TIMEOUT_MS);
  page.on('pageerror', (e) => console.error('[bench] page error:', e.message));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && console.error('[bench] worker error:', m.text())));
  if (!link) return page;
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const bytesPerSecond = (link.mbps * 1e6) / 8;
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: link.rttMs,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
  return page;
}

/** `promise`, or a failure naming `what` once the visit's time is up (page.evaluate itself never times out). */
function inTime(promise, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${VISIT_TIMEOUT_MS} ms`)), VISIT_TIMEOUT_MS)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Waits until `ms` have passed since the page's navigation began. */
function untilPageTime(page, ms) {
  return page.waitForFunction((ms) => performance.now() >= ms, ms, { timeout: ms + 120_000, polling: 250 });
}

/**
 * A bare `loadPyodide` worker's first visit: ms from navigation until it resolved, and the
 * bytes the server sent until then. With `idleMs`, also the bytes sent by then (the page
 * does nothing more after its load: this is its first minute left idle).
 */
export async function bareFirstVisit(browser, server, link, { idleMs } = {}) {
  const context = await browser.newContext();
  try {
    const page = await pageOnLink(context, link);
    const counted = server.measure();
    await page.goto(`${server.origin}/bench/?cold`, { timeout: VISIT_TIMEOUT_MS });
    await page.waitForFunction(() => Boolean(window.coldLoad), null, { timeout: VISIT_TIMEOUT_MS });
    const ms = await inTime(page.evaluate(() => window.coldLoad), 'the bare load');
    const loaded = counted();
    if (!idleMs) return { ms, ...loaded };
    await untilPageTime(page, idleMs);
    return { ms, ...loaded, idle: counted() };
  } finally {
    await context.close();
  }
}

/**
 * The app's first visit: ms from navigation until the first session's first run returned,
 * with the bytes the server sent until then, and how the session started. With `locale`, the
 * browser's language (the app picks it when the person chose none) must be the one shown.
 */
export async function appFirstVisit(browser, server, link, defineHelpers, { locale } = {}) {
  const context = await browser.newContext(locale ? { locale } : {});
  try {
    await context.addInitScript(defineHelpers);
    const page = await pageOnLink(context, link);
    const counted = server.measure();
    await page.goto(`${server.origin}/`, { timeout: VISIT_TIMEOUT_MS });
    await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: VISIT_TIMEOUT_MS });
    const first = await inTime(page.evaluate(async () => {
      const id = await window.firstSession();
      const report = await window.untilOwned(() => window.pytabs.startSession(id));
      const r = await window.pytabs.run(id, 'pass');
      if (r.status !== 'ok') throw new Error(JSON.stringify(r));
      return { ms: performance.now(), snapshot: report.snapshot ?? 'none', lang: document.documentElement.lang };
    }), "the app's first run");
    const shown = locale?.split('-')[0];
    if (shown && first.lang !== shown) throw new Error(`The app showed ${first.lang}, not the browser's ${locale}`);
    return { ...first, ...counted() };
  } finally {
    await context.close();
  }
}

/**
 * The app's first visit left alone for `idleMs` from navigation (it opens a session and
 * starts its Python on its own): the bytes the server sent by then. Fails unless that
 * session was up by then, so an app that never started cannot pass as frugal.
 */
export async function appIdleVisit(browser, server, link, idleMs) {
  const context = await browser.newContext();
  try {
    const page = await pageOnLink(context, link);
    const counted = server.measure();
    await page.goto(`${server.origin}/`, { timeout: VISIT_TIMEOUT_MS });
    await untilPageTime(page, idleMs);
    const idle = counted();
    const status = await page.evaluate(async () => (await window.pytabs?.listSessions())?.[0]?.status);
    if (status !== 'idle') throw new Error(`after ${idleMs} ms left idle the first session is ${status ?? 'missing'}, not idle`);
    return idle;
  } finally {
    await context.close();
  }
}
