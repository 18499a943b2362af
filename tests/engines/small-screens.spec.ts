import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test, expect } from './fixtures';
import { FIRST_RUN, type Person, type Target } from './person';
import type { StaticHost } from '../e2e/static-host';
import { arrows, ENGLISH_STEP_NAMES } from './step-view';

// An iPad upright (768 × 1024) and a phone (390 × 844) in WebKit, iPads' engine: nothing runs off
// the screen, the session's actions are one "Session actions" menu, a step-through's controls
// are touch-sized, and axe-core finds nothing.
// MiniBrowser's window is sized so that its page is 768 × 1024; it cannot be narrower than
// 447 px, so the phone is an iframe of 390 × 844 on a page of the app's own host.
// Chromium's run of the same is tests/e2e/small-screens.spec.ts.
test.skip(({ engineName, hostHeaders }) => engineName !== 'webkit' || hostHeaders !== 'plain', "iPads' engine, once: Chromium runs tests/e2e/small-screens.spec.ts, and the layout does not depend on the host's headers");

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const MENU_BUTTON: Target = { role: 'button', name: 'Session actions' };
const MENU: Target = { role: 'menu', name: 'Session actions' };
const item = (name: string): Target => ({ role: 'menuitem', name, within: MENU });
const RENAME: Target = { role: 'dialog', name: 'Rename session' };

/** The window's width, how wide the document lays out, and the elements whose right edge is past the window. */
const OVERFLOW = () => {
  const width = window.innerWidth;
  const past = [...document.querySelectorAll('body *')]
    .filter((e) => e.getClientRects().length > 0 && e.getBoundingClientRect().right > width + 0.5)
    .map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute('class') ?? ''} ${Math.round(e.getBoundingClientRect().right)}`);
  return { width, scrollWidth: document.documentElement.scrollWidth, past };
};

async function expectNoOverflow(person: Person, width: number, when: string): Promise<void> {
  expect(await person.page.evaluate(OVERFLOW), when).toEqual({ width, scrollWidth: width, past: [] });
}

async function expectAxeClean(person: Person, when: string): Promise<void> {
  if (!(await person.page.evaluate(() => Boolean((window as { axe?: unknown }).axe)))) await person.page.evaluate((source) => void (0, eval)(source), AXE);
  const violations = await person.page.evaluate(async () => {
    type Result = { violations: { id: string; nodes: { target: string[] }[] }[] };
    const result: Result = await (window as unknown as { axe: { run: (context: Document) => Promise<Result> } }).axe.run(document);
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, when).toEqual([]);
}

/** Whether the control lies whole inside the window, unscrolled. */
async function onFirstScreen(person: Person, target: Target): Promise<boolean> {
  await person.find(target);
  return person.page.evaluate((t) => {
    const el = (window as unknown as { __find: (t: unknown) => Element }).__find(t);
    const r = el.getBoundingClientRect();
    return window.scrollY === 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  }, target);
}

const focused = (person: Person) => person.page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

/** The control's box in the window: whether it is at least 44 × 44 (a finger's size) and lies across the window's width. */
async function touchSized(person: Person, target: Target): Promise<{ name: string; big: boolean; across: boolean }> {
  await person.find(target);
  return person.page.evaluate((t) => {
    const el = (window as unknown as { __find: (t: unknown) => Element }).__find(t);
    const r = el.getBoundingClientRect();
    return { name: (t as { name: string }).name, big: r.width >= 44 && r.height >= 44, across: r.left >= 0 && r.right <= window.innerWidth };
  }, target);
}

/** The app, with what it stored, in an iframe of 390 × 844 on a page of its own host: a phone, narrower than MiniBrowser's window can be. */
async function openOnPhone(person: Person, host: StaticHost): Promise<void> {
  host.mount('phone/', (_req, res) =>
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<!doctype html><html lang="en"><title>A phone</title><body style="margin:0"><iframe title="PyTabs" src="../" style="display:block;border:0;width:390px;height:844px"></iframe></body></html>'),
  );
  await person.page.goto(`${host.url}phone/`);
  await person.page.enterFrame();
  await person.untilReady();
}

async function renameInDialog(person: Person, name: string): Promise<void> {
  await person.fill({ role: 'textbox', name: 'Session name', within: RENAME }, name);
  await person.click({ role: 'button', name: 'Save name', within: RENAME });
  await person.expectGone(RENAME);
  await person.expectText({ role: 'heading', name }, name);
}

test('an iPad and a phone: nothing runs off the screen, the Session actions menu works by keyboard and mouse, axe passes', async ({ person, host }) => {
  // The iPad: MiniBrowser's page itself at 768 × 1024.
  await person.page.goto(host.url);
  await person.page.resize(768, 1024);
  await person.untilReady();
  expect(await onFirstScreen(person, { role: 'textbox', name: 'Message' })).toBe(true);
  expect(await onFirstScreen(person, { role: 'button', name: 'Send' })).toBe(true);
  await person.send('print("x" * 3000)\n"y" * 800');
  await person.expectText(person.reply(1), 'xxxxxxxxxx', FIRST_RUN);
  await person.expectText(person.reply(1), 'yyyyyyyyyy');
  await expectNoOverflow(person, 768, 'the iPad, after a round of long output');

  // By keyboard: ArrowDown opens it on its first item, End and Escape; ArrowUp opens it on its last.
  await (await person.find(MENU_BUTTON)).press('ArrowDown');
  await expect.poll(() => focused(person)).toBe('Share');
  expect(await person.page.evaluate(() => [...document.querySelectorAll('[role="menuitem"]')].map((e) => e.textContent?.trim()))).toEqual([
    'Share',
    'Embed',
    'Export session',
    'Save as assignment',
    'Rename session',
    'Clear session',
    'Delete session',
  ]);
  await (await person.find(item('Share'))).press('End');
  await expect.poll(() => focused(person)).toBe('Delete session');
  await expectNoOverflow(person, 768, 'the iPad, the menu open');
  await expectAxeClean(person, 'the iPad, the menu open');
  await (await person.find(item('Delete session'))).press('Escape');
  await person.expectGone(MENU);
  await expect.poll(() => focused(person)).toBe('Session actions');
  await (await person.find(MENU_BUTTON)).press('ArrowUp');
  await expect.poll(() => focused(person)).toBe('Delete session');
  await (await person.find(item('Delete session'))).press('ArrowUp');
  await (await person.find(item('Clear session'))).press('ArrowUp');
  await expect.poll(() => focused(person)).toBe('Rename session');
  await (await person.find(item('Rename session'))).press('Enter');
  await person.expectGone(MENU);
  await renameInDialog(person, 'Tablet work');
  await expectAxeClean(person, 'the iPad');
  // Settings, with its section for a model in this browser (Safari on an iPad runs the compatible build).
  const settings = { role: 'dialog', name: 'Settings' };
  await person.click({ role: 'button', name: 'Settings' });
  await person.click({ role: 'radio', name: 'A model in this browser', within: settings });
  await person.expectText(settings, 'None yet: add a GGUF file');
  await expectNoOverflow(person, 768, 'the iPad, Settings for a model in this browser');
  await expectAxeClean(person, 'the iPad, Settings for a model in this browser');
  await person.click({ role: 'button', name: 'Cancel', within: settings });
  await person.expectGone(settings);

  // The phone: the same app in an iframe of 390 × 844, with the round it stored.
  await openOnPhone(person, host);
  await person.expectText(person.reply(1), 'xxxxxxxxxx');
  expect(await person.page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([390, 844]);
  expect(await onFirstScreen(person, { role: 'textbox', name: 'Message' })).toBe(true);
  expect(await onFirstScreen(person, { role: 'button', name: 'Send' })).toBe(true);
  await expectNoOverflow(person, 390, 'the phone');

  // By mouse: a click opens it, a click outside closes it, an item does what the button did.
  await person.click(MENU_BUTTON);
  await person.find(item('Rename session'));
  await expectNoOverflow(person, 390, 'the phone, the menu open');
  await expectAxeClean(person, 'the phone, the menu open');
  await person.click({ role: 'heading', name: 'Tablet work' });
  await person.expectGone(MENU);
  await person.click(MENU_BUTTON);
  await person.click(item('Rename session'));
  await person.expectGone(MENU);
  await renameInDialog(person, 'Pocket work');
  await expectAxeClean(person, 'the phone');
});

test('an iPad and a phone: the step-through fits, its controls are touch-sized, its arrows land on the list, and it goes back', async ({ person, host }) => {
  const view: Target = { role: 'group', name: 'Step-through', within: person.reply(1) };
  const slider: Target = { role: 'slider', name: 'Step', within: view };
  const said: Target = { role: 'status', within: view };
  const control = (name: string): Target => ({ role: 'button', name, within: view });
  const stepsThrough = async (width: number, where: string) => {
    await person.click(control('Last'));
    expect(await person.text(slider)).toBe('6');
    expect(await person.count({ role: 'button', name: '→ list #1', within: { role: 'group', name: '<module>', within: view } })).toBe(2);
    await expect.poll(() => arrows(person, ENGLISH_STEP_NAMES), { timeout: 10_000 }).toMatchObject({ arrows: 2, fromRefs: [1, 1], onTheList: true });
    await expectNoOverflow(person, width, `${where}, the step-through at its last step`);
    await expectAxeClean(person, `${where}, the step-through`);
    // The line numbers grow to 44 px only under a touch pointer, which MiniBrowser (a mouse) has not;
    // Chromium's touch emulation checks them (tests/e2e/step-through.spec.ts).
    for (const name of ['First', 'Back', 'Forward', 'Last', 'Next time this line runs']) expect(await touchSized(person, control(name))).toEqual({ name, big: true, across: true });
    for (let i = 0; i < 3; i++) await person.click(control('Back'));
    await person.expectText(said, 'Line 2: b is list #1');
    expect(await person.text(slider)).toBe('3');
  };

  await person.page.goto(host.url);
  await person.page.resize(768, 1024);
  await person.untilReady();
  await person.fill({ role: 'textbox', name: 'Message' }, 'a = [1, 2]\nb = a\nb.append(3)\ntotal = len(a)\ndone = True');
  await person.click({ role: 'button', name: 'Step through' });
  await person.find(view, { timeout: FIRST_RUN });
  await stepsThrough(768, 'the iPad');

  // The phone: the same app in an iframe of 390 × 844, with the step-through kept with its round.
  await openOnPhone(person, host);
  await person.find(view, { timeout: FIRST_RUN });
  expect(await person.page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([390, 844]);
  await stepsThrough(390, 'the phone');
});
