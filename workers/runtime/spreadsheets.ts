import type { PyodideInterface } from 'pyodide';
import { unzipSync } from 'fflate';
import * as XLSX from 'xlsx';

/**
 * Largest sheet (rows × columns of its used range) read or written. A sheet this size
 * is already hundreds of MB as Python objects; beyond it a hostile or runaway file
 * would exhaust the worker's memory instead of failing with a clear message.
 */
export const MAX_CELLS = 5_000_000;

/** Largest total uncompressed size of a zipped workbook's parts (zip-bomb guard). */
export const MAX_UNZIPPED_BYTES = 256 * 1024 * 1024;

/**
 * One cell as it crosses to Python (as JSON): empty cells are null, dates are tagged
 * so Python can turn them into datetime objects. Date strings are the cell's wall-clock
 * value without a time zone, as Excel stores it.
 */
export type Cell = null | number | string | boolean | { date: string };

export interface Sheet {
  name: string;
  /** The sheet's used range, row by row, every row as wide as the widest. */
  rows: Cell[][];
}

export type WritableBookType = 'xlsx' | 'ods';

/** A failure Python turns into a SpreadsheetError; the message is meant for the user. */
export class SpreadsheetError extends Error {
  constructor(message: string) {
    super(message);
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

const PASSWORD_PROTECTED = 'it is password-protected; save a copy without a password and use that';

/** Reads the zip's central directory only, so a zip bomb is refused before anything is inflated. */
function checkZipSize(data: Uint8Array): void {
  let total = 0;
  try {
    unzipSync(data, {
      filter(file) {
        total += file.originalSize;
        return false;
      },
    });
  } catch (e) {
    throw new SpreadsheetError(`the file is damaged (not a readable zip archive: ${e instanceof Error ? e.message : e})`);
  }
  if (total > MAX_UNZIPPED_BYTES) {
    throw new SpreadsheetError(
      `it unpacks to ${Math.round(total / 2 ** 20)} MB, more than the ${MAX_UNZIPPED_BYTES / 2 ** 20} MB this reader accepts`,
    );
  }
}

/**
 * A date cell's value as ISO text without a zone. SheetJS gives dates whose UTC reading
 * is the cell's wall-clock value, but it truncates the serial number to whole
 * milliseconds, so 18:30:05 can come out as 18:30:04.999: within 1 ms of a whole
 * second is float noise, not data, and snaps to it.
 */
function wallClock(date: Date): string {
  let ms = date.getTime();
  const second = Math.round(ms / 1000) * 1000;
  if (Math.abs(ms - second) <= 1) ms = second;
  return new Date(ms).toISOString().replace(/(\.000)?Z$/, '');
}

function toCell(cell: XLSX.CellObject | undefined): Cell {
  if (!cell) return null;
  switch (cell.t) {
    case 'n':
      return Number.isFinite(cell.v) ? (cell.v as number) : null;
    case 's':
      return String(cell.v);
    case 'b':
      return Boolean(cell.v);
    case 'd':
      return cell.v instanceof Date ? { date: wallClock(cell.v) } : null;
    case 'e':
      // Error cells read as their text (#DIV/0!, #N/A), as openpyxl does.
      return cell.w ?? null;
    default:
      return null;
  }
}

/** The used range of a dense sheet: the smallest rectangle holding every non-empty cell. */
function sheetRows(name: string, sheet: XLSX.WorkSheet): Cell[][] {
  const data = (sheet as XLSX.DenseWorkSheet)['!data'] ?? [];
  let top = Infinity, left = Infinity, bottom = -1, right = -1;
  data.forEach((row, r) => {
    row?.forEach((cell, c) => {
      if (toCell(cell) === null) return;
      top = Math.min(top, r);
      bottom = Math.max(bottom, r);
      left = Math.min(left, c);
      right = Math.max(right, c);
    });
  });
  if (bottom < 0) return [];
  const height = bottom - top + 1;
  const width = right - left + 1;
  if (height * width > MAX_CELLS) {
    const range = XLSX.utils.encode_range({ s: { r: top, c: left }, e: { r: bottom, c: right } });
    throw new SpreadsheetError(
      `sheet "${name}" spans ${range} (${(height * width).toLocaleString('en')} cells), more than the ${MAX_CELLS.toLocaleString('en')} this reader accepts`,
    );
  }
  const rows: Cell[][] = [];
  for (let r = top; r <= bottom; r++) {
    const row = data[r];
    const out: Cell[] = new Array(width);
    for (let c = 0; c < width; c++) out[c] = toCell(row?.[left + c]);
    rows.push(out);
  }
  return rows;
}

function describe(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  // Legacy .xls files announce their encryption in a record SheetJS reports this way.
  if (/password/i.test(message)) return PASSWORD_PROTECTED;
  return message;
}

/**
 * Parses workbook bytes (xlsx, xlsm, xlsb, xls, ods, csv) into its sheets' values.
 * Formulas are never evaluated: a formula cell reads as the value Excel cached for it,
 * or empty when none was saved. Declared dimensions are ignored (`nodim`): the sheet is
 * what its cells span, so a file claiming A1:XFD1048576 cannot make the reader loop over it.
 */
export function readWorkbook(data: Uint8Array, fileName: string): Sheet[] {
  const ext = extension(fileName);
  const options: XLSX.ParsingOptions = {
    cellDates: true,
    dense: true,
    nodim: true,
    cellFormula: false,
    cellHTML: false,
    cellStyles: false,
    bookVBA: false,
  };
  let workbook: XLSX.WorkBook;
  try {
    if (TEXT_FORMATS.has(ext)) {
      // SheetJS reads a byte array as Latin-1 unless told otherwise; CSV files are UTF-8.
      workbook = XLSX.read(new TextDecoder().decode(data), { ...options, type: 'string' });
    } else {
      if (isZip(data)) checkZipSize(data);
      else if (isCompoundFile(data) && isEncryptedPackage(data)) throw new SpreadsheetError(PASSWORD_PROTECTED);
      else if (ZIP_FORMATS.has(ext) && !isCompoundFile(data)) {
        throw new SpreadsheetError(`it is not a valid .${ext} file (the content is not a zip archive)`);
      }
      workbook = XLSX.read(data, { ...options, type: 'array' });
    }
  } catch (e) {
    if (e instanceof SpreadsheetError) throw e;
    throw new SpreadsheetError(describe(e));
  }
  return workbook.SheetNames.map((name) => ({ name, rows: sheetRows(name, workbook.Sheets[name]) }));
}

function fromCell(cell: Cell): unknown {
  if (cell !== null && typeof cell === 'object') return new Date(`${cell.date}Z`);
  return cell;
}

/** Writes sheets to xlsx or ods bytes. Strings that look like formulas stay plain strings. */
export function writeWorkbook(sheets: Sheet[], bookType: WritableBookType): Uint8Array {
  if (sheets.length === 0) throw new SpreadsheetError('there is no sheet to write');
  const workbook = XLSX.utils.book_new();
  for (const { name, rows } of sheets) {
    const cells = rows.reduce((n, row) => n + row.length, 0);
    if (cells > MAX_CELLS) {
      throw new SpreadsheetError(`sheet "${name}" has ${cells.toLocaleString('en')} cells, more than the ${MAX_CELLS.toLocaleString('en')} this writer accepts`);
    }
    const values = rows.map((row) => row.map(fromCell));
    // UTC: the Date objects above carry the wall-clock value in their UTC fields.
    const sheet = XLSX.utils.aoa_to_sheet(values, { cellDates: true, UTC: true });
    // Midnight shows as a date, anything else as a date and time, as pandas writes them.
    // (SheetJS's ODS writer cannot express these formats; ODS keeps its own date style.)
    if (bookType === 'xlsx') {
      rows.forEach((row, r) =>
        row.forEach((cell, c) => {
          if (cell === null || typeof cell !== 'object') return;
          sheet[XLSX.utils.encode_cell({ r, c })].z = cell.date.endsWith('T00:00:00') ? 'yyyy-mm-dd' : 'yyyy-mm-dd hh:mm:ss';
        }),
      );
    }
    try {
      XLSX.utils.book_append_sheet(workbook, sheet, name);
    } catch (e) {
      throw new SpreadsheetError(`cannot name a sheet "${name}": ${describe(e)}`);
    }
  }
  return new Uint8Array(XLSX.write(workbook, { type: 'array', bookType, compression: true }) as ArrayBuffer);
}

/** The `pytabs_sheetjs` module Python imports: JSON in and out, bytes as Uint8Array. */
function bridge() {
  return {
    read_workbook: (data: Uint8Array, fileName: string): string => JSON.stringify(readWorkbook(data, fileName)),
    write_workbook: (sheetsJson: string, bookType: string): Uint8Array => {
      if (bookType !== 'xlsx' && bookType !== 'ods') throw new SpreadsheetError(`cannot write the .${bookType} format`);
      return writeWorkbook(JSON.parse(sheetsJson) as Sheet[], bookType);
    },
  };
}

/** Registers the SheetJS bridge and installs read_excel/write_excel (and the pandas hook) into builtins. */
export function installSpreadsheets(pyodide: PyodideInterface): void {
  pyodide.registerJsModule('pytabs_sheetjs', bridge());
  pyodide.pyimport('pytabs.spreadsheets').install();
}
