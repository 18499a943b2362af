import { ggufBytes } from '../../scripts/gguf.mjs';
import type { PyTabsApi } from '../../src/lib/api';
import { test, expect } from './fixtures';

// The local model (llama.cpp through wllama, in a worker of its own) on the tiny generated file
// in each engine: it loads from a file beside the app and streams, or the browser is told
// plainly why not. WebKitGTK has neither JSPI nor Memory64, which the build PyTabs ships needs.

const tiny = Buffer.from(ggufBytes({ shape: 'tiny' }));

test('the tiny model loads beside the app and streams an answer, or the browser says why not', async ({ host, person, engineName, hostHeaders }) => {
  // Firefox behind the headers runs llama.cpp on 2 threads: that run hung past the 4-minute limit
  // once in 8, with the machine busy; it is left out until issue 33's work finds why.
  test.skip(engineName === 'firefox' && hostHeaders === 'project', 'hung once in 8 runs with 2 threads in Firefox ESR 153 (issue 33)');
  host.mount('models/', (_req, res, path) => {
    if (path !== '/tiny.gguf') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(tiny.byteLength) }).end(tiny);
  });
  await person.open(host.url);
  const outcome = await person.page.evaluate(async () => {
    const api = (window as unknown as { pytabs: PyTabsApi }).pytabs;
    try {
      const model = await api.loadLocalModel({ kind: 'url', url: 'models/tiny.gguf' }, { seed: 7 });
      let pieces = 0;
      const answer = await model.chat([{ role: 'user', content: 'Hello' }], { maxTokens: 24, ignoreEnd: true, onText: () => pieces++ });
      await model.unload();
      return { ok: true as const, info: model.info, pieces, answer, isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency };
    } catch (error) {
      return { ok: false as const, error: (error as Error).message };
    }
  });
  if (engineName === 'webkit') {
    expect(outcome).toEqual({ ok: false, error: 'This browser lacks WebAssembly JSPI and WebAssembly Memory64, which the local model needs here.' });
    return;
  }
  if (!outcome.ok) throw new Error(`the model did not load: ${outcome.error}`);
  expect(outcome.info).toMatchObject({ architecture: 'qwen2', nVocab: 515, backend: 'cpu' });
  expect(outcome.info.threads).toBe(outcome.isolated ? Math.min(outcome.cores, 4) : 1);
  if (!outcome.isolated) expect(outcome.info.threadsReason).toContain('not cross-origin isolated');
  expect(outcome.pieces).toBeGreaterThan(0);
  expect(outcome.answer).toMatchObject({ finish: 'length', completionTokens: 24, pieces: outcome.pieces });
  console.log(
    `${engineName}: loaded in ${outcome.info.loadMs} ms on ${outcome.info.threads} thread(s), ` +
      `${((outcome.answer.completionTokens * 1000) / outcome.answer.decodeMs).toFixed(1)} tokens/s`,
  );
});
