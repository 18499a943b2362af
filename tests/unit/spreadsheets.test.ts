import { describe, it, expect, beforeAll } from 'vitest';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { strToU8, zipSync, unzipSync, strFromU8 } from 'fflate';
import * as XLSX from 'xlsx';
import { installRuntimeFiles } from '../../workers/runtime/python-files';
import { installSpreadsheets, MAX_CELLS, type ReadWatch } from '../../workers/runtime/spreadsheets';

// read_excel / write_excel on real Pyodide with the real SheetJS bridge, on .xlsx bytes
// that SheetJS itself wrote (and a few crafted by hand to be broken or hostile).

let pyodide: PyodideInterface;
/** What the session would see of a read: its steps, and whether Stop was pressed. */
let watch: ReadWatch = { progress: () => undefined, stopRequested: () => false };

function xlsx(sheets: Record<string, unknown[][]>, bookType: XLSX.BookType = 'xlsx'): Uint8Array {
  const wb = XLSX.utils.book_new();
  for (const [name, rows] of Object.entries(sheets)) {
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows, { cellDates: true, UTC: true }), name);
  }
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType }) as ArrayBuffer);
}

/** Replaces one part of a zipped workbook. */
function withPart(book: Uint8Array, part: string, edit: (xml: string) => string): Uint8Array {
  const files = unzipSync(book);
  files[part] = strToU8(edit(strFromU8(files[part])));
  return zipSync(files);
}

function put(path: string, data: Uint8Array): void {
  pyodide.FS.writeFile(`/home/pyodide/${path}`, data);
}

/** Runs Python in the test's cwd and returns the value of `out`, as JSON. */
function py(code: string): unknown {
  const globals = pyodide.toPy({});
  pyodide.runPython(`import json, datetime\n${code}`, { globals });
  const out = pyodide.runPython('json.dumps(out, default=str, ensure_ascii=False)', { globals }) as string;
  return JSON.parse(out);
}

/** The SpreadsheetError message a statement raises, or a note that it raised none. */
function spreadsheetError(statement: string): string {
  return py(`try:\n    ${statement}\n    out = 'no error'\nexcept SpreadsheetError as e:\n    out = str(e)`) as string;
}

beforeAll(async () => {
  pyodide = await loadPyodide();
  installRuntimeFiles(pyodide);
  installSpreadsheets(pyodide, { progress: (text, step) => watch.progress(text, step), stopRequested: () => watch.stopRequested() });
  pyodide.runPython("import os; os.chdir('/home/pyodide')");
});

describe('read_excel', () => {
  it('reads every sheet as lists of dicts: numbers, strings, booleans, dates, blanks, unicode', () => {
    put(
      'data.xlsx',
      xlsx({
        Sales: [
          ['city', 'amount', 'when', 'ok', 'note'],
          ['Zürich', 12.5, new Date('2024-03-01T00:00:00Z'), true, null],
          ['東京', 7, new Date('2023-12-31T18:30:05Z'), false, 'größer 😀'],
        ],
        Empty: [],
        Raw: [[1, 2], [3, null, 5]],
      }),
    );
    const out = py(`
books = read_excel('data.xlsx')
sales = books['Sales']
out = {
  'sheets': list(books),
  'sales': sales,
  'types': [type(v).__name__ for v in sales[1].values()],
  'raw': books['Raw'],
  'empty': books['Empty'],
}`) as Record<string, unknown>;
    expect(out.sheets).toEqual(['Sales', 'Empty', 'Raw']);
    expect(out.sales).toEqual([
      { city: 'Zürich', amount: 12.5, when: '2024-03-01 00:00:00', ok: true, note: null },
      { city: '東京', amount: 7, when: '2023-12-31 18:30:05', ok: false, note: 'größer 😀' },
    ]);
    expect(out.types).toEqual(['str', 'int', 'datetime', 'bool', 'str']);
    // Header cells that are numbers or empty get names; short rows are padded with None.
    expect(out.raw).toEqual([{ '1': 3, '2': null, 'Unnamed: 2': 5 }]);
    expect(out.empty).toEqual([]);
  });

  it('picks one sheet by name or by index, and names the sheets when one is missing', () => {
    put('two.xlsx', xlsx({ First: [['a'], [1]], Second: [['b'], [2], [3]] }));
    expect(py("out = [read_excel('two.xlsx', 'Second'), read_excel('two.xlsx', sheet_name=0), read_excel('two.xlsx', -1)]")).toEqual([
      [{ b: 2 }, { b: 3 }],
      [{ a: 1 }],
      [{ b: 2 }, { b: 3 }],
    ]);
    expect(spreadsheetError("read_excel('two.xlsx', 'Third')")).toBe("'two.xlsx' has no sheet 'Third'; its sheets are ['First', 'Second']");
    expect(spreadsheetError("read_excel('two.xlsx', 2)")).toContain('has no sheet 2');
  });

  it('starts at the used range and de-duplicates header names like pandas', () => {
    put('offset.xlsx', xlsx({ S: [[], [null, null, 'x', 'x', 'x'], [null, null, 1, 2, 3]] }));
    expect(py("out = read_excel('offset.xlsx', 0)")).toEqual([{ x: 1, 'x.1': 2, 'x.2': 3 }]);
  });

  it('reads .ods, .xls and UTF-8 .csv files, dates as datetime', () => {
    const rows = [['name', 'n', 'when'], ['Åsa', 1.25, new Date('2024-03-01T08:30:00Z')]];
    put('d.ods', xlsx({ S: rows }, 'ods'));
    put('d.xls', xlsx({ S: rows }, 'biff8'));
    put('d.csv', new TextEncoder().encode('name,n,when\nÅsa,1.25,2024-03-01 08:30:00\n'));
    const row = { name: 'Åsa', n: 1.25, when: '2024-03-01 08:30:00' };
    expect(py("out = [read_excel(p, 0) for p in ('d.ods', 'd.xls', 'd.csv')]")).toEqual([[row], [row], [row]]);
    expect(py("out = [type(read_excel(p, 0)[0]['when']).__name__ for p in ('d.ods', 'd.xls', 'd.csv')]")).toEqual(['datetime', 'datetime', 'datetime']);
  });

  it('keeps the cached value of a formula and never evaluates one', () => {
    const ws = XLSX.utils.aoa_to_sheet([['v', 'w']]);
    ws.A2 = { t: 'n', v: 5, f: '2+2' }; // the cached 5 is what Excel saved; 2+2 must not be computed
    ws.B2 = { t: 's', v: '=cmd|calc', f: 'HYPERLINK("http://x")' };
    ws['!ref'] = 'A1:B2';
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, ws, 'F');
    put('f.xlsx', new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
    expect(py("out = read_excel('f.xlsx', 0)")).toEqual([{ v: 5, w: '=cmd|calc' }]);
  });

  it('gives a clear SpreadsheetError for broken, garbage and password-protected files', () => {
    const good = xlsx({ S: [['a'], [1]] });
    put('truncated.xlsx', good.slice(0, good.length / 2));
    put('garbage.xlsx', new TextEncoder().encode('this is not a workbook at all'));
    const cfb = XLSX.CFB.utils.cfb_new();
    XLSX.CFB.utils.cfb_add(cfb, '/EncryptionInfo', new Uint8Array([4, 0, 4, 0, 0x40, 0, 0, 0, ...strToU8('<encryption/>')]));
    XLSX.CFB.utils.cfb_add(cfb, '/EncryptedPackage', new Uint8Array(64));
    put('locked.xlsx', new Uint8Array(XLSX.CFB.write(cfb, { type: 'array' }) as number[]));
    expect(spreadsheetError("read_excel('truncated.xlsx')")).toMatch(/^Cannot read 'truncated.xlsx': the file is damaged/);
    expect(spreadsheetError("read_excel('garbage.xlsx')")).toBe(
      "Cannot read 'garbage.xlsx': it is not a valid .xlsx file (the content is not a zip archive)",
    );
    expect(spreadsheetError("read_excel('locked.xlsx')")).toBe(
      "Cannot read 'locked.xlsx': it is password-protected; save a copy without a password and use that",
    );
    // SpreadsheetError is a ValueError, so generic handlers catch it too.
    expect(py("out = issubclass(SpreadsheetError, ValueError)")).toBe(true);
  });

  it('ignores a huge declared dimension and refuses a sheet whose cells span too far', () => {
    const small = xlsx({ S: [['a', 'b'], [1, 2]] });
    const lying = withPart(small, 'xl/worksheets/sheet1.xml', (xml) =>
      xml.replace(/<dimension ref="[^"]*"\/>/, '<dimension ref="A1:XFD1048576"/>'),
    );
    expect(strFromU8(unzipSync(lying)['xl/worksheets/sheet1.xml'])).toContain('A1:XFD1048576');
    put('lying.xlsx', lying);
    const t0 = performance.now();
    expect(py("out = read_excel('lying.xlsx')")).toEqual({ S: [{ a: 1, b: 2 }] });
    expect(performance.now() - t0).toBeLessThan(5000);

    const far = withPart(small, 'xl/worksheets/sheet1.xml', (xml) =>
      xml.replace('</sheetData>', '<row r="1048576"><c r="XFD1048576" t="n"><v>9</v></c></row></sheetData>'),
    );
    put('far.xlsx', far);
    expect(spreadsheetError("read_excel('far.xlsx')")).toBe(
      `Cannot read 'far.xlsx': sheet "S" spans A1:XFD1048576 (17,179,869,184 cells), more than the ${MAX_CELLS.toLocaleString('en')} this reader accepts`,
    );
  });

  it('refuses a zip bomb before inflating it', () => {
    const bomb = zipSync({ '[Content_Types].xml': new Uint8Array(300 * 1024 * 1024) }, { level: 1 });
    put('bomb.xlsx', bomb);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    expect(spreadsheetError("read_excel('bomb.xlsx')")).toBe(
      "Cannot read 'bomb.xlsx': it unpacks to 300 MB, more than the 256 MB this reader accepts",
    );
  });

  it('survives deeply nested XML in a sheet', () => {
    const deep = withPart(xlsx({ S: [['a'], [1]] }), 'xl/worksheets/sheet1.xml', (xml) =>
      xml.replace('</sheetData>', `</sheetData>${'<x>'.repeat(100_000)}${'</x>'.repeat(100_000)}`),
    );
    put('deep.xlsx', deep);
    expect(py("out = read_excel('deep.xlsx', 0)")).toEqual([{ a: 1 }]);
  });
});

describe('a large read', () => {
  it('shows its steps, and stops between them as KeyboardInterrupt when the person asks', () => {
    // About 12 MB of sheet XML: over the size from which a read shows its steps.
    py("write_excel('large.xlsx', [{'id': i, 'name': f'row {i}', 'x': i / 3} for i in range(60_000)])\nout = None");
    const steps: string[] = [];
    watch = { progress: (text) => steps.push(text), stopRequested: () => false };
    expect(py("out = len(read_excel('large.xlsx', 0))")).toBe(60_000);
    expect(steps).toEqual([expect.stringMatching(/^Reading large\.xlsx: parsing \d+ MB of XML…$/), 'Reading large.xlsx: sheet "Sheet1", 60,001 rows…']);
    // Stop pressed while SheetJS parses: the read ends at its next step.
    watch = { progress: (text) => steps.push(text), stopRequested: () => steps.length > 2 };
    expect(py("try:\n    read_excel('large.xlsx', 0)\n    out = 'read'\nexcept KeyboardInterrupt:\n    out = 'stopped'")).toBe('stopped');
    expect(steps).toHaveLength(3);
    // A small read shows nothing.
    watch = { progress: (text) => steps.push(text), stopRequested: () => false };
    put('small.xlsx', xlsx({ S: [['a'], [1]] }));
    py("out = read_excel('small.xlsx')");
    expect(steps).toHaveLength(3);
  });
});

describe('write_excel', () => {
  it('round-trips a list of dicts through .xlsx and .ods', () => {
    const out = py(`
rows = [
  {'name': 'Zoë', 'score': 9.5, 'when': datetime.datetime(2024, 2, 29, 8, 15, 1), 'day': datetime.date(2024, 1, 2)},
  {'name': '李', 'score': None, 'passed': True, 'when': datetime.datetime(1999, 12, 31)},
]
out = {}
for ext in ('xlsx', 'ods'):
    write_excel(f'out.{ext}', rows)
    back = read_excel(f'out.{ext}', 'Sheet1')
    out[ext] = {'rows': back, 'types': [type(back[0]['when']).__name__, type(back[0]['day']).__name__]}
`) as Record<string, { rows: unknown; types: string[] }>;
    for (const ext of ['xlsx', 'ods']) {
      expect(out[ext].rows).toEqual([
        { name: 'Zoë', score: 9.5, when: '2024-02-29 08:15:01', day: '2024-01-02 00:00:00', passed: null },
        { name: '李', score: null, when: '1999-12-31 00:00:00', day: null, passed: true },
      ]);
      expect(out[ext].types).toEqual(['datetime', 'datetime']);
    }
    // In Excel, a datetime shows its time and a date shows only the date.
    const sheet = XLSX.read(pyodide.FS.readFile('/home/pyodide/out.xlsx'), { cellNF: true }).Sheets.Sheet1;
    expect([sheet.C2.z, sheet.D2.z]).toEqual(['yyyy-mm-dd hh:mm:ss', 'yyyy-mm-dd']);
  });

  it('writes several sheets of dicts or rows, and a .csv', () => {
    const out = py(`
write_excel('multi.xlsx', {'People': [{'a': 1}], 'Grid': [['x', 'y'], [1, 2], (3, 4)]})
write_excel('flat.csv', [{'a': 1, 'b': 'ü'}, {'a': 2, 'b': None}])
out = [read_excel('multi.xlsx'), open('flat.csv', encoding='utf-8', newline='').read()]
`);
    expect(out).toEqual([{ People: [{ a: 1 }], Grid: [{ x: 1, y: 2 }, { x: 3, y: 4 }] }, 'a,b\r\n1,ü\r\n2,\r\n']);
  });

  it('gives clear errors for bad sheet names, formats and data, and writes nothing', () => {
    expect(spreadsheetError("write_excel('bad.xlsx', {'a/b': [{'x': 1}]})")).toMatch(/^Cannot write 'bad.xlsx': cannot name a sheet "a\/b"/);
    expect(spreadsheetError("write_excel('bad.xls', [{'x': 1}])")).toBe("Cannot write 'bad.xls': use a .xlsx, .ods or .csv file name");
    expect(py("import os\nout = [os.path.exists('bad.xlsx'), os.path.exists('bad.xls')]")).toEqual([false, false]);
    expect(py("try:\n    write_excel('t.xlsx', ['abc'])\n    out = 'no error'\nexcept TypeError as e:\n    out = str(e)")).toBe(
      'a sheet is a list of dicts or a list of rows (lists or tuples)',
    );
  });
});
