// The local model's rows (L1-L3): llama.cpp in the tab (wllama, in the app's model worker)
// against native llama.cpp (node-llama-cpp 3.21.1) on the same file, 2 threads both sides: a
// generated file of Qwen2.5-0.5B's shape (q8_0, random weights; scripts/gguf.mjs). The native
// runtime is installed on first use into a cache of its own (83 MB, its CPU build only), so
// neither `npm ci` nor CI carries it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeGguf } from '../gguf.mjs';
import { rendererMemory } from './memory.mjs';

const NATIVE_VERSION = '3.21.1';
const THREADS = 2;
/** Tokens decoded per measurement (after the first, which carries the prompt's reading). */
const DECODE = 48;
/**
 * A system message of the size and form a round sends a small model (the turn's format, the
 * short head, a session's files and variables: about 1,100 characters), so that L2a reads what
 * a first question reads and L2 what a follow-up adds to it.
 */
const SYSTEM = [
  '## How to reply',
  'Reply with one JSON object and nothing else.',
  'To run Python: {"name": "run_python", "arguments": {"code": "<the code>"}}. You then get its output.',
  'Other tools, without arguments: {"name": "list_variables", "arguments": {}}, {"name": "list_files", "arguments": {}}.',
  'When you know the answer: {"name": "answer", "arguments": {"text": "<your answer in plain words>"}}.',
  '',
  'You are the assistant of PyTabs. You answer questions about the person’s data by running Python (Pyodide) in their session; variables and files stay between runs.',
  'Keep code short and print what you need. Then answer in plain words with the numbers you found.',
  '## Environment',
  '- The working directory holds the files below. read_excel(path) reads .xlsx/.csv as a list of dicts; pandas, numpy and matplotlib can be imported; there is no network.',
  '',
  '## Workspace files (2)',
  '- data.xlsx (18.2 KB)',
  '- notes.txt (1.1 KB)',
  '',
  '## Variables (2)',
  '- rows: list, 12.4 KB — [{"tag": "apple", "n": 3}, {"tag": "banana", "n": 5}, …] (120 items)',
  '- total: int, 28 B — 742',
].join('\n');
const FIRST = 'What are the unique tags in data.xlsx?';
const FOLLOW_UP = 'And how many rows have each tag?';

/** The 0.5B-shape file, made once per machine (about 390 MiB, a minute to write). */
export async function benchModel(log) {
  const file = path.join(tmpdir(), 'pytabs-bench-qwen2.5-0.5b-shape-q8_0.gguf');
  if (!existsSync(file)) {
    log('writing the 0.5B-shape model file (random weights, q8_0)');
    await writeGguf(file, { shape: 'qwen2.5-0.5b', seed: 1 });
  }
  return file;
}

/** node-llama-cpp, installed into its own folder the first time. */
async function nativeRuntime(log) {
  const dir = path.join(tmpdir(), `pytabs-bench-node-llama-cpp-${NATIVE_VERSION}`);
  const entry = path.join(dir, 'node_modules', 'node-llama-cpp');
  if (!existsSync(entry)) {
    log(`installing node-llama-cpp ${NATIVE_VERSION} (CPU build) into ${dir}`);
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--omit=optional', `node-llama-cpp@${NATIVE_VERSION}`, `@node-llama-cpp/linux-x64@${NATIVE_VERSION}`], { stdio: 'pipe' });
  }
  const require = createRequire(path.join(dir, 'package.json'));
  return import(pathToFileURL(require.resolve('node-llama-cpp')).href);
}

/** Native llama.cpp: decode speed, and the first token of a first and of a follow-up question in one chat. */
async function nativeRun(file, log) {
  const { getLlama, LlamaChatSession } = await nativeRuntime(log);
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 2048, threads: THREADS, seed: 1 });
  try {
    // Decoding: the time per token after the first.
    const sequence = context.getSequence();
    let n = 0;
    let first = 0;
    for await (const token of sequence.evaluate(model.tokenize(FIRST), { temperature: 0.7 })) {
      void token;
      if (n++ === 0) first = performance.now();
      if (n > DECODE) break;
    }
    const msPerToken = (performance.now() - first) / DECODE;
    sequence.dispose();
    // A chat: the first question pays the system prompt, the follow-up only what is new.
    const session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: SYSTEM });
    const firstToken = async (question) => {
      const started = performance.now();
      let at = 0;
      await session.prompt(question, { maxTokens: 16, onTextChunk: () => (at ||= performance.now()) });
      return at - started;
    };
    const firstQuestion = await firstToken(FIRST);
    const followUp = await firstToken(FOLLOW_UP);
    return { msPerToken, firstQuestion, followUp };
  } finally {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  }
}

/** The app's model worker in Chromium: the same measurements through `window.pytabs.loadLocalModel`. */
async function browserRun(browser, origin, openApp) {
  const context = await browser.newContext();
  try {
    const page = await openApp(context, origin);
    const before = rendererMemory(browser.pid);
    const result = await page.evaluate(
      async ({ DECODE, SYSTEM, FIRST, FOLLOW_UP }) => {
        // Loaded as Ask loads a kept model: a Blob from Cache Storage, backed by the disk, not
        // memory. A fresh context's Cache Storage may refuse 400 MB (Chromium says only "Unexpected
        // internal error"): then a Blob in memory, and the notes say which.
        let blob;
        let from = 'Cache Storage';
        try {
          const cache = await caches.open('pytabs-bench-model');
          await cache.put('bench.gguf', await fetch('models/bench.gguf'));
          blob = await (await cache.match('bench.gguf')).blob();
        } catch {
          from = 'memory';
          blob = await (await fetch('models/bench.gguf')).blob();
        }
        const model = await window.pytabs.loadLocalModel({ kind: 'blob', blob }, { nCtx: 2048, seed: 1 });
        const decode = await model.chat([{ role: 'user', content: FIRST }], { maxTokens: DECODE + 1, ignoreEnd: true });
        // A new conversation: its prompt shares nothing with the decode's.
        await model.chat([{ role: 'user', content: 'x' }], { maxTokens: 1 });
        const firstToken = async (messages) => {
          const started = performance.now();
          let at = 0;
          let text = '';
          await model.chat(messages, { maxTokens: 16, ignoreEnd: true, onText: (piece) => ((at ||= performance.now()), (text += piece)) });
          return { ms: at - started, text };
        };
        const first = await firstToken([{ role: 'system', content: SYSTEM }, { role: 'user', content: FIRST }]);
        const followUp = await firstToken([
          { role: 'system', content: SYSTEM },
          { role: 'user', content: FIRST },
          { role: 'assistant', content: first.text },
          { role: 'user', content: FOLLOW_UP },
        ]);
        window.benchModel = model;
        return { msPerToken: decode.decodeMs / Math.max(1, decode.completionTokens - 1), firstQuestion: first.ms, followUp: followUp.ms, threads: model.info.threads, from };
      },
      { DECODE, SYSTEM, FIRST, FOLLOW_UP },
    );
    const loaded = rendererMemory(browser.pid);
    await page.evaluate(async () => {
      await window.benchModel.unload();
      await caches.delete('pytabs-bench-model');
    });
    return { ...result, pssBefore: before, pssLoaded: loaded };
  } finally {
    await context.close();
  }
}

export async function localModelRows(browser, outDir, origin, { reps, median, openApp, log }) {
  const file = await benchModel(log);
  const bytes = statSync(file).size;
  const link = path.join(outDir, 'models', 'bench.gguf');
  mkdirSync(path.dirname(link), { recursive: true });
  if (existsSync(link)) unlinkSync(link);
  symlinkSync(file, link);
  const samples = { native: [], browser: [] };
  try {
    for (let rep = 0; rep < reps; rep++) {
      // Alternating, so that other load on the machine falls on both sides alike.
      samples.native.push(await nativeRun(file, log));
      samples.browser.push(await browserRun(browser, origin, openApp));
      log(`local model ${rep + 1}/${reps}`, JSON.stringify({ native: samples.native.at(-1), browser: samples.browser.at(-1) }, (_, v) => (typeof v === 'number' ? Math.round(v) : v)));
    }
  } finally {
    unlinkSync(link);
  }
  const med = (side, key) => median(samples[side].map((s) => s[key]));
  const MB = 1024 * 1024;
  const rows = [
    { id: 'L1', what: 'decode time per token in Chromium (target: ≥ 0.4 of native tokens/s, so ≤ 2.5 here)', value: med('browser', 'msPerToken'), base: med('native', 'msPerToken'), baseName: 'native llama.cpp', target: 2.5 },
    { id: 'L2', what: 'first token of a follow-up question (the first one cached)', value: med('browser', 'followUp'), base: med('native', 'followUp'), baseName: 'native, its cache', target: 3 },
    { id: 'L2a', what: 'first token of a first question (the system prompt read once)', value: med('browser', 'firstQuestion'), base: med('native', 'firstQuestion'), baseName: 'native', target: null },
    { id: 'L3', what: 'renderer PSS with the model loaded ÷ the file', value: med('browser', 'pssLoaded') / MB, base: bytes / MB, baseName: 'file size', target: 1.5, unit: 'MB' },
  ];
  const notes =
    `Local model: a ${Math.round(bytes / MB)} MB file of Qwen2.5-0.5B's shape (q8_0, random weights), ${THREADS} threads in Chromium (cross-origin isolated: ${samples.browser[0]?.threads} used) and in node-llama-cpp ${NATIVE_VERSION}; ` +
    `the page's PSS before loading ${Math.round(med('browser', 'pssBefore') / MB)} MB, the model's Blob from ${samples.browser[0]?.from}. L2 and L2a are from the request to the first token through the model's API (the round's own work before the request is left out). ` +
    `Firefox and WebKit are not measured here. Medians of ${reps}.`;
  return { rows, samples, notes };
}
