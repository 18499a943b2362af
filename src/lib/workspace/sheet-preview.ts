/**
 * Spreadsheet previews (.xlsx, .xls, .ods) for the Files panel, read by SheetJS in the
 * page. SheetJS is imported on first use, so the main bundle does not carry it.
 */
import { said } from '../i18n/said';
import type { Preview, SheetPreview } from './preview-types';

/** Columns shown per sheet: a hostile workbook may claim 16,384 of them. */
export const PREVIEW_COLUMNS = 50;
/** Larger workbooks are not parsed on the page's thread, which would freeze it. */
export const PREVIEW_WORKBOOK_BYTES = 20 * 1024 * 1024;

export async function previewWorkbook(data: Uint8Array, maxRows: number): Promise<Preview> {
  if (data.byteLength > PREVIEW_WORKBOOK_BYTES) {
    return { kind: 'none', reason: said('lib_preview_workbook_too_big') };
  }
  try {
    const [XLSX, { TOKEN, wholeText }] = await Promise.all([import('xlsx'), import('./xlsx-text')]);
    // Strings SheetJS would cut or garble are mended first, as read_excel does (xlsx-text.ts).
    const isZip = data[0] === 0x50 && data[1] === 0x4b;
    const { data: parsed, strings } = isZip ? wholeText(data) : { data, strings: [] };
    const text = (cell: unknown) => {
      const s = String(cell ?? '');
      return s.startsWith(TOKEN) ? (strings[Number(s.slice(1))] ?? s) : s;
    };
    const workbook = XLSX.read(parsed, {
      type: 'array',
      // Only the rows shown are parsed: a sheet claiming a million rows costs nothing more.
      sheetRows: maxRows,
      cellDates: true,
      dateNF: 'yyyy-mm-dd',
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      bookVBA: false,
    });
    const sheets: SheetPreview[] = workbook.SheetNames.map((name) => {
      const sheet = workbook.Sheets[name];
      const ref = sheet?.['!ref'];
      if (!ref) return { name, rows: [], totalRows: 0, totalColumns: 0 };
      // With sheetRows, !ref spans the cells read and !fullref the size the sheet's header claims.
      const read = XLSX.utils.decode_range(ref);
      const full = XLSX.utils.decode_range(sheet['!fullref'] ?? ref);
      const range = { s: read.s, e: { r: read.e.r, c: Math.min(read.e.c, read.s.c + PREVIEW_COLUMNS - 1) } };
      const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, range, raw: false, defval: '', blankrows: true });
      return {
        name,
        rows: rows.map((row) => row.map(text)),
        // The claim can be a lie (a hostile file says a million rows): it counts only when the rows read ran out.
        totalRows: rows.length < maxRows ? rows.length : full.e.r - full.s.r + 1,
        totalColumns: read.e.c - read.s.c + 1,
      };
    });
    if (!sheets.length) return { kind: 'none', reason: said('lib_preview_no_sheets') };
    return { kind: 'sheets', sheets };
  } catch (error) {
    return { kind: 'error', message: said('lib_preview_unreadable', { error: error instanceof Error ? error.message : String(error) }) };
  }
}
