import { test, expect, type Page } from '@playwright/test';
import * as XLSX from 'xlsx';
import { choose, FIRST_RUN, firstSessionId, openApp, region, reply, send } from './app';

// What the page shows of a session must be that session's, whatever answers arrive late:
// each case below is a race a loaded classroom machine hits, made to happen every time by
// Chromium's CPU throttling or by holding IndexedDB, and driven by role and name.

async function throttle(page: Page, rate: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
}

function tab(page: Page, name: string) {
  return page.getByRole('tab', { name, exact: true });
}

/** Creates sessions through the API and reloads, so the tabs list them; returns their ids by name. */
async function sessionsNamed(page: Page, names: string[]): Promise<Record<string, string>> {
  // The app's own first session comes first: made before it lists sessions, these would stand in for it.
  await firstSessionId(page);
  const ids = await page.evaluate(async (names) => {
    const out: Record<string, string> = {};
    for (const name of names) out[name] = (await window.pytabs!.createSession(name)).id;
    return out;
  }, names);
  await page.reload();
  await openApp(page, page.url());
  return ids;
}

/**
 * Records, on every change of the page, any panel of the open session that shows another
 * session's marker (markers are `mk-<session name>`), and any heading that is not the
 * selected tab's. A MutationObserver runs after each batch of DOM changes, so a wrong state
 * that lasts a single frame is caught too.
 */
async function watchMarkers(page: Page, names: string[]): Promise<void> {
  await page.evaluate((names) => {
    const found: string[] = [];
    (window as unknown as { __wrong: string[] }).__wrong = found;
    const check = () => {
      const selected = document.querySelector('[role="tab"][aria-selected="true"] .tab-name')?.textContent?.trim();
      const panel = document.getElementById('session-panel');
      if (!selected || !panel) return;
      const heading = panel.querySelector('h1')?.textContent?.trim();
      if (heading !== selected) found.push(`heading "${heading}" under tab "${selected}"`);
      const text = panel.textContent ?? '';
      for (const name of names) {
        if (name !== selected && text.includes(`mk-${name}`)) found.push(`mk-${name} shown under tab "${selected}"`);
      }
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, names);
}

function wrong(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __wrong: string[] }).__wrong);
}

/**
 * Holds one IndexedDB store in a read-write transaction of the test's own (a request chained
 * on each answer keeps it open), so every transaction of the app's that touches the store
 * waits: the slow storage of a loaded machine, on demand. Returns what lets it go.
 */
async function holdStore(page: Page, name: string): Promise<() => Promise<void>> {
  await page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const store = db.transaction(name, 'readwrite').objectStore(name);
    let held = true;
    (window as unknown as { __release: () => void }).__release = () => {
      held = false;
      db.close();
    };
    const spin = () => {
      if (held) store.count().onsuccess = spin;
    };
    spin();
  }, name);
  return () => page.evaluate(() => (window as unknown as { __release: () => void }).__release());
}

function workbook(marker: string, rows: number): Buffer {
  const sheet = XLSX.utils.aoa_to_sheet([
    ['marker', 'n', 'label'],
    ...Array.from({ length: rows }, (_, i) => [marker, i, `${marker}-row-${i}`]),
  ]);
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Data');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

test('"New session" clicked while the page still loads (a phone, CPU slowed 4x) makes a session with a name of its own', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await throttle(page, 4);
  await page.goto('/');
  // Clicked the moment it is there, before the page has read the (empty) list and made its
  // first session: a pointer click first waits two frames for the button to hold still, and
  // by then the load is over.
  await page.getByRole('button', { name: 'New session' }).dispatchEvent('click');
  await expect(page.getByRole('tab')).toHaveCount(2);
  const stored = await page.evaluate(async () => (await window.pytabs!.listSessions()).map((s) => s.name));
  expect(stored.sort()).toEqual(['Session 1', 'Session 2']);
  for (const name of stored) await expect(tab(page, name)).toHaveCount(1);
  await throttle(page, 1);
});

test('a file attached right after "New session" goes with the new session\'s first message', async ({ page }) => {
  await openApp(page);
  await expect(tab(page, 'Session 1')).toHaveAttribute('aria-selected', 'true');
  // Storing the new session's record takes its time (a loaded machine): the attachment and
  // the message are made before it is stored.
  const release = await holdStore(page, 'sessions');
  await page.getByRole('button', { name: 'New session' }).click();
  await choose(page, 'Attach files', [{ name: 'data.csv', text: 'x\n5\n7\n' }]);
  await send(page, "import csv\nsum(int(r['x']) for r in csv.DictReader(open('data.csv')))");
  await release();
  await expect(tab(page, 'Session 2')).toHaveAttribute('aria-selected', 'true');
  await expect(reply(page, 1)).toContainText('Done in', FIRST_RUN);
  await expect(reply(page, 1)).toContainText('12');
  await expect(region(page, 'Files').getByRole('button', { name: 'Preview data.csv' })).toBeVisible();
  // Nothing of it reached the session that was open at the click.
  await tab(page, 'Session 1').click();
  await expect(region(page, 'Files').getByText('No files yet')).toBeVisible();
  await expect(reply(page, 1)).toHaveCount(0);
});

test("a session owned by another tab is read-only there, and its late answer does not make the next session read-only", async ({ browser }) => {
  const context = await browser.newContext();
  const owner = await context.newPage();
  await openApp(owner);
  const ids = await sessionsNamed(owner, ['Bravo']);
  // The first tab owns Session 1; the second opens on Bravo and owns it.
  await expect.poll(() => owner.evaluate(() => window.pytabs!.listSessions().then((l) => l.find((s) => s.name === 'Session 1')?.status))).toBe('idle');
  const page = await context.newPage();
  await openApp(page, `/#/s/${ids.Bravo}`);
  await expect.poll(() => page.evaluate((id) => window.pytabs!.ownership(id), ids.Bravo)).toBe('owned');
  const readOnly = page.getByRole('status').filter({ hasText: 'This session is open in another tab' });

  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    new MutationObserver(() => {
      const selected = document.querySelector('[role="tab"][aria-selected="true"] .tab-name')?.textContent?.trim();
      if (document.getElementById('session-panel')?.textContent?.includes('This session is open in another tab')) seen.push(selected ?? '');
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // Session 1's claim waits for the other tab (it asks again for about a second); Bravo is opened meanwhile.
  await tab(page, 'Session 1').click();
  await tab(page, 'Bravo').click();
  const sessionOne = await page.evaluate(() => window.pytabs!.listSessions().then((l) => l.find((s) => s.name === 'Session 1')!.id));
  // The same pending claim the click made: it settles when the click's does.
  expect(await page.evaluate((id) => window.pytabs!.claim(id), sessionOne)).toBe('elsewhere');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen)).not.toContain('Bravo');
  await expect(readOnly).toBeHidden();
  await expect(page.getByRole('button', { name: 'Take over' })).toBeHidden();

  // Session 1 itself is read-only here, and Take over acts on it.
  await tab(page, 'Session 1').click();
  await expect(readOnly).toBeVisible();
  await page.getByRole('button', { name: 'Take over' }).click();
  await expect(readOnly).toBeHidden();
  await expect.poll(() => page.evaluate((id) => window.pytabs!.ownership(id), sessionOne)).toBe('owned');
  await expect.poll(() => page.evaluate((id) => window.pytabs!.ownership(id), ids.Bravo)).toBe('owned');
  await context.close();
});

test("a slow preview of one session's data.xlsx is not shown in the session opened meanwhile", async ({ page }) => {
  await openApp(page);
  const ids = await sessionsNamed(page, ['alpha', 'bravo']);
  for (const name of ['alpha', 'bravo']) {
    await page.evaluate(
      ([id, bytes]) => window.pytabs!.writeFile(id, 'data.xlsx', new Uint8Array(bytes)),
      [ids[name], [...workbook(`mk-${name}`, 3000)]] as const,
    );
  }
  await tab(page, 'alpha').click();
  const files = region(page, 'Files');
  await expect(files.getByRole('button', { name: 'Preview data.xlsx' })).toBeVisible();
  await watchMarkers(page, ['alpha', 'bravo']);
  // The first preview of a workbook also loads SheetJS: slow on a throttled CPU.
  await throttle(page, 6);
  await files.getByRole('button', { name: 'Preview data.xlsx' }).click();
  await tab(page, 'bravo').click();
  await throttle(page, 1);
  // Back on alpha, its own preview is there once it finished: it was never bravo's.
  await tab(page, 'alpha').click();
  await expect(files.getByRole('cell', { name: 'mk-alpha-row-0' })).toBeVisible();
  expect(await wrong(page)).toEqual([]);
  await tab(page, 'bravo').click();
  await expect(files.getByRole('button', { name: 'Preview data.xlsx' })).toHaveAttribute('aria-pressed', 'false');
  await expect(files.getByRole('table')).toHaveCount(0);
  expect(await wrong(page)).toEqual([]);
});

test("a session variable saved while another session is opened is shown only in its own session", async ({ page }) => {
  await openApp(page);
  await sessionsNamed(page, ['alpha', 'bravo']);
  await tab(page, 'alpha').click();
  const vars = region(page, 'Session variables');
  await expect(vars.getByRole('textbox', { name: 'Name' })).toBeVisible();
  await watchMarkers(page, ['alpha', 'bravo']);
  await vars.getByRole('textbox', { name: 'Name' }).fill('owner');
  await vars.getByRole('textbox', { name: 'Value' }).fill('mk-alpha');
  // The save waits for storage until bravo is open.
  const release = await holdStore(page, 'sessions');
  await vars.getByRole('button', { name: 'Add variable' }).click();
  await tab(page, 'bravo').click();
  await release();
  await expect.poll(() => page.evaluate(() => window.pytabs!.listSessions().then((l) => l.find((s) => s.name === 'alpha')!.id)).then((id) => page.evaluate((id) => window.pytabs!.getSessionVars(id), id))).toEqual({ owner: 'mk-alpha' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(vars.getByRole('list', { name: 'Session variable list' })).toHaveCount(0);
  expect(await wrong(page)).toEqual([]);
  await tab(page, 'alpha').click();
  await expect(vars.getByRole('list', { name: 'Session variable list' })).toContainText('owner = mk-alpha');
});

test('deleting a session while it starts shows no start error', async ({ page }) => {
  await openApp(page);
  await sessionsNamed(page, ['Sleepy']);
  // Opening it starts its Python, whose start reads the session's pickles: held, the start
  // is still under way when the delete comes (the delete waits for them too).
  const release = await holdStore(page, 'pickles');
  await tab(page, 'Sleepy').click();
  await expect(page.getByText("Starting this session's Python")).toBeVisible();
  await page.getByRole('button', { name: 'Delete session' }).click();
  await page.getByRole('button', { name: 'Delete permanently' }).click();
  await release();
  await expect(page.getByRole('status').filter({ hasText: 'Deleted Sleepy.' })).toBeVisible();
  await expect(tab(page, 'Sleepy')).toHaveCount(0);
  await expect(page.getByRole('alert')).not.toContainText('could not start');
  // The session left open afterwards works.
  await send(page, '6 * 7');
  await expect(reply(page, 1)).toContainText('42', FIRST_RUN);
  await expect(page.getByRole('alert')).not.toContainText('could not start');
});

test('a switching storm: three sessions switched while runs, previews, saves and claims are in flight show only their own markers', async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page);
  const names = ['alpha', 'bravo', 'charlie'];
  const ids = await sessionsNamed(page, names);
  for (const name of names) {
    await page.evaluate(
      ([id, name]) => window.pytabs!.writeFile(id, 'data.csv', new TextEncoder().encode(`marker\nmk-${name}\n`)),
      [ids[name], name] as const,
    );
  }
  await watchMarkers(page, names);
  await throttle(page, 4);
  const files = region(page, 'Files');
  const vars = region(page, 'Session variables');
  const sent: Record<string, number> = { alpha: 0, bravo: 0, charlie: 0 };
  for (let step = 0; step < 12; step++) {
    const name = names[step % 3];
    await tab(page, name).click();
    switch (Math.floor(step / 3)) {
      case 0:
        await send(page, `tag = 'mk-${name}'\nimport time; time.sleep(0.3)\ntag`);
        sent[name]++;
        break;
      case 1:
        await files.getByRole('button', { name: 'Preview data.csv' }).click();
        break;
      case 2:
        await vars.getByRole('textbox', { name: 'Name' }).fill('owner');
        await vars.getByRole('textbox', { name: 'Value' }).fill(`mk-${name}`);
        await vars.getByRole('button', { name: 'Add variable' }).click();
        break;
      default:
        await send(page, `tag = tag + '!'\ntag`);
        sent[name]++;
    }
  }
  await throttle(page, 1);
  for (const name of names) {
    await tab(page, name).click();
    await expect(reply(page, sent[name])).toContainText('Done in', FIRST_RUN);
    await expect(reply(page, sent[name])).toContainText(`mk-${name}!`);
    await expect(region(page, 'Variables').getByRole('row', { name: /^tag\b/ })).toContainText(`mk-${name}!`);
    await expect(files.getByRole('cell', { name: `mk-${name}` })).toBeVisible();
    await expect(vars.getByRole('list', { name: 'Session variable list' })).toContainText(`owner = mk-${name}`);
  }
  expect(await wrong(page)).toEqual([]);
});

test("another session's quiet runs re-read none of the open session's panels; the list still counts them, and a run that changed something shows", async ({ page }) => {
  // Every IndexedDB transaction the page opens, by its stores (the workers' own are not counted).
  await page.addInitScript(() => {
    const opened: string[][] = [];
    (window as unknown as { __opened: string[][] }).__opened = opened;
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof transaction>) {
      opened.push(typeof args[0] === 'string' ? [args[0]] : [...args[0]]);
      return transaction.apply(this, args);
    } as typeof transaction;
  });
  await openApp(page);
  const ids = await sessionsNamed(page, ['Open', 'Busy']);
  await tab(page, 'Open').click();
  const list = page.getByRole('list', { name: 'Session list' });
  const files = region(page, 'Files');
  const variables = region(page, 'Variables');
  await page.evaluate(async (busy) => {
    await window.pytabs!.startSession(busy);
    await window.pytabs!.run(busy, 'x = 1');
  }, ids.Busy);
  await expect(list.getByRole('listitem').filter({ hasText: 'Busy' })).toContainText('1 execution ·');

  const stores = await page.evaluate(async (busy) => {
    const opened = (window as unknown as { __opened: string[][] }).__opened;
    opened.length = 0;
    for (let i = 0; i < 50; i++) await window.pytabs!.run(busy, 'pass');
    await new Promise((resolve) => setTimeout(resolve, 300));
    return opened.flat();
  }, ids.Busy);
  expect(stores.filter((store) => store !== 'sessions')).toEqual([]);
  await expect(list.getByRole('listitem').filter({ hasText: 'Busy' })).toContainText('51 executions');

  // A run of the open session that writes a file and binds a name shows in its panels.
  await page.evaluate((open) => window.pytabs!.run(open, "open('made.txt', 'w').write('hi')\nmade = 5"), ids.Open);
  await expect(files.getByRole('button', { name: 'Preview made.txt' })).toBeVisible();
  await expect(variables.getByRole('row', { name: /^made\b/ })).toContainText('5');
  await expect(list.getByRole('listitem').filter({ hasText: 'Open' })).toContainText('1 execution ·');
});
