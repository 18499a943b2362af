import { said, SaidError } from '../i18n/said';
import { encodeAssignment, encodeSubmission, scored, ASSIGNMENT_ENTRY, SUBMISSION_ENTRY, type CheckResult } from '../portability/assignment-file';
import { packSession, fileNameFor, SESSION_SUFFIX, type ExportedFile } from '../portability/export';
import { withStorage } from '../portability/manager';
import { readSessionContents } from '../storage/imports';
import type { AssignmentManager } from './manager';
import { sessionAssignment } from './session-assignment';
import { runCases, testedProgram, type NoProgram, type OutputComparer, type ProgramRunner, type TestedProgram } from './program';
import type { ProgramTests } from '../portability/assignment-file';
import type { Round } from '../chat/types';
import type { SessionHost } from '../sessions/host';

/** What a check may print that the student is shown; the rest is cut. */
export const CHECK_OUTPUT_CHARS = 10_000;
const MAX_STUDENT_NAME = 100;

async function requireAssignment(manager: AssignmentManager, sessionId: string) {
  const found = await sessionAssignment(manager, sessionId);
  if (!found) throw new SaidError(said('asg_not_assignment'));
  return found;
}

/**
 * Check my work: each check of the session's assignment against a copy of its variables, in
 * order, each within the assignment's time limit. The session's variables stay as they were.
 * `onResult` hears each as it finishes.
 */
export async function checkWork(manager: AssignmentManager, sessionId: string, onResult?: (result: CheckResult) => void): Promise<CheckResult[]> {
  const found = await requireAssignment(manager, sessionId);
  const { assignment } = found;
  const results: CheckResult[] = [];
  for (const spec of assignment.checks) {
    const outcome = await manager.runCheck(sessionId, assignment.checkSource, spec.name, {
      outputChars: CHECK_OUTPUT_CHARS,
      timeoutMs: assignment.timeLimitSeconds * 1000,
    });
    const result = scored(outcome, spec);
    results.push(result);
    onResult?.(result);
  }
  if (assignment.program) {
    const program = await programOf(manager, sessionId, assignment.program, found.answer);
    // Advisory: the cases run in the student's own session, compared as grading compares them,
    // a compare function in a scratch worker that runs nothing else, as grading's judge does.
    const runner: ProgramRunner = (run, timeoutMs) => manager.runProgram(sessionId, run, { timeoutMs });
    let judge: SessionHost | null = null;
    const comparer: OutputComparer = (source, name, expected, actual, timeoutMs) => (judge ??= manager.scratchHost()).compare(source, name, expected, actual, timeoutMs);
    try {
      results.push(...(await runCases(assignment, program, runner, comparer, CHECK_OUTPUT_CHARS, onResult)));
    } finally {
      // Assigned in the comparer, which TypeScript's narrowing does not see.
      (judge as SessionHost | null)?.terminate();
    }
  }
  return results;
}

/** The program the session's cases test: the assignment's file, the marked message, or the latest Code message. */
export async function programOf(manager: AssignmentManager, sessionId: string, tests: ProgramTests, answer?: number): Promise<TestedProgram | NoProgram> {
  const rounds = tests.file ? [] : await manager.history(sessionId).list<Round>();
  let text: string | null = null;
  if (tests.file) {
    try {
      text = new TextDecoder().decode(await manager.readFile(sessionId, tests.file));
    } catch {
      text = null;
    }
  }
  return testedProgram(tests, rounds, () => text, answer);
}

/** A student's name as a hand-in carries it, or why not. */
export function checkStudentName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new SaidError(said('asg_name_needed'));
  if (name.length > MAX_STUDENT_NAME) throw new SaidError(said('asg_name_too_long', { max: MAX_STUDENT_NAME }));
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new SaidError(said('asg_name_control'));
  return name;
}

/**
 * Hand in: `<assignment>-<name>.pytabs.zip`, the session's export (code, history, files,
 * variables) with its assignment and `submission.json` (the name and `results`, the student's
 * own check results). Reads storage only: the session stays as it was.
 */
export async function handIn(manager: AssignmentManager, sessionId: string, studentName: string, results: CheckResult[], now = Date.now()): Promise<ExportedFile> {
  const student = checkStudentName(studentName);
  const { assignment, answer } = await requireAssignment(manager, sessionId);
  return withStorage(manager, async (db) => {
    const read = await readSessionContents(db, sessionId);
    if (!read) throw new SaidError(said('libb_no_session', { id: sessionId }));
    const submission = { assignment: { id: assignment.id, digest: assignment.digest, title: assignment.title }, student, handedInAt: now, results, ...(answer === undefined ? {} : { answer }) };
    const extra = new Map([
      [ASSIGNMENT_ENTRY, encodeAssignment(assignment)],
      [SUBMISSION_ENTRY, encodeSubmission(submission)],
    ]);
    const packed = await packSession(db, read.record, read.contents, now, extra);
    return { name: `${fileNameFor(assignment.title)}-${fileNameFor(student)}${SESSION_SUFFIX}`, data: packed.data };
  });
}

export type { CheckResult };
