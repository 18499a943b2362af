import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { createHash } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { choose, downloaded, dumpDatabase, FIRST_RUN, openApp, region, reply, send } from './app';

// Sessions as files and the clean slate as a person uses them: controls by role and name,
// the built app, real Pyodide, real IndexedDB. The session exported in the first test is the
// file the later ones import, open by link and reset to.
test.describe.configure({ mode: 'serial' });

const DATA = 'x\n1\n2\n3\n';
const CODE = [
  'import csv',
  "rows = [int(r['x']) for r in csv.DictReader(open('data.csv'))]",
  'total = sum(rows)',
  'def double(v):',
  '    return 2 * v',
  "open('report.txt', 'w').write(f'total {total}')",
  "print('total', total)",
].join('\n');

/** The exported `Hand-in 3.pytabs.zip`, as the first test downloaded it. */
let exported: Uint8Array;

/** Every entry of a session archive matches the sha256 and size its manifest gives. */
function expectManifestRight(zip: Record<string, Uint8Array>): Record<string, unknown> {
  const manifest = JSON.parse(strFromU8(zip['manifest.json']));
  const entries = manifest.entries as Record<string, { sha256: string; size: number }>;
  expect(Object.keys(entries).sort()).toEqual(Object.keys(zip).filter((n) => !n.startsWith('manifest.') && !n.endsWith('/')).sort());
  for (const [name, info] of Object.entries(entries)) {
    expect(createHash('sha256').update(zip[name]).digest('hex'), name).toBe(info.sha256);
    expect(zip[name].byteLength, name).toBe(info.size);
  }
  return manifest;
}

/** The session tabs are just the first visit's "Session 1". */
async function expectOnlyFirstSession(page: Page): Promise<void> {
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expect(page.getByRole('tab')).toHaveAccessibleName('Session 1');
}

/** No serious or critical axe violation on the page as it is. */
async function expectAccessible(page: Page): Promise<void> {
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
}

/** The held-variables notice: Load saved variables, and a run that reads what it restored. */
async function loadHeldAndRead(page: Page, message: number): Promise<void> {
  const held = region(page, 'Saved variables from a file');
  await expect(held).toContainText('run code when they load');
  await expectAccessible(page);
  await held.getByRole('button', { name: 'Load saved variables' }).click();
  await expect(held).toBeHidden();
  await send(page, 'double(total)');
  await expect(reply(page, message)).toContainText('12', FIRST_RUN);
}

test('Export session downloads <name>.pytabs.zip: files identical, manifest sha256 right', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Upload files', [{ name: 'data.csv', text: DATA }]);
  await send(page, CODE);
  await expect(reply(page, 1)).toContainText('total 6', FIRST_RUN);
  await page.getByRole('button', { name: 'Rename session' }).click();
  await page.getByRole('textbox', { name: 'Session name' }).fill('Hand-in 3');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('heading', { name: 'Hand-in 3' })).toBeVisible();

  const { download, data } = await downloaded(page, () => page.getByRole('button', { name: 'Export session' }).click());
  expect(download.suggestedFilename()).toBe('Hand-in 3.pytabs.zip');
  const zip = unzipSync(data);
  const manifest = expectManifestRight(zip);
  expect(manifest.session).toMatchObject({ name: 'Hand-in 3' });
  expect(strFromU8(zip['files/data.csv'])).toBe(DATA);
  expect(strFromU8(zip['files/report.txt'])).toBe('total 6');
  const variables = JSON.parse(strFromU8(zip['state/variables.json'])).variables as { name: string }[];
  expect(variables.map((v) => v.name)).toEqual(expect.arrayContaining(['total', 'rows', 'double']));
  exported = data;
});

test('Import session in a fresh browser: files and history at once, variables after Load saved variables', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await openApp(page);
    await choose(page, 'Import session', [{ name: 'Hand-in 3.pytabs.zip', text: exported }]);
    await expect(page.getByRole('heading', { name: 'Hand-in 3' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Hand-in 3' })).toHaveAttribute('aria-selected', 'true');
    await expect(region(page, 'Files')).toContainText('data.csv');
    await expect(region(page, 'Files')).toContainText('report.txt');
    await expect(reply(page, 1)).toContainText('total 6');
    await loadHeldAndRead(page, 2);
  } finally {
    await context.close();
  }
});

test('Load saved variables clicked while the imported session still starts waits for the start, then loads them', async ({ browser }) => {
  // Without a service worker every start fetches Python's standard library, which a slow link holds back.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  try {
    // The imported session's start lasts long enough to be clicked during: every fetch of the
    // standard library after Session 1's waits (the next spare worker's too, which that start may
    // take). Served uncacheable, so the page keeps no copy of it to hand a worker instead
    // (sessions/core-files.ts reads its copy from the HTTP cache only).
    let fetches = 0;
    let letThrough!: () => void;
    const released = new Promise<void>((resolve) => (letThrough = resolve));
    await context.route('**/python_stdlib.zip', async (route) => {
      const response = await route.fetch();
      if (++fetches > 1) await released;
      await route.fulfill({ response, headers: { ...response.headers(), 'cache-control': 'no-store' } });
    });
    const page = await context.newPage();
    await openApp(page);
    await expect(page.getByRole('tab', { name: 'Session 1' })).toContainText('Ready', FIRST_RUN);
    await choose(page, 'Import session', [{ name: 'Hand-in 3.pytabs.zip', text: exported }]);
    await expect(page.getByText("Starting this session's Python")).toBeVisible();
    const notice = region(page, 'Saved variables from a file');
    // Read together: disabled during the start, the button was enabled for a frame before it,
    // and a click in that frame was lost.
    const during = await page.evaluate(() => ({
      starting: document.body.innerText.includes("Starting this session's Python"),
      disabled: [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Load saved variables')?.disabled,
    }));
    expect(during).toEqual({ starting: true, disabled: false });
    await notice.getByRole('button', { name: 'Load saved variables' }).click();
    await expect(page.getByText("Starting this session's Python")).toBeVisible();
    await expect(notice).toBeVisible();
    letThrough();
    await expect(notice).toBeHidden(FIRST_RUN);
    await send(page, 'double(total)');
    await expect(reply(page, 2)).toContainText('12', FIRST_RUN);
  } finally {
    await context.close();
  }
});

test('a notebook dropped on the sessions list shows its cells, and Run all runs them in order', async ({ page }) => {
  await openApp(page);
  const cell = (cell_type: string, source: string, extra = {}) => ({ cell_type, source, metadata: {}, ...extra });
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      cell('markdown', '# Week 1\nSquares.'),
      cell('code', 'n = 7', { outputs: [], execution_count: null }),
      cell('code', 'print(n * n)', { outputs: [{ output_type: 'stream', name: 'stdout', text: 'saved 49\n' }], execution_count: 2 }),
    ],
  };
  // A drop as the browser makes it: a DataTransfer holding the file.
  const transfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'week1.ipynb', { type: 'application/json' }));
    return dt;
  }, JSON.stringify(notebook));
  await page.getByRole('list', { name: 'Session list' }).dispatchEvent('drop', { dataTransfer: transfer });

  await expect(page.getByRole('heading', { name: 'week1' })).toBeVisible();
  const conversation = region(page, 'Conversation');
  await expect(conversation).toContainText('# Week 1');
  await expect(conversation).toContainText('n = 7');
  await expect(reply(page, 2)).toContainText('saved 49');
  await expect(reply(page, 2)).toContainText('Imported from week1.ipynb');
  const cells = region(page, 'Notebook cells');
  await cells.getByRole('button', { name: 'Run all' }).click();
  await expect(reply(page, 3)).toBeVisible(FIRST_RUN);
  await expect(reply(page, 4)).toContainText('49', FIRST_RUN);
  await expect(reply(page, 4)).not.toContainText('saved');
  await expect(cells).toBeHidden();
});

test('a tampered archive shows a clear error and creates no session', async ({ page }) => {
  await openApp(page);
  await expect(page.getByRole('tab')).toHaveCount(1);
  const zip = unzipSync(exported);
  zip['files/data.csv'] = strToU8('x\n9\n');
  const before = (await dumpDatabase(page)).sessions;
  await choose(page, 'Import session', [{ name: 'tampered.pytabs.zip', text: zipSync(zip) }]);
  await expect(page.getByRole('alert')).toContainText('Cannot import "tampered.pytabs.zip": "files/data.csv" does not match the sha256');
  await expectOnlyFirstSession(page);
  expect((await dumpDatabase(page)).sessions).toEqual(before);
});

test('a link to a prepared session asks, opens it, and Reset to original brings the file back', async ({ page }) => {
  await page.route('**/lessons/week1.pytabs.zip', (route) => route.fulfill({ body: Buffer.from(exported), contentType: 'application/zip' }));
  await page.route('**/lessons/gone.pytabs.zip', (route) => route.fulfill({ status: 404, body: 'Not Found' }));
  await openApp(page, '/#/open?from=lessons/gone.pytabs.zip');
  const ask = page.getByRole('dialog', { name: 'Open a prepared session?' });
  await expect(ask).toContainText(`Open the prepared session from ${new URL(page.url()).host}?`);
  await ask.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('alert')).toContainText('gone.pytabs.zip: there is no file at this address');
  await page.getByRole('button', { name: 'Dismiss message' }).click();

  // A link followed while the app is open (only the address's hash changes).
  await page.goto('/#/open?from=lessons%2Fweek1.pytabs.zip');
  await ask.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('heading', { name: 'Hand-in 3' })).toBeVisible();
  await expect(page.getByRole('tab')).toHaveCount(2);
  await loadHeldAndRead(page, 2);

  await send(page, "total = -1\nopen('data.csv', 'w').write('x\\n100\\n')\nopen('scratch.txt', 'w').write('mine')");
  await expect(reply(page, 3)).toBeVisible();
  await expect(region(page, 'Files')).toContainText('scratch.txt');
  await page.getByRole('button', { name: 'Reset to original' }).click();
  const confirm = page.getByRole('dialog', { name: 'Reset to original?' });
  await expect(confirm).toContainText('lessons/week1.pytabs.zip');
  await confirm.getByRole('button', { name: 'Reset to original' }).click();
  await expect(confirm).toBeHidden();
  await expect(region(page, 'Files')).not.toContainText('scratch.txt');
  await expect(reply(page, 2)).toHaveCount(0);
  await send(page, "total, open('data.csv').read()");
  await expect(reply(page, 2)).toContainText(String.raw`(6, 'x\n1\n2\n3\n')`, FIRST_RUN);
});

test('Download all my work, then Erase all data with a second tab open: both tabs say so, and a Reload is a first visit', async ({ page, context }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'New session' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const { data } = await downloaded(page, () => settings.getByRole('button', { name: 'Download all my work' }).click());
  const all = unzipSync(data);
  expect(Object.keys(all).sort()).toEqual(['Session 1.pytabs.zip', 'Session 2.pytabs.zip']);
  for (const [name, inner] of Object.entries(all)) {
    expect((expectManifestRight(unzipSync(inner)).session as { name: string }).name).toBe(name.replace('.pytabs.zip', ''));
  }

  const second = await context.newPage();
  await openApp(second);
  await expect(second.getByRole('tab')).toHaveCount(2);
  await settings.getByRole('button', { name: 'Erase all data on this device' }).click();
  const confirm = page.getByRole('dialog', { name: 'Erase all data on this device?' });
  await expect(confirm).toContainText('every session with its files, variables and chat history');
  await expectAccessible(page);
  await confirm.getByRole('button', { name: 'Erase everything' }).click();
  for (const tab of [page, second]) {
    await expect(tab.getByRole('alert')).toContainText('All PyTabs data on this device was erased.');
    await expect(tab.getByRole('button', { name: 'Reload' })).toBeVisible();
  }
  const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
  expect(databases.filter((name) => name?.startsWith('pytabs'))).toEqual([]);

  for (const tab of [page, second]) {
    await Promise.all([tab.waitForEvent('load'), tab.getByRole('button', { name: 'Reload' }).click()]);
    await expect.poll(() => tab.evaluate(() => Boolean(window.pytabs)), { timeout: 30_000 }).toBe(true);
  }
  await expectOnlyFirstSession(page);
  await expect(region(page, 'Files')).not.toContainText('data.csv');
  expect((await dumpDatabase(page)).sessions).toHaveLength(1);
});
