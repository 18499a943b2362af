import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './scripts/chromium.mjs';

const launchOptions = { executablePath: chromiumPath(), args: CHROMIUM_ARGS };
// Overridable so that two test runs on one machine do not share a server.
const PORT = Number(process.env.PW_PORT ?? 4173);

function indexOrigin(): string {
  try {
    return process.env.PYTABS_PACKAGE_INDEX ? new URL(process.env.PYTABS_PACKAGE_INDEX).origin : '';
  } catch {
    return '';
  }
}

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 120_000,
  // A session's first start waits for Pyodide; on a loaded 2-core machine that has taken over 30 s.
  expect: { timeout: 60_000 },
  // Two cores: each test starts Pyodide workers, which are CPU-bound.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: [['list']],
  outputDir: process.env.PW_OUTPUT_DIR ?? 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}/`,
    launchOptions,
    // Recording a trace made the tests take 1.6 times as long on two cores (ui.spec: 2.8 against 1.7 min); a
    // failure still writes its page's accessibility snapshot. PW_TRACE=1 records them again.
    trace: process.env.PW_TRACE === '1' ? 'retain-on-failure' : 'off',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions, viewport: { width: 1280, height: 800 } } }],
  webServer: {
    command: `npx vite preview --port ${PORT} --strictPort`,
    // The test package indexes listen on 127.0.0.1 at random ports, and PYTABS_PACKAGE_INDEX may name
    // another: the session worker's CSP (public/_headers) must let it reach them.
    env: { PYTABS_WORKER_CONNECT_SRC: ['http://127.0.0.1:*', indexOrigin()].filter(Boolean).join(' ') },
    url: `http://localhost:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
