import { expect } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { EngineElement, EnginePage } from '../../scripts/engines.mjs';

// Controls are found as a person finds them, by role and accessible name, with Testing
// Library's queries run inside the page: one implementation of ARIA roles and names for both
// engines, whose drivers have no such query of their own (WebKitWebDriver has none at all).
const TESTING_LIBRARY = readFileSync(createRequire(import.meta.url).resolve('@testing-library/dom/dist/@testing-library/dom.umd.min.js'), 'utf8');

/** A control by role and exact accessible name, optionally inside another (a dialog, a region). */
export interface Target {
  role: string;
  name?: string;
  /** Instead of `name`: the accessible name starts with this. */
  namePrefix?: string;
  within?: Target;
}

/** A session's first reply waits for its Python to start: seconds per session on two cores. */
export const FIRST_RUN = 90_000;

export class Person {
  private readonly temp = mkdtempSync(path.join(os.tmpdir(), 'pytabs-engines-'));

  constructor(readonly page: EnginePage) {}

  /** Opens the app and waits until it is ready. */
  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.untilReady();
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.untilReady();
  }

  async untilReady(): Promise<void> {
    await expect.poll(() => this.page.evaluate(() => Boolean((window as { pytabs?: unknown }).pytabs)), { timeout: 60_000 }).toBe(true);
  }

  /**
   * Runs an action that reloads the page (the Reload button) and waits for the new page to be
   * ready. The old page stays until the navigation starts, and its app would pass `untilReady`:
   * the old document is marked, and only a page without the mark counts.
   */
  async reloadedBy(action: () => Promise<void>): Promise<void> {
    await this.page.evaluate(() => void ((window as { __before?: boolean }).__before = true));
    await action();
    const ready = () =>
      this.page
        .evaluate(() => !(window as { __before?: boolean }).__before && Boolean((window as { pytabs?: unknown }).pytabs))
        // A page between two documents has no context to evaluate in yet: not ready.
        .catch(() => false);
    await expect.poll(ready, { timeout: 60_000, message: 'the page to reload' }).toBe(true);
  }

  /**
   * Waits until the app is kept for offline use. The service worker controls a first visit from
   * the start, but keeps the app only after the first run; this is when Settings says "Offline: yes".
   */
  async untilKeptOffline(): Promise<void> {
    await expect.poll(() => this.page.evaluate(() => Boolean(navigator.serviceWorker?.controller)), { timeout: 120_000 }).toBe(true);
    await expect
      .poll(() => this.page.evaluate(() => (window as { pytabsOffline?: { status: { offline: string } } }).pytabsOffline?.status.offline ?? null), { timeout: 120_000 })
      .toBe('ready');
  }

  /** The control, waiting for it to appear (and, with `enabled`, to be enabled). */
  async find(target: Target, { timeout = 30_000, enabled = false } = {}): Promise<EngineElement> {
    let found: EngineElement | null = null;
    await expect
      .poll(
        async () => {
          await this.withLibrary();
          found = await this.page.element(enabled ? QUERY_ENABLED : QUERY, target);
          return Boolean(found);
        },
        { timeout, message: `no ${describe(target)}` },
      )
      .toBe(true);
    return found!;
  }

  /** Clicks the control once it is enabled, as a person waits for a greyed-out button. */
  async click(target: Target): Promise<void> {
    await (await this.find(target, { enabled: true })).click();
  }

  /** Text content of the control, or null while there is none. */
  async text(target: Target): Promise<string | null> {
    await this.withLibrary();
    return this.page.evaluate(TEXT, target);
  }

  /** How many controls match now. */
  async count(target: Target): Promise<number> {
    await this.withLibrary();
    return (await this.page.evaluate(TEXTS, target)).length;
  }

  /** Whether the control is there now. */
  async has(target: Target): Promise<boolean> {
    return (await this.text(target)) !== null;
  }

  /** Waits until the control is there and disabled (`disabled` false: enabled), as a person sees a greyed-out button. */
  async expectDisabled(target: Target, disabled = true, timeout = 30_000): Promise<void> {
    await expect
      .poll(
        async () => {
          await this.withLibrary();
          return this.page.evaluate(DISABLED, target);
        },
        { timeout, message: `${describe(target)} to be ${disabled ? 'disabled' : 'enabled'}` },
      )
      .toBe(disabled);
  }

  /** Waits until the control is gone. */
  async expectGone(target: Target, timeout = 30_000): Promise<void> {
    await expect.poll(() => this.has(target), { timeout, message: `${describe(target)} to go` }).toBe(false);
  }

  /** Waits until the control's text (or, of several that match, one's) contains `part`. */
  async expectText(target: Target, part: string, timeout = 30_000): Promise<void> {
    const texts = async () => {
      await this.withLibrary();
      return this.page.evaluate(TEXTS, target);
    };
    await expect
      .poll(
        async () => {
          const all = await texts();
          return all.find((t) => t.includes(part)) ?? all.join(' | ');
        },
        { timeout, message: `${describe(target)} to contain ${JSON.stringify(part)}` },
      )
      .toContain(part);
  }

  /**
   * Replaces a text field's content. Inputs are selected and typed into with the engine's real
   * keys; the code editor (CodeMirror, a contenteditable) gets the text as one insertion, as a
   * paste would: typed keys there would add its own indentation and closing brackets.
   */
  async fill(target: Target, text: string): Promise<void> {
    const field = await this.find(target);
    const editable = await this.page.evaluate(SELECT_ALL, target);
    if (editable) await this.page.evaluate(INSERT_TEXT, text);
    else await field.type(text);
  }

  /**
   * Chooses a language in Settings → Language, as a person does, and leaves Settings open (in
   * the language chosen). Settings is found by its English names: call it from an English page.
   */
  async chooseLanguage(locale: string): Promise<void> {
    await this.click({ role: 'button', name: 'Settings' });
    await this.find({ role: 'combobox', name: 'Language', within: { role: 'dialog', name: 'Settings' } });
    // A pick in the select, as the browser reports one: its value, then a change event.
    await this.page.evaluate((locale) => {
      const select = document.getElementById('set-language') as HTMLSelectElement;
      select.value = locale;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }, locale);
  }

  /** Types a message in the composer and presses Send. */
  async send(code: string): Promise<void> {
    await this.fill({ role: 'textbox', name: 'Message' }, code);
    await this.click({ role: 'button', name: 'Send' });
  }

  /** The reply to the open session's nth message. */
  reply(n: number): Target {
    return { role: 'group', name: `Reply to message ${n}` };
  }

  region(name: string): Target {
    return { role: 'region', name };
  }

  /**
   * Chooses files in the file picker a button opens. The engines' native pickers cannot be
   * driven, so the files are set on the button's own `<input type=file>` through WebDriver, as
   * the picker would.
   */
  async choose(button: string, files: { name: string; data: string | Uint8Array }[]): Promise<void> {
    await this.find({ role: 'button', name: button });
    const dir = mkdtempSync(path.join(this.temp, 'upload-'));
    const paths = files.map((f) => {
      const file = path.join(dir, f.name);
      writeFileSync(file, f.data);
      return file;
    });
    const input = await this.page.element(PICKER_INPUT, button);
    if (!input) throw new Error(`no file input beside the button ${button}`);
    await input.upload(...paths);
  }

  /**
   * Runs `action` and returns the file the app handed to the browser as a download. The
   * engines' download managers are out of WebDriver's reach: the page's blob download link is
   * read in the page instead of followed.
   */
  async download(action: () => Promise<void>): Promise<{ name: string; data: Uint8Array }> {
    await this.page.evaluate(CATCH_DOWNLOADS);
    const before = await this.page.evaluate(() => (window as unknown as { __downloads: unknown[] }).__downloads.length);
    await action();
    let got: { name: string; base64: string } | undefined;
    await expect
      .poll(
        async () => {
          got = await this.page.evaluate((n) => (window as unknown as { __downloads: { name: string; base64: string }[] }).__downloads[n], before);
          return Boolean(got);
        },
        { timeout: 30_000, message: 'a download' },
      )
      .toBe(true);
    return { name: got!.name, data: new Uint8Array(Buffer.from(got!.base64, 'base64')) };
  }

  async dispose(): Promise<void> {
    rmSync(this.temp, { recursive: true, force: true });
  }

  private async withLibrary(): Promise<void> {
    const ready = await this.page.evaluate(() => Boolean((window as { __find?: unknown }).__find));
    if (ready) return;
    await this.page.evaluate((source) => void (0, eval)(source), TESTING_LIBRARY);
    await this.page.evaluate(DEFINE_FIND);
  }
}

function describe(t: Target): string {
  return `${t.role} "${t.name ?? ''}"${t.within ? ` in ${describe(t.within)}` : ''}`;
}

// In-page functions: serialized into the page, so each is self-contained.

type Finder = { __find: (t: Target) => HTMLElement | null; __findAll: (t: Target) => HTMLElement[] };

/** Defines `__find` in the page over Testing Library's role query; `within` narrows to a container. */
const DEFINE_FIND = (): void => {
  type Lib = { queryAllByRole: (c: Element, role: string, o: object) => HTMLElement[] };
  const lib = (window as unknown as { TestingLibraryDom: Lib }).TestingLibraryDom;
  const findAll = (t: Target): HTMLElement[] => {
    const container = t.within ? findAll(t.within)[0] : document.body;
    if (!container) return [];
    const name = t.namePrefix === undefined ? t.name : (n: string) => n.startsWith(t.namePrefix!);
    return lib.queryAllByRole(container, t.role, name === undefined ? {} : { name });
  };
  (window as unknown as Finder).__findAll = findAll;
  (window as unknown as Finder).__find = (t) => findAll(t)[0] ?? null;
};

const QUERY = (target: Target): Element | null => (window as unknown as Finder).__find(target);

const QUERY_ENABLED = (target: Target): Element | null => {
  const el = (window as unknown as Finder).__find(target);
  return el && !el.matches(':disabled') && el.getAttribute('aria-disabled') !== 'true' ? el : null;
};

/** Whether the control is disabled; null while there is none. */
const DISABLED = (target: Target): boolean | null => {
  const el = (window as unknown as Finder).__find(target);
  return el ? el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true' : null;
};

/** A control's text as a person reads it: a field's value, else its text. */
const TEXT = (target: Target): string | null => {
  const el = (window as unknown as Finder).__find(target);
  if (!el) return null;
  return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el.value : (el.textContent ?? '');
};

/** The text of every control that matches. */
const TEXTS = (target: Target): string[] => (window as unknown as Finder).__findAll(target).map((el) => el.textContent ?? '');

const SELECT_ALL = (target: Target): boolean => {
  const el = (window as unknown as Finder).__find(target);
  if (!el) throw new Error('the field is gone');
  el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    el.select();
    return false;
  }
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = getSelection()!;
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
};

const INSERT_TEXT = (text: string): void => {
  document.execCommand('insertText', false, text);
};

const PICKER_INPUT = (button: string): Element | null => {
  const buttons = Array.from(document.querySelectorAll('button')).filter((b) => b.textContent?.trim() === button || b.getAttribute('aria-label') === button);
  for (const b of buttons) {
    const input = b.previousElementSibling;
    if (input instanceof HTMLInputElement && input.type === 'file') return input;
  }
  return null;
};

const CATCH_DOWNLOADS = (): void => {
  const w = window as unknown as { __downloads?: { name: string; base64: string }[] };
  if (w.__downloads) return;
  const downloads: { name: string; base64: string }[] = (w.__downloads = []);
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    if (!this.download || !this.href.startsWith('blob:')) return click.call(this);
    const name = this.download;
    void fetch(this.href)
      .then((r) => r.arrayBuffer())
      .then((buffer) => {
        const bytes = new Uint8Array(buffer);
        let binary = '';
        for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        downloads.push({ name, base64: btoa(binary) });
      });
  };
};
