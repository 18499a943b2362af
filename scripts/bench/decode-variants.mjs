#!/usr/bin/env node
// `node scripts/bench/decode-variants.mjs [--dist dist] [--rounds 2] [--only "name,name"]` (names as listed below): why
// the model in the tab decodes slower in Chromium than in Firefox. The same 0.5B-shape file
// (bench.gguf, as `--only model` writes it) loaded through the app's model worker in Chromium
// under V8 flag variants (optimizing tier only, baseline tier only, no bounds checks, Memory64
// bounds checks by trap handling) and on 1 and 2 threads, with native llama.cpp's decode in the
// same run (Chromium 156 has no switch that turns JSPI or Memory64 off, so wllama's wasm32
// compatible build is not among them); the
// variants take turns, round by round, so that other load on the machine falls on all alike.
// Each prints decode milliseconds per token of three decodes in a row (the later ones after
// V8 had time to optimize) and prompt reading in tokens per second.
import path from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../chromium.mjs';
import { nativeDecode, servedBenchModel } from './local-model.mjs';
import { serve } from './server.mjs';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const DIST = path.resolve(option('--dist') ?? 'dist');
const ROUNDS = Number(option('--rounds') ?? 2);
const log = (...a) => console.error('[variants]', ...a);
/** Tokens per decode (the first, which carries the prompt, is left out of the time per token). */
const DECODE = 24;
/** A prompt of about 150 tokens, with a different start each time so that no cached state is reused. */
const PROMPT = (n) => `${n}. ` + 'The quick brown fox jumps over the lazy dog while the spreadsheet counts apples, bananas and cherries. '.repeat(7);

const VARIANTS = [
  { name: 'chromium', engine: 'chromium', flags: [], threads: 2 },
  { name: 'chromium 1 thread', engine: 'chromium', flags: [], threads: 1 },
  { name: 'chromium --no-liftoff (optimizing tier only)', engine: 'chromium', flags: ['--js-flags=--no-liftoff'], threads: 2 },
  { name: 'chromium --no-wasm-tier-up (baseline tier only)', engine: 'chromium', flags: ['--js-flags=--no-wasm-tier-up'], threads: 2 },
  { name: 'chromium --no-wasm-bounds-checks (for testing only)', engine: 'chromium', flags: ['--js-flags=--no-wasm-bounds-checks'], threads: 2 },
  { name: 'chromium --wasm-memory64-trap-handling', engine: 'chromium', flags: ['--js-flags=--wasm-memory64-trap-handling'], threads: 2 },
  { name: 'native', engine: 'native', threads: 2 },
  { name: 'native 1 thread', engine: 'native', threads: 1 },
];

/** In the page: load bench.gguf, decode three times, read a fresh prompt twice. */
async function measureInPage({ threads, DECODE, prompts }) {
  const blob = await (await fetch('models/bench.gguf')).blob();
  const model = await window.pytabs.loadLocalModel({ kind: 'blob', blob }, { nCtx: 1024, seed: 1, maxThreads: threads });
  try {
    const decodes = [];
    for (let i = 0; i < 3; i++) {
      const r = await model.chat([{ role: 'user', content: 'What are the unique tags in data.xlsx?' }], { maxTokens: DECODE + 1, ignoreEnd: true });
      decodes.push(r.decodeMs / Math.max(1, r.completionTokens - 1));
    }
    const reads = [];
    for (const content of prompts) {
      const r = await model.chat([{ role: 'user', content }], { maxTokens: 1 });
      reads.push((r.promptTokens / r.promptMs) * 1000);
    }
    return { decodes, reads, threads: model.info.threads, build: model.info.build, isolated: self.crossOriginIsolated };
  } finally {
    await model.unload();
  }
}

async function runVariant(variant, origin, file, round) {
  const prompts = [PROMPT(round * 2), PROMPT(round * 2 + 1)];
  if (variant.engine === 'native') return nativeDecode(file, variant.threads, DECODE, prompts);
  if (variant.engine === 'chromium') {
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...variant.flags] });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 60_000 });
      return await page.evaluate(measureInPage, { threads: variant.threads, DECODE, prompts });
    } finally {
      await browser.close();
    }
  }
  throw new Error(`no such engine: ${variant.engine}`);
}

async function main() {
  const only = option('--only')?.split(',');
  const variants = only ? VARIANTS.filter((v) => only.includes(v.name)) : VARIANTS;
  const { file, unlink } = await servedBenchModel(DIST, 'bench.gguf', log);
  const server = await serve(DIST);
  const results = new Map(variants.map((v) => [v.name, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of variants) {
        try {
          const r = await runVariant(variant, server.origin, file, round);
          results.get(variant.name).push(r);
          log(variant.name, JSON.stringify(r, (_, v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v)));
        } catch (error) {
          log(variant.name, 'failed:', error.message.split('\n')[0]);
        }
      }
    }
  } finally {
    unlink();
    await server.close();
  }
  // Others' load on the machine only ever slows a decode down, so each variant's fastest decode
  // is the figure closest to its own speed; all of them are printed beside it.
  const best = (rs) => Math.min(...rs.flatMap((r) => r.decodes));
  const nativeMs = best(results.get('native') ?? []);
  console.log('| variant | threads | build | decode ms/token, each | fastest: tokens/s | ÷ native | prompt tokens/s (fastest) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, rs] of results) {
    if (!rs.length) continue;
    const fastest = best(rs);
    console.log(
      `| ${name} | ${rs[0].threads} | ${rs[0].build ?? ''} | ${rs.flatMap((r) => r.decodes).map((v) => v.toFixed(0)).join(', ')} | ${(1000 / fastest).toFixed(1)} | ${(nativeMs / fastest).toFixed(2)} | ${Math.max(...rs.flatMap((r) => r.reads)).toFixed(1)} |`,
    );
  }
}

await main();
