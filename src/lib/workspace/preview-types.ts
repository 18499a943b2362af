import type { Said } from '../i18n/said';

/** What the Files panel can show of a workspace file. */
export type Preview =
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'table'; rows: string[][]; truncated: boolean }
  | { kind: 'sheets'; sheets: SheetPreview[] }
  | { kind: 'image'; mime: string }
  | { kind: 'none'; reason: Said }
  /** The file claims a format but its bytes are broken. */
  | { kind: 'error'; message: Said };

/** One sheet of a workbook: its first rows and columns, and the sheet's real size. */
export interface SheetPreview {
  name: string;
  rows: string[][];
  totalRows: number;
  totalColumns: number;
}
