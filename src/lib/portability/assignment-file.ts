import { said, SaidError, type Said, type SaidValue } from '../i18n/said';
import type { Text } from '../i18n/text';
import { ImportError } from './errors';
import { encodeJson, integer, isRecord, list, record, text } from './checks';
import { sha256Hex } from './manifest';
import type { Assignment, CaseSpec, CheckSpec, ProgramTests } from '../storage/db';
import type { CheckOutcome } from '../worker-api';

export type { Assignment, CaseSpec, CheckSpec, ProgramTests };

/**
 * What an assignment and a hand-in add to a `.pytabs.zip`: `assignment.json` (the exercise,
 * its checks and their points) and, in a hand-in, `submission.json` (who, for which
 * assignment, and the results the student's browser computed, which the teacher shows and
 * never trusts). Both are listed in the manifest with their sha256 like every entry.
 */
export const ASSIGNMENT_ENTRY = 'assignment.json';
export const SUBMISSION_ENTRY = 'submission.json';
export const MAX_ASSIGNMENT_BYTES = 1024 * 1024;

const ASSIGNMENT_FORMAT = 'pytabs-assignment';
const SUBMISSION_FORMAT = 'pytabs-submission';
/**
 * Version 2 files have program tests, version 3 turn help off (`noHelp`: an older PyTabs would
 * open such a test with help on); a file without either is written as version 1, which every PyTabs reads.
 */
const VERSION = 3;
const MAX_TITLE = 100;
const MAX_CASES = 100;
const MAX_CASE_TEXT = 100_000;
const MAX_TOLERANCE = 1e6;
const MAX_TEXT = 200_000;
const MAX_CHECKS = 100;
const MAX_POINTS = 1000;
const MAX_STUDENT = 100;
/** The time limit of a check (and of a replayed cell) when the teacher does not choose one. */
export const DEFAULT_TIME_LIMIT_S = 30;
const MAX_TIME_LIMIT_S = 600;

/** What the teacher writes in "Save as assignment". */
export type AssignmentDraft = Omit<Assignment, 'id' | 'digest'>;

/** A check or a program case as it ran, with the points it earned. */
export interface CheckResult extends CheckOutcome {
  points: number;
  earned: number;
  /** Set for a program case: what it fed, expected and got, and the first line that differs. */
  case?: CaseDetail;
}

export interface CaseDetail {
  input: string;
  expected: string;
  actual: string;
  stderr: string;
  line: number | null;
}

/** submission.json of a hand-in. */
export interface Submission {
  assignment: { id: string; digest: string; title: string };
  student: string;
  handedInAt: number;
  /** The results in the student's browser: shown to the teacher, never used for the grade. */
  results: CheckResult[];
  /** The message the student marked as their answer (its number in the history); absent: their latest Code message. */
  answer?: number;
}

/**
 * The `def check_*():` functions a check source defines at top level, in order. Read from
 * the text (a line starting `def check_`), so the dialog can list them as the teacher types;
 * the worker runs the source itself.
 */
export function checkNames(source: string): string[] {
  return [...source.matchAll(/^def\s+(check_\w*)\s*\(/gm)].map((m) => m[1]);
}

/** The assignment the teacher's draft makes, keeping `id` when it was saved before. */
export async function makeAssignment(draft: AssignmentDraft, id: string = crypto.randomUUID()): Promise<Assignment> {
  const title = draft.title.trim();
  if (!title) throw new SaidError(said('asg_needs_title'));
  if (title.length > MAX_TITLE) throw new SaidError(said('asg_title_too_long', { max: MAX_TITLE }));
  const names = checkNames(draft.checkSource);
  const program = draft.program?.cases.length ? checkProgram(draft.program, draft.checkSource) : undefined;
  if (!names.length && !program) throw new SaidError(said('asg_no_tests'));
  const dupe = names.find((n, i) => names.indexOf(n) !== i);
  if (dupe) throw new SaidError(said('asg_check_twice', { name: dupe }));
  const points = new Map(draft.checks.map((c) => [c.name, c.points]));
  const checks = names.map((name) => ({ name, points: points.get(name) ?? 1 }));
  for (const c of checks) {
    if (!Number.isInteger(c.points) || c.points < 0 || c.points > MAX_POINTS) throw new SaidError(said('asg_points_range', { name: c.name, max: MAX_POINTS }));
  }
  const limit = draft.timeLimitSeconds;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TIME_LIMIT_S) throw new SaidError(said('asg_limit_range', { max: MAX_TIME_LIMIT_S }));
  const body = { title, instructions: draft.instructions, starterCode: draft.starterCode, checkSource: draft.checkSource, checks, timeLimitSeconds: limit, ...(program ? { program } : {}), ...(draft.noHelp ? { noHelp: true as const } : {}) };
  return { id, ...body, digest: await digestOf(body) };
}

/** The draft's program tests checked, in the order of their fields (the digest depends on it); throws with what is wrong. */
function checkProgram(p: ProgramTests, checkSource: string): ProgramTests {
  if (p.cases.length > MAX_CASES) throw new SaidError(said('asg_too_many_cases', { max: MAX_CASES }));
  const file = p.file?.trim();
  if (file !== undefined && file !== '' && (file.length > 200 || file.startsWith('/') || file.split('/').includes('..'))) throw new SaidError(said('asg_bad_file_name', { file }));
  const out: ProgramTests = { ...(file ? { file } : {}), rule: p.rule, cases: [] };
  if (!['judge', 'exact', 'numbers', 'function'].includes(p.rule)) throw new SaidError(said('asg_unknown_rule', { rule: p.rule }));
  if (p.rule === 'numbers') {
    const t = p.tolerance ?? 0;
    if (!Number.isFinite(t) || t < 0 || t > MAX_TOLERANCE) throw new SaidError(said('asg_tolerance_range'));
    out.tolerance = t;
  }
  if (p.rule === 'function') {
    const name = p.compareName?.trim() ?? '';
    if (!/^[A-Za-z_]\w*$/.test(name)) throw new SaidError(said('asg_name_compare'));
    if (!new RegExp(`^def\\s+${name}\\s*\\(`, 'm').test(checkSource)) throw new SaidError(said('asg_no_check_function', { name }));
    out.compareName = name;
  }
  const seen = new Set<string>();
  for (const [i, c] of p.cases.entries()) {
    const name = c.name.trim() || `case ${i + 1}`;
    if (seen.has(name) || /^check_/.test(name)) throw new SaidError(said('asg_case_name_twice', { name }));
    seen.add(name);
    if (!Number.isInteger(c.points) || c.points < 0 || c.points > MAX_POINTS) throw new SaidError(said('asg_points_range', { name, max: MAX_POINTS }));
    const limit = c.timeLimitSeconds;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_TIME_LIMIT_S)) throw new SaidError(said('asg_case_limit_range', { name, max: MAX_TIME_LIMIT_S }));
    if (c.input.length > MAX_CASE_TEXT || c.expected.length > MAX_CASE_TEXT) throw new SaidError(said('asg_case_text_too_long', { name, max: MAX_CASE_TEXT }));
    // Each line the program reads ends in a newline, as a file's or a terminal's does.
    const input = c.input && !c.input.endsWith('\n') ? `${c.input}\n` : c.input;
    out.cases.push({ name, input, expected: c.expected, points: c.points, ...(limit !== undefined ? { timeLimitSeconds: limit } : {}) });
  }
  return out;
}

function digestOf(body: Omit<Assignment, 'id' | 'digest'>): Promise<string> {
  const { title, instructions, starterCode, checkSource, checks, timeLimitSeconds, program, noHelp } = body;
  // Without program tests the digest is what it always was: files made before them still match.
  return sha256Hex(encodeJson([title, instructions, starterCode, checkSource, checks, timeLimitSeconds, ...(program ? [canonicalProgram(program)] : []), ...(noHelp ? ['no help'] : [])]));
}

/** Program tests as the digest sees them: every field in a fixed place, whatever order an object's keys came in. */
function canonicalProgram(p: ProgramTests): unknown[] {
  const cases = p.cases.map((c) => [c.name, c.input, c.expected, c.points, c.timeLimitSeconds ?? null]);
  return [p.file ?? null, p.rule, p.tolerance ?? null, p.compareName ?? null, cases];
}

/** The tests of an assignment, checks then cases, each with its points: the grades table's columns. */
export function assignmentTests(a: Pick<Assignment, 'checks' | 'program'>): { name: string; points: number }[] {
  return [...a.checks, ...(a.program?.cases ?? []).map((c) => ({ name: c.name, points: c.points }))];
}

export const encodeAssignment = (a: Assignment): Uint8Array => encodeJson({ format: ASSIGNMENT_FORMAT, version: a.noHelp ? VERSION : a.program ? 2 : 1, ...a });

export const encodeSubmission = (s: Submission): Uint8Array => encodeJson({ format: SUBMISSION_FORMAT, version: 1, ...s });

function checkVersion(m: Record<string, unknown>, what: string): void {
  const version = integer(m.version, `${what} "version"`, 1);
  if (version > VERSION) throw new ImportError(said('asg_file_newer', { what, version }));
}

/** Checks an assignment.json read from a file made anywhere; its digest must match what it holds. */
export async function readAssignment(value: unknown): Promise<Assignment> {
  const what = ASSIGNMENT_ENTRY;
  const m = record(value, what);
  if (m.format !== ASSIGNMENT_FORMAT) throw new ImportError(said('asg_file_not_assignment', { what }));
  checkVersion(m, what);
  const checks = list(m.checks, `${what} "checks"`, MAX_CHECKS).map((raw, i) => {
    const c = record(raw, `${what} "checks" #${i + 1}`);
    const name = text(c.name, `${what} "checks" #${i + 1} "name"`, 200);
    if (!/^check_\w*$/.test(name)) throw new ImportError(said('asg_file_check_name', { what: `${what} "checks" #${i + 1}` }));
    return { name, points: integer(c.points, `${what} "checks" "${name}" "points"`, 0, MAX_POINTS) };
  });
  const body = {
    title: text(m.title, `${what} "title"`, MAX_TITLE),
    instructions: text(m.instructions, `${what} "instructions"`, MAX_TEXT),
    starterCode: text(m.starterCode, `${what} "starterCode"`, MAX_TEXT),
    checkSource: text(m.checkSource, `${what} "checkSource"`, MAX_TEXT),
    checks,
    timeLimitSeconds: integer(m.timeLimitSeconds, `${what} "timeLimitSeconds"`, 1, MAX_TIME_LIMIT_S),
    ...(m.program === undefined ? {} : { program: readProgram(m.program, what) }),
    ...(m.noHelp === true ? { noHelp: true as const } : {}),
  };
  const digest = text(m.digest, `${what} "digest"`, 64);
  if ((await digestOf(body)) !== digest) throw new ImportError(said('asg_file_digest', { what }));
  return { id: text(m.id, `${what} "id"`, 100), ...body, digest };
}

/** An assignment.json's program tests, field by field, in the order makeAssignment writes them (the digest checks the rest). */
function readProgram(value: unknown, what: string): ProgramTests {
  const p = record(value, `${what} "program"`);
  const rule = text(p.rule, `${what} "program" "rule"`, 20);
  if (!['judge', 'exact', 'numbers', 'function'].includes(rule)) throw new ImportError(said('asg_file_rule', { what: `${what} "program" "rule"`, rule }));
  const out: ProgramTests = { ...(p.file === undefined ? {} : { file: text(p.file, `${what} "program" "file"`, 200) }), rule: rule as ProgramTests['rule'], cases: [] };
  if (p.tolerance !== undefined) {
    if (typeof p.tolerance !== 'number' || !Number.isFinite(p.tolerance) || p.tolerance < 0) throw new ImportError(said('asg_json_number', { what: `${what} "program" "tolerance"` }));
    out.tolerance = p.tolerance;
  }
  if (p.compareName !== undefined) out.compareName = text(p.compareName, `${what} "program" "compareName"`, 200);
  out.cases = list(p.cases, `${what} "program" "cases"`, MAX_CASES).map((raw, i) => {
    const where = `${what} "program" "cases" #${i + 1}`;
    const c = record(raw, where);
    const spec: CaseSpec = {
      name: text(c.name, `${where} "name"`, 200),
      input: text(c.input, `${where} "input"`, MAX_CASE_TEXT),
      expected: text(c.expected, `${where} "expected"`, MAX_CASE_TEXT),
      points: integer(c.points, `${where} "points"`, 0, MAX_POINTS),
    };
    if (c.timeLimitSeconds !== undefined) spec.timeLimitSeconds = integer(c.timeLimitSeconds, `${where} "timeLimitSeconds"`, 1, MAX_TIME_LIMIT_S);
    return spec;
  });
  return out;
}

/** Checks a submission.json; its results are kept as text to show, never as the grade. */
export function readSubmission(value: unknown): Submission {
  const what = SUBMISSION_ENTRY;
  const m = record(value, what);
  if (m.format !== SUBMISSION_FORMAT) throw new ImportError(said('asg_file_not_hand_in', { what }));
  checkVersion(m, what);
  const a = record(m.assignment, `${what} "assignment"`);
  const student = text(m.student, `${what} "student"`, MAX_STUDENT).trim();
  if (!student) throw new ImportError(said('asg_file_no_student', { what }));
  const results = list(m.results, `${what} "results"`, MAX_CHECKS).map((raw, i) => {
    const where = `${what} "results" #${i + 1}`;
    const r = record(raw, where);
    return {
      name: text(r.name, `${where} "name"`, 200),
      passed: r.passed === true,
      message: readText(r.message, `${where} "message"`),
      error: r.error === null || r.error === undefined ? null : text(r.error, `${where} "error"`, 200),
      output: text(r.output ?? '', `${where} "output"`, MAX_TEXT),
      points: integer(r.points, `${where} "points"`, 0, MAX_POINTS),
      earned: integer(r.earned, `${where} "earned"`, 0, MAX_POINTS),
    };
  });
  const answer = typeof m.answer === 'number' && Number.isInteger(m.answer) && m.answer >= 1 ? m.answer : undefined;
  return {
    assignment: { id: text(a.id, `${what} "assignment" "id"`, 100), digest: text(a.digest, `${what} "assignment" "digest"`, 64), title: text(a.title, `${what} "assignment" "title"`, MAX_TITLE) },
    student,
    handedInAt: typeof m.handedInAt === 'number' && Number.isFinite(m.handedInAt) ? m.handedInAt : 0,
    results,
    ...(answer ? { answer } : {}),
  };
}

const MAX_SAID_DEPTH = 4;

/**
 * A result's message as a hand-in keeps it: a person's words (an assert's message; an older
 * PyTabs' English) or a said text, which opens in the teacher's language. A key this version
 * does not know reads as the key.
 */
function readText(value: unknown, what: string, depth = 0): Text {
  if (typeof value === 'string' || depth > MAX_SAID_DEPTH) return text(value, what, MAX_TEXT);
  const r = record(value, what);
  const key = text(r.key, `${what} "key"`, 100);
  if (r.params === undefined) return { key } as Said;
  const params: Record<string, SaidValue> = {};
  for (const [name, v] of Object.entries(record(r.params, `${what} "params"`))) {
    params[name] = typeof v === 'number' && Number.isFinite(v) ? v : isRecord(v) ? (readText(v, `${what} "params" "${name}"`, depth + 1) as Said) : text(v, `${what} "params" "${name}"`, MAX_TEXT);
  }
  return { key, params } as Said;
}

/** A check's outcome with the points it is worth and earned. */
export function scored(outcome: CheckOutcome, spec: CheckSpec): CheckResult {
  return { ...outcome, points: spec.points, earned: outcome.passed ? spec.points : 0 };
}
