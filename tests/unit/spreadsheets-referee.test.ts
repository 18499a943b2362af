import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { strFromU8, unzipSync } from 'fflate';
import * as XLSX from 'xlsx';
import { installRuntimeFiles } from '../../workers/runtime/python-files';
import { installSpreadsheets } from '../../workers/runtime/spreadsheets';

// PyTabs' read_excel and write_excel (real Pyodide, the real SheetJS bridge) against a referee:
// Debian's CPython with openpyxl makes a corpus of workbooks and says what it reads from them
// (tests/unit/referee/xlsx_corpus.py); PyTabs must read the same, and openpyxl must read back
// what PyTabs writes. Values cross as JSON in the referee's typed encoding.

const REFEREE = path.join(import.meta.dirname, 'referee', 'xlsx_corpus.py');

type Typed = unknown;
interface RefereeSheet {
  name: string;
  state: string;
  rows: Typed[][];
}
type RefereeBooks = Record<string, { epoch: number; sheets: RefereeSheet[] }>;

function referee(...args: string[]): RefereeBooks {
  const run = spawnSync('/usr/bin/python3', [REFEREE, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (run.status !== 0) throw new Error(`the referee failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as RefereeBooks;
}

const UNESCAPE = 'import json, sys; from openpyxl.utils.escape import unescape; print(json.dumps([unescape(t) for t in json.load(sys.stdin)]))';

let pyodide: PyodideInterface;
let dir: string;
let corpus: RefereeBooks;

/** The same typed encoding as the referee's `typed`, for PyTabs' values. */
const TYPED = `
import datetime, decimal, json
def typed(value):
    if isinstance(value, ExcelError):
        return {'error': str(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime.datetime):
        return {'datetime': value.isoformat()}
    if isinstance(value, datetime.date):
        return {'date': value.isoformat()}
    if isinstance(value, datetime.time):
        return {'time': value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {'timedelta': [value.days, value.seconds, value.microseconds]}
    raise TypeError(f'no typed form for {value!r}')
`;

/** Runs Python in the test's cwd and returns the value of `out`, as JSON. */
function py(code: string): unknown {
  const globals = pyodide.toPy({});
  pyodide.runPython(`${TYPED}\n${code}`, { globals });
  return JSON.parse(pyodide.runPython('json.dumps(out, ensure_ascii=False)', { globals }) as string);
}

/** Every sheet of a corpus file as PyTabs reads it, without a header: rows of typed values. */
function pytabsSheets(file: string): { name: string; rows: Typed[][] }[] {
  pyodide.FS.writeFile(`/home/pyodide/${file}`, readFileSync(path.join(dir, file)));
  return py(`
books = read_excel(${JSON.stringify(file)}, header=None)
out = [{'name': name, 'rows': [[typed(v) for v in row.values()] for row in rows]} for name, rows in books.items()]
`) as { name: string; rows: Typed[][] }[];
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pytabs-xlsx-'));
  corpus = referee('make', dir);
  pyodide = await loadPyodide();
  installRuntimeFiles(pyodide);
  installSpreadsheets(pyodide);
  pyodide.runPython("import os; os.chdir('/home/pyodide')");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('read_excel reads what openpyxl reads', () => {
  it('the referee made the whole corpus', () => {
    expect(readdirSync(dir).sort()).toEqual(['escapes.xlsx', 'shapes.xlsx', 'strings.xlsx', 'types1900.xlsx', 'types1904.xlsx']);
  });

  for (const file of ['types1900.xlsx', 'types1904.xlsx', 'strings.xlsx', 'shapes.xlsx']) {
    it(`${file}: every sheet, cell by cell and type by type`, () => {
      const expected = corpus[file].sheets.map(({ name, rows }) => ({ name, rows }));
      expect(pytabsSheets(file)).toEqual(expected);
    });
  }

  it('reads the 1900 and 1904 systems, times, durations and errors as the types they are', () => {
    // Spelled out, so that a referee that changed its mind would not go unnoticed.
    const rows = Object.fromEntries(pytabsSheets('types1900.xlsx')[0].rows.map(([kind, value]) => [kind, value]));
    expect(rows).toMatchObject({
      time: { time: '10:10:10' },
      'time ms': { time: '08:30:00.250000' },
      'duration hh': { timedelta: [10, 15 * 3600 + 610, 0] },
      'datetime ms': { datetime: '2023-12-31T18:30:05.250000' },
      'serial 60': { datetime: '1900-02-28T00:00:00' },
      'serial 61': { datetime: '1900-03-01T00:00:00' },
      'error div0': { error: '#DIV/0!' },
      formula: 5,
    });
    const mac = Object.fromEntries(pytabsSheets('types1904.xlsx')[0].rows.map(([kind, value]) => [kind, value]));
    expect(mac['serial 1']).toEqual({ datetime: '1904-01-02T00:00:00' });
    expect(mac['duration hh']).toEqual({ timedelta: [10, 15 * 3600 + 610, 0] });
  });

  it('an error cell is an ExcelError a program can test, equal to its own code only', () => {
    pytabsSheets('types1900.xlsx');
    expect(
      py(`
rows = read_excel('types1900.xlsx', 0)
value = next(r['value'] for r in rows if r['kind'] == 'error na')
out = [repr(value), str(value), isinstance(value, ExcelError), value == ExcelError('#N/A'), value == '#N/A', isinstance(value, str)]
`),
    ).toEqual(["ExcelError('#N/A')", '#N/A', true, true, false, false]);
  });

  it('decodes _xHHHH_ escapes as Excel shows them (openpyxl 3.0 keeps them as text)', () => {
    const read = corpus['escapes.xlsx'].sheets[0].rows.map(([text]) => text as string);
    expect(read).toEqual(['line1_x000D_\nline2', 'literal _x000D_ stays', 'tab_x0009_here', 'ABC_x000D_\nDEF', 'lone\nCR', 'GHI_x000D_\nJKL']);
    // openpyxl's own unescape of what it read (the XML's line breaks are one \n each before _x000D_
    // adds its \r); the second string's escaped underscore openpyxl has already decoded.
    const escaped = read.filter((_, i) => i !== 1);
    const unescape = spawnSync('/usr/bin/python3', ['-c', UNESCAPE], { input: JSON.stringify(escaped), encoding: 'utf8' });
    const shown = (JSON.parse(unescape.stdout) as string[]).toSpliced(1, 0, read[1]);
    expect(shown).toEqual(['line1\r\nline2', 'literal _x000D_ stays', 'tab\there', 'ABC\r\nDEF', 'lone\nCR', 'GHI\r\nJKL']);
    expect(pytabsSheets('escapes.xlsx')[0].rows).toEqual(shown.map((text) => [text]));
  });

  it('needs its own text pass: plain SheetJS cuts rich text, drops escaped carriage returns, keeps lone ones from the XML and mangles emoji references', () => {
    // If a SheetJS upgrade makes this fail, src/lib/workspace/xlsx-text.ts may be no longer needed.
    const plain = (file: string) =>
      XLSX.utils.sheet_to_json<unknown[]>(XLSX.read(readFileSync(path.join(dir, file))).Sheets[XLSX.read(readFileSync(path.join(dir, file))).SheetNames[0]], {
        header: 1,
      });
    const strings = plain('strings.xlsx');
    expect(strings[1]).toEqual(['plain then rich', 'tval']);
    expect(strings[10]).toEqual(['inline plain then rich', 'head ']);
    expect(plain('escapes.xlsx')[0]).toEqual(['line1\nline2']);
    expect(plain('escapes.xlsx')[4]).toEqual(['lone\rCR']);
    expect(plain('types1900.xlsx')[11]).toEqual(['text', 'Zürich 東京 \uf600']);
  });
});

describe('read_excel shapes its sheets as pandas names the arguments', () => {
  beforeAll(() => {
    pytabsSheets('shapes.xlsx');
  });

  const read = (args: string) => py(`rows = read_excel('shapes.xlsx', ${args})\nout = {'columns': [str(c) for c in rows.columns], 'rows': [[typed(v) for v in r.values()] for r in rows]}`);

  it('header=None numbers the columns and keeps numbers numbers; a header row names them', () => {
    expect(py("rows = read_excel('shapes.xlsx', 'NoHeader', header=None)\nout = [rows.columns, [list(r.values()) for r in rows], [type(k).__name__ for k in rows[0]]]")).toEqual([
      [0, 1, 2],
      [[1, 2, 3], [4, 5, 6]],
      ['int', 'int', 'int'],
    ]);
    expect(read("'Merged', header=1")).toEqual({ columns: ['a', 'b', 'c'], rows: [[1, 2, 3], ['tall', 4, 5], [null, 6, 7]] });
  });

  it('a sheet with a header and no rows keeps its column names; an empty sheet has none', () => {
    expect(read("'HeaderOnly'")).toEqual({ columns: ['a', 'b', 'c'], rows: [] });
    expect(read("'Empty'")).toEqual({ columns: [], rows: [] });
  });

  it('skiprows, nrows, usecols (letters, positions, names, a function) and names', () => {
    expect(read("'Data', skiprows=[1, 2], nrows=2, usecols='A,C'")).toEqual({ columns: ['id', 'score'], rows: [[3, 4.5], [4, 6]] });
    expect(read("'Data', skiprows=3, header=None, nrows=1")).toEqual({ columns: ['0', '1', '2', '3'], rows: [[3, 'n3', 4.5, { datetime: '2024-01-03T00:00:00' }]] });
    expect(read("'Data', skiprows=lambda i: i % 2 == 1, usecols=[1, 2]")).toEqual({
      columns: ['name', 'score'],
      rows: [['n2', 3], ['n4', 6], ['n6', 9]],
    });
    expect(read("'Data', usecols=['when', 'id'], nrows=1")).toEqual({ columns: ['id', 'when'], rows: [[1, { datetime: '2024-01-01T00:00:00' }]] });
    expect(read("'Data', usecols=lambda c: c.startswith('n'), nrows=2, names=['who']")).toEqual({ columns: ['who'], rows: [['n1'], ['n2']] });
    expect(read("'NoHeader', header=None, names=['x', 'y', 'z']")).toEqual({ columns: ['x', 'y', 'z'], rows: [[1, 2, 3], [4, 5, 6]] });
  });

  it('sheet_name by name, index, list or None; hidden sheets are there as in openpyxl', () => {
    expect(py("out = list(read_excel('shapes.xlsx'))")).toEqual(corpus['shapes.xlsx'].sheets.map((s) => s.name));
    expect(py("books = read_excel('shapes.xlsx', ['Hidden', 5])\nout = {str(k): v for k, v in books.items()}")).toEqual({ Hidden: [{ h: 1 }], '5': [{ v: 2 }] });
    expect(py("out = [read_excel('shapes.xlsx', 'VeryHidden'), read_excel('shapes.xlsx', -2)]")).toEqual([[{ v: 2 }], [{ v: 2 }]]);
  });

  it('merged cells hold their value in the top-left cell only, as openpyxl reads them', () => {
    expect(read("'Merged', header=None")).toEqual({
      columns: ['0', '1', '2'],
      rows: [['Title over two', null, 'x'], ['a', 'b', 'c'], [1, 2, 3], ['tall', 4, 5], [null, 6, 7]],
    });
  });

  it('bad arguments give clear errors', () => {
    const error = (args: string) => py(`try:\n    read_excel('shapes.xlsx', ${args})\n    out = 'no error'\nexcept (ValueError, TypeError) as e:\n    out = str(e)`);
    expect(error("'Data', usecols=['nope']")).toBe("usecols names columns that are not there: ['nope']; the columns are ['id', 'name', 'score', 'when']");
    expect(error("'Data', names=['a']")).toBe("names has 1 names for 4 columns: ['id', 'name', 'score', 'when']");
    expect(error("'Data', header=-1")).toBe('header must be a row number (0 or more) or None, not -1');
  });
});

describe('what write_excel writes, openpyxl reads back as written', () => {
  it('Decimal, dates, datetimes with milliseconds, times, durations, errors and the days around 29 Feb 1900', () => {
    py(`
from decimal import Decimal
rows = [
  ['decimal', Decimal('12.34')],
  ['date', datetime.date(2024, 3, 1)],
  ['datetime', datetime.datetime(2023, 12, 31, 18, 30, 5)],
  ['datetime ms', datetime.datetime(2023, 12, 31, 18, 30, 5, 250000)],
  ['before the phantom day', datetime.datetime(1900, 2, 28, 12, 0)],
  ['first day', datetime.datetime(1900, 1, 1)],
  ['after the phantom day', datetime.datetime(1900, 3, 1, 6, 0)],
  ['time', datetime.time(10, 10, 10)],
  ['time ms', datetime.time(8, 30, 0, 250000)],
  ['duration', datetime.timedelta(days=10, hours=15, minutes=10, seconds=10)],
  ['duration ms', datetime.timedelta(hours=1, milliseconds=250)],
  ['error', ExcelError('#N/A')],
  ['nan', float('nan')],
  ['big int', 2**60],
]
write_excel('written.xlsx', {'W': rows})
out = None
`);
    const file = path.join(dir, 'written.xlsx');
    writeFileSync(file, pyodide.FS.readFile('/home/pyodide/written.xlsx'));
    const back = referee('read', file)['written.xlsx'].sheets[0].rows;
    expect(Object.fromEntries(back.map(([k, v]) => [k, v]))).toEqual({
      decimal: 12.34,
      date: { datetime: '2024-03-01T00:00:00' },
      datetime: { datetime: '2023-12-31T18:30:05' },
      'datetime ms': { datetime: '2023-12-31T18:30:05.250000' },
      'before the phantom day': { datetime: '1900-02-28T12:00:00' },
      'first day': { datetime: '1900-01-01T00:00:00' },
      'after the phantom day': { datetime: '1900-03-01T06:00:00' },
      time: { time: '10:10:10' },
      'time ms': { time: '08:30:00.250000' },
      duration: { timedelta: [10, 15 * 3600 + 610, 0] },
      'duration ms': { timedelta: [0, 3600, 250000] },
      error: { error: '#N/A' },
      nan: null,
      // Excel's numbers are doubles: a big int is kept as the nearest one, as openpyxl writes it.
      'big int': 2 ** 60,
    });
    // 28 Feb 1900 12:00 is serial 59.5: 60.5 would be the 29 February Excel shows but that never was.
    const xml = strFromU8(unzipSync(readFileSync(file))['xl/worksheets/sheet1.xml']);
    expect(xml).toMatch(/<c r="B5"[^>]*><v>59\.5<\/v><\/c>/);
    // And PyTabs reads its own file back as the same values.
    expect(py("out = [[typed(v) for v in r.values()] for r in read_excel('written.xlsx', 0, header=None)]")).toEqual(back);
  });

  it('text comes back whole: markup characters, spaces, emoji, tabs, line breaks, escapes and carriage returns', () => {
    const texts = ['a & b <c> "q"', '  spaced  ', 'emoji 😀 東京', 'tab\there', 'line\nbreak', 'literal _x000D_ text', 'bell \u0007'];
    py(`texts = ${JSON.stringify(texts)}\nwrite_excel('text.xlsx', {'R&D <1>': [[t] for t in texts] + [['cr\\r\\nlf']]})\nout = None`);
    const file = path.join(dir, 'text.xlsx');
    writeFileSync(file, pyodide.FS.readFile('/home/pyodide/text.xlsx'));
    const [sheet] = referee('read', file)['text.xlsx'].sheets;
    expect(sheet.name).toBe('R&D <1>');
    // openpyxl 3.0 leaves _xHHHH_ escapes as they are written: a carriage return and a bell read as their escapes there.
    expect(sheet.rows.map(([t]) => t)).toEqual([...texts.slice(0, 6), 'bell _x0007_', 'cr_x000D_\nlf']);
    expect(py("out = [r[0] for r in read_excel('text.xlsx', 0, header=None)]")).toEqual([...texts, 'cr\r\nlf']);
  });

  it('refuses what no cell can hold, naming the cell, and writes nothing', () => {
    const error = (value: string) =>
      py(`import os\ntry:\n    write_excel('refused.xlsx', [['ok', ${value}]])\n    out = 'no error'\nexcept SpreadsheetError as e:\n    out = [str(e), os.path.exists('refused.xlsx')]`);
    expect(error('{1, 2}')).toEqual([
      "Cannot write 'refused.xlsx': sheet 'Sheet1', cell B1: set values cannot be written to a cell; convert it to str, a number or a date first",
      false,
    ]);
    expect(error('object()')).toEqual([
      "Cannot write 'refused.xlsx': sheet 'Sheet1', cell B1: object values cannot be written to a cell; convert it to str, a number or a date first",
      false,
    ]);
    expect(error("[1, 2]")).toEqual([
      'Cannot write \'refused.xlsx\': cannot write [1,2] (sheet "Sheet1", cell B1): a cell holds one value; convert it to str first',
      false,
    ]);
    expect(py("try:\n    write_excel('t.ods', [[datetime.time(1, 2)]])\n    out = 'no error'\nexcept SpreadsheetError as e:\n    out = str(e)")).toBe(
      "Cannot write 't.ods': cannot write a time of day to .ods (sheet \"Sheet1\", cell A1); use .xlsx, or write it as text",
    );
  });
});
