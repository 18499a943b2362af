import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../chromium.mjs';

// `npm run screenshots`: the docs' pictures, made by the built app (dist/) in Debian's Chromium.
// A tool, not a test suite: the root playwright.config.ts looks only in tests/e2e and vitest only
// in tests/unit, so `npm test` never runs these. Each file makes one picture, and its test is
// named after the picture, so a failure says which one.
// A port of its own (SCREENSHOTS_PORT), so that it can run beside the e2e suite's server.
const PORT = Number(process.env.SCREENSHOTS_PORT ?? 4202);
const launchOptions = { executablePath: chromiumPath(), args: CHROMIUM_ARGS };

export default defineConfig({
  testDir: '.',
  testMatch: '*.shot.ts',
  // A picture waits for Pyodide to start (tens of seconds on a loaded two-core machine), grading for several sessions.
  timeout: 240_000,
  expect: { timeout: 90_000 },
  workers: 1,
  fullyParallel: false,
  // One more try: a start that times out under load is not a broken picture.
  retries: 1,
  reporter: [['list']],
  outputDir: process.env.PW_OUTPUT_DIR ?? '../../test-results-screenshots',
  use: {
    baseURL: `http://localhost:${PORT}/`,
    launchOptions,
    // The dates and numbers the pictures show, whatever the machine's settings.
    locale: 'en-US',
    timezoneId: 'Europe/Berlin',
    colorScheme: 'light',
    trace: 'off',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions, viewport: { width: 1280, height: 800 } } }],
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort`,
    cwd: '../..',
    url: `http://localhost:${PORT}/`,
    // Never someone else's server on the port: the pictures must be of this build.
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
