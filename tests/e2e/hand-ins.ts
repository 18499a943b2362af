import { createHash } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import * as XLSX from 'xlsx';

// The class both assignment suites use (tests/e2e in Chromium, tests/engines in Firefox and
// WebKit): the teacher's checks, a student's work, and hand-ins made from a real one.

/** A one-check assignment (`AssignmentDraft`) for journeys that need a student's session and little else. */
export const ONE_CHECK = {
  title: 'Crash course',
  instructions: 'Set `answer` to 42.',
  starterCode: '',
  checkSource: "def check_answer():\n    assert answer == 42, 'answer should be 42'\n",
  checks: [{ name: 'check_answer', points: 1 }],
  timeLimitSeconds: 10,
};

/**
 * Four program cases (`AssignmentDraft`); `ENDLESS_PROGRAM` loops for ever on the first three, as
 * a hand-in outside checks graded did. The last has time to spare: in WebKitGTK on two busy cores
 * the first run in a worker just started took more than 3 s.
 */
export const ENDLESS_CASES = {
  title: 'Count down',
  instructions: 'Read n and print done.',
  starterCode: '',
  checkSource: '',
  checks: [],
  timeLimitSeconds: 3,
  program: {
    rule: 'judge' as const,
    cases: ['3', '2', '1', '0'].map((n, i) => ({ name: `case ${i + 1}`, input: `${n}\n`, expected: 'done\n', points: 1, ...(n === '0' ? { timeLimitSeconds: 30 } : {}) })),
  },
};
export const ENDLESS_PROGRAM = "n = int(input())\nwhile n != 0:\n    pass\nprint('done')";
/** CPython's grade of it: the cases' points and the total. */
export const ENDLESS_GRADE = ['0', '0', '0', '1', '1'];

/**
 * Runs in the page (`evaluate`): saves `draft` as an assignment and returns its file's bytes,
 * the teacher's session deleted (its tab, named by the assignment too, would be the student's
 * namesake).
 */
export async function assignmentFileInPage(draft: unknown): Promise<number[]> {
  type Lib = { saveAsAssignment: (api: unknown, id: string, draft: unknown) => Promise<{ file: { data: Uint8Array } }> };
  type Api = { createSession: (name: string) => Promise<{ id: string }>; deleteSession: (id: string) => Promise<void> };
  const { pytabs: api, pytabsLib: lib } = window as unknown as { pytabs: Api; pytabsLib: Lib };
  const teacher = await api.createSession('Teacher');
  const { file } = await lib.saveAsAssignment(api, teacher.id, draft);
  await api.deleteSession(teacher.id);
  return Array.from(file.data);
}

/**
 * Runs in the page (both suites' `evaluate`): saves `draft` as an assignment, works it as a
 * student whose `input()` reads 0, hands `program` in and returns the hand-in's bytes.
 */
export async function handInInPage([draft, program]: readonly [unknown, string]): Promise<number[]> {
  type Lib = {
    saveAsAssignment: (api: unknown, id: string, draft: unknown) => Promise<{ file: { name: string; data: Uint8Array } }>;
    importSession: (api: unknown, file: { name: string; data: Uint8Array }) => Promise<{ sessionId: string }>;
    sendMessage: (api: unknown, id: string, code: string) => Promise<unknown>;
    handIn: (api: unknown, id: string, name: string, results: unknown[]) => Promise<{ data: Uint8Array }>;
  };
  type Api = {
    createSession: (name: string) => Promise<{ id: string }>;
    deleteSession: (id: string) => Promise<void>;
    subscribeInput: (listener: (id: string, request: { id: string } | null) => void) => () => void;
    answerInput: (id: string, request: string, text: string | null) => void;
  };
  const { pytabs: api, pytabsLib: lib } = window as unknown as { pytabs: Api; pytabsLib: Lib };
  const session = await api.createSession('Teacher');
  const { file } = await lib.saveAsAssignment(api, session.id, draft);
  const student = (await lib.importSession(api, { name: file.name, data: file.data })).sessionId;
  const stop = api.subscribeInput((id, request) => {
    if (id === student && request) api.answerInput(id, request.id, '0');
  });
  try {
    await lib.sendMessage(api, student, program);
  } finally {
    stop();
  }
  const data = await lib.handIn(api, student, 'Endless Eve', []);
  await api.deleteSession(student);
  return Array.from(data.data);
}

export const CHECKS = [
  'def check_total():',
  '    "total is the sum of column n"',
  "    expected = sum(r['n'] for r in read_excel('data.xlsx', 0))",
  '    rows.clear()',
  '    assert total == expected, f"total should be the sum of column n ({expected}), not {total}"',
  '',
  'def check_even():',
  '    assert total % 2 == 0, f"total {total} should be even"',
  '',
  'def check_rows():',
  "    assert count_rows() == len(read_excel('data.xlsx', 0)), \"count_rows() should give the number of rows\"",
].join('\n');

/** The student's work: right but for count_rows, so two checks of three pass. */
export const BOB = [
  "rows = read_excel('data.xlsx', 0)",
  "total = sum(r['n'] for r in rows)",
  'def count_rows():',
  '    return len(rows) + 1',
  "print('total', total)",
].join('\n');
export const RIGHT = BOB.replace('len(rows) + 1', 'len(rows)');

/** A workbook with one column n. */
export function workbook(values: number[]): Uint8Array {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['n'], ...values.map((v) => [v])]), 'Sheet1');
  return new Uint8Array(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }));
}

/** Student k's data: their own numbers, whose total 1000 + 3k is theirs alone. */
export const studentData = (k: number) => [k, 1000, 2 * k];

export const json = (data: Uint8Array) => JSON.parse(strFromU8(data));

/**
 * Another hand-in made from a real one, as another student's browser would have written it:
 * entries replaced, and the manifest's sha256 and sizes made right again (a forger can do
 * that too; the signature then no longer matches, which grading does not rely on).
 */
export function variant(base: Uint8Array, change: (entries: Record<string, Uint8Array>) => void): Uint8Array {
  const entries = unzipSync(base);
  change(entries);
  const manifest = json(entries['manifest.json']);
  manifest.entries = {};
  for (const [name, data] of Object.entries(entries)) {
    if (name.startsWith('manifest.') || name.endsWith('/')) continue;
    manifest.entries[name] = { sha256: createHash('sha256').update(data).digest('hex'), size: data.byteLength };
  }
  entries['manifest.json'] = strToU8(JSON.stringify(manifest));
  return zipSync(entries);
}

export function withCode(entries: Record<string, Uint8Array>, code: string): void {
  const history = json(entries['history.json']);
  history.rounds[0].message = code;
  entries['history.json'] = strToU8(JSON.stringify(history));
}

export function asStudent(entries: Record<string, Uint8Array>, student: string): void {
  const submission = json(entries['submission.json']);
  submission.student = student;
  entries['submission.json'] = strToU8(JSON.stringify(submission));
}

/** Student k's hand-in, made from `base`: the right code and their own data.xlsx under the same name. */
export function studentHandIn(base: Uint8Array, k: number): { name: string; data: Uint8Array } {
  const name = `Student ${String(k).padStart(2, '0')}`;
  const data = variant(base, (e) => {
    asStudent(e, name);
    withCode(e, RIGHT);
    e['files/data.xlsx'] = workbook(studentData(k));
  });
  return { name: `Column sums-${name}.pytabs.zip`, data };
}

/** A hand-in of another assignment, made from `base`. */
export function otherAssignmentHandIn(base: Uint8Array): Uint8Array {
  return variant(base, (e) => {
    const submission = json(e['submission.json']);
    submission.assignment = { id: 'another-id', digest: '0'.repeat(64), title: 'Word counts' };
    submission.student = 'Wrong Walt';
    e['submission.json'] = strToU8(JSON.stringify(submission));
  });
}
