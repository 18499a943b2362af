import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Locator, type Page, type Worker } from '@playwright/test';
import { ggufBytes } from '../../scripts/gguf.mjs';
import type { ModelSource } from '../../src/lib/local-model/client';
import { FIRST_RUN, firstSessionId, openApp, reply, send } from './app';
import { MODEL_URL, modelWorkers, serveModel, TINY } from './local-models';


// The local model on real llama.cpp (wllama's wasm) in Chromium, on a tiny qwen2 file of random
// weights written here (scripts/gguf.mjs): it answers nonsense, so these tests check the
// mechanics (a worker of its own, streaming, stop, schema, errors, unload), never the words.

const tiny = TINY;

/** Loads the tiny model by address (seeded, so answers repeat) and keeps it in `window.testModel`. */
async function loadTiny(page: Page) {
  return page.evaluate(async (url) => {
    const progress: { phase: string; loaded: number; total: number }[] = [];
    const model = await window.pytabs!.loadLocalModel({ kind: 'url', url }, { seed: 7, onProgress: (p) => progress.push(p) });
    window.testModel = model;
    return { info: model.info, progress };
  }, MODEL_URL);
}

test('a model beside the app loads in a worker of its own, streams, stops, answers under a schema, and unloads', async ({ page }) => {
  // A schema's answer can take a few hundred tokens of whitespace and string: a minute on a busy machine.
  test.setTimeout(240_000);
  await serveModel(page);
  await openApp(page);
  const { info, progress } = await loadTiny(page);

  expect(info).toMatchObject({ architecture: 'qwen2', backend: 'cpu', chatTemplate: true, fileBytes: tiny.byteLength, nLayer: 2, nEmbd: 64 });
  // The file's 512 tokens and 3 special ones: a file the wasm could not hold would say 0.
  expect(info.nVocab).toBe(515);
  // Capped at what the file says it was trained on.
  expect(info.nCtx).toBe(2048);
  // llama.cpp's own buffer sizes, read from its log: the weights within the file, a KV cache and scratch for 2048 tokens.
  expect(info.buffers.model).toBeGreaterThan(0);
  expect(info.buffers.model).toBeLessThanOrEqual(tiny.byteLength);
  expect(info.buffers.kv).toBeGreaterThan(0);
  expect(info.buffers.compute).toBeGreaterThan(0);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(info.threads).toBe(Math.min(cores, 4));
  // Said, for Settings to tell in the reader's language.
  expect(info.threadsReason).toEqual({ key: cores > 4 ? 'rtw_model_threads_capped' : 'rtw_model_threads', params: { threads: Math.min(cores, 4), cores } });
  expect(progress[0]).toEqual({ phase: 'download', loaded: expect.any(Number), total: tiny.byteLength });
  expect(progress.at(-1)).toEqual({ phase: 'load', loaded: tiny.byteLength, total: tiny.byteLength });
  // Our worker, and wllama's (started by ours, from a blob), where the wasm runs.
  const running = await modelWorkers(page);
  expect(running.filter((url) => !url.startsWith('blob:'))).toHaveLength(1);
  expect(running.some((url) => url.startsWith('blob:'))).toBe(true);
  // The page's bundle does not carry the runtime: the worker's chunk does.
  const indexScript = readdirSync('dist/assets').find((name) => /^index-.*\.js$/.test(name))!;
  expect(readFileSync(`dist/assets/${indexScript}`, 'utf8')).not.toMatch(/wllama/i);

  // Streams: pieces arrive one by one before the answer resolves.
  const streamed = await page.evaluate(async () => {
    const arrivals: number[] = [];
    const result = await window.testModel!.chat([{ role: 'user', content: 'Print the first rows of data.xlsx' }], {
      maxTokens: 120,
      ignoreEnd: true,
      onText: () => arrivals.push(performance.now()),
    });
    return { result, arrivals, done: performance.now() };
  });
  expect(streamed.arrivals.length).toBeGreaterThan(10);
  expect(streamed.result.pieces).toBe(streamed.arrivals.length);
  expect(streamed.result.finish).toBe('length');
  expect(streamed.result.completionTokens).toBe(120);
  expect(streamed.result.promptTokens).toBeGreaterThan(5);
  expect(streamed.arrivals[0]).toBeLessThan(streamed.arrivals.at(-1)!);
  expect(streamed.arrivals.at(-1)!).toBeLessThanOrEqual(streamed.done);
  console.log(
    `tiny model: ${tiny.byteLength} bytes, loaded in ${info.loadMs} ms, ${info.threads} threads; ` +
      `prompt ${streamed.result.promptTokens} tokens in ${Math.round(streamed.result.promptMs)} ms, ` +
      `${streamed.result.completionTokens} tokens at ${((streamed.result.completionTokens * 1000) / streamed.result.decodeMs).toFixed(1)} tokens/s`,
  );

  // Stop mid-answer: the answer ends promptly with what it had, and the model answers again after.
  const stopped = await page.evaluate(async () => {
    const model = window.testModel!;
    const stop = new AbortController();
    let pieces = 0;
    let stoppedAt = 0;
    const result = await model.chat([{ role: 'user', content: 'Write a long story' }], {
      maxTokens: 1500,
      ignoreEnd: true,
      onText: () => {
        if (++pieces === 5) {
          stoppedAt = performance.now();
          stop.abort();
        }
      },
      signal: stop.signal,
    });
    const endedAfter = performance.now() - stoppedAt;
    const again = await model.chat([{ role: 'user', content: 'Hello' }], { maxTokens: 8, ignoreEnd: true });
    return { result, endedAfter, pieces, again };
  });
  expect(stopped.result.finish).toBe('stopped');
  expect(stopped.result.text.length).toBeGreaterThan(0);
  expect(stopped.pieces).toBeLessThan(40);
  expect(stopped.endedAfter).toBeLessThan(3000);
  expect(stopped.again.finish).toBe('length');
  expect(stopped.again.pieces).toBeGreaterThan(0);

  // Work done ahead (a background request) gives way to a question: it stops, the question is answered.
  const ahead = await page.evaluate(async () => {
    const model = window.testModel!;
    let started!: () => void;
    const streaming = new Promise<void>((resolve) => (started = resolve));
    const background = model.chat([{ role: 'user', content: 'Read this ahead' }], { maxTokens: 1500, ignoreEnd: true, background: true, onText: () => started() });
    await streaming;
    const asked = await model.chat([{ role: 'user', content: 'Hello' }], { maxTokens: 8, ignoreEnd: true });
    return { background: await background, asked };
  });
  expect(ahead.background.finish).toBe('stopped');
  expect(ahead.background.completionTokens).toBeLessThan(1500);
  expect(ahead.asked).toMatchObject({ finish: 'length', completionTokens: 8 });

  // A turn constrained to a tool call's schema parses, and matches it.
  const call = await page.evaluate(async () => {
    const model = window.testModel!;
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', enum: ['run_python', 'list_variables'] },
        arguments: { type: 'object', properties: { code: { type: 'string', maxLength: 16 } }, required: ['code'], additionalProperties: false },
      },
      required: ['name', 'arguments'],
      additionalProperties: false,
    };
    return model.json([{ role: 'user', content: 'What are the unique tags in data.xlsx?' }], { name: 'tool_call', schema }, { maxTokens: 600 });
  });
  const value = call.value as { name: string; arguments: { code: string } };
  expect(JSON.parse(call.text)).toEqual(value);
  expect(['run_python', 'list_variables']).toContain(value.name);
  expect(Object.keys(value).sort()).toEqual(['arguments', 'name']);
  expect(Object.keys(value.arguments)).toEqual(['code']);
  expect(typeof value.arguments.code).toBe('string');
  expect(value.arguments.code.length).toBeLessThanOrEqual(16);

  // Unload ends the worker (and wllama's within it); the model answers no more.
  const after = await page.evaluate(async () => {
    const model = window.testModel!;
    await model.unload();
    return model.chat([{ role: 'user', content: 'Hello' }]).then(
      () => 'answered',
      (error: Error) => error.message,
    );
  });
  expect(after).toContain('unloaded');
  // wllama's worker and llama.cpp's threads went with it.
  await expect.poll(() => modelWorkers(page)).toEqual([]);
});

test("a prompt longer than the model's context is refused with llama.cpp's count, which the page fits prompts by", async ({ page }) => {
  await serveModel(page);
  await openApp(page);
  await loadTiny(page);
  const refused = await page.evaluate(async () => {
    const long = Array.from({ length: 3000 }, (_, i) => String((i * 7919) % 10007)).join(' ');
    const error = await window.testModel!.chat([{ role: 'user', content: long }], { maxTokens: 8 }).catch((e: unknown) => e as Error);
    return error instanceof Error ? { name: error.name, message: error.message } : null;
  });
  expect(refused?.name).toBe('PromptTooLong');
  const [, prompt, context] = /^The prompt is (\d+) tokens, and the model's context holds (\d+)\.$/.exec(refused!.message)!;
  expect(Number(prompt)).toBeGreaterThan(Number(context));
  await page.evaluate(() => window.testModel!.unload());
});

test("a session's Python keeps running while the model answers", async ({ page }) => {
  await serveModel(page);
  await openApp(page);
  const id = await firstSessionId(page);
  // Python started first, so the run below measures running, not booting.
  await expect.poll(() => page.evaluate((id) => window.pytabs!.run(id, '1 + 1').then((r) => r.result?.['text/plain']), id), FIRST_RUN).toBe('2');
  await loadTiny(page);

  // The page's thread is not the one computing: its busy time (Chromium's own count of the
  // tasks it ran) grows by far less than llama.cpp's time reading the prompt and decoding.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const pageBusy = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value * 1000;
  const busyBefore = await pageBusy();
  const answered = await page.evaluate(() => window.testModel!.chat([{ role: 'user', content: 'Describe data.xlsx' }], { maxTokens: 120, ignoreEnd: true, onText: () => undefined }));
  const busy = (await pageBusy()) - busyBefore;
  console.log(`page thread busy ${Math.round(busy)} ms while llama.cpp computed ${Math.round(answered.promptMs + answered.decodeMs)} ms`);
  expect(answered.completionTokens).toBe(120);
  expect(busy).toBeLessThan((answered.promptMs + answered.decodeMs) / 2);

  const both = await page.evaluate(async (id) => {
    const model = window.testModel!;
    let pieces = 0;
    let piecesWhenPythonAnswered = -1;
    const answer = model.chat([{ role: 'user', content: 'Explain the table' }], { maxTokens: 300, ignoreEnd: true, onText: () => pieces++ });
    // Once the model is streaming, a cell runs in the session.
    while (pieces < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    const run = await window.pytabs!.run(id, 'sum(range(10**6))');
    piecesWhenPythonAnswered = pieces;
    const result = await answer;
    return { python: run.result?.['text/plain'], piecesWhenPythonAnswered, total: result.pieces, finish: result.finish };
  }, id);
  expect(both.python).toBe('499999500000');
  expect(both.finish).toBe('length');
  // Python answered while the model was still part-way through its answer.
  expect(both.piecesWhenPythonAnswered).toBeGreaterThanOrEqual(3);
  expect(both.piecesWhenPythonAnswered).toBeLessThan(both.total);
});

test('files that are not a whole GGUF model of a known architecture get plain errors and leave no worker', async ({ page }) => {
  await serveModel(page, Buffer.from(ggufBytes({ shape: 'tiny', architecture: 'nosuch' })), 'models/nosuch.gguf');
  await serveModel(page, Buffer.from('<!doctype html><title>Not found</title>'), 'models/page.gguf');
  await openApp(page);
  const errors = await page.evaluate(async (bytes: string) => {
    const file = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
    const load = (source: ModelSource) =>
      window.pytabs!.loadLocalModel(source).then(
        async (model) => {
          await model.unload();
          return `loaded ${model.info.nVocab}`;
        },
        (error: Error) => error.message,
      );
    return {
      notGguf: await load({ kind: 'url', url: 'models/page.gguf' }),
      missing: await load({ kind: 'url', url: 'models/none.gguf' }),
      otherSite: await load({ kind: 'url', url: 'https://example.com/model.gguf' }),
      cut: await load({ kind: 'blob', blob: new Blob([file.subarray(0, file.length - 4096)]) }),
      cutInHeader: await load({ kind: 'blob', blob: new Blob([file.subarray(0, 3000)]) }),
      empty: await load({ kind: 'blob', blob: new Blob([]) }),
      unknownArchitecture: await load({ kind: 'url', url: 'models/nosuch.gguf' }),
      // A file the person picked, whole: it loads.
      picked: await load({ kind: 'blob', blob: new File([file], 'tiny.gguf') }),
    };
  }, tiny.toString('base64'));
  expect(errors.notGguf).toBe('This is not a GGUF model file (it does not start with "GGUF").');
  // vite preview, like many hosts, answers a missing file with the app's page.
  expect(errors.missing).toBe('The address gave a web page, not a model file: is the file at /models/none.gguf?');
  expect(errors.otherSite).toContain("on this app's own site");
  expect(errors.cut).toMatch(/cut short: its tensors need \d+ bytes and it has \d+/);
  expect(errors.cutInHeader).toContain('cut short');
  expect(errors.empty).toBe('The model file is empty.');
  expect(errors.unknownArchitecture).toBe('This model\'s architecture ("nosuch") is not one this version of llama.cpp knows.');
  expect(errors.picked).toBe('loaded 515');
  // Every failed load ended its worker.
  await expect.poll(() => modelWorkers(page)).toEqual([]);

  // One model per page: loading a second unloads the first.
  const second = await page.evaluate(async (bytes: string) => {
    const blob = new Blob([Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0))]);
    const first = await window.pytabs!.loadLocalModel({ kind: 'blob', blob });
    window.testModel = await window.pytabs!.loadLocalModel({ kind: 'blob', blob });
    return first.chat([{ role: 'user', content: 'Hello' }]).then(
      () => 'answered',
      (error: Error) => error.message,
    );
  }, tiny.toString('base64'));
  expect(second).toBe('The local model was unloaded.');
  await expect.poll(async () => (await modelWorkers(page)).filter((url) => !url.startsWith('blob:')).length).toBe(1);
});

test('in French, a model file llama.cpp refuses says why in French, in the chat and in Settings', async ({ page }) => {
  test.setTimeout(180_000);
  // A whole GGUF file, kept without a complaint: only llama.cpp, in the model's worker, refuses it.
  const nosuch = Buffer.from(ggufBytes({ shape: 'tiny', architecture: 'nosuch', name: 'Nosuch' }));
  const refusal = 'L’architecture de ce modèle (« nosuch ») n’est pas connue de cette version de llama.cpp.';
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'fr'));
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');

  await page.getByRole('button', { name: 'Réglages' }).click();
  const dialog = page.getByRole('dialog', { name: 'Réglages' });
  await dialog.getByRole('radio', { name: 'Un modèle dans ce navigateur' }).check();
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Ajouter un fichier de modèle' }).click();
  await (await chooser).setFiles({ name: 'nosuch.gguf', mimeType: 'application/octet-stream', buffer: nosuch });
  await expect(dialog.getByRole('radio', { name: /^Nosuch/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Enregistrer les réglages' }).click();
  await expect(page.getByText('Réglages enregistrés.')).toBeVisible();

  await page.getByRole('radiogroup', { name: 'Type de message' }).getByRole('radio', { name: 'Demander' }).check();
  await page.getByRole('textbox', { name: 'Message' }).fill('Combien font 6 × 7 ?');
  await page.getByRole('button', { name: 'Envoyer', exact: true }).click();
  const answer = page.getByRole('group', { name: 'Réponse au message 1' });
  await expect(answer).toContainText(refusal, { timeout: 120_000 });
  await expect(answer).not.toContainText('architecture ("nosuch")');

  await page.getByRole('button', { name: 'Réglages' }).click();
  await expect(dialog.getByRole('status', { name: 'Modèle dans ce navigateur' })).toHaveText(`Il n’a pas pu être chargé : ${refusal}`);
});

/**
 * A tiny model that prefers '"' and then 'r' over every other token (scripts/gguf.mjs `prefer`):
 * under the turn's schema it calls run_python (the only name starting with r) with the code "r"
 * (a string must not be empty, and then it closes): what random weights do becomes known, so the
 * round's mechanics can be checked end to end. It says nothing sensible, and need not.
 */
const prefersR = Buffer.from(ggufBytes({ shape: 'tiny', prefer: ['"', 'r'], name: 'Prefers r' }));

/** The session's first round, in Code mode, binds r = 42 (what the test models are asked about); returns the mode switch. */
async function holdR(page: Page): Promise<Locator> {
  const mode = page.getByRole('radiogroup', { name: 'Message mode' });
  await mode.getByRole('radio', { name: 'Code' }).check();
  await send(page, 'r = 42');
  await expect(reply(page, 1)).toContainText('Done', FIRST_RUN);
  return mode;
}

/** Settings → Assistant → A model in this browser → Add a model file: the Prefers r model, chosen. */
async function addPrefersR(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('radio', { name: 'A model in this browser' }).check();
  await expect(dialog.getByText('None yet: add a GGUF file')).toBeVisible();
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Add a model file' }).click();
  await (await chooser).setFiles({ name: 'prefers-r.gguf', mimeType: 'application/octet-stream', buffer: prefersR });
  await expect(dialog.getByRole('radio', { name: /^Prefers r \(431 KB\)/ })).toBeChecked();
  return dialog;
}

test('Ask with the model in this browser: added in Settings, its turn runs code in the session and hears the output; kept after a reload, offline, and removed', async ({ page, context }) => {
  test.setTimeout(300_000);
  await openApp(page);
  const id = await firstSessionId(page);

  const dialog = await addPrefersR(page);
  // A file that is not a model is refused, and the kept one stays.
  const bad = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Add a model file' }).click();
  await (await bad).setFiles({ name: 'notes.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model at all, just words') });
  await expect(dialog.getByRole('alert')).toContainText('notes.gguf');
  await expect(dialog.getByRole('radio', { name: /^Prefers r/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();

  // The session holds r = 42; then a question in Ask mode.
  const mode = await holdR(page);
  await mode.getByRole('radio', { name: 'Ask' }).check();
  await send(page, 'What is r?');
  const answer = reply(page, 2);
  await expect(answer).toContainText('Loading Prefers r');
  // The model's constrained turn called run_python with "r"; it ran in this session and gave 42.
  const card = answer.getByRole('group', { name: 'Code 1' });
  await expect(card).toContainText('42', { timeout: 120_000 });
  // It asks again with the output in its prompt, and again, until the runs' limit ends the round.
  await expect(answer).toContainText('a question runs at most 8 times', { timeout: 180_000 });
  await expect(answer.getByRole('group', { name: 'Code 2' })).toContainText('42');

  const usage = await page.evaluate(async (id) => {
    const rounds = await window.pytabs!.history(id).list<import('../../src/lib/chat/types').Round>();
    const round = rounds.find((r) => r.kind === 'ask')!;
    return round.events.flatMap((e) => (e.type === 'usage' ? [{ step: e.step, prompt: e.promptTokens }] : []));
  }, id);
  // Each turn's prompt holds the last: its call and the output ("Output of run_python: ... 42") came on top.
  expect(usage.length).toBeGreaterThanOrEqual(2);
  expect(usage[1].prompt).toBeGreaterThan(usage[0].prompt + 10);

  // Kept: after a reload, and with the network cut, the kept model answers again.
  await page.reload();
  await openApp(page);
  await expect.poll(() => page.evaluate(() => window.pytabsOffline?.status.offline), { timeout: 60_000 }).toBe('ready');
  await context.setOffline(true);
  await page.reload();
  await openApp(page);
  // As offline.spec.ts found: a page that reloaded under the emulation is told again that it is offline.
  await context.setOffline(false);
  await context.setOffline(true);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await send(page, 'And now?');
  const offline = reply(page, 3);
  await expect(offline.getByRole('group', { name: 'Code 1' })).toContainText('42', { timeout: 180_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(offline).toContainText('Stopped');

  // Remove gives the space back.
  await page.getByRole('button', { name: 'Settings' }).click();
  await dialog.getByRole('button', { name: 'Remove Prefers r' }).click();
  await expect(dialog.getByText('None yet: add a GGUF file')).toBeVisible();
  expect(await page.evaluate(async () => (await caches.has('pytabs-models')) && (await (await caches.open('pytabs-models')).keys()).length)).toBe(0);

  // A kept file the browser evicted: the question says so, and what to do.
  const again = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Add a model file' }).click();
  await (await again).setFiles({ name: 'prefers-r.gguf', mimeType: 'application/octet-stream', buffer: prefersR });
  await expect(dialog.getByRole('radio', { name: /^Prefers r/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();
  await page.evaluate(async () => {
    const cache = await caches.open('pytabs-models');
    for (const key of await cache.keys()) await cache.delete(key);
  });
  // A new page: the model is loaded again for the next question.
  await page.reload();
  await openApp(page);
  await send(page, 'Still there?');
  await expect(reply(page, 4)).toContainText('This model is no longer kept in this browser', { timeout: 60_000 });
});

test('downloads: the site’s models.json list and an address, with progress, Stop, a cut network resumed by range, and checks before anything is kept', async ({ page }) => {
  test.setTimeout(240_000);
  const sha256 = createHash('sha256').update(tiny).digest('hex');
  // The list a deployer puts beside the app: the tiny model, and one whose sha256 is wrong.
  await page.context().route('**/models.json', (route) =>
    route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({
        models: [
          { name: 'Tiny test model', file: 'models/tiny.gguf', size: tiny.byteLength, sha256, licence: 'MIT', about: 'Random weights, for tests' },
          { name: 'Damaged copy', file: 'models/damaged.gguf', size: tiny.byteLength, sha256: '0'.repeat(64) },
          { name: 'Not listed right', file: 'models/x.gguf' },
        ],
      }),
    }),
  );
  await serveModel(page);
  await serveModel(page, tiny, 'models/damaged.gguf');

  // Another model (other weights) on a host of another site that allows CORS and ranges: its first answer stops halfway (the
  // connection drops), or hangs halfway for the Stop test.
  const other = Buffer.from(ggufBytes({ shape: 'tiny', seed: 2 }));
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const headers = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'range', 'Content-Type': 'application/octet-stream' };
    if (req.method === 'OPTIONS') return void res.writeHead(204, headers).end();
    requests.push(`${req.url} ${req.headers.range ?? 'whole'}`);
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      const from = Number(range[1]);
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${from}-${other.byteLength - 1}/${other.byteLength}`, 'Content-Length': String(other.byteLength - from) });
      return void res.end(other.subarray(from));
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(other.byteLength) });
    res.write(other.subarray(0, 200_000));
    if (req.url === '/drops.gguf') setTimeout(() => res.destroy(), 300);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  try {
    await openApp(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('radio', { name: 'A model in this browser' }).check();
    const offered = dialog.getByRole('list', { name: 'Models this site offers' });
    // An entry without size and sha256 is not offered.
    await expect(offered.getByRole('listitem')).toHaveCount(2);
    await expect(offered).toContainText('Tiny test model (431 KB, MIT) — Random weights, for tests');

    // The damaged copy downloads, fails its check, and nothing is kept.
    await dialog.getByRole('button', { name: 'Download Damaged copy' }).click();
    await expect(dialog.getByRole('alert')).toContainText('sha256 is not the one the list gives');
    await expect(dialog.getByText('None yet: add a GGUF file')).toBeVisible();

    // The listed one: kept, chosen, and marked as kept in the list.
    await dialog.getByRole('button', { name: 'Download Tiny test model' }).click();
    await expect(dialog.getByRole('radio', { name: /^Tiny test model \(431 KB, MIT\)/ })).toBeChecked();
    await expect(offered.getByRole('listitem').first()).toContainText('Kept');

    // Stop: the host hangs halfway; the progress shows the bytes so far; Stop keeps nothing.
    const address = dialog.getByRole('textbox', { name: 'Download from an address' });
    await address.fill(`${origin}/hangs.gguf`);
    await dialog.getByRole('button', { name: 'Download from the address' }).click();
    await expect(dialog.getByRole('status').filter({ hasText: 'Downloading' })).toContainText('of 431 KB');
    await dialog.getByRole('button', { name: 'Stop download' }).click();
    await expect(dialog.getByRole('alert')).toContainText('stopped; nothing was kept');
    await expect(dialog.getByRole('list', { name: 'Models kept in this browser' }).getByRole('listitem')).toHaveCount(1);

    // A dropped connection: resumed from where the bytes stopped, with a range request.
    await address.fill(`${origin}/drops.gguf`);
    await dialog.getByRole('button', { name: 'Download from the address' }).click();
    await expect(dialog.getByRole('list', { name: 'Models kept in this browser' }).getByRole('listitem')).toHaveCount(2, { timeout: 60_000 });
    expect(requests.filter((r) => r.startsWith('/drops.gguf'))).toEqual(['/drops.gguf whole', expect.stringMatching(/^\/drops\.gguf bytes=\d+-$/)]);
    // Named from the file: an address gives no name.
    await expect(dialog.getByRole('radio', { name: /^PyTabs test model/ })).toBeChecked();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("two sessions ask the page's one model at once on a slow machine: each round's run is its own session's", async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page);
  const dialog = await addPrefersR(page);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();
  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  // Session 1 holds r = 42, Session 2 r = 7.
  const mode = await holdR(page);
  await page.getByRole('button', { name: 'New session' }).click();
  await expect(tab('Session 2')).toHaveAttribute('aria-selected', 'true');
  await mode.getByRole('radio', { name: 'Code' }).check();
  await send(page, 'r = 7');
  await expect(reply(page, 1)).toContainText('Done', FIRST_RUN);

  // On a machine four times slower, Session 2 asks, then Session 1 while Session 2's round is
  // under way (the model loading or answering), then Session 2 runs code of its own meanwhile.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await mode.getByRole('radio', { name: 'Ask' }).check();
  await send(page, 'What is r?');
  await tab('Session 1').click();
  await mode.getByRole('radio', { name: 'Ask' }).check();
  await send(page, 'What is r?');
  await tab('Session 2').click();
  await expect(reply(page, 2)).toBeVisible();

  // Each round's first run printed its own session's r, however the two shared the model.
  const firstRun = reply(page, 2).getByRole('group', { name: 'Code 1' });
  await expect(firstRun).toContainText(/Out\s*7\s*$/, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('Stopped', { timeout: 60_000 });
  await mode.getByRole('radio', { name: 'Code' }).check();
  await send(page, 'r * 2');
  await expect(reply(page, 3)).toContainText('14', { timeout: 60_000 });

  await tab('Session 1').click();
  const other = reply(page, 2).getByRole('group', { name: 'Code 1' });
  await expect(other).toContainText(/Out\s*42\s*$/, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('Stopped', { timeout: 60_000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
});

test('a model worker that stops answering is ended: while loading it is tried once more in a new worker; while answering, the request fails plainly and the worker is ended', async ({ page }) => {
  test.setTimeout(180_000);
  await serveModel(page);
  // The page's terminations of workers, counted (a worker stalled through DevTools stays in the
  // browser's list of workers after it was ended, so that list cannot tell here).
  await page.addInitScript(() => {
    const terminate = Worker.prototype.terminate;
    const counted = window as unknown as { testTerminations: number };
    counted.testTerminations = 0;
    Worker.prototype.terminate = function (this: Worker) {
      counted.testTerminations++;
      return terminate.call(this);
    };
  });
  const terminations = () => page.evaluate(() => (window as unknown as { testTerminations: number }).testTerminations);
  await openApp(page);
  // The stuck worker that Firefox gave about once in thirty loads (its thread never came back
  // from starting wllama's worker), made here by keeping a model worker's thread busy for ever.
  const ours = /\/assets\/model\.worker-[^/]+\.js$/;
  const started: Worker[] = [];
  const stall = (worker: Worker) => void worker.evaluate(() => { for (;;); }).catch(() => undefined);
  page.on('worker', (worker) => {
    if (!ours.test(worker.url())) return;
    if (started.push(worker) === 1) stall(worker);
  });

  const { info } = await loadTiny(page);
  expect(info.nVocab).toBe(515);
  // The first worker was ended, and a second one loaded the model.
  expect(started).toHaveLength(2);
  expect(await terminations()).toBe(1);

  // Stuck while answering: the request fails with the reason, and the model counts as unloaded, its worker ended.
  const answering = page.evaluate(async () => {
    const model = window.testModel!;
    let pieces = 0;
    (window as unknown as { testPieces: () => number }).testPieces = () => pieces;
    try {
      await model.chat([{ role: 'user', content: 'Hello' }], { maxTokens: 100_000, ignoreEnd: true, onText: () => pieces++ });
      return { failed: '', unloaded: model.unloaded };
    } catch (error) {
      return { failed: (error as Error).message, unloaded: model.unloaded };
    }
  });
  await expect.poll(() => page.evaluate(() => (window as unknown as { testPieces?: () => number }).testPieces?.() ?? 0), { timeout: 60_000 }).toBeGreaterThan(3);
  stall(started[1]!);
  expect(await answering).toEqual({ failed: 'The local model’s worker stopped answering, so it was ended. Ask again to load the model again.', unloaded: true });
  expect(await terminations()).toBe(2);
});

test("a load whose runtime worker goes quiet (wllama's, started by ours) is tried once more in a new worker", async ({ page }) => {
  test.setTimeout(240_000);
  await serveModel(page);
  await openApp(page);
  // wllama's worker, kept busy for ever as soon as it exists: it never answers the load. Ours keeps
  // answering the page, so only the silence tells (Firefox once in a while).
  const runtimes: Worker[] = [];
  const ours: Worker[] = [];
  page.on('worker', (worker) => {
    if (/\/assets\/model\.worker-[^/]+\.js$/.test(worker.url())) ours.push(worker);
    if (worker.url().startsWith('blob:') && runtimes.push(worker) === 1) void worker.evaluate(() => { for (;;); }).catch(() => undefined);
  });
  const { info } = await loadTiny(page);
  expect(info.nVocab).toBe(515);
  expect(runtimes.length).toBeGreaterThanOrEqual(2);
  expect(ours).toHaveLength(2);
});

/** Cuts the network of the page's context and reloads it: the kept app opens offline. */
async function reloadOffline(page: Page) {
  await page.context().setOffline(true);
  await page.reload();
  await openApp(page);
  // As offline.spec.ts found: a page that reloaded under the emulation is told again that it is offline.
  await page.context().setOffline(false);
  await page.context().setOffline(true);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
}

test('a listed model downloaded and never asked answers offline; one whose runtime was not kept says so and what to do', async ({ page }) => {
  test.setTimeout(300_000);
  const sha256 = createHash('sha256').update(prefersR).digest('hex');
  await page.context().route('**/models.json', (route) =>
    route.fulfill({ contentType: 'application/json', body: JSON.stringify({ models: [{ name: 'Prefers r', file: 'models/prefers-r.gguf', size: prefersR.byteLength, sha256 }] }) }),
  );
  await serveModel(page, prefersR, 'models/prefers-r.gguf');
  await openApp(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('radio', { name: 'A model in this browser' }).check();
  await dialog.getByRole('button', { name: 'Download Prefers r' }).click();
  await expect(dialog.getByRole('radio', { name: /^Prefers r \(431 KB\)/ })).toBeChecked();
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();

  const mode = await holdR(page);
  await expect.poll(() => page.evaluate(() => window.pytabsOffline?.status.offline), { timeout: 60_000 }).toBe('ready');
  // Nothing asked: the model never ran on this page.
  expect(await modelWorkers(page)).toEqual([]);

  await reloadOffline(page);
  await mode.getByRole('radio', { name: 'Ask' }).check();
  await send(page, 'What is r?');
  await expect(reply(page, 2).getByRole('group', { name: 'Code 1' })).toContainText('42', { timeout: 180_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('Stopped');

  // A model kept before its runtime was (or whose runtime the browser dropped): offline, Ask and
  // Settings say what is missing and what to do, instead of the worker's failure.
  await page.evaluate(() => caches.delete('pytabs-model-runtime'));
  await reloadOffline(page);
  await send(page, 'And now?');
  await expect(reply(page, 3)).toContainText('runtime (llama.cpp for this browser) was not kept for offline use on this device', { timeout: 60_000 });
  await expect(reply(page, 3)).toContainText('Go online once');
  await expect(reply(page, 3)).not.toContainText('worker failed');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByRole('alert')).toContainText('was not kept for offline use');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Online once: Settings keeps it, and the model answers offline again.
  await page.context().setOffline(false);
  await page.reload();
  await openApp(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByRole('radio', { name: /^Prefers r/ })).toBeChecked();
  await expect.poll(() => page.evaluate(async () => (await (await caches.open('pytabs-model-runtime')).keys()).length), { timeout: 30_000 }).toBe(2);
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await reloadOffline(page);
  await send(page, 'Once more?');
  await expect(reply(page, 4).getByRole('group', { name: 'Code 1' })).toContainText('42', { timeout: 180_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 4)).toContainText('Stopped');
});

test('writing a question in Ask loads the model and has it read the question’s start; a page that only runs code never loads it', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const id = await firstSessionId(page);
  const dialog = await addPrefersR(page);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();
  const status = dialog.getByRole('status', { name: 'Model in this browser' });

  // Code typed and run, a reload, time passing: no model.
  const mode = await holdR(page);
  await page.reload();
  await openApp(page);
  await page.waitForTimeout(3000);
  expect(await modelWorkers(page)).toEqual([]);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(status).toContainText('Not loaded');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // The first keys of a question in Ask mode start the load, before anything is sent.
  await mode.getByRole('radio', { name: 'Ask' }).check();
  await page.getByRole('textbox', { name: 'Message' }).pressSequentially('What is');
  await expect.poll(() => modelWorkers(page), { timeout: 30_000 }).not.toEqual([]);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(status).toContainText('Loaded: Prefers r', { timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await page.evaluate((id) => window.pytabs!.history(id).list().then((rounds) => rounds.length), id)).toBe(1);

  // Sent: the model had read the prompt up to the question, so the question reads little more.
  await page.getByRole('textbox', { name: 'Message' }).pressSequentially(' r?');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(reply(page, 2).getByRole('group', { name: 'Code 1' })).toContainText('42', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('Stopped');
  const first = await page.evaluate(async (id) => {
    const rounds = await window.pytabs!.history(id).list<import('../../src/lib/chat/types').Round>();
    const round = rounds.find((r) => r.kind === 'ask')!;
    return round.events.find((e) => e.type === 'usage' && e.step === 0);
  }, id);
  expect(first).toMatchObject({ type: 'usage' });
  const usage = first as { promptTokens: number; cachedTokens?: number };
  expect(usage.cachedTokens ?? 0).toBeGreaterThan(usage.promptTokens / 2);
});
