import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { pseudoText } from '../../scripts/pseudo-locales.mjs';
import { deflateSync } from 'fflate';
import { ggufBytes } from '../../scripts/gguf.mjs';
import { startMockServer } from '../mock-openai/server';
import { chooseZips, downloaded, FIRST_RUN, firstSessionId, openApp, region } from './app';
import { expectAxeClean, expectNoOverflow, startBarTravel, unmarked } from './screen-checks';

// The main journeys in the pseudo-language (issue 43): every text PyTabs shows is marked ⟦…⟧ and
// 40% longer, so a text no catalog gave, or a layout that breaks on longer words, shows. On a
// phone (390 × 844) and an iPad upright (768 × 1024), as small-screens.spec.ts lays them out;
// then Arabic, right to left, on a phone and a laptop (1280 × 800).

const catalog = (locale: string) => JSON.parse(readFileSync(new URL(`../../messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
const CATALOGS = { 'en-XA': catalog('en'), 'ar-XB': catalog('en'), ar: catalog('ar') };
type Say = (key: string, params?: Record<string, string | number>) => string;

/**
 * The text of a catalog key in `locale` (the pseudo-languages are made from English), its
 * parameters filled in: what a test finds a control by.
 */
function say(locale: keyof typeof CATALOGS): Say {
  return (key, params = {}) => {
    const text = CATALOGS[locale][key];
    if (typeof text !== 'string') throw new Error(`${key} is not a plain message`);
    return (locale === 'ar' ? text : pseudoText(text, locale === 'ar-XB')).replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
  };
}
const ps = say('en-XA');
const ar = say('ar');
const rtl = say('ar-XB');

/** Types a message in the composer and presses Send, finding both by their names in the language shown. */
async function sendIn(page: Page, t: Say, code: string): Promise<void> {
  await page.getByRole('textbox', { name: t('chat_editor_label') }).fill(code);
  await page.getByRole('button', { name: t('chat_send'), exact: true }).click();
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

/** The servers Settings → Assistant offers by their product's name, the same in any language. */
const PRODUCTS = ['openai', 'ollama', 'lmstudio'].map((id) => `#asst-preset option[value=${id}]`).join(',');

/** The model's words in an Ask round: as written, in any language (the questions asked have no words, so all else is checked). */
const ASKED = `${PEOPLE},.markdown`;

/** Opens Settings and points the assistant at `model` of the mock server, finding every control by its pseudo-language name. */
async function useModel(page: Page, baseUrl: string, model: string): Promise<void> {
  await page.getByRole('button', { name: ps('settings_title') }).click();
  const settings = page.getByRole('dialog', { name: ps('settings_title') });
  await settings.getByRole('textbox', { name: ps('chat_base_url'), exact: true }).fill(baseUrl);
  await settings.getByRole('textbox', { name: ps('chat_model'), exact: true }).fill(model);
  await settings.getByRole('button', { name: ps('settings_save') }).click();
  await expect(settings).toBeHidden();
}

/** An embed's address, as the Embed dialog writes one: its options, then the session deflated. */
function embedAddress(params: string, session: unknown): string {
  return `#/embed?${params}&v=1&z=${Buffer.from(deflateSync(new TextEncoder().encode(JSON.stringify(session)))).toString('base64url')}`;
}

/** A shared link's address, as Share writes one: the session deflated. */
function shareAddress(session: unknown): string {
  return `#/share?v=1&z=${Buffer.from(deflateSync(new TextEncoder().encode(JSON.stringify(session)))).toString('base64url')}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The checks of every step: no unmarked text in `scope` (less `skip`), nothing off the screen, axe clean. */
function checker(page: Page, width: number) {
  return async (when: string, scope = page.locator('body'), skip = PEOPLE): Promise<void> => {
    expect({ when, left: await unmarked(scope, skip) }).toEqual({ when, left: [] });
    await expectNoOverflow(page, width, when);
    await expectAxeClean(page, when);
  };
}

for (const size of [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
]) {
  test.describe(`pseudo-language at ${size.width} × ${size.height}`, () => {
    test.use({ viewport: size, isMobile: true });

    test('a session, its files and variables, a step-through, Settings, share and erase: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      await openIn(page, 'en-XA');
      const check = checker(page, size.width);

      // A session with a file and a variable.
      await sendIn(page, ps, "open('notes.txt', 'w').write('hello')\ntotal = 6");
      await expect(page.getByRole('group', { name: ps('chat_reply_to', { seq: 1 }) })).toBeVisible(FIRST_RUN);
      await expect(page.getByText('notes.txt').first()).toBeAttached();
      await check('a session with a file and a variable', page.locator('aside.sidebar'));
      await check('the chat after a run', page.locator('section.chat'));
      expect(await unmarked(page.locator('header.topbar'), PEOPLE)).toEqual([]);

      // Step through: its slider says the step in words (aria-valuetext).
      await page.getByRole('textbox', { name: ps('chat_editor_label') }).fill('a = [1, 2]\nb = a\nb.append(3)');
      await page.getByRole('button', { name: ps('step_through'), exact: true }).click();
      const steps = page.getByRole('group', { name: ps('chat_reply_to', { seq: 2 }) }).getByRole('group', { name: ps('step_view') });
      await expect(steps.getByRole('slider', { name: ps('step_slider') })).toBeVisible(FIRST_RUN);
      // A frame is named by the program's function (`<module>`), its variables by the program.
      await check('a step-through', steps, `${PEOPLE},.step-through .frame`);

      // Settings.
      await page.getByRole('button', { name: ps('settings_title') }).click();
      const settings = page.getByRole('dialog', { name: ps('settings_title') });
      await expect(settings).toBeVisible();
      await check('Settings, the assistant at a server', settings, `${PEOPLE},${PRODUCTS}`);
      await settings.getByRole('radio', { name: ps('chat_provider_local') }).check();
      await expect(settings.getByRole('status', { name: ps('chat_model_status') })).toBeVisible();
      await check('Settings, the assistant a model in this browser', settings);
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

    test('a shared link read-only, opened as a new session, and the notice after Erase: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      await page.addInitScript(() => localStorage.setItem('pytabs-language', 'en-XA'));
      const link = { name: 'Trip', cells: ["rows = open('data.csv').read().split()", 'print(len(rows))'], files: [{ path: 'data.csv', text: 'x\n1\n2\n' }] };
      await openApp(page, `/${shareAddress(link)}`);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
      const check = checker(page, size.width);

      // Read-only: what the link carries, nothing run.
      const shared = page.getByRole('dialog', { name: ps('shared_title') });
      await expect(shared.getByRole('region', { name: ps('shared_code') })).toBeVisible();
      await check('a shared link, read-only', shared, `${PEOPLE},.shared-files .mono`);

      // Opened as a new session: the cells are history, not run, until Run all.
      await shared.getByRole('button', { name: ps('shared_open_new') }).click();
      const cells = page.getByRole('region', { name: ps('import_link_cells_region') });
      await expect(cells.getByRole('button', { name: ps('import_run_all') })).toBeVisible();
      await check('a shared link opened as a new session', page.locator('section.chat'));
      await check('its files', page.locator('aside.sidebar'));

      // Erase all data: the notice it leaves.
      await page.getByRole('button', { name: ps('settings_title') }).click();
      await page.getByRole('dialog', { name: ps('settings_title') }).getByRole('button', { name: ps('data_erase') }).click();
      await page.getByRole('dialog', { name: ps('data_erase_title') }).getByRole('button', { name: ps('data_erase_confirm') }).click();
      await expect(page.getByRole('alert')).toContainText(ps('page_erased'));
      await check('the notice after Erase', page.locator('body'));
    });

    test('Ask: a round against the mock model with what was sent, a stopped one and one cut off: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      const server = await startMockServer();
      try {
        await openIn(page, 'en-XA');
        const check = checker(page, size.width);
        const chat = page.locator('section.chat');
        await useModel(page, server.baseUrl, 'split-tool');
        await page.getByRole('radiogroup', { name: ps('chat_mode') }).getByRole('radio', { name: ps('chat_mode_ask') }).check();
        await check('the composer in Ask mode', chat, ASKED);

        // A round: the model runs code through its tool, then answers; what was sent is shown.
        await sendIn(page, ps, '0 + 1 + … + 9 = ?');
        const first = page.getByRole('group', { name: ps('chat_reply_to', { seq: 1 }) });
        await expect(first.getByRole('group', { name: ps('chat_code_n', { n: 1 }) })).toContainText('total is 45', FIRST_RUN);
        await expect(first).toContainText('Answer: total is 45');
        await first.getByRole('button', { name: ps('chat_what_was_sent') }).click();
        await expect(page.getByRole('region', { name: ps('chat_what_was_sent_with', { seq: 1 }) })).toBeVisible();
        await check('an Ask round and what was sent', chat, ASKED);

        // Stop, while the model streams its answer.
        await useModel(page, server.baseUrl, 'slow-text');
        await sendIn(page, ps, '?');
        const second = page.getByRole('group', { name: ps('chat_reply_to', { seq: 2 }) });
        await expect(second).toContainText('Thinking');
        await page.getByRole('button', { name: ps('chat_stop'), exact: true }).click();
        await expect(second).toContainText(ps('chat_note_stopped'));
        await check('an Ask round stopped', chat, ASKED);

        // A reply the connection cut off.
        await useModel(page, server.baseUrl, 'cut');
        await sendIn(page, ps, '?');
        const third = page.getByRole('group', { name: ps('chat_reply_to', { seq: 3 }) });
        await expect(third).toContainText(ps('chat_err_cut', { detail: '\u0000' }).split('\u0000')[0]);
        await check('an Ask round cut off', chat, ASKED);
      } finally {
        await server.close();
      }
    });

    test('an assignment with a check and a case, worked, handed in and graded: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      test.setTimeout(300_000);
      const teacher = await openIn(page, 'en-XA');
      const check = checker(page, size.width);

      // The teacher writes the assignment: a check, and a case with an input and its output.
      await page.getByRole('button', { name: ps('actions_menu') }).click();
      await page.getByRole('menuitem', { name: ps('actions_save_assignment') }).click();
      const dialog = page.getByRole('dialog', { name: ps('asg_save_title') });
      await dialog.getByRole('textbox', { name: ps('asg_title_label') }).fill('Doubles');
      await dialog.getByRole('textbox', { name: ps('asg_instructions_label') }).fill('`double(n)`, `input()`');
      await dialog.getByRole('textbox', { name: ps('asg_checks_label', { def: 'def check_…():' }) }).fill("def check_double():\n    assert double(2) == 4, 'double(2) == 4'\n");
      await dialog.getByRole('button', { name: ps('asg_add_case') }).click();
      await dialog.getByRole('textbox', { name: ps('asg_case_input', { n: 1 }) }).fill('21\n');
      await dialog.getByRole('textbox', { name: ps('asg_case_expected', { n: 1 }) }).fill('42\n');
      await check('Save as assignment', dialog, `${PEOPLE},textarea,input[type=text]`);
      const { data: assignment } = await downloaded(page, () => dialog.getByRole('button', { name: ps('asg_save_assignment') }).click());
      await expect(dialog).toBeHidden();

      // A student works it in a session of their own and hands it in.
      const student = await page.evaluate(async (data) => {
        const file = { name: 'Doubles.pytabs.zip', data: new Uint8Array(data) };
        return (await window.pytabsLib!.importSession(window.pytabs!, file)).sessionId;
      }, Array.from(assignment));
      // Its address opens it once the page has heard of it (on a busy machine, not at once).
      const panel = region(page, ps('asg_heading', { title: 'Doubles' }));
      await expect(async () => {
        await page.goto(`/#/s/${student}`);
        await expect(panel.getByRole('button', { name: ps('asg_hand_in') })).toBeVisible({ timeout: 2_000 });
      }).toPass({ timeout: 30_000 });
      await sendIn(page, ps, 'def double(n):\n    return 2 * n\n\nprint(double(int(input())))');
      await page.getByRole('textbox', { name: new RegExp(`^${escapeRegExp(ps('chat_input_for', { name: '\u0000' }).split('\u0000')[0])}`) }).fill('5');
      await page.keyboard.press('Enter');
      await expect(page.getByRole('group', { name: ps('chat_reply_to', { seq: 1 }) })).toContainText('10', FIRST_RUN);
      await panel.getByRole('button', { name: ps('asg_check_my_work') }).click();
      await expect(panel.getByRole('status')).toHaveText(ps('asg_points_here', { earned: 2, points: 2 }), FIRST_RUN);
      await check('the assignment worked and checked', panel);
      await panel.getByRole('button', { name: ps('asg_hand_in') }).click();
      const handing = page.getByRole('dialog', { name: ps('asg_hand_in') });
      await handing.getByRole('textbox', { name: ps('asg_your_name') }).fill('Lou');
      await check('Hand in', handing, `${PEOPLE},input[type=text]`);
      const { data: handIn } = await downloaded(page, () => handing.getByRole('button', { name: ps('asg_save_hand_in') }).click());
      await expect(handing).toBeHidden();

      // The teacher grades it.
      await page.goto(`/#/s/${teacher}`);
      const grading = region(page, ps('asg_heading', { title: 'Doubles' }));
      await expect(grading.getByRole('button', { name: ps('asg_grade_submissions') })).toBeVisible();
      await chooseZips(page, ps('asg_grade_submissions'), [{ name: 'Doubles-Lou.pytabs.zip', data: handIn }]);
      await expect(grading.getByText(ps('asg_graded_of', { done: 1, total: 1 }))).toBeVisible({ timeout: 180_000 });
      const row = grading.getByRole('table', { name: ps('asg_grades_caption') }).getByRole('row').nth(1);
      await expect(row.getByRole('rowheader')).toHaveText('Lou');
      await check('the grades table', grading, `${PEOPLE},tbody th`);
    });

    test('the embed in the pseudo-language: a run and a run stopped at the time limit: no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      // The time limit is the app's setting, which an embed of the app's own origin shares.
      await openApp(page);
      await page.evaluate(() => window.pytabs!.updateSettings({ runTimeoutSeconds: 3 }));
      await page.goto('about:blank');
      await page.goto(`/${embedAddress('id=journey&vars=1&lang=en-XA', { name: 'Mean', cells: ['scores = [70, 85, 92]\nprint(sum(scores) / len(scores))'], files: [] })}`);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
      const check = checker(page, size.width);
      const embed = page.locator('main.embed');
      await expect(page.getByRole('textbox', { name: ps('rt_embed_code') })).toBeVisible();
      await check('an embed before its run', embed);

      await page.getByRole('button', { name: ps('rt_embed_run'), exact: true }).click();
      const output = page.getByRole('region', { name: ps('rt_embed_output') });
      await expect(output).toContainText('82.33333333333333', FIRST_RUN);
      await check('an embed after its run', embed);

      await page.getByRole('textbox', { name: ps('rt_embed_code') }).fill('while True:\n    pass');
      await page.getByRole('button', { name: ps('rt_embed_run'), exact: true }).click();
      await expect(output).toContainText(ps('rt_time_limit', { s: 3 }), { timeout: 30_000 });
      await check('an embed stopped at the time limit', embed);
    });
  });
}

/**
 * The tiny model that calls run_python with "r" at every turn (local-model.spec.ts has it): what
 * random weights do is known, so a round with it goes the same way each time.
 */
const prefersR = Buffer.from(ggufBytes({ shape: 'tiny', prefer: ['"', 'r'], name: 'Prefers r' }));

/** Numbers, a line of some 1,300 characters that the tiny model’s few tokens cannot shorten much. */
const NUMBERS = Array.from({ length: 250 }, (_, i) => (i * 7919) % 10007).join(' ');

test.describe('pseudo-language with the model in this browser, at 390 × 844', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true });

  test('a question whose earlier rounds outgrow the model’s context: the note of what was left out is marked, nothing off the screen, axe clean', async ({ page }) => {
    test.setTimeout(300_000);
    await openIn(page, 'en-XA');
    const check = checker(page, 390);
    const chat = page.locator('section.chat');
    const reply = (seq: number) => page.getByRole('group', { name: ps('chat_reply_to', { seq }) });

    // The model in this browser, added in Settings.
    await page.getByRole('button', { name: ps('settings_title') }).click();
    const settings = page.getByRole('dialog', { name: ps('settings_title') });
    await settings.getByRole('radio', { name: ps('chat_provider_local') }).check();
    const chooser = page.waitForEvent('filechooser');
    await settings.getByRole('button', { name: ps('chat_add_model_file') }).click();
    await (await chooser).setFiles({ name: 'prefers-r.gguf', mimeType: 'application/octet-stream', buffer: prefersR });
    await expect(settings.getByRole('radio', { name: /Prefers r/ })).toBeChecked();
    await settings.getByRole('button', { name: ps('settings_save') }).click();
    await expect(settings).toBeHidden();

    // The session holds the r the model's code reads, so its runs end without a Python error.
    const mode = page.getByRole('radiogroup', { name: ps('chat_mode') });
    await mode.getByRole('radio', { name: ps('chat_mode_code') }).check();
    await sendIn(page, ps, 'r = 42');
    await expect(reply(1)).toContainText(ps('chat_done_in', { duration: '\u0000' }).split('\u0000')[0], FIRST_RUN);

    // A first question, which fits: llama.cpp's count of its prompt teaches the page how many tokens a character takes.
    await mode.getByRole('radio', { name: ps('chat_mode_ask') }).check();
    await sendIn(page, ps, '?');
    await expect(reply(2).getByRole('group', { name: ps('chat_code_n', { n: 1 }) })).toContainText('42', { timeout: 120_000 });
    await page.getByRole('button', { name: ps('chat_stop'), exact: true }).click();
    await expect(reply(2)).toContainText(ps('chat_note_stopped'));

    // Two Code rounds whose code and output, kept word for word for the model, outgrow its 2,048 tokens.
    await mode.getByRole('radio', { name: ps('chat_mode_code') }).check();
    for (const seq of [3, 4]) {
      await sendIn(page, ps, `# ${NUMBERS}\nprint('${NUMBERS} ' * 2)`);
      await expect(reply(seq)).toContainText(NUMBERS.slice(0, 40), FIRST_RUN);
    }

    // The next question is fitted before it is sent, by leaving the earlier rounds out, and says so.
    await mode.getByRole('radio', { name: ps('chat_mode_ask') }).check();
    await sendIn(page, ps, '?');
    const cutNote = ps('chat_note_context_cut', { tokens: '\u0000', parts: '' }).split('\u0000')[0];
    await expect(reply(5)).toContainText(cutNote, { timeout: 120_000 });
    // What was left out is said too: inside the note's marks, once the texts marked within are cut
    // out, no plain letter is left (the marks checked below take a whole marked span, its parameters with it).
    let inside = (await reply(5).locator('p.note').filter({ hasText: cutNote }).innerText()).trim().slice(1, -1);
    for (let before = ''; before !== inside; ) [before, inside] = [inside, inside.replace(/⟦[^⟦⟧]*⟧/g, '')];
    expect(inside).not.toMatch(/[A-Za-z]/);
    await page.getByRole('button', { name: ps('chat_stop'), exact: true }).click();
    await expect(reply(5)).toContainText(ps('chat_note_stopped'));
    await check('an Ask round whose context was cut', chat, ASKED);
  });
});

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

for (const size of [
  { width: 390, height: 844, mobile: true },
  { width: 1280, height: 800, mobile: false },
]) {
  test.describe(`right-to-left pseudo-language at ${size.width} px`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, isMobile: size.mobile });

    test('a session with a run, its actions and Settings: mirrored, no unmarked text, nothing off the screen, axe clean', async ({ page }) => {
      await page.addInitScript(() => localStorage.setItem('pytabs-language', 'ar-XB'));
      await openApp(page);
      await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
      await expect(page.locator('html')).toHaveAttribute('lang', 'ar-XB');
      const check = checker(page, size.width);

      // A new session's start: its moving bar travels right to left.
      await page.getByRole('button', { name: rtl('app_new_session'), exact: true }).first().click();
      // Its tab, last in a strip wider than a phone, is scrolled into view.
      const tab = (await page.getByRole('tab', { selected: true }).boundingBox())!;
      expect(tab.x >= 0 && tab.x + tab.width <= size.width, JSON.stringify(tab)).toBe(true);
      let travel: number | null = null;
      await expect.poll(async () => (travel = await page.evaluate(startBarTravel)), { timeout: 30_000, intervals: [50] }).not.toBeNull();
      expect(travel!).toBeLessThan(0);

      await sendIn(page, rtl, "open('notes.txt', 'w').write('hello')\nprint('hello')");
      const answer = page.getByRole('group', { name: rtl('chat_reply_to', { seq: 1 }) });
      await expect(answer).toContainText('hello', FIRST_RUN);
      // The composer's row mirrors: the message mode, first in it, starts at its right edge.
      const row = (await page.locator('.composer-row').boundingBox())!;
      const mode = (await page.locator('.composer-row .mode').boundingBox())!;
      expect(Math.abs(row.x + row.width - (mode.x + mode.width)), JSON.stringify({ row, mode })).toBeLessThan(2);
      // Code and output stay left to right.
      expect(await page.locator('.cm-editor').first().evaluate((e) => getComputedStyle(e).direction)).toBe('ltr');
      expect(await answer.locator('pre').first().evaluate((e) => getComputedStyle(e).direction)).toBe('ltr');
      await check('a session with a run', page.locator('section.chat'));
      await check('its side panels', page.locator('aside.sidebar'));
      if (!size.mobile) {
        // The side panels sit to the left of the conversation.
        const side = (await page.locator('aside.sidebar').boundingBox())!;
        const main = (await page.locator('.main-column').boundingBox())!;
        expect(side.x + side.width).toBeLessThanOrEqual(main.x + 1);
      } else {
        // Session actions: the menu opens from its button's left edge, into the page.
        const button = page.getByRole('button', { name: rtl('actions_menu') });
        await button.click();
        const menu = page.getByRole('menu');
        await expect(menu.getByRole('menuitem', { name: rtl('actions_share') })).toBeVisible();
        const at = { button: (await button.boundingBox())!, menu: (await menu.boundingBox())! };
        expect(Math.abs(at.menu.x - at.button.x), JSON.stringify(at)).toBeLessThan(2);
        expect(at.menu.x + at.menu.width).toBeGreaterThan(at.button.x + at.button.width);
        await check('Session actions', menu);
        await page.keyboard.press('Escape');
        await expect(menu).toBeHidden();
      }

      await page.getByRole('button', { name: rtl('settings_title') }).click();
      const settings = page.getByRole('dialog', { name: rtl('settings_title') });
      await expect(settings).toBeVisible();
      await check('Settings', settings, `${PEOPLE},${PRODUCTS}`);
    });
  });
}
