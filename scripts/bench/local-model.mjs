// The local model's rows (L1, L2; L3 is local-model-memory.mjs's): llama.cpp in the tab (wllama, in the app's model worker)
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

const NATIVE_VERSION = '3.21.1';
const THREADS = 2;
/** Tokens decoded per measurement (after the first, which carries the prompt's reading). */
const DECODE = 48;
/**
 * What a round sends a small model (local-fetch.ts, context.ts): a system message that is the
 * same in every session and round (the turn's format and a short head), and each question with
 * the session's files and variables as they are then. The session's state after each round is
 * the one before and what its code made.
 */
export const SYSTEM = [
  '## How to reply',
  'Reply with one JSON object and nothing else.',
  'To run Python: {"name": "run_python", "arguments": {"code": "<the code>"}}. You then get its output.',
  'Other tools, without arguments: {"name": "list_variables", "arguments": {}}, {"name": "list_files", "arguments": {}}.',
  'When you know the answer: {"name": "answer", "arguments": {"text": "<your answer in plain words>"}}.',
  '',
  'You are the assistant of PyTabs. You answer questions about the person’s data by running Python (Pyodide) in their session; variables and files stay between runs.',
  'Keep code short and print what you need. Then answer in plain words with the numbers you found.',
  '## Environment',
  '- The working directory holds the files listed with each question. read_excel(path) reads .xlsx/.csv as a list of dicts; pandas, numpy and matplotlib can be imported; there is no network.',
].join('\n');
const FILES = '## Workspace files (2)\n- data.xlsx (18.2 KB)\n- notes.txt (1.1 KB)';
const NO_SESSION_VARS = '## Session variables (0), read with get_session_var\n(none)';
const STATES = [
  '## Variables (0)\n(none yet)',
  '## Variables (2)\n- rows: list, 12.4 KB — [{"tag": "apple", "n": 3}, {"tag": "banana", "n": 5}, …] (120 items)\n- tags: list, 312 B — ["apple", "banana", "cherry"]',
  '## Variables (3)\n- counts: dict, 232 B — {"apple": 52, "banana": 41, "cherry": 27}\n- rows: list, 12.4 KB — [{"tag": "apple", "n": 3}, {"tag": "banana", "n": 5}, …] (120 items)\n- tags: list, 312 B — ["apple", "banana", "cherry"]',
];
const QUESTIONS = ['What are the unique tags in data.xlsx?', 'And how many rows have each tag?', 'Which tag has the most rows?'];
/** The user message of question `i` (smallModelQuestion); `''` gives the start that is read ahead. */
export const asked = (i, question = QUESTIONS[i]) => `${FILES}\n\n${STATES[i]}\n\n${NO_SESSION_VARS}\n\n## Question\n${question}`;
/**
 * Tokens of each answer. Random weights sample tokens whose text is read back as other tokens
 * (a real model's text mostly reads back as what it sampled), so the model's state stops matching
 * at an answer's first token: short answers keep that cost small on both sides.
 */
const ANSWER_TOKENS = 4;
const FIRST = QUESTIONS[0];
/** How long the person types the first question in L2a's second way: the app loads the model and reads the question's start from the first key. */
const TYPING_MS = 30_000;

/** The 0.5B-shape file, made once per machine (about 390 MiB, a minute to write), or the tiny one (for trying a bench's mechanics). */
async function benchModel(log, shape = 'qwen2.5-0.5b') {
  const file = path.join(tmpdir(), shape === 'tiny' ? 'pytabs-bench-tiny.gguf' : 'pytabs-bench-qwen2.5-0.5b-shape-q8_0.gguf');
  if (!existsSync(file)) {
    log(`writing the ${shape}-shape model file (random weights, q8_0)`);
    await writeGguf(file, { shape, seed: 1 });
  }
  return file;
}

/** The bench's model file served beside the app, as `models/<name>` in `outDir` (a link): the file, its size, and the link's removal. */
export async function servedBenchModel(outDir, name, log, shape) {
  const file = await benchModel(log, shape);
  const link = path.join(outDir, 'models', name);
  mkdirSync(path.dirname(link), { recursive: true });
  if (existsSync(link)) unlinkSync(link);
  symlinkSync(file, link);
  return { file, bytes: statSync(file).size, unlink: () => unlinkSync(link) };
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

/** Native llama.cpp's decoding (ms per token, three times) and prompt reading (tokens/s) on `threads` threads, as decode-variants.mjs measures the browsers. */
export async function nativeDecode(file, threads, decode, prompts, log = () => undefined) {
  const { getLlama } = await nativeRuntime(log);
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 1024, threads, seed: 1 });
  try {
    const sequence = context.getSequence();
    const decodes = [];
    for (let i = 0; i < 3; i++) {
      await sequence.clearHistory();
      let n = 0;
      let first = 0;
      for await (const token of sequence.evaluate(model.tokenize(FIRST), { temperature: 0.7 })) {
        void token;
        if (n++ === 0) first = performance.now();
        if (n > decode) break;
      }
      decodes.push((performance.now() - first) / decode);
    }
    const reads = [];
    for (const prompt of prompts) {
      await sequence.clearHistory();
      const tokens = model.tokenize(prompt);
      const started = performance.now();
      await sequence.evaluateWithoutGeneratingNewTokens(tokens);
      reads.push((tokens.length / (performance.now() - started)) * 1000);
    }
    return { decodes, reads, threads, build: 'native' };
  } finally {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  }
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
    // A chat: the first question pays the system prompt, a follow-up only what is new.
    const chat = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: chat, systemPrompt: SYSTEM });
    const firstToken = async (i) => {
      const started = performance.now();
      const kept = chat.contextTokens.length;
      const input = chat.tokenMeter.usedInputTokens;
      let at = 0;
      await session.prompt(asked(i), { maxTokens: ANSWER_TOKENS, onTextChunk: () => (at ||= performance.now()) });
      return { ms: at - started, read: chat.tokenMeter.usedInputTokens - input, kept };
    };
    const questions = [await firstToken(0), await firstToken(1), await firstToken(2)];
    return { msPerToken, firstQuestion: questions[0].ms, followUp: questions[2].ms, followUpNoReadAhead: questions[1].ms, tokens: questions };
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
    const result = await page.evaluate(
      async ({ DECODE, SYSTEM, FIRST, ANSWER_TOKENS, asked, ahead: aheadMessage }) => {
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
          const result = await model.chat(messages, { maxTokens: ANSWER_TOKENS, ignoreEnd: true, onText: () => (at ||= performance.now()) });
          return { ms: at - started, text: result.text, read: result.promptTokens, reused: result.cachedTokens };
        };
        const conversation = [{ role: 'system', content: SYSTEM }];
        const ask = async (i) => {
          const answer = await firstToken([...conversation, { role: 'user', content: asked[i] }]);
          conversation.push({ role: 'user', content: asked[i] }, { role: 'assistant', content: answer.text });
          return answer;
        };
        // The first question, then a follow-up as it comes right after a round; then, as the app
        // does after a round, the next question's start read ahead (untimed: the person is
        // reading the answer), and a follow-up after it.
        const questions = [await ask(0), await ask(1)];
        const ahead = await model.chat([...conversation, { role: 'user', content: aheadMessage }], { maxTokens: 1 });
        questions.push(await ask(2));
        const tokens = questions.map(({ read, reused }) => ({ read, reused }));
        tokens[2].readAhead = { read: ahead.promptTokens, reused: ahead.cachedTokens };
        const result = {
          msPerToken: decode.decodeMs / Math.max(1, decode.completionTokens - 1),
          firstQuestion: questions[0].ms,
          followUp: questions[2].ms,
          followUpNoReadAhead: questions[1].ms,
          tokens,
          threads: model.info.threads,
          from,
        };
        window.benchModel = model;
        return result;
      },
      { DECODE, SYSTEM, FIRST, ANSWER_TOKENS, asked: [0, 1, 2].map((i) => asked(i)), ahead: asked(2, '') },
    );
    await page.evaluate(() => window.benchModel.unload());
    // L2a the second way, on a new load: as the app does when the person starts writing in Ask
    // (session-view's startedWriting, ask.ts prepareAsk), the load and the read of the question's
    // start (a request for one token) begin at the first key; the question is sent TYPING_MS
    // later, and waits for that reading if it is not done. Timed from the send.
    result.typed = await page.evaluate(
      async ({ SYSTEM, ANSWER_TOKENS, TYPING_MS, question, start }) => {
        const cached = await (await caches.open('pytabs-bench-model')).match('bench.gguf');
        const blob = cached ? await cached.blob() : await (await fetch('models/bench.gguf')).blob();
        const typing = performance.now();
        const loading = window.pytabs.loadLocalModel({ kind: 'blob', blob }, { nCtx: 2048, seed: 1 });
        const reading = loading.then((model) => model.chat([{ role: 'system', content: SYSTEM }, { role: 'user', content: start }], { maxTokens: 1 }));
        let readAt = 0;
        void reading.then(() => (readAt = performance.now()));
        await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
        const sent = performance.now();
        const model = await loading;
        let at = 0;
        const answer = await model.chat([{ role: 'system', content: SYSTEM }, { role: 'user', content: question }], { maxTokens: ANSWER_TOKENS, ignoreEnd: true, onText: () => (at ||= performance.now()) });
        const ahead = await reading;
        await model.unload();
        return {
          ms: at - sent,
          loadMs: model.info.loadMs,
          readyAfterMs: (readAt || performance.now()) - typing,
          tokens: { read: answer.promptTokens, reused: answer.cachedTokens, readAhead: { read: ahead.promptTokens, reused: ahead.cachedTokens } },
        };
      },
      { SYSTEM, ANSWER_TOKENS, TYPING_MS, question: asked(0), start: asked(0, '') },
    );
    await page.evaluate(() => caches.delete('pytabs-bench-model'));
    return result;
  } finally {
    await context.close();
  }
}

/** `read (reused)` of each question, the read-ahead after L2's. */
function tokenCounts(tokens = []) {
  return tokens.map((t) => `${t.read} (${t.reused ?? t.kept})${t.readAhead ? ` after a read-ahead of ${t.readAhead.read} (${t.readAhead.reused})` : ''}`).join(', ');
}

export async function localModelRows(browser, outDir, origin, { reps, median, openApp, log }) {
  const { file, bytes, unlink } = await servedBenchModel(outDir, 'bench.gguf', log);
  const samples = { native: [], browser: [] };
  try {
    for (let rep = 0; rep < reps; rep++) {
      // Alternating, so that other load on the machine falls on both sides alike.
      samples.native.push(await nativeRun(file, log));
      samples.browser.push(await browserRun(browser, origin, openApp));
      log(`local model ${rep + 1}/${reps}`, JSON.stringify({ native: samples.native.at(-1), browser: samples.browser.at(-1) }, (_, v) => (typeof v === 'number' ? Math.round(v) : v)));
    }
  } finally {
    unlink();
  }
  const med = (side, key) => median(samples[side].map((s) => s[key]));
  const MB = 1024 * 1024;
  const rows = [
    { id: 'L1', what: 'decode time per token in Chromium', value: med('browser', 'msPerToken'), base: med('native', 'msPerToken'), baseName: 'native llama.cpp', target: null, why: "the engine's wasm speed decides it (was ≤ 2.5)" },
    { id: 'L2', what: 'first token of a follow-up question (the conversation cached, its start read ahead after the last answer)', value: med('browser', 'followUp'), base: med('native', 'followUp'), baseName: 'native, its cache', target: 3 },
    { id: 'L2n', what: 'L2 without reading ahead (a follow-up right after an answer)', value: med('browser', 'followUpNoReadAhead'), base: med('native', 'followUpNoReadAhead'), baseName: 'native, its cache', target: null },
    { id: 'L2a', what: 'first token of a first question sent at once (the model loaded; its whole prompt read then)', value: med('browser', 'firstQuestion'), base: med('native', 'firstQuestion'), baseName: 'native', target: null },
    {
      id: 'L2a-t',
      what: `first token of a first question sent after ${TYPING_MS / 1000} s of typing in Ask (the load and the read of its start begun at the first key)`,
      value: median(samples.browser.map((s) => s.typed.ms)),
      base: med('native', 'firstQuestion'),
      baseName: 'native',
      target: null,
    },
  ];
  const notes =
    `Local model: a ${Math.round(bytes / MB)} MB file of Qwen2.5-0.5B's shape (q8_0, random weights), ${THREADS} threads in Chromium (cross-origin isolated: ${samples.browser[0]?.threads} used) and in node-llama-cpp ${NATIVE_VERSION}; ` +
    `the model's Blob from ${samples.browser[0]?.from}. L2, L2n and L2a are from the request to the first token through the model's API (the round's own work before the request is left out), ` +
    `with the messages a round sends a small model (a system message the same everywhere, the session's state with each question, answers of ${ANSWER_TOKENS} tokens). ` +
    `Prompt tokens read (reused) by the first question, L2n and L2 (its read-ahead): Chromium ${tokenCounts(samples.browser[0]?.tokens)}; native ${tokenCounts(samples.native[0]?.tokens)}. ` +
    `L2a-t: the new load took ${Math.round(median(samples.browser.map((s) => s.typed.loadMs)))} ms, the load and the read of the question's start were done ${Math.round(median(samples.browser.map((s) => s.typed.readyAfterMs)))} ms after the first key, ` +
    `and the question then read ${tokenCounts([samples.browser[0]?.typed.tokens])} (the native baseline is L2a's: no load, the whole prompt read at the send). ` +
    `L4 and Firefox's and WebKit's decoding are the next parts' rows. Medians of ${reps}.`;
  return { rows, samples, notes };
}
