import { defineConfig } from '@playwright/test';
import type { Where } from './fixtures';

// The cross-engine suite: the built app (dist/) in Chromium, Firefox ESR and WebKitGTK, driven by
// scripts/engines.mjs, each on a plain static host and on one that sends the project's
// `_headers`. Every test opens fresh browser profiles of its own.
const where = (engineName: Where['engineName'], hostHeaders: Where['hostHeaders']) => ({ name: `${engineName}-${hostHeaders}`, use: { engineName, hostHeaders } });

const EVERYWHERE = process.env.ENGINES_ALL === '1';

export default defineConfig<object, Where>({
  testDir: '.',
  testMatch: '*.spec.ts',
  timeout: 240_000,
  expect: { timeout: 60_000 },
  // Two cores: each test starts Pyodide workers, which are CPU-bound.
  workers: 1,
  fullyParallel: false,
  // A second try only after the engine's own crash: tests/engines/fixtures.ts (onlyAfterCrash).
  retries: 1,
  reporter: [['list']],
  outputDir: process.env.PW_OUTPUT_DIR ?? '../../test-results-engines',
  // Chromium keeps its full suite in tests/e2e (on a host with the project's headers), so by
  // default it runs here only what that suite cannot show: a plain host made isolated by the
  // service worker, and issue 44's done-when journey (see-it-run.spec.ts), which names all three
  // engines. A class's round trip (assignments.spec.ts) runs on the plain host, where
  // grading's time limit restarts a worker (behind the headers Firefox interrupts, as Chromium's
  // suite does), to keep CI within its time. ENGINES_ALL=1 runs every journey everywhere.
  // Journeys tagged @any-host (the same paths on either host: a workbook, the assistant,
  // export and import, a shared link) run on the plain host only, for the same reason.
  projects: [
    ...(EVERYWHERE ? [where('chromium', 'plain'), where('chromium', 'project')] : [{ ...where('chromium', 'plain'), testMatch: ['hosting.spec.ts', 'see-it-run.spec.ts'] }]),
    where('firefox', 'plain'),
    { ...where('firefox', 'project'), ...(EVERYWHERE ? {} : { testIgnore: ['assignments.spec.ts'], grepInvert: /@any-host/ }) },
    where('webkit', 'plain'),
    { ...where('webkit', 'project'), ...(EVERYWHERE ? {} : { testIgnore: ['assignments.spec.ts'], grepInvert: /@any-host/ }) },
  ],
});
