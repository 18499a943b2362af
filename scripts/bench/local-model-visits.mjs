// L4: a later visit against a first visit, for the local model. A person downloads the 0.5B-shape
// file in Settings over a 20 Mbps link and asks; on their next visit (the same browser profile,
// the model kept in Cache Storage) they ask again. Each side is timed to the model's first
// token. A persistent profile, as a person's browser is: a fresh context's Cache Storage refused
// a file of this size here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../chromium.mjs';
import { servedBenchModel } from './local-model.mjs';
import { LINKS, pageOnLink } from './network.mjs';

const QUESTION = 'What are the unique tags in data.xlsx?';
const WAIT_MS = 900_000;

/**
 * In the page: asks in the open session and resolves at the model's first token (the model
 * client's `pytabs:model-first-token` mark: a call's turn reaches the round only whole).
 */
function firstToken(question) {
  return new Promise((resolve, reject) => {
    const stop = new AbortController();
    const started = performance.now();
    const seen = new PerformanceObserver((list) => {
      const mark = list.getEntriesByName('pytabs:model-first-token').find((m) => m.startTime >= started);
      if (!mark) return;
      seen.disconnect();
      resolve({ ms: mark.startTime - started });
      stop.abort();
    });
    seen.observe({ type: 'mark' });
    void (async () => {
      const [session] = await window.pytabs.listSessions();
      const id = session?.id ?? (await window.pytabs.createSession()).id;
      await window.pytabs.ask(id, question, { autoRun: true, signal: stop.signal }).catch(() => undefined);
      reject(new Error('the round ended without a token from the model'));
    })().catch(reject);
  });
}

/** Settings → Assistant → A model in this browser → Download from the address, kept and saved, as a person does it; resolves with the time it took. */
export async function downloadInSettings(page, url) {
  const started = Date.now();
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('radio', { name: 'A model in this browser' }).check();
  await dialog.getByRole('textbox', { name: 'Download from an address' }).fill(url);
  await dialog.getByRole('button', { name: 'Download from the address' }).click();
  // Kept, and chosen as the model to use (a download's model is chosen once kept).
  await dialog.getByRole('button', { name: /^Remove / }).waitFor({ timeout: WAIT_MS });
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await dialog.waitFor({ state: 'hidden' });
  return Date.now() - started;
}

/** One first visit and one later visit, the file served at `origin` as `models/bench-visit.gguf`. */
async function visits(origin, bytes, log) {
  const profile = mkdtempSync(path.join(tmpdir(), 'pytabs-bench-visits-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 } });
  try {
    const first = await pageOnLink(context, LINKS.school);
    first.setDefaultTimeout(WAIT_MS);
    await first.goto(`${origin}/`);
    await first.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 120_000 });
    const downloadMs = await downloadInSettings(first, `${origin}/models/bench-visit.gguf`);
    log(`L4 first visit: ${Math.round(bytes / 1e6)} MB downloaded and kept in ${downloadMs} ms over ${LINKS.school.name}`);
    const firstAsk = await first.evaluate(firstToken, QUESTION);
    await first.close();

    const later = await pageOnLink(context, LINKS.school);
    later.setDefaultTimeout(WAIT_MS);
    await later.goto(`${origin}/`);
    await later.waitForFunction(() => Boolean(window.pytabs), null, { timeout: 120_000 });
    const laterAsk = await later.evaluate(firstToken, QUESTION);
    return { downloadMs, firstAskMs: firstAsk.ms, firstVisitMs: downloadMs + firstAsk.ms, laterVisitMs: laterAsk.ms };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The L4 row; `outDir` is what the bench's server serves at `origin`. */
export async function modelVisitRows(outDir, origin, { log }) {
  const { bytes, unlink } = await servedBenchModel(outDir, 'bench-visit.gguf', log);
  let sample;
  try {
    sample = await visits(origin, bytes, log);
  } finally {
    unlink();
  }
  log('L4', JSON.stringify(sample));
  const rows = [
    {
      id: 'L4',
      what: `a later visit's Ask to the model's first token (the model kept) ÷ a first visit's (its download over ${LINKS.school.name} in Settings, then Ask)`,
      value: sample.laterVisitMs,
      base: sample.firstVisitMs,
      baseName: 'first visit',
      target: null,
    },
  ];
  const notes =
    `L4: one first visit in a new persistent Chromium profile over ${LINKS.school.name}: the download took ${Math.round(sample.downloadMs / 1000)} s and the Ask ${Math.round(sample.firstAskMs / 1000)} s to the model's first token; ` +
    `the later visit (a new page, the same profile) loads the kept model from Cache Storage. Both asks include loading the model and reading the round's prompt.`;
  return { rows, samples: { visits: [sample] }, notes };
}
