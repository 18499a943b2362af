import { said, tell, type Said } from '../i18n/said';
import { tellText } from '../i18n/text';
import type { ExportedFile } from '../portability/export';
import { fileNameFor } from '../portability/export';
import { assignmentTests, type Assignment } from '../portability/assignment-file';
import type { GradeRow, RowStatus } from './grading';

/** Why a hand-in lost points: each failed check's message, in the assignment's order, in the language shown. */
export function failedMessages(row: GradeRow): string {
  return row.results
    .filter((r) => !r.passed)
    .map((r) => tell(said('asg_named', { name: r.name, text: r.message })))
    .join('; ');
}

/** A row's errors and note, in the language shown (kept English strings as they are). */
export function rowErrors(row: GradeRow): string {
  return [...row.errors, ...(row.note ? [row.note] : [])].map(tellText).join('; ');
}

const STATUS: Record<RowStatus, Said> = {
  waiting: said('asg_status_waiting'),
  grading: said('asg_status_grading'),
  graded: said('asg_status_graded'),
  error: said('asg_status_error'),
  refused: said('asg_status_refused'),
  stopped: said('asg_status_stopped'),
};

/** A row's status in the language shown. */
export function statusText(status: RowStatus): string {
  return tell(STATUS[status]);
}

/**
 * The grades as a table: a header, then one row per hand-in (one column per check and per
 * program case, total, time, status, messages, errors, the program tested, what to read:
 * grading's flags). Headers and PyTabs' texts are in the language shown, as the teacher's
 * spreadsheet is; names, checks and cases as they were written.
 */
export function gradesTable(assignment: Assignment, rows: GradeRow[]): (string | number)[][] {
  const tests = assignmentTests(assignment);
  const max = tests.reduce((sum, c) => sum + c.points, 0);
  const program = assignment.program ? [tell(said('asg_col_program'))] : [];
  const header = [
    tell(said('asg_col_student')),
    tell(said('asg_col_file')),
    ...tests.map((c) => tell(said('asg_col_test', { name: c.name, points: c.points }))),
    tell(said('asg_col_total', { points: max })),
    tell(said('asg_col_seconds')),
    tell(said('asg_col_status')),
    tell(said('asg_col_messages')),
    tell(said('asg_col_errors')),
    ...program,
    tell(said('asg_col_read')),
  ];
  const body = rows.map((row) => {
    const earned = new Map(row.results.map((r) => [r.name, r.earned]));
    return [
      row.student,
      row.file,
      ...tests.map((c) => earned.get(c.name) ?? ''),
      row.status === 'graded' || row.status === 'error' ? row.total : '',
      Math.round(row.ms / 100) / 10,
      statusText(row.status),
      failedMessages(row),
      rowErrors(row),
      ...(program.length ? [row.program === undefined ? '' : tellText(row.program)] : []),
      (row.flags ?? []).map(tellText).join('; '),
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
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(table), tell(said('asg_sheet_name')).slice(0, 31));
  const xlsx = new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
  const safe = table.map((line) => line.map((cell) => (typeof cell === 'string' && /^[=+\-@]/.test(cell) ? `'${cell}` : cell)));
  const csv = XLSX.utils.sheet_to_csv(XLSX.utils.aoa_to_sheet(safe));
  const base = `${fileNameFor(assignment.title)}-grades`;
  return { xlsx: { name: `${base}.xlsx`, data: xlsx }, csv: { name: `${base}.csv`, data: new TextEncoder().encode(csv) } };
}
