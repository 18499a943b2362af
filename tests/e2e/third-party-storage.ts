import { test as base, chromium, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';

/**
 * Tests in a Chromium that lets cross-site frames keep (partitioned) storage, as Firefox and
 * Safari do: Debian's Chromium blocks it by default (its TrackingProtection3pcd feature), and a
 * cross-site embed then cannot open IndexedDB at all. A browser of its own, and one profile
 * for the worker's tests, since embed journeys go on from each other's state as a reader would.
 */
export const withThirdPartyStorage = base.extend<{ page: Page }, { storageContext: BrowserContext }>({
  storageContext: [
    async ({}, use, workerInfo) => {
      const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--disable-features=TrackingProtection3pcd'] });
      const context = await browser.newContext({ baseURL: workerInfo.project.use.baseURL, viewport: { width: 1280, height: 800 } });
      await use(context);
      await browser.close();
    },
    { scope: 'worker' },
  ],
  page: async ({ storageContext }, use) => {
    const page = await storageContext.newPage();
    await use(page);
    await page.close();
  },
});
