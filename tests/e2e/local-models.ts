import type { Page } from '@playwright/test';
import { ggufBytes } from '../../scripts/gguf.mjs';
import type { LocalModel } from '../../src/lib/local-model/client';

declare global {
  interface Window {
    /** The model a test loaded, kept between its page.evaluate calls. */
    testModel?: LocalModel;
  }
}

// What the local model's specs share: the tiny model, served beside the app, and the workers it runs in.

/** The tiny qwen2 file of random weights (scripts/gguf.mjs). */
export const TINY = Buffer.from(ggufBytes({ shape: 'tiny' }));
export const MODEL_URL = 'models/tiny.gguf';

/**
 * The dedicated workers alive in this test's browser context, by the browser's own list
 * (DevTools' targets): Playwright's `page.workers()` at times kept a terminated worker listed,
 * and the browser's list also holds other contexts' workers (an earlier test's, still closing).
 */
export async function liveWorkers(page: Page): Promise<string[]> {
  const own = await page.context().newCDPSession(page);
  const cdp = await page.context().browser()!.newBrowserCDPSession();
  try {
    const { targetInfo } = await own.send('Target.getTargetInfo');
    const { targetInfos } = await cdp.send('Target.getTargets');
    return targetInfos.filter((target) => target.type === 'worker' && target.browserContextId === targetInfo.browserContextId).map((target) => target.url);
  } finally {
    await cdp.detach();
    await own.detach();
  }
}
export const modelWorkers = async (page: Page) => (await liveWorkers(page)).filter((url) => /\/assets\/model\.worker-[^/]+\.js$/.test(url) || url.startsWith('blob:'));

/** Serves a file beside the app, as a deployer would put one in `dist/models/`. */
export async function serveModel(page: Page, body: Buffer = TINY, path = MODEL_URL): Promise<void> {
  await page.context().route(`**/${path}`, (route) => route.fulfill({ body, contentType: 'application/octet-stream' }));
}
