import { said, SaidError } from '../i18n/said';
import { makeAssignment, encodeAssignment, ASSIGNMENT_ENTRY, type Assignment, type AssignmentDraft } from '../portability/assignment-file';
import { packSession, fileNameFor, SESSION_SUFFIX, type ExportedFile } from '../portability/export';
import { withStorage, type PortableManager } from '../portability/manager';
import { deleteGrades, getAssignment, getGrades, putAnswer, putAssignment, putGrades } from '../storage/assignments';
import type { AssignmentRole } from '../storage/db';
import { readSessionContents } from '../storage/imports';
import { updateSession } from '../storage/sessions';
import type { GradeRow } from './grading';

/** A session's assignment and its role in it: the teacher saved it as one, or a student opened one. */
export interface SessionAssignment {
  role: AssignmentRole;
  assignment: Assignment;
  /** The message the student marked as their answer; absent: their latest Code message. */
  answer?: number;
  /** The teacher's: the digests of the versions saved before this one; absent: not known. */
  earlier?: string[];
}

/** The assignment the session carries, or null. */
export function sessionAssignment(manager: Pick<PortableManager, 'dbName'>, sessionId: string): Promise<SessionAssignment | null> {
  return withStorage(manager, (db) => getAssignment(db, sessionId));
}

/**
 * Save as assignment: the session becomes the teacher's copy of the assignment (saved again,
 * it keeps its id, so hand-ins of the earlier version still match, and the earlier version's
 * digest is kept), named by its title, and the file for students holds its workspace files
 * (the starter files) and `assignment.json`. The session's history and variables stay out:
 * they are the teacher's solution.
 */
export async function saveAsAssignment(
  manager: PortableManager,
  sessionId: string,
  draft: AssignmentDraft,
  now = Date.now(),
): Promise<{ assignment: Assignment; earlier?: string[]; file: ExportedFile }> {
  const result = await withStorage(manager, async (db) => {
    const [prior, read] = await Promise.all([getAssignment(db, sessionId), readSessionContents(db, sessionId)]);
    if (!read) throw new SaidError(said('libb_no_session', { id: sessionId }));
    const assignment = await makeAssignment(draft, prior?.role === 'teacher' ? prior.assignment.id : undefined);
    const starter = { files: read.contents.files, rounds: [], variables: [], pickles: [], replay: [], held: null, origin: null };
    const packed = await packSession(db, { name: assignment.title, createdAt: now, vars: read.record.vars }, starter, now, new Map([[ASSIGNMENT_ENTRY, encodeAssignment(assignment)]]));
    const earlier = versionsBefore(prior, assignment);
    await putAssignment(db, sessionId, 'teacher', assignment, earlier);
    // Its tab reads as what the class is given.
    await updateSession(db, sessionId, (r) => void (r.name = assignment.title));
    return { assignment, ...(earlier ? { earlier } : {}), file: { name: fileNameFor(assignment.title) + SESSION_SUFFIX, data: packed.data } };
  });
  manager.storageChanged(sessionId, false);
  return result;
}

/** The digests saved before `next`: none for a new assignment; unknown (undefined) when the prior version's own were not kept. */
function versionsBefore(prior: SessionAssignment | null, next: Assignment): string[] | undefined {
  if (prior?.role !== 'teacher') return [];
  if (!prior.earlier) return undefined;
  const digests = [...prior.earlier, prior.assignment.digest];
  return [...new Set(digests)].filter((d) => d !== next.digest);
}

/** Marks message `seq` as the student's answer, the program the cases test (null: the latest Code message). */
export function markAnswer(manager: Pick<PortableManager, 'dbName'>, sessionId: string, seq: number | null): Promise<void> {
  return withStorage(manager, (db) => putAnswer(db, sessionId, seq));
}

/** The grades table kept for the session's assignment at `digest` (graded with another version: none). */
export async function keptGrades(manager: Pick<PortableManager, 'dbName'>, sessionId: string, digest: string): Promise<GradeRow[] | null> {
  const kept = await withStorage(manager, (db) => getGrades<GradeRow>(db, sessionId));
  return kept?.digest === digest ? kept.rows : null;
}

/** Keeps the session's grades table, graded with the assignment at `digest`. */
export function keepGrades(manager: Pick<PortableManager, 'dbName'>, sessionId: string, digest: string, rows: GradeRow[]): Promise<void> {
  return withStorage(manager, (db) => putGrades(db, sessionId, digest, rows));
}

/** Forgets the session's grades table (Clear grades). */
export function forgetGrades(manager: Pick<PortableManager, 'dbName'>, sessionId: string): Promise<void> {
  return withStorage(manager, (db) => deleteGrades(db, sessionId));
}
