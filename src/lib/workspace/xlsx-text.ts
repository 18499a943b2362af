import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

/**
 * Strings of an .xlsx read whole, where SheetJS 0.20.3 (pinned in package.json) does not:
 *
 * - a shared or inline string made of a plain `<t>` followed by rich runs (`<r>`) reads as
 *   its first piece only ("tval" for "tvalrval1rval2");
 * - a `_x000D_` escape (a carriage return, which XML cannot carry as is) is dropped when a
 *   line feed follows it;
 * - a lone carriage return in the XML itself stays one, where XML reads it as a line feed;
 * - a character reference beyond U+FFFF (`&#128512;`, an emoji, as openpyxl writes them)
 *   becomes another character.
 *
 * The pass reads each such string itself (every `<t>` of the string except phonetic
 * `<rPh>` guides, the XML's line breaks as line feeds, XML entities and CDATA, then `_xHHHH_`
 * escapes) and hands SheetJS a copy of the workbook in which those strings are replaced by
 * tokens; `TOKEN` + index marks a string to take from `strings`. Workbooks without such
 * strings are passed on untouched.
 */

export const TOKEN = '\uE000';

export interface WholeText {
  /** The workbook to parse: the input itself, or a copy with tokens in place of the mended strings. */
  data: Uint8Array;
  strings: string[];
}

const SST_PART = /^xl\/sharedstrings\.xml$/i;
const SHEET_PART = /^xl\/worksheets\/[^/]+\.xml$/i;

/** A part that may hold a string SheetJS misreads (the last alternative is only a candidate: see astral). */
const MAY_NEED_MENDING = /<\/(?:\w+:)?t>\s*<(?:\w+:)?r[\s>]|_x000d_|\r|&#(?:13|x0*d);|&#(?:\d{5,}|x[\da-f]{5,});/i;
const MISREAD = /<\/(?:\w+:)?t>\s*<(?:\w+:)?r[\s>]|_x000d_|\r|&#(?:13|x0*d);/i;
const REFERENCE = /&#(\d{5,}|x[\da-f]{5,});/gi;

function astral(body: string): boolean {
  for (const [, code] of body.matchAll(REFERENCE)) {
    if ((code[0] === 'x' || code[0] === 'X' ? parseInt(code.slice(1), 16) : Number(code)) > 0xffff) return true;
  }
  return false;
}

const needsMending = (body: string) => MISREAD.test(body) || astral(body);

const PHONETIC = /<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>|<(?:\w+:)?phoneticPr\b[^>]*\/>/g;
const TEXT = /<(?:\w+:)?t\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?t>)/g;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([\da-f]+));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ESCAPE = /_x([\da-f]{4})_/gi;
const LINE_BREAK = /\r\n?/g;

function xmlText(raw: string): string {
  let out = '';
  let at = 0;
  for (let open = raw.indexOf('<![CDATA[', at); open >= 0; open = raw.indexOf('<![CDATA[', at)) {
    const close = raw.indexOf(']]>', open);
    if (close < 0) break;
    out += decodeEntities(raw.slice(at, open)) + raw.slice(open + 9, close);
    at = close + 3;
  }
  return out + decodeEntities(raw.slice(at));
}

function decodeEntities(s: string): string {
  return s.replace(ENTITY, (_, name: string, dec: string, hex: string) =>
    name ? NAMED[name.toLowerCase()] : String.fromCodePoint(dec ? Number(dec) : parseInt(hex, 16)),
  );
}

/** The text a string element's body shows in Excel. */
export function stringText(body: string): string {
  let text = '';
  // XML's end-of-line handling comes first, so only a _x000D_ escape or a &#13; reference makes a \r.
  for (const match of body.replace(PHONETIC, '').matchAll(TEXT)) text += xmlText((match[1] ?? '').replace(LINE_BREAK, '\n'));
  return text.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Replaces the bodies of `tag` elements that need mending with tokens; null when none did. */
function mend(xml: string, tag: 'si' | 'is', strings: string[]): string | null {
  if (!MAY_NEED_MENDING.test(xml)) return null;
  const element = new RegExp(`(<(?:\\w+:)?${tag}>)([\\s\\S]*?)(</(?:\\w+:)?${tag}>)`, 'g');
  let changed = false;
  const out = xml.replace(element, (whole, open: string, body: string, close: string) => {
    if (!needsMending(body)) return whole;
    changed = true;
    strings.push(stringText(body));
    return `${open}<t>${TOKEN}${strings.length - 1}</t>${close}`;
  });
  return changed ? out : null;
}

/** The workbook with its misread strings mended (see the module's comment). `data` must be a zip. */
export function wholeText(data: Uint8Array): WholeText {
  const strings: string[] = [];
  const mended: Record<string, Uint8Array> = {};
  const parts = unzipSync(data, { filter: (file) => SST_PART.test(file.name) || SHEET_PART.test(file.name) });
  for (const [name, bytes] of Object.entries(parts)) {
    const xml = mend(strFromU8(bytes), SST_PART.test(name) ? 'si' : 'is', strings);
    if (xml !== null) mended[name] = strToU8(xml);
  }
  if (strings.length === 0) return { data, strings };
  // Stored, not deflated: the copy is parsed at once and never kept.
  return { data: zipSync({ ...unzipSync(data), ...mended }, { level: 0 }), strings };
}
