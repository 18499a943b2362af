// Debian's Chromium and the flags it runs with, for the tests (playwright.config.ts) and
// the bench (scripts/bench.mjs): Playwright cannot download its own browser here.
import { execFileSync } from 'node:child_process';

/** Flags for a quiet headless Chromium in a container. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** CHROMIUM_PATH, else `chromium` on the PATH. */
export function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium not found: install it (apt-get install -y chromium) or set CHROMIUM_PATH.');
  }
}
