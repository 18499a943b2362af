/**
 * File previews for the Files panel. Each previewer claims files by name and turns
 * their bytes into something a panel can show; the first that claims a file wins.
 * Another format plugs in by adding a previewer to PREVIEWERS and, for a new kind,
 * a case for it in the panel.
 */
import { previewWorkbook } from './sheet-preview';
import type { Preview } from './preview-types';
import { said } from '../i18n/said';

export type { Preview, SheetPreview } from './preview-types';

export interface Previewer {
  matches(path: string): boolean;
  /** May be async, for formats whose parser is loaded on first use. */
  preview(data: Uint8Array, path: string): Preview | Promise<Preview>;
}

/** Enough to recognise a file; the rest is a download away. */
export const PREVIEW_TEXT_CHARS = 100_000;
export const PREVIEW_ROWS = 200;

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  // An SVG shown through <img> cannot run scripts, so it needs no sanitizing here.
  svg: 'image/svg+xml',
};

const WORKBOOK_EXTENSIONS = new Set(['xlsx', 'xlsm', 'xls', 'ods']);

const TEXT_EXTENSIONS = new Set(['txt', 'md', 'py', 'json', 'log', 'xml', 'html', 'yaml', 'yml', 'toml', 'ini', 'cfg', 'js', 'ts', 'css', 'sql', 'r', 'sh']);

function extension(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

function decode(data: Uint8Array, limit: number): { text: string; truncated: boolean } {
  const text = new TextDecoder().decode(data.subarray(0, limit * 4));
  return text.length > limit ? { text: text.slice(0, limit), truncated: true } : { text, truncated: data.length > limit * 4 };
}

/** RFC 4180 CSV (quotes, doubled quotes, CR/LF) up to `maxRows` rows; `;` when the start has no comma. */
export function parseCsv(text: string, maxRows: number, delimiter?: string): { rows: string[][]; truncated: boolean } {
  const head = text.slice(0, 2000);
  delimiter ??= !head.includes(',') && head.includes(';') ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (rows.length >= maxRows) return { rows, truncated: i < text.length - 1 };
    } else field += c;
  }
  if (field !== '' || row.length) row.push(field), rows.push(row);
  return { rows, truncated: false };
}

export const PREVIEWERS: Previewer[] = [
  {
    matches: (path) => extension(path) in IMAGE_TYPES,
    preview: (_data, path) => ({ kind: 'image', mime: IMAGE_TYPES[extension(path)] }),
  },
  {
    matches: (path) => WORKBOOK_EXTENSIONS.has(extension(path)),
    preview: (data) => previewWorkbook(data, PREVIEW_ROWS),
  },
  {
    matches: (path) => ['csv', 'tsv'].includes(extension(path)),
    preview(data, path) {
      const { text, truncated } = decode(data, PREVIEW_TEXT_CHARS * 10);
      const parsed = parseCsv(text, PREVIEW_ROWS, extension(path) === 'tsv' ? '\t' : undefined);
      return { kind: 'table', rows: parsed.rows, truncated: truncated || parsed.truncated };
    },
  },
  {
    matches: (path) => TEXT_EXTENSIONS.has(extension(path)) || extension(path) === '',
    preview: (data) => ({ kind: 'text', ...decode(data, PREVIEW_TEXT_CHARS) }),
  },
];

export async function previewFile(path: string, data: Uint8Array): Promise<Preview> {
  const previewer = PREVIEWERS.find((p) => p.matches(path));
  if (previewer) return await previewer.preview(data, path);
  // Unknown extension: show it as text when it decodes cleanly, as most editors do.
  const sample = data.subarray(0, 4096);
  if (!sample.includes(0)) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
      return { kind: 'text', ...decode(data, PREVIEW_TEXT_CHARS) };
    } catch {
      // Not UTF-8: fall through to no preview.
    }
  }
  return { kind: 'none', reason: said('lib_preview_none') };
}
