import { expect, test } from '@playwright/test';
import { downloaded, openApp, region } from './app';
import { CHECKS } from './hand-ins';

// A session's banner (its Python starting, or the session open in another tab) comes and goes
// below the assignment: the assignment's controls stand still. A click aimed at Clear grades just
// as Python became ready after a reload once landed below it, in Firefox.

test("the assignment's controls stand still when the session's banner goes", async ({ browser }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext();
  const owner = await context.newPage();
  await openApp(owner);
  await owner.getByRole('button', { name: 'Save as assignment' }).click();
  const dialog = owner.getByRole('dialog', { name: 'Save as assignment' });
  await dialog.getByRole('textbox', { name: 'Title' }).fill('Steady');
  await dialog.getByRole('textbox', { name: /^Checks/ }).fill(CHECKS);
  await downloaded(owner, () => dialog.getByRole('button', { name: 'Save assignment' }).click());
  await expect(region(owner, 'Assignment: Steady').getByRole('button', { name: 'Grade submissions' })).toBeVisible();

  // A second tab shows the session read-only, with its banner, until it takes the session over.
  const page = await context.newPage();
  await openApp(page);
  const banner = page.getByRole('status').filter({ hasText: 'This session is open in another tab' });
  await expect(banner).toBeVisible();
  const grade = region(page, 'Assignment: Steady').getByRole('button', { name: 'Grade submissions' });
  await expect(grade).toBeVisible();
  const before = await grade.boundingBox();
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(banner).toBeHidden({ timeout: 30_000 });
  expect(await grade.boundingBox()).toEqual(before);
  await context.close();
});
