import { test, expect, type Locator, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import * as XLSX from 'xlsx';
import { FIRST_RUN, openApp, reply, send } from './app';

// What a run puts on the page: rich output, hostile markup, floods of text, spreadsheet
// previews, storage status. Controls are found by role and accessible name only, on the
// built app with real Pyodide workers and real IndexedDB.
type Pwned = { __pwned?: number };

function pwned(page: Page): Promise<number | undefined> {
  return page.evaluate(() => (window as unknown as Pwned).__pwned);
}

/** Whether the elements appear in this order in the document. */
async function inOrder(page: Page, locators: Locator[]): Promise<boolean> {
  const handles = await Promise.all(locators.map((l) => l.elementHandle()));
  return page.evaluate(
    (els) => els.every((el, i) => i === 0 || Boolean(els[i - 1]!.compareDocumentPosition(el!) & Node.DOCUMENT_POSITION_FOLLOWING)),
    handles,
  );
}

// A 4×3 red PNG built from zlib and struct, so the image is real bytes a browser must decode.
const DISPLAY_CODE = [
  'import struct, zlib',
  'def chunk(kind, data):',
  "    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))",
  "raw = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 4 for _ in range(3))",
  "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 3, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')",
  'class Dot:',
  '    def _repr_png_(self):',
  '        return png',
  '    def __repr__(self):',
  "        return 'red dot'",
  'class Table:',
  '    def _repr_html_(self):',
  "        return '<table><thead><tr><th>fruit</th><th>count</th></tr></thead><tbody><tr><td>apple</td><td>3</td></tr><tr><td>pear</td><td>5</td></tr></tbody></table>'",
  "print('line one')",
  'display(Table())',
  "print('line two')",
  'display(Dot())',
  "print('line three')",
].join('\n');

test('display() of an HTML table and a PNG shows both in order with the prints, also after a reload', async ({ page }) => {
  await openApp(page);
  await send(page, DISPLAY_CODE);
  const out = reply(page, 1);
  await expect(out).toContainText('Done in', FIRST_RUN);

  const check = async () => {
    const table = out.getByRole('table');
    await expect(table.getByRole('row')).toHaveCount(3);
    await expect(table.getByRole('cell', { name: 'pear' })).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'count' })).toBeVisible();
    const image = out.getByRole('img', { name: 'red dot' });
    await expect(image).toBeVisible();
    // Decoded by the browser: the PNG's own size, not a broken-image icon.
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([4, 3]);
    const order = [out.getByText('line one'), table, out.getByText('line two'), image, out.getByText('line three')];
    expect(await inOrder(page, order)).toBe(true);
  };
  await check();
  await page.reload();
  await openApp(page);
  await expect(out).toContainText('Done in', FIRST_RUN);
  await check();
});

test('HTML and SVG from Python run no script, handler or javascript: link, and a table keeps its rows', async ({ page }) => {
  await openApp(page);
  const hostile = [
    '<table><tr><th>k</th><th>v</th></tr><tr><td>alpha</td><td>1</td></tr><tr><td>beta</td><td>2</td></tr></table>',
    '<img src=x onerror="window.__pwned=1">',
    '<script>window.__pwned=2</script>',
    '<a href="javascript:window.__pwned=3">click me</a>',
    '<svg onload="window.__pwned=4" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg>',
  ].join('');
  await send(
    page,
    [
      'class Html:',
      '    def _repr_html_(self):',
      `        return ${JSON.stringify(hostile)}`,
      'class Svg:',
      '    def _repr_svg_(self):',
      `        return '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=5" width="160" height="30"><a href="javascript:window.__pwned=6"><text x="4" y="20">svg link</text></a><script>window.__pwned=7</script></svg>'`,
      'display(Html())',
      'display(Svg())',
    ].join('\n'),
  );
  const out = reply(page, 1);
  await expect(out).toContainText('Done in', FIRST_RUN);
  await expect(out.getByRole('row')).toHaveCount(3);
  await expect(out.getByRole('row', { name: 'beta 2' }).getByRole('cell')).toHaveCount(2);
  await expect(out.getByText('click me')).toBeVisible();
  await out.getByText('click me').click();
  await out.getByText('svg link').click();
  // Give any handler that survived a moment to fire.
  await page.waitForTimeout(500);
  expect(await pwned(page)).toBeUndefined();
});

test('the Files panel previews each sheet of an uploaded .xlsx as a table, and says why a broken one cannot be shown', async ({ page }) => {
  await openApp(page);
  const wb = XLSX.utils.book_new();
  const fruit = [['fruit', 'count', 'picked'], ['apple', 3, new Date(Date.UTC(2024, 4, 1))], ['pear', null, new Date(Date.UTC(2024, 5, 2))]];
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(fruit, { cellDates: true, UTC: true }), 'Fruit');
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['n'], ...Array.from({ length: 450 }, (_, i) => [i])]), 'Numbers');
  const book = Buffer.from(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload files' }).click();
  await (await chooser).setFiles([
    { name: 'book.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: book },
    { name: 'broken.xlsx', mimeType: 'application/octet-stream', buffer: Buffer.concat([book.subarray(0, 200), Buffer.from('garbage')]) },
  ]);
  const files = page.getByRole('region', { name: 'Files', exact: true });

  await files.getByRole('button', { name: 'Preview book.xlsx' }).click();
  const preview = page.getByRole('region', { name: 'Contents of book.xlsx' });
  const sheet = page.getByRole('combobox', { name: 'Sheet' });
  await expect(sheet).toHaveValue('0');
  await expect(sheet.getByRole('option')).toHaveText(['Fruit', 'Numbers']);
  const table = preview.getByRole('table', { name: 'Sheet Fruit' });
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('row', { name: /apple/ }).getByRole('cell')).toHaveText(['apple', '3', '2024-05-01']);
  // The blank stays an empty cell, so the date stays in its own column.
  await expect(table.getByRole('row', { name: /pear/ }).getByRole('cell')).toHaveText(['pear', '', '2024-06-02']);

  await sheet.selectOption({ label: 'Numbers' });
  const numbers = preview.getByRole('table', { name: 'Sheet Numbers' });
  await expect(numbers.getByRole('row')).toHaveCount(200);
  await expect(numbers.getByRole('cell', { name: '198', exact: true })).toBeVisible();
  await expect(numbers.getByRole('cell', { name: '199', exact: true })).toHaveCount(0);
  await expect(preview).toContainText('Showing 200 of 451 rows');

  await files.getByRole('button', { name: 'Preview broken.xlsx' }).click();
  await expect(page.getByRole('region', { name: 'Contents of broken.xlsx' }).getByRole('alert')).toContainText('This workbook could not be read:');
  // The session still runs and its good workbook is intact.
  await send(page, "read_excel('book.xlsx', 'Fruit')[0]['fruit']");
  await expect(reply(page, 1)).toContainText("'apple'", FIRST_RUN);
});

test('a million printed lines: the page stays usable, the output is cut with a note, and the download holds all of it after a reload', async ({ page }) => {
  await openApp(page);
  await send(page, 'for i in range(1_000_000):\n    print(i)');
  const out = reply(page, 1);
  const note = out.getByRole('group', { name: 'Output truncated' });
  // The note appears while the flood still runs; the editor takes typing meanwhile.
  await expect(note).toBeVisible(FIRST_RUN);
  const editor = page.getByRole('textbox', { name: 'Message' });
  await editor.pressSequentially("print('still here')");
  await expect(editor).toHaveText("print('still here')");
  await expect(out).toContainText('Done in', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(reply(page, 2)).toContainText('still here');
  // Long output scrolls inside its reply; keyboard users must be able to scroll it too.
  const axe = await new AxeBuilder({ page }).include('[aria-label="Conversation"]').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  // 0..999999, one per line: 6,888,890 bytes.
  const expected = Array.from({ length: 1_000_000 }, (_, i) => `${i}\n`).join('');
  const check = async () => {
    await expect(note).toContainText('Output truncated: 6.6 MB in all');
    // The head and the tail are on the page, the middle is not.
    await expect(out.getByText(/^0\n1\n2\n/)).toBeVisible();
    await expect(note).toContainText('999999');
    await expect(out).not.toContainText('500000');
    const download = page.waitForEvent('download');
    await note.getByRole('button', { name: 'Download full output' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('message-1-output.txt');
    const text = await readFile(await file.path(), 'utf8');
    expect(text.length).toBe(expected.length);
    expect(text === expected).toBe(true);
  };
  await check();
  await page.reload();
  await openApp(page);
  await expect(out).toContainText('Done in', FIRST_RUN);
  await check();
});

test('markup in a file name Python wrote and in a session variable shows as text and runs nothing', async ({ page }) => {
  await openApp(page);
  const name = '<img src=x onerror=window.__pwned=1>.txt';
  const sessionVars = page.getByRole('region', { name: 'Session variables', exact: true });
  const markup = '<script>window.__pwned=2</script><img src=x onerror="window.__pwned=3">';
  await sessionVars.getByRole('textbox', { name: 'Name' }).fill('html');
  await sessionVars.getByRole('textbox', { name: 'Value' }).fill(markup);
  await sessionVars.getByRole('button', { name: 'Add variable' }).click();
  await expect(sessionVars.getByRole('list')).toContainText(`= ${markup}`);

  await send(page, `for name in [${JSON.stringify(name)}, 'page.html']:\n    open(name, 'w').write(get_session_var('html'))`);
  await expect(reply(page, 1)).toContainText(`Files written: ${name}, page.html`, FIRST_RUN);
  const files = page.getByRole('region', { name: 'Files', exact: true });
  await expect(files.getByRole('button', { name: `Preview ${name}` })).toHaveText(name);
  // An HTML file is previewed as its source, never rendered.
  await files.getByRole('button', { name: 'Preview page.html' }).click();
  await expect(page.getByRole('region', { name: 'Contents of page.html' })).toHaveText(markup);
  await files.getByRole('button', { name: `Rename ${name}` }).click();
  await expect(page.getByRole('dialog', { name: 'Rename file' })).toContainText(`New name for ${name}`);
  await page.getByRole('dialog', { name: 'Rename file' }).getByRole('button', { name: 'Cancel' }).click();
  // A name Python could write but a new file could not have is still a file: it opens and deletes.
  await files.getByRole('button', { name: `Preview ${name}` }).click();
  await expect(page.getByRole('region', { name: `Contents of ${name}` })).toHaveText(markup);
  await files.getByRole('button', { name: `Delete ${name}` }).click();
  await page.getByRole('dialog', { name: 'Delete file?' }).getByRole('button', { name: 'Delete file' }).click();
  await expect(files.getByRole('button', { name: `Preview ${name}` })).toHaveCount(0);
  await expect(files.getByRole('button', { name: 'Preview page.html' })).toBeVisible();

  // No element was made from the markup anywhere on the page.
  await expect(page.locator('img[src="x"], script:not([src])')).toHaveCount(0);
  await page.waitForTimeout(300);
  expect(await pwned(page)).toBeUndefined();
});

test('Settings shows storage used against the quota and whether storage is persistent, and can ask for it', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const storage = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Storage in this browser' });
  const estimate = await page.evaluate(() => navigator.storage.estimate());
  expect(estimate.quota).toBeGreaterThan(0);
  await expect(storage).toContainText(/used of [\d.]+ [KMG]B available to PyTabs \([\d.]+%\)/);
  // Chromium's quota follows the disk's free space, which other processes on the machine move
  // between two reads: the meter's maximum is the quota the browser gave, within 1%.
  const shown = Number(await storage.getByRole('meter').getAttribute('max'));
  expect(Math.abs(shown - estimate.quota!) / estimate.quota!).toBeLessThan(0.01);

  const persisted = await page.evaluate(() => navigator.storage.persisted());
  await expect(storage).toContainText(persisted ? 'Persistent storage: granted' : 'Persistent storage: not granted');
  if (!persisted) {
    await storage.getByRole('button', { name: 'Keep data on this device' }).click();
    // The browser decides; the dialog reports what it decided.
    await expect(page.getByRole('status').filter({ hasText: /Persistent storage granted|declined persistent storage/ })).toBeVisible();
    const now = await page.evaluate(() => navigator.storage.persisted());
    await expect(storage).toContainText(now ? 'Persistent storage: granted' : 'Persistent storage: not granted');
  }
});
