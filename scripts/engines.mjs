// Chromium, Firefox ESR and WebKitGTK for the cross-engine tests (tests/engines) and the bench:
// Playwright's own Firefox and WebKit cannot be downloaded here, and its `moz-firefox` channel
// fails against ESR 153, so Chromium is driven by Playwright, Firefox by puppeteer-core over
// WebDriver BiDi, and WebKitGTK's MiniBrowser by selenium-webdriver through WebKitWebDriver,
// under an Xvfb display of its own. All three are wrapped in one small surface (a profile, its
// pages, evaluate, elements) so a test or a measurement is written once for every engine.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.mjs';

export const ENGINES = /** @type {const} */ (['chromium', 'firefox', 'webkit']);

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
const MINIBROWSER = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** What is missing for an engine to run here, or '' when it can. */
export function engineMissing(name) {
  if (name === 'chromium') {
    try {
      chromiumPath();
      return '';
    } catch (error) {
      return error.message;
    }
  }
  const need = name === 'firefox' ? [FIREFOX] : [WEBKIT_DRIVER, MINIBROWSER, 'Xvfb'];
  for (const bin of need) {
    try {
      execFileSync('sh', ['-c', `command -v "${bin}"`], { stdio: 'ignore' });
    } catch {
      return `${bin} not found (apt-get install -y firefox-esr webkit2gtk-driver xvfb)`;
    }
  }
  return '';
}

/**
 * Starts an engine: `newProfile()` opens a browser with a fresh profile (its own storage, service
 * workers and caches), as a new person's browser would be.
 * @param {'firefox' | 'webkit'} name
 */
export async function launchEngine(name) {
  if (name === 'chromium') return chromiumEngine();
  if (name === 'firefox') return { name, newProfile: firefoxProfile, close: async () => undefined };
  const display = await xvfb();
  return {
    name,
    // WebKitWebDriver serves one session at a time: each profile gets a driver of its own.
    async newProfile() {
      const port = await freePort();
      const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: 'ignore', env: { ...process.env, DISPLAY: display.name } });
      try {
        await untilListening(port);
        const profile = await webkitProfile(`http://127.0.0.1:${port}`);
        return { ...profile, close: () => profile.close().finally(() => driver.kill()) };
      } catch (error) {
        driver.kill();
        throw error;
      }
    },
    close: async () => display.process.kill(),
  };
}

/** Debian's Chromium through Playwright: one browser, a fresh context for each profile. */
async function chromiumEngine() {
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  return {
    name: 'chromium',
    async newProfile() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      return {
        engine: 'chromium',
        version: `chromium/${browser.version()}`,
        newPage: async () => scriptedPage(await context.newPage(), (el, paths) => el.setInputFiles(paths)),
        close: () => context.close().catch(() => undefined),
      };
    },
    close: () => browser.close(),
  };
}

/**
 * A Playwright (Chromium) or puppeteer (Firefox) page: their page and element APIs agree but
 * for how a file input is set.
 */
function scriptedPage(page, upload) {
  // Where scripts run and elements are found: the page, or after `enterFrame` its iframe, until the next navigation.
  let scope = page;
  return {
    async goto(url) {
      scope = page;
      await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    },
    async reload() {
      scope = page;
      await page.reload({ waitUntil: 'load', timeout: 60_000 });
    },
    async back() {
      scope = page;
      await page.goBack({ waitUntil: 'load', timeout: 60_000 });
    },
    url: () => page.url(),
    // Playwright's page and puppeteer's name it differently.
    resize: (width, height) => ('setViewportSize' in page ? page.setViewportSize({ width, height }) : page.setViewport({ width, height })),
    async enterFrame() {
      const frame = page.mainFrame().childFrames()[0];
      if (!frame) throw new Error('the page has no iframe');
      scope = frame;
    },
    evaluate: (fn, arg) => scope.evaluate(fn, arg ?? null),
    async element(fn, arg) {
      const handle = await scope.evaluateHandle(fn, arg ?? null);
      const el = handle.asElement();
      if (!el) {
        await handle.dispose();
        return null;
      }
      return {
        // puppeteer clicks where the element is when asked, without waiting for it to stand still
        // (Playwright waits): Firefox missed a Settings button as the dialog above it filled in.
        click: () =>
          clickChecked({
            settle: () => el.evaluate(settleInPage),
            watch: () => el.evaluate(watchClick),
            click: () => el.click(),
            landed: () => el.evaluate(clickLanded).catch(() => null),
          }),
        type: (text) => el.type(text),
        press: (key) => el.press(key),
        upload: (...paths) => upload(el, paths),
      };
    },
    close: () => page.close(),
  };
}

/**
 * @param {{ serviceWorkers?: boolean }} [options] `serviceWorkers: false` as in a private window,
 *   which has none (Firefox's own switch for it).
 */
async function firefoxProfile(options = {}) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    headless: true,
    protocolTimeout: 600_000,
    // The layout of a laptop screen, as the other engines get (puppeteer's own is 800x600, where
    // the session's actions are one menu).
    defaultViewport: { width: 1280, height: 900 },
    // Quiet in a container: no update checks, telemetry or first-run pages.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'browser.shell.checkDefaultBrowser': false,
      ...(options.serviceWorkers === false ? { 'dom.serviceWorkers.enabled': false } : {}),
    },
  });
  const version = await browser.version();
  return {
    engine: 'firefox',
    version,
    newPage: async () => scriptedPage(await browser.newPage(), (el, paths) => el.uploadFile(...paths)),
    close: () => browser.close().catch(() => undefined),
  };
}

async function webkitProfile(server) {
  const { Builder, Key } = await import('selenium-webdriver');
  const driver = await new Builder()
    .usingServer(server)
    .withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    })
    .build();
  await driver.manage().setTimeouts({ script: 600_000, pageLoad: 60_000 });
  // The layout of a laptop screen, as the other engines get (MiniBrowser opens at 800x600).
  await driver.manage().window().setRect({ width: 1280, height: 900 });
  const caps = await driver.getCapabilities();
  const version = `WebKitGTK ${caps.get('browserVersion') ?? ''}`.trim();
  const KEYS = { Enter: Key.ENTER, Escape: Key.ESCAPE, Tab: Key.TAB, ArrowDown: Key.ARROW_DOWN, ArrowUp: Key.ARROW_UP, Home: Key.HOME, End: Key.END };
  // One window has WebDriver's focus at a time: each page switches to its own before a command.
  let current = await driver.getWindowHandle();
  const onWindow = async (handle) => {
    if (current !== handle) await driver.switchTo().window(handle);
    current = handle;
  };
  const page = (handle) => ({
    async goto(url) {
      await onWindow(handle);
      await driver.get(url);
    },
    async reload() {
      await onWindow(handle);
      await driver.navigate().refresh();
    },
    async back() {
      await onWindow(handle);
      await driver.navigate().back();
    },
    async url() {
      await onWindow(handle);
      return driver.getCurrentUrl();
    },
    async resize(width, height) {
      await onWindow(handle);
      // The window holds MiniBrowser's toolbar and frame besides the page: it is sized once, the
      // page measured, and sized again by the difference.
      const inner = () => driver.executeScript('return [window.innerWidth, window.innerHeight];');
      // GTK resizes a moment later: the page's size is read until it holds still (or is `want`).
      const settled = async (want) => {
        let last = await inner();
        for (let i = 0; i < 30; i++) {
          await new Promise((r) => setTimeout(r, 100));
          const now = await inner();
          if (want ? now[0] === want[0] && now[1] === want[1] : now[0] === last[0] && now[1] === last[1]) return now;
          last = now;
        }
        return last;
      };
      await driver.manage().window().setRect({ width, height });
      const [w, h] = await settled(null);
      const outer = await driver.manage().window().getRect();
      await driver.manage().window().setRect({ width: outer.width + width - w, height: outer.height + height - h });
      const got = await settled([width, height]);
      if (got[0] !== width || got[1] !== height) throw new Error(`MiniBrowser's page is ${got.join(' x ')}, not ${width} x ${height}`);
    },
    async enterFrame() {
      await onWindow(handle);
      // Until the next navigation, or a switch to another window, which go back to the top.
      await driver.switchTo().frame(0);
    },
    async evaluate(fn, arg) {
      await onWindow(handle);
      const out = await driver.executeAsyncScript(ASYNC_CALL(fn), arg ?? null);
      if (out && 'error' in out) throw new Error(`in the page: ${out.error}`);
      return out?.value;
    },
    async element(fn, arg) {
      await onWindow(handle);
      const el = await driver.executeScript(`return (${fn})(arguments[0]);`, arg ?? null);
      if (!el || typeof el.click !== 'function') return null;
      return {
        click: async () => {
          await onWindow(handle);
          // WebKitWebDriver refuses a click on an element scrolled out of its container's view,
          // and clicks where the element was: it waits, as a person's eye does, until the
          // element has stood still (a dialog still filling in moves it).
          await clickChecked({
            settle: () => driver.executeAsyncScript(SETTLE, el),
            watch: () => driver.executeScript(`(${watchClick})(arguments[0]);`, el),
            click: () => el.click(),
            landed: () => driver.executeScript(`return (${clickLanded})(arguments[0]);`, el).catch(() => null),
          });
        },
        // WebKitWebDriver types no key for a '\n' (WebDriver's Enter is its own code point), as a person presses Enter for one.
        type: async (text) => (await onWindow(handle), el.sendKeys(text.replaceAll('\n', Key.ENTER))),
        press: async (key) => (await onWindow(handle), el.sendKeys(KEYS[key] ?? key)),
        upload: async (...paths) => (await onWindow(handle), el.sendKeys(paths.join('\n'))),
      };
    },
    async close() {
      await onWindow(handle);
      await driver.close();
    },
  });
  const first = current;
  let used = false;
  return {
    engine: 'webkit',
    version,
    async newPage() {
      if (!used) {
        used = true;
        return page(first);
      }
      await driver.switchTo().newWindow('tab');
      current = await driver.getWindowHandle();
      return page(current);
    },
    close: () => driver.quit().catch(() => undefined),
  };
}

/**
 * In the page: resolves once the element has stood still for 3 frames and 100 ms, scrolled into the middle
 * of its view, with nothing over its middle (5 s at most), as Playwright's clicks wait. A dialog
 * still filling in (a section's figures arriving) moves the controls below it, and a passing note
 * floats over the page: a click aimed at where one was lands elsewhere.
 */
function settleInPage(el) {
  return new Promise((done) => {
    const boxOf = () => {
      const r = el.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height].join();
    };
    const onTop = () => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      // A radio or checkbox drawn by its label is clicked through it.
      return hit !== null && (el.contains(hit) || [...(el.labels ?? [])].some((label) => label.contains(hit)));
    };
    const t0 = performance.now();
    let last = '';
    let still = 0;
    let since = t0;
    const tick = () => {
      const now = performance.now();
      if (boxOf() === last) still++;
      else {
        still = 0;
        since = now;
        el.scrollIntoView({ block: 'center', inline: 'center' });
        last = boxOf();
      }
      // 3 frames (50 ms) were too few once in Firefox, with Settings' sections filling in apart;
      // clickChecked aims again at a control that moved later still.
      if ((still >= 3 && now - since >= 100 && onTop()) || now - t0 > 5000) done();
      else requestAnimationFrame(tick);
    };
    tick();
  });
}

/**
 * A click through the engine's driver, checked as a person checks what they clicked: the page
 * records where the click landed, and a click that landed beside the control on nothing a person
 * could use (text, a section's padding: the page moved between aiming and clicking) is aimed
 * again, once. One that landed on another control is an error naming it, since it did something.
 */
async function clickChecked({ settle, watch, click, landed }) {
  for (let attempt = 1; ; attempt++) {
    await settle();
    await watch();
    await click();
    // The click's event comes with the driver's answer, or just after it; a page that navigated
    // away (a Reload button) answers nothing, which counts as the click having done its work.
    let where = null;
    for (let i = 0; i < 10 && where === null; i++) {
      where = await landed();
      if (where === null) await new Promise((r) => setTimeout(r, 100));
    }
    if (where === null || where === 'on it') return;
    if (!where.startsWith('beside ') || attempt === 2) throw new Error(`the click landed ${where}, not on the control`);
    console.log(`a click landed ${where}, not on the control: aimed again`);
  }
}

/** In the page: notes the target of the next click anywhere, for clickLanded. */
function watchClick(el) {
  el.__pytabsClick = null;
  window.addEventListener(
    'click',
    (event) => {
      const target = event.target instanceof Element ? event.target : null;
      const on = target !== null && (el.contains(target) || [...(el.labels ?? [])].some((label) => label.contains(target)));
      const control = target?.closest('button, a[href], input, select, textarea, summary, label, [role=button], [role=tab], [role=menuitem]');
      const name = (n) => `${n.tagName.toLowerCase()} "${(n.getAttribute('aria-label') ?? n.textContent ?? '').trim().slice(0, 60)}"`;
      el.__pytabsClick = on ? 'on it' : control ? `on ${name(control)}` : `beside it, on ${target ? name(target) : 'nothing'}`;
    },
    { capture: true, once: true },
  );
}

/** In the page: where the watched click landed, or null before it came. */
function clickLanded(el) {
  return el.__pytabsClick ?? null;
}

/** settleInPage through WebDriver's async script. */
const SETTLE = `const [el, done] = [arguments[0], arguments[arguments.length - 1]]; (${settleInPage})(el).then(done);`;

/** Runs `fn(arg)` (maybe async) in the page and reports its value or its error through WebDriver's async script. */
const ASYNC_CALL = (fn) => `
  const done = arguments[arguments.length - 1];
  Promise.resolve().then(() => (${fn})(arguments[0])).then(
    (value) => done({ value: value === undefined ? null : value }),
    (e) => done({ error: String(e && e.stack ? e.message + '\\n' + e.stack : e) }),
  );`;

/** An Xvfb server on a free display (-displayfd): MiniBrowser is a GTK window even when nobody looks. */
async function xvfb() {
  const process_ = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const number = await new Promise((resolve, reject) => {
    let out = '';
    process_.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    process_.on('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
  });
  return { name: `:${number}`, process: process_ };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function untilListening(port) {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/status`);
      if (res.ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`WebKitWebDriver did not start on port ${port}`);
}
