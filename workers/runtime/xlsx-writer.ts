import { strToU8 } from 'fflate';

/**
 * Writes .xlsx files: the parts a workbook needs (SpreadsheetML, ECMA-376 part 1) and no
 * more: a shared-string table, one number format per kind of date, time and duration cell,
 * and the sheets' cells. SheetJS's writer takes about ten times as long on a 100,000-row
 * sheet (it builds a cell object per value, then XML from those); this writes the XML
 * straight from the rows. Whatever it writes, openpyxl and SheetJS read back (the tests).
 *
 * It returns the package's parts unzipped: the Python side zips them with zlib, which in
 * Pyodide deflates several times faster than a JavaScript deflate.
 */

/** A workbook's parts, [Content_Types].xml first, as Excel and some readers expect. */
export type XlsxParts = [name: string, data: Uint8Array][];

/** What a cell that is neither empty, a number, text nor a boolean is written as: a serial number under a number format, or an error code. */
export type Special = { serial: number; format: string } | { error: string };

export interface XlsxSheet<C> {
  name: string;
  rows: (C | null | undefined | number | string | boolean)[][];
}

/** Why Excel would refuse this sheet name, or null when it is a good one. */
export function sheetNameProblem(name: string, taken: Set<string>): string | null {
  if (name.length === 0) return 'a sheet name cannot be empty';
  if (name.length > 31) return 'a sheet name has at most 31 characters';
  if (/[:\\/?*[\]]/.test(name)) return 'a sheet name cannot hold any of : \\ / ? * [ ]';
  if (name.startsWith("'") || name.endsWith("'")) return "a sheet name cannot start or end with '";
  if (taken.has(name.toLowerCase())) return 'the workbook already has a sheet of that name';
  return null;
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const SHEET_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';

const ESCAPED = /[&<>"]|_(?=x[\da-fA-F]{4}_)|[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff]/g;

/**
 * Text as XML character data. Characters XML cannot carry (a carriage return is turned
 * into a line feed by every XML reader) are written as `_xHHHH_`, and an underscore that
 * would read as the start of such an escape as `_x005F_`.
 */
function escapeText(text: string): string {
  return text.replace(ESCAPED, (ch) => {
    switch (ch) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case '_':
        return '_x005F_';
      default:
        return `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
    }
  });
}

function columnName(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * The workbook's parts. Sheet names must have passed sheetNameProblem. `special` says how
 * to write a cell of another kind (called with its sheet, row and column, so that it can
 * name the cell it refuses).
 */
export function writeXlsx<C extends object>(sheets: XlsxSheet<C>[], special: (cell: C, sheet: string, r: number, c: number) => Special): XlsxParts {
  const strings = new Map<string, number>();
  const stringList: string[] = [];
  const formats = new Map<string, number>(); // format code → its cellXfs index (1, 2, ...)
  const files: Record<string, Uint8Array> = {};
  const columns: string[] = [];

  sheets.forEach((sheet, i) => {
    const out: string[] = [
      `${XML}<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><sheetData>`,
    ];
    sheet.rows.forEach((row, r) => {
      const n = r + 1;
      let xml = `<row r="${n}">`;
      for (let c = 0; c < row.length; c++) {
        const cell = row[c];
        if (cell === null || cell === undefined) continue;
        const ref = (columns[c] ??= columnName(c)) + n;
        switch (typeof cell) {
          case 'number':
            // Empty for NaN and infinities, as the Python side already made them.
            if (Number.isFinite(cell)) xml += `<c r="${ref}"><v>${cell}</v></c>`;
            break;
          case 'string': {
            let index = strings.get(cell);
            if (index === undefined) {
              index = stringList.push(cell) - 1;
              strings.set(cell, index);
            }
            xml += `<c r="${ref}" t="s"><v>${index}</v></c>`;
            break;
          }
          case 'boolean':
            xml += `<c r="${ref}" t="b"><v>${cell ? 1 : 0}</v></c>`;
            break;
          default: {
            const value = special(cell, sheet.name, r, c);
            if ('error' in value) {
              xml += `<c r="${ref}" t="e"><v>${escapeText(value.error)}</v></c>`;
            } else {
              let style = formats.get(value.format);
              if (style === undefined) {
                style = formats.size + 1;
                formats.set(value.format, style);
              }
              xml += `<c r="${ref}" s="${style}"><v>${value.serial}</v></c>`;
            }
          }
        }
      }
      out.push(`${xml}</row>`);
    });
    out.push('</sheetData></worksheet>');
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(out.join(''));
  });

  const sst = [`${XML}<sst xmlns="${MAIN}" count="${stringList.length}" uniqueCount="${stringList.length}">`];
  for (const text of stringList) sst.push(`<si><t xml:space="preserve">${escapeText(text)}</t></si>`);
  sst.push('</sst>');
  files['xl/sharedStrings.xml'] = strToU8(sst.join(''));

  // Custom number formats are numbered from 164, after Excel's built-in ones.
  const numFmts = [...formats.keys()].map((code, k) => `<numFmt numFmtId="${164 + k}" formatCode="${escapeText(code)}"/>`).join('');
  const xfs = [...formats.keys()].map((_, k) => `<xf numFmtId="${164 + k}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`).join('');
  files['xl/styles.xml'] = strToU8(
    `${XML}<styleSheet xmlns="${MAIN}">` +
      (formats.size ? `<numFmts count="${formats.size}">${numFmts}</numFmts>` : '') +
      '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${formats.size + 1}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>${xfs}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '</styleSheet>',
  );

  const sheetList = sheets.map((s, i) => `<sheet name="${escapeText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  files['xl/workbook.xml'] = strToU8(`${XML}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>${sheetList}</sheets></workbook>`);
  const n = sheets.length;
  const rels = sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('');
  files['xl/_rels/workbook.xml.rels'] = strToU8(
    `${XML}<Relationships xmlns="${PKG_REL}">${rels}` +
      `<Relationship Id="rId${n + 1}" Type="${REL}/styles" Target="styles.xml"/>` +
      `<Relationship Id="rId${n + 2}" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  files['_rels/.rels'] = strToU8(`${XML}<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  const overrides = sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${SHEET_TYPE}"/>`).join('');
  files['[Content_Types].xml'] = strToU8(
    `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
      '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
      `${overrides}</Types>`,
  );
  const { '[Content_Types].xml': types, ...rest } = files;
  return [['[Content_Types].xml', types], ...Object.entries(rest)];
}
