// L3: the memory of the page and its workers with the local model loaded, against the model
// file's size, on a later visit (the model kept in Cache Storage, a persistent profile, as a
// person's browser is). The memory of the page's renderer process (where Chromium runs the
// page's dedicated workers) is sampled from /proc while the model loads and reads a prompt,
// against a baseline taken with the page and a Python session up;
// llama.cpp's own buffer sizes and the browser's measureUserAgentSpecificMemory() are reported
// beside it. A first visit (the download in Settings, then loading) is measured in the same
// profile before, and reported.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../chromium.mjs';
import { asked, servedBenchModel, SYSTEM } from './local-model.mjs';
import { downloadInSettings } from './local-model-visits.mjs';
import { processTree } from './memory.mjs';

const MB = 1024 * 1024;
const SAMPLE_MS = 100;
const SETTLE_MS = 3000;
const WAIT_MS = 900_000;
/** A round's first prompt (the bench's L2a), so llama.cpp's buffers are used as in a round. */
const PROMPT = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: asked(0) },
];

/** The smaps_rollup fields read, in bytes: proportional, resident, and proportional anonymous (private heap, wasm memory, Blobs in the renderer). */
const FIELDS = { pss: 'Pss', rss: 'Rss', anon: 'Pss_Anon', file: 'Pss_File', shmem: 'Pss_Shmem' };

function rollup(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const out = {};
  for (const [key, field] of Object.entries(FIELDS)) out[key] = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return out;
}

const isRenderer = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
};

/** The browser process of a persistent profile (the one started with its --user-data-dir and no --type). */
function browserOf(profile) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(`--user-data-dir=${profile}`) && !args.some((a) => a.startsWith('--type='))) return Number(entry);
    } catch {
      // gone
    }
  }
  throw new Error(`no browser process for ${profile}`);
}

function threadNames(pid) {
  const names = {};
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      names[name] = (names[name] ?? 0) + 1;
    } catch {
      // ended
    }
  }
  return names;
}

/**
 * The renderers of the browser, each with its threads: Chromium runs a page's dedicated workers
 * (the sessions' Python, the model's worker, wllama's worker and llama.cpp's threads) as threads
 * of the page's renderer, so the page's is the one with DedicatedWorker threads.
 */
function renderers(browserPid) {
  return processTree(browserPid)
    .filter(isRenderer)
    .map((pid) => {
      try {
        return { pid, threads: threadNames(pid) };
      } catch {
        return null;
      }
    })
    .filter(Boolean);
}

const pageRenderers = (browserPid) => renderers(browserPid).filter((r) => r.threads.DedicatedWorker);

/** These processes' memory summed. */
function memoryOf(pids) {
  const total = { pss: 0, rss: 0, anon: 0, file: 0, shmem: 0 };
  for (const pid of pids) {
    try {
      const r = rollup(pid);
      for (const key of Object.keys(total)) total[key] += r[key];
    } catch {
      // ended while read
    }
  }
  return total;
}

/** Samples the processes every SAMPLE_MS until stopped; the peak of each field and the last sample. */
function sampler(pids) {
  const peak = { pss: 0, rss: 0, anon: 0, file: 0, shmem: 0 };
  let last = null;
  let count = 0;
  const started = Date.now();
  let peakAt = 0;
  const take = () => {
    last = memoryOf(pids);
    count++;
    if (last.pss > peak.pss) peakAt = Date.now() - started;
    for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], last[key]);
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peak, peakAt, ms: Date.now() - started, last, count };
    },
  };
}

/** The median of the processes' memory over `ms` of quiet. */
async function steady(pids, ms = SETTLE_MS) {
  const samples = [];
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) samples.push(memoryOf(pids));
  const mid = (key) => samples.map((s) => s[key]).sort((a, b) => a - b)[samples.length >> 1];
  return { pss: mid('pss'), rss: mid('rss'), anon: mid('anon'), file: mid('file'), shmem: mid('shmem') };
}

/** The other renderers (a spare one, the app's service worker) with their PSS and a thread that tells what they run. */
function others(browserPid, page) {
  return renderers(browserPid)
    .filter((r) => !page.includes(r.pid))
    .map((r) => ({ pid: r.pid, pss: memoryOf([r.pid]).pss, serviceWorker: Object.keys(r.threads).some((n) => n.startsWith('ServiceWorker')) }));
}

/** Opens the app and waits for its first session's Python to answer. */
async function openWithPython(context, origin) {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 120_000 });
  await page.evaluate(async () => {
    let id;
    for (let waited = 0; !id && waited < 10_000; waited += 50) {
      id = (await window.pytabs.listSessions())[0]?.id;
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    id ??= (await window.pytabs.createSession()).id;
    for (;;) {
      try {
        const r = await window.pytabs.run(id, 'x = 1');
        if (r.status !== 'ok') throw new Error(JSON.stringify(r));
        return;
      } catch (error) {
        if (error?.name !== 'SessionElsewhereError') throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
  return page;
}

/** In the page: the kept model loaded as Ask loads it (the Cache Storage entry's Blob, backed by the disk, into the app's model worker with its default context). */
async function loadKept() {
  const cache = await caches.open('pytabs-models');
  const [key] = await cache.keys();
  if (!key) throw new Error('no kept model');
  const blob = await (await cache.match(key)).blob();
  window.benchModel = await window.pytabs.loadLocalModel({ kind: 'blob', blob }, { seed: 1 });
  return window.benchModel.info;
}

/** In the page: a round's first prompt read and a few tokens answered, so every buffer llama.cpp has is used. */
async function readPrompt(prompt) {
  return (await window.benchModel.chat(prompt, { maxTokens: 4, ignoreEnd: true })).promptTokens;
}

/** The browser's own measure of the page's and its workers' JS and wasm memory, when the page is cross-origin isolated. */
async function userAgentMemory() {
  if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
  const { bytes, breakdown } = await performance.measureUserAgentSpecificMemory();
  const byScope = {};
  for (const part of breakdown) {
    for (const scope of part.attribution.map((a) => a.scope ?? 'none').concat(part.attribution.length ? [] : ['unattributed'])) byScope[scope] = (byScope[scope] ?? 0) + part.bytes;
  }
  return { bytes, byScope };
}

/** Chromium with the profile, and its browser process. */
async function launch(profile) {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    args: [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'],
    viewport: { width: 1280, height: 800 },
  });
  return { context, browserPid: browserOf(profile) };
}

/** The model loaded, then a prompt read, each sampled; then the memory once idle. */
async function measuredLoad(page, pids) {
  let probe = sampler(pids);
  const info = await page.evaluate(loadKept);
  const load = probe.stop();
  probe = sampler(pids);
  const promptTokens = await page.evaluate(readPrompt, PROMPT);
  const prompt = probe.stop();
  const after = await steady(pids);
  const peak = Object.fromEntries(Object.keys(load.peak).map((key) => [key, Math.max(load.peak[key], prompt.peak[key])]));
  return { info, promptTokens, load, prompt, peak, after };
}

/**
 * One persistent profile: a first visit (the download in Settings, then the model loaded), then
 * a later visit in a new start of the browser (the model loaded from the kept file).
 */
async function visits(origin, log) {
  const profile = mkdtempSync(path.join(tmpdir(), 'pytabs-bench-memory-'));
  try {
    let { context, browserPid } = await launch(profile);
    const first = await openWithPython(context, origin);
    const firstPids = pageRenderers(browserPid).map((r) => r.pid);
    const firstBase = await steady(firstPids);
    const probe = sampler(firstPids);
    await downloadInSettings(first, `${origin}/models/bench-memory.gguf`);
    const download = probe.stop();
    const firstLoad = await measuredLoad(first, firstPids);
    await context.close();
    log(`L3 first visit: the page's renderer ${Math.round(firstBase.pss / MB)} MB, its peak while downloading ${Math.round(download.peak.pss / MB)} MB, while loading ${Math.round(firstLoad.peak.pss / MB)} MB (PSS)`);

    ({ context, browserPid } = await launch(profile));
    try {
      const later = await openWithPython(context, origin);
      const pids = pageRenderers(browserPid).map((r) => r.pid);
      const base = await steady(pids);
      const measured = await measuredLoad(later, pids);
      const ua = await later.evaluate(userAgentMemory);
      const threads = Object.assign({}, ...pids.map(threadNames));
      const rest = others(browserPid, pids);
      await later.evaluate(() => window.benchModel.unload());
      return { pids, firstBase, download, firstLoad, base, ...measured, ua, threads, others: rest };
    } finally {
      await context.close();
    }
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The L3 rows; `outDir` is what the bench's server serves at `origin`. */
export async function modelMemoryRows(outDir, origin, { log }) {
  const { bytes, unlink } = await servedBenchModel(outDir, 'bench-memory.gguf', log);
  let sample;
  try {
    sample = await visits(origin, log);
  } finally {
    unlink();
  }
  const mb = (v) => Math.round(v / MB);
  log('L3', JSON.stringify(sample, (_, v) => (typeof v === 'number' && v > MB ? mb(v) : v)));
  const { base, peak, after, info, ua } = sample;
  const buffers = info.buffers;
  const rows = [
    {
      id: 'L3',
      what: "peak memory (PSS) of the page's renderer (the page and its workers) with the model kept, loaded on a later visit and reading a round's prompt ÷ the file",
      value: peak.pss / MB,
      base: bytes / MB,
      baseName: 'file size',
      target: null,
      why: "wllama's read buffers decide it (was ≤ 1.5)",
      unit: 'MB',
    },
    { id: 'L3a', what: 'L3 once loaded (the model idle)', value: after.pss / MB, base: bytes / MB, baseName: 'file size', target: null, unit: 'MB' },
    { id: 'L3m', what: "L3's peak less the page with a Python session before the model", value: (peak.pss - base.pss) / MB, base: bytes / MB, baseName: 'file size', target: null, unit: 'MB' },
  ];
  const notes =
    `L3: one persistent Chromium profile; the PSS, RSS and anonymous memory of the page's renderer (${sample.pids.length} process, ${sample.threads.DedicatedWorker ?? 0} dedicated worker threads) from /proc/<pid>/smaps_rollup every ${SAMPLE_MS} ms. ` +
    `Before the model (the page and a Python session): PSS ${mb(base.pss)} MB, RSS ${mb(base.rss)}, anonymous ${mb(base.anon)}. ` +
    `Peak while loading: PSS ${mb(sample.load.peak.pss)} MB, RSS ${mb(sample.load.peak.rss)}, anonymous ${mb(sample.load.peak.anon)}; while reading a ${sample.promptTokens}-token prompt: PSS ${mb(sample.prompt.peak.pss)} MB; once loaded: PSS ${mb(after.pss)} MB, anonymous ${mb(after.anon)}. ` +
    `llama.cpp's buffers (n_ctx ${info.nCtx}): model ${mb(buffers.model)} MB, KV ${mb(buffers.kv)}, compute ${mb(buffers.compute)}, output ${(buffers.output / MB).toFixed(1)}. ` +
    (ua ? `measureUserAgentSpecificMemory (JS and wasm memory, allocated not resident): ${mb(ua.bytes)} MB (${Object.entries(ua.byScope).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}). ` : '') +
    `Other renderers, not counted: ${sample.others.map((o) => `${mb(o.pss)} MB${o.serviceWorker ? ' (the service worker)' : ''}`).join(', ') || 'none'}. ` +
    `A first visit (the download kept in Settings, then the same load), the page's renderer: ${mb(sample.firstBase.pss)} MB before, ${mb(sample.download.peak.pss)} MB at the download's peak, ${mb(sample.firstLoad.peak.pss)} MB at the load's, on the page that downloaded it.`;
  return { rows, samples: { memory: [sample] }, notes };
}
