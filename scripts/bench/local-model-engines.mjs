// L1-ff and L1-wk: the local model's decoding in Firefox ESR and WebKitGTK, beside L1's Chromium,
// against native llama.cpp on the same file. The app's own model worker is driven through
// `window.pytabs.loadLocalModel` in each engine (scripts/engines.mjs: the harness the
// cross-engine tests use), the app served with the project's headers (cross-origin isolated),
// the file given as an address beside the app. WebKitGTK has no JSPI, Memory64 or
// SharedArrayBuffer: it runs wllama's compatible build on one thread.
// Page functions are sent as source (WebDriver, BiDi): each is self-contained.
import { availableParallelism, loadavg } from 'node:os';
import { engineMissing, launchEngine } from '../engines.mjs';
import { servedBenchModel } from './local-model.mjs';

/** Tokens decoded per measurement after the first, as L1 in Chromium (local-model.mjs). */
const DECODE = 48;
/** Served under the app's models/ by its own name: L1's link beside it comes and goes on its own. */
const LINK = 'bench-engines.gguf';
/** Neither a hung engine nor one that went away may hang the bench: a load and a decode here take a minute or two. */
const DEADLINE_MS = 900_000;
/**
 * A prompt for reading speed (about 550 characters, about 280 tokens of the generated files'
 * vocabulary: reading more costs minutes in WebKitGTK on a busy machine): its own request,
 * after the decode's, with the words of neither.
 */
const PROMPT = [
  'Here is a table of fruit deliveries for the week; count them by tag and say which tag is the most common.',
  ...Array.from({ length: 6 }, (_, i) => `Row ${i + 1}: tag ${['apple', 'banana', 'cherry', 'plum'][i % 4]}, crates ${(i * 7) % 11 + 1}, day ${['Mon', 'Tue', 'Wed', 'Thu', 'Fri'][i % 5]}.`),
  'Reply with one JSON object and nothing else.',
].join('\n');
const LABEL = { firefox: 'Firefox ESR', webkit: 'WebKitGTK' };
const ID = { firefox: 'L1-ff', webkit: 'L1-wk' };

/** `promise`, or a failure naming `what` once `ms` have passed. */
function within(promise, what, ms = DEADLINE_MS) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** In the page: loads the model from `url`, decodes `decode` + 1 tokens, then reads `prompt`; the model's figures. */
async function measureInPage({ url, decode, prompt }) {
  for (let waited = 0; !window.pytabs; waited += 50) {
    if (waited > 120_000) throw new Error('the app did not open');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const model = await window.pytabs.loadLocalModel({ kind: 'url', url }, { nCtx: 2048, seed: 1 });
  try {
    const d = await model.chat([{ role: 'user', content: 'What are the unique tags in data.xlsx?' }], { maxTokens: decode + 1, ignoreEnd: true });
    const p = await model.chat([{ role: 'user', content: prompt }], { maxTokens: 1, ignoreEnd: true });
    const { loadMs, threads, build, backend } = model.info;
    return {
      loadMs,
      threads,
      build,
      backend,
      isolated: crossOriginIsolated,
      msPerToken: d.decodeMs / Math.max(1, d.completionTokens - 1),
      decodeTokens: d.completionTokens,
      promptTokens: p.promptTokens,
      promptMs: p.promptMs,
    };
  } finally {
    await model.unload();
  }
}

/** One measurement in a fresh profile of `engine`. */
async function engineRun(engine, origin) {
  const profile = await within(engine.newProfile(), `${engine.name}: opening a profile`, 120_000);
  try {
    const page = await profile.newPage();
    await within(page.goto(`${origin}/`), `${engine.name}: opening the app`, 120_000);
    const result = await within(page.evaluate(measureInPage, { url: `models/${LINK}`, decode: DECODE, prompt: PROMPT }), `${engine.name}: the model's run`);
    // Two threads that wait for each other suffer most from other work on the machine: the load is part of the figure.
    return { ...result, version: profile.version, load: loadavg()[0] };
  } finally {
    await within(profile.close(), `${engine.name}: closing its profile`, 30_000).catch(() => undefined);
  }
}

const perSecond = (ms) => 1000 / ms;
const round1 = (x) => Math.round(x * 10) / 10;

/**
 * The rows L1-ff and L1-wk. `outDir` is what the bench's server (with the project's headers)
 * serves at `origin`. `baseline` is L1's samples (local-model.mjs: `native` and `browser`, each
 * with `msPerToken`): the rows' base is native's median and Chromium's is named beside it;
 * without native's the base is Chromium's, and the row says so. `shape: 'tiny'` tries the
 * mechanics on the tiny file.
 * @param {string} outDir
 * @param {string} origin
 * @param {{ baseline?: { native?: { msPerToken: number }[], browser?: { msPerToken: number }[] }, reps: number, median: (xs: number[]) => number, log: (...a: unknown[]) => void, engines?: string[], shape?: 'qwen2.5-0.5b' | 'tiny' }} options
 */
export async function modelEngineRows(outDir, origin, { baseline, reps, median, log, engines = ['firefox', 'webkit'], shape = 'qwen2.5-0.5b' }) {
  const { bytes, unlink } = await servedBenchModel(outDir, LINK, log, shape);
  const MB = 1024 * 1024;
  const nativeMs = baseline?.native?.length ? median(baseline.native.map((s) => s.msPerToken)) : null;
  const chromiumMs = baseline?.browser?.length ? median(baseline.browser.map((s) => s.msPerToken)) : null;
  const samples = {};
  const rows = [];
  const parts = [];
  /** The engines that run, by name; one that fails leaves with a note, not the end of the bench. */
  const running = new Map();
  const failed = {};
  try {
    for (const name of ['firefox', 'webkit'].filter((n) => engines.includes(n))) {
      const missing = engineMissing(name);
      if (missing) parts.push(`${LABEL[name]}: not measured, ${missing}.`);
      else {
        samples[name] = [];
        try {
          running.set(name, await launchEngine(name));
        } catch (error) {
          failed[name] = error.message;
        }
      }
    }
    // The engines alternate, rep by rep, so that other load on the machine falls on each alike.
    for (let rep = 0; rep < reps; rep++) {
      for (const [name, engine] of running) {
        if (failed[name]) continue;
        try {
          samples[name].push(await engineRun(engine, origin));
          log(`local model in ${name} ${rep + 1}/${reps}`, JSON.stringify(samples[name].at(-1), (_, v) => (typeof v === 'number' ? round1(v) : v)));
        } catch (error) {
          log(`local model in ${name} failed: ${error.message}`);
          failed[name] = error.message;
        }
      }
    }
  } finally {
    for (const engine of running.values()) await engine.close().catch(() => undefined);
    unlink();
  }
  for (const [name, runs] of Object.entries(samples)) {
    if (failed[name]) parts.push(`${LABEL[name]}: failed after ${runs.length} of ${reps} runs: ${failed[name].split('\n')[0]}.`);
    if (!runs.length) continue;
    const med = (key) => median(runs.map((s) => s[key]));
    const ms = med('msPerToken');
    rows.push({
      id: ID[name],
      what: `decode time per token in ${LABEL[name]}`,
      value: ms,
      base: nativeMs ?? chromiumMs,
      baseName: nativeMs != null ? 'native llama.cpp' : 'Chromium, same run',
      target: null,
      why: "the engine's wasm speed decides it, as L1 (was ≤ 2.5)",
    });
    const first = runs[0];
    parts.push(
      `${LABEL[name]} (${first.version}): ${first.build} build, ${first.threads} thread${first.threads === 1 ? '' : 's'}, ${first.backend}, ${first.isolated ? '' : 'not '}cross-origin isolated; ` +
        `load ${round1(med('loadMs') / 1000)} s, prompt ${round1(median(runs.map((s) => (s.promptTokens * 1000) / s.promptMs)))} tokens/s (${first.promptTokens} tokens), ` +
        `decode ${round1(perSecond(ms))} tokens/s` +
        (nativeMs != null ? ` (${(nativeMs / ms).toFixed(2)} of native's ${round1(perSecond(nativeMs))} tokens/s)` : '') +
        (chromiumMs != null ? `, ${(chromiumMs / ms).toFixed(2)} times Chromium's ${round1(perSecond(chromiumMs))} tokens/s in this run` : '') +
        `; the machine's load average ${round1(med('load'))} on ${availableParallelism()} cores.`,
    );
  }
  const notes =
    `Local model in other engines: the same ${(bytes / MB).toFixed(bytes < MB ? 2 : 0)} MB file (${shape} shape) as an address beside the app, served with the project's headers, ` +
    `the app's model worker through window.pytabs.loadLocalModel in a fresh profile; decode as L1 (${DECODE} tokens after the first), the prompt a ~550-character message of its own; ` +
    `WebKitGTK runs wllama's compatible build (no JSPI or Memory64) on one thread (no SharedArrayBuffer there). Medians of ${reps}.\n${parts.join('\n')}`;
  const versions = Object.fromEntries(Object.entries(samples).filter(([, runs]) => runs.length).map(([name, runs]) => [name, runs[0].version]));
  return { rows, samples: { engines: samples }, notes, versions };
}
