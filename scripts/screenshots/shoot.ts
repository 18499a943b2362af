import { expect, type Locator, type Page } from '@playwright/test';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the docs keep their pictures (README.md and docs/*.md name them). */
export const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));

/** A picture bigger than this would weigh the repository down: its page should be made smaller. */
const MAX_BYTES = 400 * 1024;

/** Dismisses the notice that storage is not yet kept for good: a person reads it once and closes it. */
export async function dismissStorageNotice(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Dismiss the storage notice' }).click();
  await expect(page.getByText('Your work is kept in this browser only')).toBeHidden();
}

/**
 * Clicks one of the open session's actions (Rename session, Save as assignment, ...): a button
 * in the session's bar, or an item of its "Session actions" menu where the layout has one.
 */
export async function sessionAction(page: Page, name: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  const menu = page.getByRole('button', { name: 'Session actions' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('button', { name, exact: true }).or(page.getByRole('menuitem', { name, exact: true })).click();
}

/** Renames the open session through its Rename session dialog. */
export async function renameSession(page: Page, name: string): Promise<void> {
  await sessionAction(page, 'Rename session');
  const dialog = page.getByRole('dialog', { name: 'Rename session' });
  await dialog.getByRole('textbox', { name: 'Session name' }).fill(name);
  await dialog.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

/** Waits until the passing notes ("Renamed to …", "Uploaded …") have gone, as they do after 5 s. */
export async function notesGone(page: Page): Promise<void> {
  // The notes float in the page's .toasts box (src/ui/App.svelte), apart from its error alerts.
  await expect(page.locator('.toasts .notice')).toHaveCount(0, { timeout: 15_000 });
}

/**
 * Scrolls the panel that holds `target` (the conversation) so that `target` starts `margin` px below
 * the panel's top: where a picture should begin, when the panel itself would stay scrolled to its end.
 */
export async function scrollToTop(target: Locator, margin = 8): Promise<void> {
  await target.evaluate((el, margin) => {
    let box = el.parentElement;
    while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY))) box = box.parentElement;
    if (!box) throw new Error('no scrolling panel holds the element');
    box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top - margin;
  }, margin);
}

/**
 * Writes the page as it is (or its top, down to `upTo`) to docs/images/<name>: no focus ring or
 * text cursor (nothing is being typed in a picture), animations at their end, its size checked.
 */
export async function shoot(page: Page, name: string, options: { upTo?: Locator } = {}): Promise<void> {
  await notesGone(page);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const file = path.join(IMAGES, name);
  // upTo: the picture ends below that element, the rest of a tall page left out.
  const bottom = options.upTo ? await options.upTo.evaluate((el) => Math.ceil(el.getBoundingClientRect().bottom + parseFloat(getComputedStyle(el).marginBottom))) : null;
  const width = page.viewportSize()!.width;
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide', ...(bottom ? { clip: { x: 0, y: 0, width, height: bottom } } : {}) });
  expect(statSync(file).size, `${name} is too big`).toBeLessThan(MAX_BYTES);
}
