import { test, expect } from '@playwright/test';
import { FIRST_RUN, firstSessionId, openApp, region, reply, send } from './app';
import { expectAxeClean, expectNoOverflow } from './screen-checks';

// A phone (390 × 844) and an iPad upright (768 × 1024), with the meta viewport honoured as a
// mobile browser does: a page wider than the screen would be laid out wider and zoomed out.
// Nothing may run off the screen, the session's actions are one "Session actions" menu, and
// the editor and Send are on the first screen.

for (const size of [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
]) {
  test.describe(`${size.width} × ${size.height}`, () => {
    test.use({ viewport: size, isMobile: true });

    test('nothing runs off the screen, the session actions are one menu used by keyboard and mouse, Send is on the first screen, axe passes', async ({ page, context }) => {
      await openApp(page);
      const id = await firstSessionId(page);
      const message = page.getByRole('textbox', { name: 'Message' });
      const sendButton = page.getByRole('button', { name: 'Send' });
      await expect(message).toBeEditable();

      // The first screen, unscrolled, shows the editor and Send whole.
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
      await expect(message).toBeInViewport({ ratio: 1 });
      await expect(sendButton).toBeInViewport({ ratio: 1 });
      for (const name of ['New session', 'Import session', 'Settings']) await expect(page.getByRole('button', { name })).toBeInViewport({ ratio: 1 });
      await expectNoOverflow(page, size.width, 'a new session');

      // The wide screens' row of buttons is not there: one menu button holds them.
      await expect(page.getByRole('button', { name: 'Rename session' })).toHaveCount(0);
      const menuButton = page.getByRole('button', { name: 'Session actions' });
      await expect(menuButton).toHaveAttribute('aria-haspopup', 'menu');
      await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
      const session = page.getByRole('heading', { level: 1 });
      // One row: the bar's name, status and menu button share a line.
      const [barName, barButton] = [await session.boundingBox(), await menuButton.boundingBox()];
      expect(Math.abs(barName!.y + barName!.height / 2 - (barButton!.y + barButton!.height / 2))).toBeLessThan(4);

      // The storage notice folds to one line by its title, and opens again the same way.
      const notice = page.getByRole('region', { name: 'Your work is kept in this browser only' });
      const fold = notice.getByRole('button', { name: 'Your work is kept in this browser only' });
      await expect(fold).toHaveAttribute('aria-expanded', 'true');
      await fold.click();
      await expect(fold).toHaveAttribute('aria-expanded', 'false');
      await expect(notice.getByRole('button', { name: 'Download all my work' })).toBeHidden();
      const [shrunk, title] = [await notice.boundingBox(), await fold.boundingBox()];
      // One line: the title's own height and the box's padding, not a second line.
      expect(title!.height).toBeLessThan(30);
      expect(shrunk!.height).toBeLessThan(title!.height + 20);
      await fold.press('Enter');
      await expect(notice.getByRole('button', { name: 'Download all my work' })).toBeVisible();
      await fold.press('Space');
      await expect(notice.getByRole('button', { name: 'Download all my work' })).toBeHidden();
      await expectAxeClean(page, 'a new session, the notice folded');

      // A round whose output is one long line, and a wide value: they wrap or scroll in their own boxes.
      await send(page, `print("x" * 3000)\n"y" * 800`);
      await expect(reply(page, 1)).toContainText('xxxxxxxxxx', FIRST_RUN);
      await expect(reply(page, 1)).toContainText('yyyyyyyyyy');
      await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
      await expectNoOverflow(page, size.width, 'after a round of long output');

      // The side panels are there further down, inside the screen's width.
      for (const name of ['Files', 'Variables', 'Session variables', 'All sessions']) {
        await region(page, name).scrollIntoViewIfNeeded();
        await expect(region(page, name)).toBeInViewport();
        const box = await region(page, name).boundingBox();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
      }
      await expectNoOverflow(page, size.width, 'scrolled to the side panels');
      // A panel folded by its title makes room: its body is gone until it is opened again.
      const filesTitle = region(page, 'Files').getByRole('button', { name: 'Files', exact: true });
      await filesTitle.click();
      await expect(filesTitle).toHaveAttribute('aria-expanded', 'false');
      await expect(page.getByRole('button', { name: 'Upload files' })).toBeHidden();
      await filesTitle.click();
      await expect(page.getByRole('button', { name: 'Upload files' })).toBeVisible();
      await page.evaluate(() => window.scrollTo(0, 0));

      // By keyboard: Enter opens the menu on its first item; arrows, Home and End move; Escape gives focus back.
      const menu = page.getByRole('menu', { name: 'Session actions' });
      const item = (name: string) => menu.getByRole('menuitem', { name, exact: true });
      await menuButton.focus();
      await page.keyboard.press('Enter');
      await expect(menu).toBeVisible();
      await expect(menuButton).toHaveAttribute('aria-expanded', 'true');
      expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual(['Share', 'Embed', 'Export session', 'Save as assignment', 'Rename session', 'Clear session', 'Delete session']);
      await expect(item('Share')).toBeFocused();
      await page.keyboard.press('ArrowUp');
      await expect(item('Delete session')).toBeFocused();
      await page.keyboard.press('Home');
      await expect(item('Share')).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await expect(item('Embed')).toBeFocused();
      await page.keyboard.press('End');
      await expect(item('Delete session')).toBeFocused();
      await expectNoOverflow(page, size.width, 'the menu open');
      await expectAxeClean(page, 'the menu open');
      await page.keyboard.press('Escape');
      await expect(menu).toBeHidden();
      await expect(menuButton).toBeFocused();
      await expect(menuButton).toHaveAttribute('aria-expanded', 'false');

      // ArrowUp on the button opens on the last item; from there, Rename session by keyboard.
      await page.keyboard.press('ArrowUp');
      await expect(item('Delete session')).toBeFocused();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      await expect(item('Rename session')).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(menu).toBeHidden();
      const rename = page.getByRole('dialog', { name: 'Rename session' });
      await expect(rename).toBeVisible();
      await expectNoOverflow(page, size.width, 'the rename dialog open');
      await rename.getByRole('textbox', { name: 'Session name' }).fill('Pocket work');
      await page.keyboard.press('Enter');
      await expect(rename).toBeHidden();
      await expect(session).toHaveText('Pocket work');
      // The dialog gives focus back to where it was opened from: the menu's button.
      await expect(menuButton).toBeFocused();

      // By mouse: a click opens it, a click outside closes it, a click on an item does what the button did.
      await menuButton.click();
      await expect(menu).toBeVisible();
      await session.click();
      await expect(menu).toBeHidden();
      await menuButton.click();
      await item('Rename session').click();
      await expect(menu).toBeHidden();
      await expect(rename).toBeVisible();
      // A name longer than the screen is wide is cut in the bar and its tab, which stay one row.
      const long = 'Pocket work with a name far longer than a phone or a tablet is wide, and longer still';
      await rename.getByRole('textbox', { name: 'Session name' }).fill(long);
      await rename.getByRole('button', { name: 'Save name' }).click();
      await expect(session).toHaveText(long);
      await expectNoOverflow(page, size.width, 'a long name');
      const [longName, button] = [await session.boundingBox(), await menuButton.boundingBox()];
      expect(Math.abs(longName!.y + longName!.height / 2 - (button!.y + button!.height / 2))).toBeLessThan(4);

      // A dialog (Settings) fits the screen.
      await page.getByRole('button', { name: 'Settings' }).click();
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await expect(settings).toBeVisible();
      await expectNoOverflow(page, size.width, 'Settings open');
      await expectAxeClean(page, 'Settings open');
      // Its section for a model in this browser too: the kept list, the file and address fields, the status line.
      await settings.getByRole('radio', { name: 'A model in this browser' }).check();
      await expect(settings.getByText('None yet: add a GGUF file')).toBeVisible();
      await expect(settings.getByRole('textbox', { name: 'Download from an address' })).toBeVisible();
      await expectNoOverflow(page, size.width, 'Settings, a model in this browser');
      await expectAxeClean(page, 'Settings, a model in this browser');
      await settings.getByRole('button', { name: 'Cancel' }).click();
      await expect(settings).toBeHidden();

      // An action disabled on the wide screens' button is disabled as a menu item: a second tab sees the session read-only.
      const second = await context.newPage();
      await openApp(second, `/#/s/${id}`);
      await expect(second.getByRole('button', { name: 'Take over' })).toBeVisible();
      await second.getByRole('button', { name: 'Session actions' }).click();
      const assign = second.getByRole('menu', { name: 'Session actions' }).getByRole('menuitem', { name: 'Save as assignment' });
      await expect(assign).toBeDisabled();
      await assign.click({ force: true });
      await expect(second.getByRole('dialog')).toHaveCount(0);
      await second.close();
    });
  });
}
