import type { PyodideInterface } from 'pyodide';
import { unzipSync } from 'fflate';
import * as XLSX from 'xlsx';
import { dateToSerial, formatKind, msToSerial, serialToDate, serialToDuration, type DateValue } from './excel-dates';
import { TOKEN, wholeText } from '../../src/lib/workspace/xlsx-text';
import { sheetNameProblem, writeXlsx, type Special, type XlsxParts } from './xlsx-writer';
import { said, SaidError, tellInEnglish, type Said } from '../../src/lib/i18n/said';

/**
 * Largest sheet (rows × columns of its used range) read or written. A sheet this size
 * is already hundreds of MB as Python objects; beyond it a hostile or runaway file
 * would exhaust the worker's memory instead of failing with a clear message.
 */
export const MAX_CELLS = 5_000_000;

/** Largest total uncompressed size of a zipped workbook's parts (zip-bomb guard). */
export const MAX_UNZIPPED_BYTES = 256 * 1024 * 1024;

/**
 * One cell as it crosses to Python (as JSON): empty cells are null. A number whose format
 * is a date crosses as `date` (wall-clock ISO text without a zone, as Excel stores it) or,
 * below one day, as `time` (ms since midnight); under an elapsed format as `duration` (ms).
 * Error cells cross as `error` with Excel's code (#DIV/0!, #N/A).
 */
export type Cell = null | number | string | boolean | DateValue | { duration: number } | { error: string };

export interface Sheet {
  name: string;
  /** The sheet's used range, row by row, every row as wide as the widest. */
  rows: Cell[][];
  /** Where the used range starts (0-based column; A is 0), so that column letters still name their columns. */
  left?: number;
}

export type WritableBookType = 'xlsx' | 'ods';

/** Why a workbook cannot be read or written: said for the page (Python passes `said` on), in English as its message. */
export class SpreadsheetError extends SaidError {
  constructor(said: Said) {
    super(said);
    this.name = 'SpreadsheetError';
  }
}

const ZIP_FORMATS = new Set(['xlsx', 'xlsm', 'xlsb', 'ods']);
const TEXT_FORMATS = new Set(['csv', 'tsv', 'txt']);

function extension(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

function startsWith(data: Uint8Array, magic: number[]): boolean {
  return magic.every((byte, i) => data[i] === byte);
}

const isZip = (data: Uint8Array) => startsWith(data, [0x50, 0x4b, 0x03, 0x04]);
// OLE compound file: legacy .xls, and also the container of every encrypted .xlsx.
const isCompoundFile = (data: Uint8Array) => startsWith(data, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** An encrypted xlsx/ods is a compound file with an EncryptedPackage stream (MS-OFFCRYPTO 2.3.4). */
function isEncryptedPackage(data: Uint8Array): boolean {
  try {
    return Boolean(XLSX.CFB.find(XLSX.CFB.read(data, { type: 'array' }), 'EncryptedPackage'));
  } catch {
    return false;
  }
}

const PASSWORD_PROTECTED = said('rt_py_xl_password');

/** Reads the zip's central directory only, so a zip bomb is refused before anything is inflated. */
function checkZipSize(data: Uint8Array): number {
  let total = 0;
  try {
    unzipSync(data, {
      filter(file) {
        total += file.originalSize;
        return false;
      },
    });
  } catch (e) {
    throw new SpreadsheetError(said('rt_py_xl_damaged', { error: e instanceof Error ? e.message : String(e) }));
  }
  if (total > MAX_UNZIPPED_BYTES) {
    throw new SpreadsheetError(said('rt_py_xl_unpacks_to', { mb: Math.round(total / 2 ** 20), most: MAX_UNZIPPED_BYTES / 2 ** 20 }));
  }
  return total;
}

/** What a read tells its session while it works, and asks it. */
export interface ReadWatch {
  /** Shows a step of a long read in the run's reply: in English, and said for the page. */
  progress(text: string, said: Said): void;
  /** True once the person asked to stop the run. */
  stopRequested(): boolean;
}

const QUIET: ReadWatch = { progress: () => undefined, stopRequested: () => false };

/** Reads that unpack to more than this show their steps (a second or more of work here). */
const LARGE_READ_BYTES = 8 * 2 ** 20;

/** Thrown between the steps of a read when the person stopped the run; Python raises KeyboardInterrupt. */
export class ReadStopped extends Error {
  constructor() {
    super('the read was stopped');
    this.name = 'ReadStopped';
  }
}

/** How a parsed workbook's cells become values: its date system, and the strings its text pass mended. */
interface Reading {
  date1904: boolean;
  strings: string[];
}

function toCell(cell: XLSX.CellObject | undefined, reading: Reading): Cell {
  if (!cell) return null;
  switch (cell.t) {
    case 'n': {
      const v = cell.v as number;
      if (!Number.isFinite(v)) return null;
      const kind = formatKind(cell.z as string | undefined);
      if (kind === 'number') return v;
      if (kind === 'duration') return { duration: serialToDuration(v) };
      // A serial beyond the years a date can hold is an error, as openpyxl reads it.
      return serialToDate(v, reading.date1904) ?? { error: '#VALUE!' };
    }
    case 's': {
      const text = String(cell.v);
      return text.charCodeAt(0) === 0xe000 && text.startsWith(TOKEN) ? (reading.strings[Number(text.slice(1))] ?? text) : text;
    }
    case 'b':
      return Boolean(cell.v);
    case 'd':
      // An ISO date written in the cell itself (t="d"), or a date of another format's reader.
      return cell.v instanceof Date ? { date: wallClock(cell.v) } : null;
    case 'e':
      return { error: cell.w ?? XLSX.utils.format_cell(cell) };
    default:
      return null;
  }
}

/** A Date whose UTC fields are the wall-clock value, as ISO text without a zone. */
function wallClock(date: Date): string {
  return date.toISOString().replace(/(\.000)?Z$/, '');
}

/** Whether toCell gives a value (not null) for this cell, without converting it. */
function holdsValue(cell: XLSX.CellObject | undefined): boolean {
  if (!cell) return false;
  switch (cell.t) {
    case 'n':
      return Number.isFinite(cell.v);
    case 'd':
      return cell.v instanceof Date;
    case 's':
    case 'b':
    case 'e':
      return true;
    default:
      return false;
  }
}

/** The used range of a dense sheet: the smallest rectangle holding every non-empty cell. */
function readSheet(name: string, sheet: XLSX.WorkSheet, reading: Reading): Sheet {
  const data = (sheet as XLSX.DenseWorkSheet)['!data'] ?? [];
  let top = Infinity, left = Infinity, bottom = -1, right = -1;
  // Each row from both ends: a full row costs two checks, not one per cell.
  for (let r = 0; r < data.length; r++) {
    const row = data[r];
    if (!row) continue;
    let first = 0;
    while (first < row.length && !holdsValue(row[first])) first++;
    if (first === row.length) continue;
    let last = row.length - 1;
    while (!holdsValue(row[last])) last--;
    if (top === Infinity) top = r;
    bottom = r;
    left = Math.min(left, first);
    right = Math.max(right, last);
  }
  if (bottom < 0) return { name, rows: [], left: 0 };
  const height = bottom - top + 1;
  const width = right - left + 1;
  if (height * width > MAX_CELLS) {
    const range = XLSX.utils.encode_range({ s: { r: top, c: left }, e: { r: bottom, c: right } });
    throw new SpreadsheetError(said('rt_py_xl_sheet_spans', { sheet: name, range, cells: (height * width).toLocaleString('en'), most: MAX_CELLS.toLocaleString('en') }));
  }
  const rows: Cell[][] = [];
  for (let r = top; r <= bottom; r++) {
    const row = data[r];
    const out: Cell[] = new Array(width);
    for (let c = 0; c < width; c++) out[c] = toCell(row?.[left + c], reading);
    rows.push(out);
  }
  return { name, rows, left };
}

function describe(e: unknown): Said {
  const message = e instanceof Error ? e.message : String(e);
  // Legacy .xls files announce their encryption in a record SheetJS reports this way.
  if (/password/i.test(message)) return PASSWORD_PROTECTED;
  return said('rt_py_text', { text: message });
}

/**
 * Parses workbook bytes (xlsx, xlsm, xlsb, xls, ods, csv) into its sheets' values.
 * Formulas are never evaluated: a formula cell reads as the value Excel cached for it,
 * or empty when none was saved. Declared dimensions are ignored (`nodim`): the sheet is
 * what its cells span, so a file claiming A1:XFD1048576 cannot make the reader loop over it.
 */
export function readWorkbook(data: Uint8Array, fileName: string, watch: ReadWatch = QUIET): Sheet[] {
  const ext = extension(fileName);
  const step = (what: Said | null) => {
    if (watch.stopRequested()) throw new ReadStopped();
    if (what === null) return;
    const text = said('rt_py_xl_reading', { file: fileName, what });
    watch.progress(tellInEnglish(text), text);
  };
  let large = false;
  const options: XLSX.ParsingOptions = {
    // Serials and their number formats, not SheetJS's Dates: the format decides between a
    // date, a time of day and a duration (excel-dates.ts).
    cellDates: false,
    cellNF: true,
    dense: true,
    nodim: true,
    cellFormula: false,
    cellHTML: false,
    // No formatted text (cell.w): formatting every cell costs about a quarter of a parse.
    cellText: false,
    cellStyles: false,
    bookVBA: false,
  };
  let workbook: XLSX.WorkBook;
  let strings: string[] = [];
  try {
    if (TEXT_FORMATS.has(ext)) {
      // SheetJS reads a byte array as Latin-1 unless told otherwise; CSV files are UTF-8.
      workbook = XLSX.read(new TextDecoder().decode(data), { ...options, type: 'string' });
    } else {
      if (isZip(data)) {
        const unpacked = checkZipSize(data);
        large = unpacked > LARGE_READ_BYTES;
        if (large) step(said('rt_py_xl_parsing', { mb: Math.round(unpacked / 2 ** 20) }));
      } else if (isCompoundFile(data) && isEncryptedPackage(data)) throw new SpreadsheetError(PASSWORD_PROTECTED);
      else if (ZIP_FORMATS.has(ext) && !isCompoundFile(data)) {
        throw new SpreadsheetError(said('rt_py_xl_not_zip', { ext }));
      }
      if (isZip(data)) ({ data, strings } = wholeText(data));
      step(null);
      workbook = XLSX.read(data, { ...options, type: 'array' });
    }
  } catch (e) {
    if (e instanceof SpreadsheetError || e instanceof ReadStopped) throw e;
    throw new SpreadsheetError(describe(e));
  }
  const reading: Reading = { date1904: Boolean(workbook.Workbook?.WBProps?.date1904), strings };
  return workbook.SheetNames.map((name) => {
    const sheet = workbook.Sheets[name];
    const rows = (sheet as XLSX.DenseWorkSheet)['!data']?.length ?? 0;
    step(large ? said('rt_py_xl_sheet_rows', { sheet: name, rows: rows.toLocaleString('en') }) : null);
    return readSheet(name, sheet, reading);
  });
}

/** Excel's error codes as BIFF numbers them, which is how SheetJS holds an error cell's value. */
const ERROR_CODES: Record<string, number> = {
  '#NULL!': 0x00,
  '#DIV/0!': 0x07,
  '#VALUE!': 0x0f,
  '#REF!': 0x17,
  '#NAME?': 0x1d,
  '#NUM!': 0x24,
  '#N/A': 0x2a,
  '#GETTING_DATA': 0x2b,
};

const withMs = (ms: number, format: string) => (ms % 1000 === 0 ? format : `${format}.000`);

/**
 * A date, time, duration or error cell as the .xlsx writer takes it: a date, time or
 * duration is its serial under a format that Excel and openpyxl read back as the same type;
 * midnight shows as a date, as pandas writes it.
 */
function toSpecial(cell: Exclude<Cell, null | number | string | boolean>, sheet: string, r: number, c: number): Special {
  if ('date' in cell) {
    const utc = Date.parse(`${cell.date}Z`);
    if (!Number.isNaN(utc)) {
      const format = cell.date.endsWith('T00:00:00') ? 'yyyy-mm-dd' : withMs(utc % 1000, 'yyyy-mm-dd hh:mm:ss');
      return { serial: dateToSerial(utc, false), format };
    }
  } else if ('time' in cell) {
    return { serial: msToSerial(cell.time), format: withMs(cell.time, 'hh:mm:ss') };
  } else if ('duration' in cell) {
    return { serial: msToSerial(cell.duration), format: withMs(Math.abs(cell.duration), '[h]:mm:ss') };
  } else if ('error' in cell && cell.error in ERROR_CODES) {
    return cell;
  }
  throw new SpreadsheetError(said('rt_py_xl_one_value', { value: JSON.stringify(cell), sheet, cell: XLSX.utils.encode_cell({ r, c }) }));
}

/**
 * A cell as SheetJS's ODS writer takes it. It keeps dates in its own date style and has no
 * time-of-day or duration cells, so those are refused.
 */
function toOdsCell(cell: Cell, where: () => { sheet: string; cell: string }): XLSX.CellObject | null {
  if (cell === null) return null;
  if (typeof cell === 'number') return { t: 'n', v: cell };
  if (typeof cell === 'string') return { t: 's', v: cell };
  if (typeof cell === 'boolean') return { t: 'b', v: cell };
  if ('date' in cell) return { t: 'd', v: new Date(`${cell.date}Z`) };
  if ('error' in cell && cell.error in ERROR_CODES) return { t: 'e', v: ERROR_CODES[cell.error], w: cell.error };
  const kind = 'time' in cell ? said('rt_py_xl_a_time') : 'duration' in cell ? said('rt_py_xl_a_duration') : JSON.stringify(cell);
  throw new SpreadsheetError(said('rt_py_xl_not_in_ods', { kind, ...where() }));
}

function writeOds(sheets: Sheet[]): Uint8Array {
  const workbook = XLSX.utils.book_new();
  for (const { name, rows } of sheets) {
    const data = rows.map((row, r) => row.map((cell, c) => toOdsCell(cell, () => ({ sheet: name, cell: XLSX.utils.encode_cell({ r, c }) }))));
    const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
    const sheet: XLSX.DenseWorkSheet = { '!data': data as XLSX.CellObject[][] };
    if (rows.length && width) sheet['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length - 1, c: width - 1 } });
    XLSX.utils.book_append_sheet(workbook, sheet, name);
  }
  return new Uint8Array(XLSX.write(workbook, { type: 'array', bookType: 'ods', compression: true }) as ArrayBuffer);
}

/**
 * Writes sheets as ods bytes, or as the parts of an xlsx package for the caller to zip.
 * Strings that look like formulas stay plain strings.
 */
export function writeWorkbook(sheets: Sheet[], bookType: WritableBookType): Uint8Array | XlsxParts {
  if (sheets.length === 0) throw new SpreadsheetError(said('rt_py_xl_no_sheet'));
  const taken = new Set<string>();
  for (const { name, rows } of sheets) {
    const cells = rows.reduce((n, row) => n + row.length, 0);
    if (cells > MAX_CELLS) {
      throw new SpreadsheetError(said('rt_py_xl_too_many_cells', { sheet: name, cells: cells.toLocaleString('en'), most: MAX_CELLS.toLocaleString('en') }));
    }
    const problem = sheetNameProblem(name, taken);
    if (problem) throw new SpreadsheetError(said('rt_py_xl_sheet_name', { sheet: name, problem }));
    taken.add(name.toLowerCase());
  }
  if (bookType === 'ods') return writeOds(sheets);
  return writeXlsx(sheets, toSpecial);
}

/** The `pytabs_sheetjs` module Python imports: JSON in and out, bytes as Uint8Array. */
function bridge(watch: ReadWatch) {
  return {
    read_workbook: (data: Uint8Array, fileName: string): string => {
      const sheets = readWorkbook(data, fileName, watch);
      if (watch.stopRequested()) throw new ReadStopped();
      return JSON.stringify(sheets);
    },
    write_workbook: (sheetsJson: string, bookType: string): Uint8Array | XlsxParts => {
      if (bookType !== 'xlsx' && bookType !== 'ods') throw new SpreadsheetError(said('rt_py_xl_format', { ext: bookType }));
      return writeWorkbook(JSON.parse(sheetsJson) as Sheet[], bookType);
    },
  };
}

/** Registers the SheetJS bridge and installs read_excel/write_excel (and the pandas hook) into builtins. */
export function installSpreadsheets(pyodide: PyodideInterface, watch: ReadWatch = QUIET): void {
  pyodide.registerJsModule('pytabs_sheetjs', bridge(watch));
  pyodide.pyimport('pytabs.spreadsheets').install();
}
