import { ggufBytes } from '../../scripts/gguf.mjs';
import type { PyTabsApi } from '../../src/lib/api';
import { test, expect } from './fixtures';
import type { Person, Target } from './person';

// The local model (llama.cpp through wllama, in a worker of its own) on the tiny generated file
// in each engine: it loads from a file beside the app and streams. WebKitGTK has neither JSPI nor
// Memory64, so it runs wllama's compatible build, on one thread (no SharedArrayBuffer there).

const tiny = Buffer.from(ggufBytes({ shape: 'tiny' }));

test('the tiny model loads beside the app and streams an answer (WebKit: the compatible build)', async ({ host, person, engineName }) => {
  host.mount('models/', (_req, res, path) => {
    if (path !== '/tiny.gguf') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(tiny.byteLength) }).end(tiny);
  });
  await person.open(host.url);
  const running = person.page.evaluate(async () => {
    const api = (window as unknown as { pytabs: PyTabsApi }).pytabs;
    // The steps reached, kept on the page, so that a run that never ends says where it stopped
    // (an intermittent hang in Firefox), or that the page itself was replaced.
    const steps: string[] = [];
    (window as unknown as { modelSteps: string[] }).modelSteps = steps;
    const step = (what: string) => steps.push(`${Math.round(performance.now())} ms: ${what}`);
    const run = async () => {
      step('load');
      const model = await api.loadLocalModel({ kind: 'url', url: 'models/tiny.gguf' }, { seed: 7, onProgress: (p) => step(`${p.phase} ${p.loaded}/${p.total}`) });
      step('loaded; chat');
      let pieces = 0;
      const answer = await model.chat([{ role: 'user', content: 'Hello' }], { maxTokens: 24, ignoreEnd: true, onText: () => ++pieces === 1 && step('first piece') });
      step(`answered (${pieces} pieces); unload`);
      await model.unload();
      step('unloaded');
      return { ok: true as const, info: model.info, pieces, answer, isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency, steps };
    };
    const hang = new Promise<{ ok: false; error: string }>((resolve) => setTimeout(() => resolve({ ok: false, error: `no end after 150 s; steps:\n${steps.join('\n')}` }), 150_000));
    return Promise.race([run().catch((error: Error) => ({ ok: false as const, error: `${error.message}; steps:\n${steps.join('\n')}` })), hang]);
  });
  // The page's own timer could not answer: the page, or the driver's call, is what hangs.
  let watching: ReturnType<typeof setTimeout> | undefined;
  const unanswered = new Promise<{ ok: false; error: string }>((resolve) => {
    watching = setTimeout(() => {
      const seen = person.page.evaluate(() => ({
        steps: (window as unknown as { modelSteps?: string[] }).modelSteps ?? 'none: this is another page',
        navigations: performance.getEntriesByType('navigation').map((entry) => (entry as PerformanceNavigationTiming).type),
        now: Math.round(performance.now()),
      }));
      const late = new Promise((done) => setTimeout(() => done('the page does not answer either'), 20_000));
      void Promise.race([seen, late]).then(
        (what) => resolve({ ok: false, error: `the driver's call never returned; the page now: ${JSON.stringify(what)}` }),
        (error: Error) => resolve({ ok: false, error: `the driver's call never returned, and the page could not be asked again: ${error.message}` }),
      );
    }, 170_000);
  });
  // Cleared once the run answers: fired after the test, it would ask a page already closed.
  const outcome = await Promise.race([running, unanswered]).finally(() => clearTimeout(watching));
  if (!outcome.ok) throw new Error(`the model did not load: ${outcome.error}`);
  expect(outcome.info).toMatchObject({ architecture: 'qwen2', nVocab: 515, backend: 'cpu' });
  if (engineName === 'webkit') {
    // No JSPI or Memory64: the compatible build; no SharedArrayBuffer even when isolated: one thread.
    expect(outcome.info).toMatchObject({ build: 'compatible', threads: 1 });
    expect(outcome.info.buildReason).toEqual({ key: 'rtw_model_compatible', params: { missing: { key: 'list_and', params: { first: 'WebAssembly JSPI', last: 'WebAssembly Memory64' } } } });
  } else {
    expect(outcome.info.build).toBe('default');
    expect(outcome.info.threads).toBe(outcome.isolated ? Math.min(outcome.cores, 4) : 1);
  }
  if (!outcome.isolated) expect(outcome.info.threadsReason).toEqual({ key: 'rtw_model_one_thread_isolation' });
  expect(outcome.pieces).toBeGreaterThan(0);
  expect(outcome.answer).toMatchObject({ finish: 'length', completionTokens: 24, pieces: outcome.pieces });
  // A second start of the load: the first worker got stuck and was ended (see client.ts).
  const starts = outcome.steps.filter((step) => step.endsWith(`: load 0/${tiny.byteLength}`)).length;
  console.log(
    `${engineName}: loaded in ${outcome.info.loadMs} ms on ${outcome.info.threads} thread(s), ` +
      `${((outcome.answer.completionTokens * 1000) / outcome.answer.decodeMs).toFixed(1)} tokens/s` +
      (starts > 1 ? `, after ${starts - 1} stuck worker(s) ended` : ''),
  );
});

/** The tiny model that prefers '"' then 'r': its constrained turn calls run_python with "r" (see tests/e2e/local-model.spec.ts). */
const prefersR = Buffer.from(ggufBytes({ shape: 'tiny', prefer: ['"', 'r'], name: 'Prefers r' }));

/** Opens the app, adds the model file in Settings and chooses it, and sets `r = 42` in a Code message; returns the mode switch. */
async function withPrefersR(person: Person, url: string): Promise<Target> {
  await person.open(url);
  const settings = { role: 'dialog', name: 'Settings' };
  await person.click({ role: 'button', name: 'Settings' });
  await person.click({ role: 'radio', name: 'A model in this browser', within: settings });
  await person.choose('Add a model file', [{ name: 'prefers-r.gguf', data: prefersR }]);
  await person.find({ role: 'radio', namePrefix: 'Prefers r (431 KB)', within: settings });
  await person.click({ role: 'button', name: 'Save settings', within: settings });
  await person.expectGone(settings);

  const mode = { role: 'radiogroup', name: 'Message mode' };
  await person.click({ role: 'radio', name: 'Code', within: mode });
  await person.send('r = 42');
  await person.expectText(person.reply(1), 'Done', 90_000);
  return mode;
}

test('Ask with the model in this browser: its turn runs code in the session, and again with the host gone', async ({ person, host }) => {
  const mode = await withPrefersR(person, host.url);
  await person.click({ role: 'radio', name: 'Ask', within: mode });
  await person.send('What is r?');
  // The constrained turn called run_python with "r": it ran in this session and printed 42.
  await person.expectText({ role: 'group', name: 'Code 1', within: person.reply(2) }, '42', 120_000);
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(2), 'Stopped', 60_000);

  // With the host gone (the app and the model's runtime kept by the service worker, the model in
  // Cache Storage), a new page's question runs through the model again.
  await person.untilKeptOffline();
  host.refusing = true;
  await person.reload();
  await person.send('And now?');
  await person.expectText({ role: 'group', name: 'Code 1', within: person.reply(3) }, '42', 180_000);
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(3), 'Stopped', 60_000);
  expect(host.refusedBeyondStartChecks).toEqual([]);
});

test('a model added and never asked answers with the host gone: its runtime was kept with it', async ({ person, host }) => {
  const mode = await withPrefersR(person, host.url);
  // Nothing asked: the app is kept after the run, the model and its runtime when it was added.
  await person.untilKeptOffline();
  host.refusing = true;
  await person.reload();
  await person.click({ role: 'radio', name: 'Ask', within: mode });
  await person.send('What is r?');
  await person.expectText({ role: 'group', name: 'Code 1', within: person.reply(2) }, '42', 180_000);
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(2), 'Stopped', 60_000);
  expect(host.refusedBeyondStartChecks).toEqual([]);
});

test('in French, a model file llama.cpp refuses says why in French: its worker’s refusal crosses with its said text', async ({ person, host }) => {
  // A whole GGUF file, kept without a complaint: only llama.cpp, in the model's worker, refuses it.
  const nosuch = Buffer.from(ggufBytes({ shape: 'tiny', architecture: 'nosuch', name: 'Nosuch' }));
  await person.open(host.url);
  await person.chooseLanguage('fr');
  const settings = { role: 'dialog', name: 'Réglages' };
  await person.click({ role: 'radio', name: 'Un modèle dans ce navigateur', within: settings });
  await person.choose('Ajouter un fichier de modèle', [{ name: 'nosuch.gguf', data: nosuch }]);
  await person.find({ role: 'radio', namePrefix: 'Nosuch', within: settings });
  await person.click({ role: 'button', name: 'Enregistrer les réglages', within: settings });
  await person.expectGone(settings);

  await person.click({ role: 'radio', name: 'Demander', within: { role: 'radiogroup', name: 'Type de message' } });
  await person.fill({ role: 'textbox', name: 'Message' }, 'Combien font 6 × 7 ?');
  await person.click({ role: 'button', name: 'Envoyer' });
  await person.expectText({ role: 'group', name: 'Réponse au message 1' }, 'L’architecture de ce modèle (« nosuch ») n’est pas connue de cette version de llama.cpp.', 120_000);
});
