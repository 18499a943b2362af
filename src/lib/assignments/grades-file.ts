import type { ExportedFile } from '../portability/export';
import { fileNameFor } from '../portability/export';
import { assignmentTests, type Assignment } from '../portability/assignment-file';
import type { GradeRow } from './grading';

/** Why a hand-in lost points: each failed check's message, in the assignment's order. */
export function failedMessages(row: GradeRow): string {
  return row.results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.message}`).join('; ');
}

/** The grades as a table: a header, then one row per hand-in (one column per check and per program case, total, time, status, messages, errors, the program tested, what to read: grading's flags). */
export function gradesTable(assignment: Assignment, rows: GradeRow[]): (string | number)[][] {
  const tests = assignmentTests(assignment);
  const max = tests.reduce((sum, c) => sum + c.points, 0);
  const program = assignment.program ? ['Program tested'] : [];
  const header = ['Student', 'File', ...tests.map((c) => `${c.name} (${c.points})`), `Total (${max})`, 'Time (s)', 'Status', 'Messages', 'Errors', ...program, 'Read this one'];
  const body = rows.map((row) => {
    const earned = new Map(row.results.map((r) => [r.name, r.earned]));
    return [
      row.student,
      row.file,
      ...tests.map((c) => earned.get(c.name) ?? ''),
      row.status === 'graded' || row.status === 'error' ? row.total : '',
      Math.round(row.ms / 100) / 10,
      row.status,
      failedMessages(row),
      [...row.errors, ...(row.note ? [row.note] : [])].join('; '),
      ...(program.length ? [row.program ?? ''] : []),
      (row.flags ?? []).join('; '),
    ];
  });
  return [header, ...body];
}

/**
 * Download grades: `<assignment>-grades.xlsx` and `.csv` (SheetJS writes both, loaded on
 * first use). A text cell that a spreadsheet would run as a formula (=, +, -, @ first) gets
 * a leading apostrophe in the csv; the xlsx stores every name as text.
 */
export async function gradesFiles(assignment: Assignment, rows: GradeRow[]): Promise<{ xlsx: ExportedFile; csv: ExportedFile }> {
  const XLSX = await import('xlsx');
  const table = gradesTable(assignment, rows);
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(table), 'Grades');
  const xlsx = new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
  const safe = table.map((line) => line.map((cell) => (typeof cell === 'string' && /^[=+\-@]/.test(cell) ? `'${cell}` : cell)));
  const csv = XLSX.utils.sheet_to_csv(XLSX.utils.aoa_to_sheet(safe));
  const base = `${fileNameFor(assignment.title)}-grades`;
  return { xlsx: { name: `${base}.xlsx`, data: xlsx }, csv: { name: `${base}.csv`, data: new TextEncoder().encode(csv) } };
}
