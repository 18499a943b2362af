import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { FIRST_RUN, openApp, reply, send } from './app';

// read_excel / write_excel in the built app: real .xlsx bytes made by SheetJS here,
// two sessions each with its own data.xlsx, and a workbook Python writes.

function workbook(rows: unknown[][]): number[] {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows, { cellDates: true, UTC: true }), 'Data');
  return Array.from(new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
}

test('the same read_excel code in two sessions sees each its own data.xlsx; write_excel output is a file that reads back', async ({
  page,
}) => {
  await openApp(page);
  const a = workbook([['x', 'day'], [1, new Date('2024-05-01T00:00:00Z')], [2, null], [3, new Date('2024-05-03T00:00:00Z')]]);
  const b = workbook([['x', 'day'], [100, new Date('1999-12-31T23:59:59Z')]]);
  const code = [
    "rows = read_excel('data.xlsx', 'Data')",
    "days = [r['day'].date().isoformat() for r in rows if r['day'] is not None]",
    "(sum(r['x'] for r in rows), days)",
  ].join('\n');
  const out = await page.evaluate(
    async ({ a, b, code }) => {
      const api = window.pytabs!;
      const sa = await api.createSession('A');
      const sb = await api.createSession('B');
      await api.writeFile(sa.id, 'data.xlsx', new Uint8Array(a));
      await api.writeFile(sb.id, 'data.xlsx', new Uint8Array(b));
      const [ra, rb] = await Promise.all([api.run(sa.id, code), api.run(sb.id, code)]);
      const written = await api.run(
        sb.id,
        "import datetime\nwrite_excel('summary.xlsx', {'Totals': [{'session': 'B', 'total': sum(r['x'] for r in rows), 'at': datetime.datetime(2024, 6, 1, 12, 30)}]})",
      );
      const readBack = await api.run(sb.id, "read_excel('summary.xlsx')");
      const filesB = (await api.listFiles(sb.id)).map((f) => f.path).sort();
      const filesA = (await api.listFiles(sa.id)).map((f) => f.path).sort();
      const bytes = Array.from(await api.readFile(sb.id, 'summary.xlsx'));
      return { ra, rb, written, readBack, filesA, filesB, bytes };
    },
    { a, b, code },
  );
  expect(out.ra.result?.['text/plain']).toBe("(6, ['2024-05-01', '2024-05-03'])");
  expect(out.rb.result?.['text/plain']).toBe("(100, ['1999-12-31'])");

  expect(out.written.status).toBe('ok');
  expect(out.written.filesChanged).toEqual(['summary.xlsx']);
  expect(out.filesB).toEqual(['data.xlsx', 'summary.xlsx']);
  expect(out.filesA).toEqual(['data.xlsx']);
  expect(out.readBack.result?.['text/plain']).toBe(
    "{'Totals': [{'session': 'B', 'total': 100, 'at': datetime.datetime(2024, 6, 1, 12, 30)}]}",
  );
  // What storage holds is a real workbook that SheetJS (and so Excel) reads.
  const saved = XLSX.read(new Uint8Array(out.bytes), { cellDates: true });
  expect(XLSX.utils.sheet_to_json(saved.Sheets.Totals, { raw: true, UTC: true })).toEqual([
    { session: 'B', total: 100, at: new Date('2024-06-01T12:30:00Z') },
  ]);
});

test('a broken workbook gives a clear error and the session and its files are untouched', async ({ page }) => {
  await openApp(page);
  const good = workbook([['x'], [7]]);
  const out = await page.evaluate(
    async ({ good }) => {
      const api = window.pytabs!;
      const s = await api.createSession('Broken');
      await api.writeFile(s.id, 'good.xlsx', new Uint8Array(good));
      await api.writeFile(s.id, 'bad.xlsx', new Uint8Array(good.slice(0, 200)));
      await api.run(s.id, "kept = read_excel('good.xlsx', 0)");
      const bad = await api.run(s.id, "read_excel('bad.xlsx')");
      const after = await api.run(s.id, "kept[0]['x']");
      const files = (await api.listFiles(s.id)).map((f) => f.path).sort();
      return { bad, after, files };
    },
    { good },
  );
  expect(out.bad.status).toBe('error');
  expect(out.bad.error?.ename).toBe('SpreadsheetError');
  expect(out.bad.error?.evalue).toMatch(/^Cannot read 'bad.xlsx': the file is damaged/);
  expect(out.after.result?.['text/plain']).toBe('7');
  expect(out.files).toEqual(['bad.xlsx', 'good.xlsx']);
});

test('a large read shows its progress in the reply and stops on Stop; the session keeps what it had', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  // About 60 MB of sheet XML, written by the session itself: seconds of parsing on two cores.
  await send(page, "kept = 42\nwrite_excel('big.xlsx', [[i, f'name {i}', i / 3, f'city {i % 97}'] * 2 for i in range(160_000)])\nprint('written')");
  await expect(reply(page, 1)).toContainText('written', FIRST_RUN);
  await send(page, "rows = read_excel('big.xlsx', 0)");
  await expect(reply(page, 2)).toContainText(/Reading big\.xlsx: parsing \d+ MB of XML…/, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('Stopped after', { timeout: 30_000 });
  await send(page, "'rows' in globals(), kept");
  await expect(reply(page, 3)).toContainText('(False, 42)', FIRST_RUN);
});

test("the Files panel previews rich text, inline strings and emoji whole, as read_excel reads them", async ({ page }) => {
  // The spreadsheet tests' corpus, made by Debian's openpyxl (tests/unit/referee).
  const dir = mkdtempSync(path.join(tmpdir(), 'pytabs-xlsx-'));
  const run = spawnSync('/usr/bin/python3', [path.join(import.meta.dirname, '../unit/referee/xlsx_corpus.py'), 'make', dir], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const strings = readFileSync(path.join(dir, 'strings.xlsx'));
  rmSync(dir, { recursive: true, force: true });
  await openApp(page);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload files' }).click();
  await (await chooser).setFiles([{ name: 'strings.xlsx', mimeType: 'application/octet-stream', buffer: strings }]);
  await page.getByRole('region', { name: 'Files', exact: true }).getByRole('button', { name: 'Preview strings.xlsx' }).click();
  const table = page.getByRole('region', { name: 'Contents of strings.xlsx' }).getByRole('table', { name: 'Sheet Strings' });
  await expect(table.getByRole('row', { name: /^plain then rich/ }).getByRole('cell')).toHaveText(['plain then rich', 'tvalrval1rval2']);
  await expect(table.getByRole('row', { name: /inline plain then rich/ }).getByRole('cell')).toHaveText(['inline plain then rich', 'head tail']);
  await expect(table.getByRole('row', { name: /rich only/ }).getByRole('cell')).toHaveText(['rich only', 'ARREST BOOKINGS for MARCH']);
});
