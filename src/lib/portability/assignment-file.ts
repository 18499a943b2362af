import { ImportError } from './errors';
import { encodeJson, integer, list, record, text } from './checks';
import { sha256Hex } from './manifest';
import type { Assignment, CheckSpec } from '../storage/db';
import type { CheckOutcome } from '../worker-api';

export type { Assignment, CheckSpec };

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
const VERSION = 1;
const MAX_TITLE = 100;
const MAX_TEXT = 200_000;
const MAX_CHECKS = 100;
const MAX_POINTS = 1000;
const MAX_STUDENT = 100;
/** The time limit of a check (and of a replayed cell) when the teacher does not choose one. */
export const DEFAULT_TIME_LIMIT_S = 30;
const MAX_TIME_LIMIT_S = 600;

/** What the teacher writes in "Save as assignment". */
export type AssignmentDraft = Omit<Assignment, 'id' | 'digest'>;

/** A check as it ran, with the points it earned. */
export interface CheckResult extends CheckOutcome {
  points: number;
  earned: number;
}

/** submission.json of a hand-in. */
export interface Submission {
  assignment: { id: string; digest: string; title: string };
  student: string;
  handedInAt: number;
  /** The results in the student's browser: shown to the teacher, never used for the grade. */
  results: CheckResult[];
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
  if (!title) throw new Error('An assignment needs a title.');
  if (title.length > MAX_TITLE) throw new Error(`A title can have at most ${MAX_TITLE} characters.`);
  const names = checkNames(draft.checkSource);
  if (!names.length) throw new Error('The checks define no function: write at least one "def check_…():".');
  const dupe = names.find((n, i) => names.indexOf(n) !== i);
  if (dupe) throw new Error(`The checks define ${dupe} twice.`);
  const points = new Map(draft.checks.map((c) => [c.name, c.points]));
  const checks = names.map((name) => ({ name, points: points.get(name) ?? 1 }));
  for (const c of checks) {
    if (!Number.isInteger(c.points) || c.points < 0 || c.points > MAX_POINTS) throw new Error(`The points of ${c.name} must be a whole number from 0 to ${MAX_POINTS}.`);
  }
  const limit = draft.timeLimitSeconds;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TIME_LIMIT_S) throw new Error(`The time limit must be a whole number of seconds from 1 to ${MAX_TIME_LIMIT_S}.`);
  const body = { title, instructions: draft.instructions, starterCode: draft.starterCode, checkSource: draft.checkSource, checks, timeLimitSeconds: limit };
  return { id, ...body, digest: await digestOf(body) };
}

function digestOf(body: Omit<Assignment, 'id' | 'digest'>): Promise<string> {
  const { title, instructions, starterCode, checkSource, checks, timeLimitSeconds } = body;
  return sha256Hex(encodeJson([title, instructions, starterCode, checkSource, checks, timeLimitSeconds]));
}

export const encodeAssignment = (a: Assignment): Uint8Array => encodeJson({ format: ASSIGNMENT_FORMAT, version: VERSION, ...a });

export const encodeSubmission = (s: Submission): Uint8Array => encodeJson({ format: SUBMISSION_FORMAT, version: VERSION, ...s });

function checkVersion(m: Record<string, unknown>, what: string): void {
  const version = integer(m.version, `${what} "version"`, 1);
  if (version > VERSION) throw new ImportError(`${what} was made by a newer PyTabs (version ${version}): open it in the newer app.`);
}

/** Checks an assignment.json read from a file made anywhere; its digest must match what it holds. */
export async function readAssignment(value: unknown): Promise<Assignment> {
  const what = ASSIGNMENT_ENTRY;
  const m = record(value, what);
  if (m.format !== ASSIGNMENT_FORMAT) throw new ImportError(`${what} does not describe a PyTabs assignment.`);
  checkVersion(m, what);
  const checks = list(m.checks, `${what} "checks"`, MAX_CHECKS).map((raw, i) => {
    const c = record(raw, `${what} check ${i + 1}`);
    const name = text(c.name, `${what} check ${i + 1} "name"`, 200);
    if (!/^check_\w*$/.test(name)) throw new ImportError(`${what} check ${i + 1} is not named check_….`);
    return { name, points: integer(c.points, `${what} check "${name}" "points"`, 0, MAX_POINTS) };
  });
  const body = {
    title: text(m.title, `${what} "title"`, MAX_TITLE),
    instructions: text(m.instructions, `${what} "instructions"`, MAX_TEXT),
    starterCode: text(m.starterCode, `${what} "starterCode"`, MAX_TEXT),
    checkSource: text(m.checkSource, `${what} "checkSource"`, MAX_TEXT),
    checks,
    timeLimitSeconds: integer(m.timeLimitSeconds, `${what} "timeLimitSeconds"`, 1, MAX_TIME_LIMIT_S),
  };
  const digest = text(m.digest, `${what} "digest"`, 64);
  if ((await digestOf(body)) !== digest) throw new ImportError(`${what} does not match its digest: it was changed after it was saved.`);
  return { id: text(m.id, `${what} "id"`, 100), ...body, digest };
}

/** Checks a submission.json; its results are kept as text to show, never as the grade. */
export function readSubmission(value: unknown): Submission {
  const what = SUBMISSION_ENTRY;
  const m = record(value, what);
  if (m.format !== SUBMISSION_FORMAT) throw new ImportError(`${what} does not describe a PyTabs hand-in.`);
  checkVersion(m, what);
  const a = record(m.assignment, `${what} "assignment"`);
  const student = text(m.student, `${what} "student"`, MAX_STUDENT).trim();
  if (!student) throw new ImportError(`${what} has no student name.`);
  const results = list(m.results, `${what} "results"`, MAX_CHECKS).map((raw, i) => {
    const r = record(raw, `${what} result ${i + 1}`);
    const where = `${what} result ${i + 1}`;
    return {
      name: text(r.name, `${where} "name"`, 200),
      passed: r.passed === true,
      message: text(r.message, `${where} "message"`, MAX_TEXT),
      error: r.error === null || r.error === undefined ? null : text(r.error, `${where} "error"`, 200),
      output: text(r.output ?? '', `${where} "output"`, MAX_TEXT),
      points: integer(r.points, `${where} "points"`, 0, MAX_POINTS),
      earned: integer(r.earned, `${where} "earned"`, 0, MAX_POINTS),
    };
  });
  return {
    assignment: { id: text(a.id, `${what} assignment "id"`, 100), digest: text(a.digest, `${what} assignment "digest"`, 64), title: text(a.title, `${what} assignment "title"`, MAX_TITLE) },
    student,
    handedInAt: typeof m.handedInAt === 'number' && Number.isFinite(m.handedInAt) ? m.handedInAt : 0,
    results,
  };
}

/** A check's outcome with the points it is worth and earned. */
export function scored(outcome: CheckOutcome, spec: CheckSpec): CheckResult {
  return { ...outcome, points: spec.points, earned: outcome.passed ? spec.points : 0 };
}
