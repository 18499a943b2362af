import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import * as XLSX from 'xlsx';
import { openApp } from './app';

// pandas and matplotlib from a real Pyodide package index of the shipped version: the
// app's own vendored copy (`npm run vendor:packages` before the build puts it in
// public/pyodide-packages/) or any index named by PYTABS_PACKAGE_INDEX (served with
// CORS and CORP headers). This build machine cannot reach one, so without either the
// tests are skipped and say why; everything else about packages is tested against an
// index the tests build themselves (packages.spec.ts).

const VENDORED = existsSync(new URL('../../dist/pyodide-packages/pyodide-lock.json', import.meta.url));
const INDEX = process.env.PYTABS_PACKAGE_INDEX;
test.skip(!INDEX && !VENDORED, 'no Pyodide package index with pandas here: run `npm run vendor:packages` or set PYTABS_PACKAGE_INDEX');
// Loading pandas and matplotlib from an index takes a while on two cores.
test.setTimeout(300_000);

function book(): number[] {
  const wb = XLSX.utils.book_new();
  const sales = [
    ['region', 'units', 'day'],
    ['north', 12, new Date('2024-03-01T00:00:00Z')],
    ['south', null, new Date('2024-03-02T00:00:00Z')],
    ['Zürich', 7.5, null],
  ];
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(sales, { cellDates: true, UTC: true }), 'Sales');
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['k', 'v'], ['a', 1]]), 'Other');
  return Array.from(new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
}

async function session(page: import('@playwright/test').Page, name: string): Promise<string> {
  await openApp(page);
  return page.evaluate(
    async ({ index, name }) => {
      const api = window.pytabs!;
      await api.updateSettings({ packageIndexUrl: index ?? new URL('pyodide-packages/', document.baseURI).href });
      return (await api.createSession(name)).id;
    },
    { index: INDEX, name },
  );
}

test('pd.read_excel and DataFrame.to_excel go through SheetJS: numbers, blanks, dates, unicode and several sheets', async ({ page }) => {
  const id = await session(page, 'pandas');
  const out = await page.evaluate(
    async ({ id, bytes }) => {
      const api = window.pytabs!;
      await api.writeFile(id, 'data.xlsx', new Uint8Array(bytes));
      const read = await api.run(
        id,
        [
          'import pandas as pd',
          "df = pd.read_excel('data.xlsx')",
          'sheets = pd.read_excel("data.xlsx", sheet_name=None)',
          '(list(df.columns), df["units"].isna().tolist(), str(df["day"].dtype), df["region"].tolist(), sorted(sheets))',
        ].join('\n'),
      );
      const written = await api.run(id, "df.to_excel('out.xlsx', index=False)\npd.read_excel('out.xlsx').equals(df)");
      const frame = (await api.listVariables(id)).find((v) => v.name === 'df');
      return { read, written, frame, bytes: Array.from(await api.readFile(id, 'out.xlsx')) };
    },
    { id, bytes: book() },
  );
  expect(out.read.error).toBeUndefined();
  expect(out.read.result?.['text/plain']).toBe(
    "(['region', 'units', 'day'], [False, True, False], 'datetime64[ns]', ['north', 'south', 'Zürich'], ['Other', 'Sales'])",
  );
  expect(out.written.error).toBeUndefined();
  expect(out.written.result?.['text/plain']).toBe('True');
  // The preview the Variables panel and the assistant's context show: shape, columns, dtypes.
  expect(out.frame?.preview).toMatch(/^3 rows × 3 columns: region \(\w+\), units \(float64\), day \(datetime64\[ns\]\)$/);
  const saved = XLSX.read(new Uint8Array(out.bytes));
  expect(XLSX.utils.sheet_to_json(saved.Sheets[saved.SheetNames[0]!]!, { header: 1 })[0]).toEqual(['region', 'units', 'day']);
});

test('matplotlib draws inline: plt.show() and a figure left open become PNG outputs in order, then close', async ({ page }) => {
  const id = await session(page, 'plots');
  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const events: string[] = [];
    const result = await api.run(
      id,
      [
        'import matplotlib.pyplot as plt',
        'plt.plot([1, 2, 3], [1, 4, 9])',
        'plt.show()',
        "print('between')",
        'plt.figure()',
        'plt.bar(["a", "b"], [3, 5])',
      ].join('\n'),
      (e) => {
        if (e.type === 'stdout') events.push(`stdout:${e.text.trim()}`);
        if (e.type === 'display') events.push(`display:${Object.keys(e.bundle).sort().join(',')}:${(e.bundle['image/png'] ?? '').slice(0, 8)}`);
      },
    );
    const open = await api.run(id, 'plt.get_fignums()');
    return { result, events, open };
  }, id);
  expect(out.result.error).toBeUndefined();
  // Base64 of a PNG starts with iVBORw0K.
  expect(out.events).toEqual([
    'display:image/png,text/plain:iVBORw0K',
    'stdout:between',
    'display:image/png,text/plain:iVBORw0K',
  ]);
  expect(out.open.result?.['text/plain']).toBe('[]');
});

test('pd.read_excel through the bridge takes pandas’ shape arguments: header, names, skiprows, nrows, usecols, sheet_name as a list', async ({ page }) => {
  const id = await session(page, 'pandas-shape');
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['title row'], ['a', 'b', 'c'], [1, 2, 3], [4, 5, 6], [7, 8, 9]]), 'Data');
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([[10, 20], [30, 40]]), 'Bare');
  const bytes = Array.from(new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
  const out = await page.evaluate(
    async ({ id, bytes }) => {
      const api = window.pytabs!;
      await api.writeFile(id, 'shape.xlsx', new Uint8Array(bytes));
      return api.run(
        id,
        [
          'import pandas as pd',
          "a = pd.read_excel('shape.xlsx', sheet_name='Data', header=1, nrows=2, usecols='A:B')",
          "b = pd.read_excel('shape.xlsx', sheet_name='Bare', header=None, names=['x', 'y'])",
          "c = pd.read_excel('shape.xlsx', sheet_name=['Data', 'Bare'], skiprows=1)",
          '(a.to_dict("list"), b.to_dict("list"), sorted(c), list(c["Data"].columns))',
        ].join('\n'),
      );
    },
    { id, bytes },
  );
  expect(out.error).toBeUndefined();
  expect(out.result?.['text/plain']).toBe("({'a': [1, 4], 'b': [2, 5]}, {'x': [10, 30], 'y': [20, 40]}, ['Bare', 'Data'], ['a', 'b', 'c'])");
});
