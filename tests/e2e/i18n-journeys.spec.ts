import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { pseudoText } from '../../scripts/pseudo-locales.mjs';
import { FIRST_RUN, firstSessionId, openApp } from './app';
import { expectAxeClean, expectNoOverflow, unmarked } from './screen-checks';

// The main journeys in the pseudo-language (issue 43): every text PyTabs shows is marked ⟦…⟧ and
// 40% longer, so a text no catalog gave, or a layout that breaks on longer words, shows. On a
// phone (390 × 844) and an iPad upright (768 × 1024), as small-screens.spec.ts lays them out;
// then Arabic, right to left, on a phone and a laptop (1280 × 800).

const ENGLISH = JSON.parse(readFileSync(new URL('../../messages/en.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ARABIC = JSON.parse(readFileSync(new URL('../../messages/ar.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** The pseudo-language's text of a catalog key, its parameters filled in: what a test finds a control by. */
function ps(key: string, params: Record<string, string | number> = {}): string {
  const text = ENGLISH[key];
  if (typeof text !== 'string') throw new Error(`${key} is not a plain message`);
  return pseudoText(text).replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
}

/** Arabic's text of a catalog key, its parameters filled in. */
function ar(key: string, params: Record<string, string | number> = {}): string {
  const text = ARABIC[key];
  if (typeof text !== 'string') throw new Error(`${key} is not a plain message`);
  return text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
}

/** Types a message in the composer and presses Send, finding both by their names in the language shown. */
async function sendIn(page: Page, say: typeof ps, code: string): Promise<void> {
  await page.getByRole('textbox', { name: say('chat_editor_label') }).fill(code);
  await page.getByRole('button', { name: say('chat_send'), exact: true }).click();
}

/** Opens the app in `locale` (as Settings → Language keeps it) with its first session up. */
async function openIn(page: Page, locale: string): Promise<string> {
  await page.addInitScript((locale) => localStorage.setItem('pytabs-language', locale), locale);
  await openApp(page);
  const id = await firstSessionId(page);
  await expect(page.locator('html')).toHaveAttribute('lang', locale);
  return id;
}

/**
 * Names and values people gave (sessions, files, variables with Python's type names and
 * values), and code shown as code: left as written in any language.
 */
const PEOPLE = [
  'a[href^="#/s/"]',
  '.tab-name',
  'h1',
  'code',
  'pre',
  '.cm-editor',
  '#set-language option',
  '.file-open',
  'table.vars tbody th',
  'table.vars tbody td:nth-child(2)',
  'table.vars tbody .clamp',
  // A round's date and time are Intl's, which has no pseudo-language.
  'time',
].join(',');

for (const size of [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
]) {
  test.describe(`pseudo-language at ${size.width} × ${size.height}`, () => {
    test.use({ viewport: size, isMobile: true });

    test('a session, its files and variables, Settings, share and erase: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      await openIn(page, 'en-XA');
      const check = async (when: string, scope = page.locator('body'), skip = PEOPLE) => {
        expect({ when, left: await unmarked(scope, skip) }).toEqual({ when, left: [] });
        await expectNoOverflow(page, size.width, when);
        await expectAxeClean(page, when);
      };

      // A session with a file and a variable.
      await sendIn(page, ps, "open('notes.txt', 'w').write('hello')\ntotal = 6");
      await expect(page.getByRole('group', { name: ps('chat_reply_to', { seq: 1 }) })).toBeVisible(FIRST_RUN);
      await expect(page.getByText('notes.txt').first()).toBeAttached();
      await check('a session with a file and a variable', page.locator('aside.sidebar'));
      await check('the chat after a run', page.locator('section.chat'));
      expect(await unmarked(page.locator('header.topbar'), PEOPLE)).toEqual([]);

      // Settings.
      await page.getByRole('button', { name: ps('settings_title') }).click();
      const settings = page.getByRole('dialog', { name: ps('settings_title') });
      await expect(settings).toBeVisible();
      await check('Settings', settings, `${PEOPLE},section[aria-labelledby="assistant-title"],.browser-paths`);
      await settings.getByRole('button', { name: ps('common_cancel') }).click();

      // Share, from the session's actions.
      await page.getByRole('button', { name: ps('actions_menu') }).click();
      await page.getByRole('menuitem', { name: ps('actions_share') }).click();
      const share = page.getByRole('dialog');
      await expect(share).toBeVisible();
      await check('the Share dialog', share);
      await page.keyboard.press('Escape');
      await expect(share).toBeHidden();

      // Erase all data: the question asked before.
      await page.getByRole('button', { name: ps('settings_title') }).click();
      await settings.getByRole('button', { name: ps('data_erase') }).click();
      const erase = page.getByRole('dialog', { name: ps('data_erase_title') });
      await expect(erase).toBeVisible();
      await check('Erase all data?', erase);
    });
  });
}

for (const size of [
  { width: 390, height: 844, mobile: true },
  { width: 1280, height: 800, mobile: false },
]) {
  test.describe(`Arabic at ${size.width} px`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, isMobile: size.mobile });

    test('the page reads right to left: mirrored, code left to right, nothing off the screen, axe clean', async ({ page }) => {
      await openIn(page, 'ar');
      await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
      await sendIn(page, ar, 'print("hello")');
      const answer = page.getByRole('group', { name: ar('chat_reply_to', { seq: 1 }) });
      await expect(answer).toContainText('hello', FIRST_RUN);
      // The composer's row mirrors: the message mode, first in it, starts at its right edge (it may wrap onto more lines).
      const row = (await page.locator('.composer-row').boundingBox())!;
      const mode = (await page.locator('.composer-row .mode').boundingBox())!;
      expect(Math.abs(row.x + row.width - (mode.x + mode.width)), JSON.stringify({ row, mode })).toBeLessThan(2);
      expect(mode.x - row.x).toBeGreaterThan(row.width / 2);
      // Code and output stay left to right.
      expect(await page.locator('.cm-editor').first().evaluate((e) => getComputedStyle(e).direction)).toBe('ltr');
      expect(await answer.locator('pre').first().evaluate((e) => getComputedStyle(e).direction)).toBe('ltr');
      await expectNoOverflow(page, size.width, 'a session in Arabic');
      await expectAxeClean(page, 'a session in Arabic');
    });
  });
}
