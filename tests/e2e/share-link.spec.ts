import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { deflateSync } from 'fflate';
import { randomBytes } from 'node:crypto';
import { choose, dumpDatabase, FIRST_RUN, openApp, region, reply, send } from './app';

// A shared link as people use it: made by Share in one browser, opened in a fresh profile
// (another context), read-only until "Open as a new session", then Run all on real Pyodide;
// opened twice it asks; hostile links are refused with nothing written to IndexedDB.
test.describe.configure({ mode: 'serial' });

const NAME = 'Lesson <img src=x onerror="window.pwned=1">';
const CELLS = ["import csv\nrows = [int(r['x']) for r in csv.DictReader(open('data.csv'))]", "print('total', sum(rows), '<b>not bold</b>')"];

/** The link Share made in the first test. */
let link: string;

async function expectAccessible(page: Page): Promise<void> {
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
}

/** A link's fragment as any page could write one. */
function fragment(payload: unknown, { version = '1', raw }: { version?: string; raw?: Uint8Array } = {}): string {
  const data = raw ?? deflateSync(new TextEncoder().encode(JSON.stringify(payload)));
  return `#/share?v=${version}&z=${Buffer.from(data).toString('base64url')}`;
}

test('Share shows a link to copy, what it carries and its size', async ({ page, context }) => {
  await openApp(page);
  await choose(page, 'Upload files', [
    { name: 'data.csv', text: 'x\n1\n2\n3\n' },
    { name: 'photo.bin', text: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe]) },
  ]);
  for (const [i, cell] of CELLS.entries()) {
    await send(page, cell);
    await expect(reply(page, i + 1)).toContainText('Done in', FIRST_RUN);
  }
  await expect(reply(page, 2)).toContainText('total 6 <b>not bold</b>');
  await page.getByRole('button', { name: 'Rename session' }).click();
  await page.getByRole('textbox', { name: 'Session name' }).fill(NAME);
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('heading', { name: NAME })).toBeVisible();

  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Share a link' });
  const field = dialog.getByRole('textbox', { name: `Link to "${NAME}"` });
  await expect(field).toHaveValue(/#\/share\?v=1&z=[A-Za-z0-9_-]+$/);
  link = await field.inputValue();
  // The session is in the fragment alone: the address the host is asked for is the app's.
  expect(new URL(link).pathname + new URL(link).search).toBe('/');
  await expect(dialog).toContainText('2 cell(s) and 1 file(s): data.csv (8 B)');
  await expect(dialog).toContainText(`The link is ${link.length.toLocaleString('en')} characters long`);
  await expect(dialog).toContainText('Not in the link: photo.bin (not a text file)');
  await expectAccessible(page);

  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await dialog.getByRole('button', { name: 'Copy link' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Copied the link.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('a session too big for a link gets no link, is told so, and is offered Export session', async ({ page }) => {
  await openApp(page);
  // Random text barely compresses: 40,000 characters of it make a link far over the limit.
  const noise = randomBytes(30_000).toString('base64');
  await choose(page, 'Upload files', [{ name: 'big.txt', text: noise }]);
  await expect(region(page, 'Files')).toContainText('big.txt');
  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Share a link' });
  await expect(dialog.getByRole('alert')).toContainText('"Session 1" is too big for a link');
  await expect(dialog.getByRole('alert')).toContainText('a link carries at most 16,384');
  await expect(dialog).toContainText('#/open?from=<address of the file>');
  await expect(dialog.getByRole('textbox')).toHaveCount(0);
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Export session' }).click();
  expect((await download).suggestedFilename()).toBe('Session 1.pytabs.zip');
});

test('a fresh browser shows the link read-only and runs nothing; Open as a new session, Run all, the files are there; opened again it asks', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (request) => asked.push(request.url()));
    await openApp(page, link);

    const dialog = page.getByRole('dialog', { name: 'Open a shared session?' });
    await expect(dialog).toContainText(`The link carries "${NAME}": 2 cell(s) and 1 file(s). Nothing has run`);
    await expect(dialog.getByRole('list', { name: 'Files in the link' })).toHaveText(/data\.csv\s+8 B/);
    const code = dialog.getByRole('region', { name: 'Code in the link' });
    await expect(code.locator('pre')).toHaveText(CELLS);
    await expectAccessible(page);
    // Nothing ran and nothing was made: no session, no worker, and the host never got the fragment.
    expect(await page.evaluate(() => window.pytabs!.listSessions())).toEqual([]);
    expect((await dumpDatabase(page)).sessions).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(asked.filter((url) => url.includes('z='))).toEqual([]);

    await dialog.getByRole('button', { name: 'Open as a new session' }).click();
    await expect(page.getByRole('heading', { name: NAME })).toBeVisible();
    await expect(page.getByRole('tab')).toHaveCount(1);
    await expect(region(page, 'Files')).toContainText('data.csv');
    await expect(region(page, 'Files')).not.toContainText('photo.bin');
    await expect(reply(page, 1)).toContainText('Imported from a shared link: not run here.');
    await expect(reply(page, 2)).not.toContainText('total');
    const cells = region(page, 'Cells from the link');
    await expect(cells).toContainText("The link's 2 cell(s) are shown as history; they have not run here.");
    await cells.getByRole('button', { name: 'Run all' }).click();
    await expect(reply(page, 4)).toContainText('total 6 <b>not bold</b>', FIRST_RUN);
    await expect(cells).toBeHidden();

    // The same link again: it offers the session it made, and makes another only when asked.
    await page.goto('about:blank');
    await openApp(page, link);
    const again = page.getByRole('dialog', { name: 'Open a shared session?' });
    await expect(again).toContainText(`This link already made the session "${NAME}" in this browser.`);
    await expect(again.getByRole('button', { name: 'Open as a new session' })).toHaveCount(0);
    await again.getByRole('button', { name: 'Go to the session it made' }).click();
    await expect(page.getByRole('tab')).toHaveCount(1);
    await expect(reply(page, 4)).toContainText('total 6');

    await page.goto('about:blank');
    await openApp(page, link);
    await page.getByRole('button', { name: 'Open another copy' }).click();
    await expect(page.getByRole('tab')).toHaveCount(2);
    await expect(region(page, 'Cells from the link')).toBeVisible();
    await expect(reply(page, 3)).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test('hostile and broken links get a clear message and change nothing', async ({ page, browser }) => {
  await openApp(page);
  await expect(page.getByRole('tab')).toHaveCount(1);
  const before = await dumpDatabase(page);
  const hostile: [string, string, RegExp][] = [
    ['bad encoding', '#/share?v=1&z=ab$cd!', /not base64url/],
    ['another version', fragment({ name: 'x', cells: [] }, { version: '9' }), /version "9"; this PyTabs opens version 1/],
    ['cut short', link.slice(link.indexOf('#'), -30), /damaged|not valid JSON/],
    ['too long', `#/share?v=1&z=${'A'.repeat(70_000)}`, /characters long; at most 65536/],
    ['a zip bomb', fragment(null, { raw: deflateSync(new Uint8Array(32 * 1024 ** 2), { level: 9 }) }), /unpack to more than 1\.0 MB.*zip bomb/],
    ['a path with ..', fragment({ name: 'x', cells: [], files: [{ path: '../../escape.txt', text: 'x' }] }), /would leave the workspace/],
    ['a control character in a name', fragment({ name: 'x', cells: [], files: [{ path: 'a\u0007.txt', text: 'x' }] }), /control characters/],
  ];
  for (const [what, hash, why] of hostile) {
    await page.evaluate((h) => (location.hash = h), hash);
    const alert = page.getByRole('alert').filter({ hasText: 'Cannot open this shared link' });
    await expect(alert, what).toContainText(why);
    await alert.getByRole('button', { name: 'Dismiss message' }).click();
    await expect(page.getByRole('dialog', { name: 'Open a shared session?' })).toBeHidden();
  }

  // HTML in a name, a file name and code is shown as text; nothing runs, and Cancel writes nothing.
  const html = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
  await page.evaluate((h) => (location.hash = h), fragment({ name: html, cells: [html], files: [{ path: '<b>.txt', text: html }] }));
  const dialog = page.getByRole('dialog', { name: 'Open a shared session?' });
  await expect(dialog).toContainText(`The link carries "${html}"`);
  await expect(dialog.getByRole('region', { name: 'Code in the link' }).locator('pre')).toHaveText(html);
  await expect(dialog.getByRole('list', { name: 'Files in the link' })).toContainText('<b>.txt');
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  await expect(page.getByRole('tab')).toHaveCount(1);
  expect(await dumpDatabase(page)).toEqual(before);

  // In a fresh profile a bad link makes no session at all.
  const context = await browser.newContext();
  try {
    const fresh = await context.newPage();
    await openApp(fresh, `/${hostile[4][1]}`);
    await expect(fresh.getByRole('alert')).toContainText('zip bomb');
    await expect(fresh.getByRole('tab')).toHaveCount(0);
    const stored = await dumpDatabase(fresh);
    for (const store of ['sessions', 'files', 'fileData', 'rounds', 'imports']) expect(stored[store], store).toEqual([]);
  } finally {
    await context.close();
  }
});
