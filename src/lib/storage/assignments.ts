import { said, SaidError } from '../i18n/said';
import type { Assignment, AssignmentRecord, AssignmentRole, GradesRecord, PyTabsDB } from './db';

/** The session's assignment and its role in it, or null. */
export async function getAssignment(db: PyTabsDB, sessionId: string): Promise<Omit<AssignmentRecord, 'sessionId' | 'kind'> | null> {
  const found = await db.get('imports', [sessionId, 'assignment']);
  if (found?.kind !== 'assignment') return null;
  return {
    role: found.role,
    assignment: found.assignment,
    ...(found.answer === undefined ? {} : { answer: found.answer }),
    ...(found.earlier === undefined ? {} : { earlier: found.earlier }),
  };
}

/** Marks message `seq` as the student's answer (null: their latest Code message again). */
export async function putAnswer(db: PyTabsDB, sessionId: string, seq: number | null): Promise<void> {
  const tx = db.transaction('imports', 'readwrite');
  const found = await tx.store.get([sessionId, 'assignment']);
  if (found?.kind !== 'assignment') throw new SaidError(said('asg_not_assignment'));
  const { answer: _, ...rest } = found;
  await tx.store.put(seq === null ? rest : { ...rest, answer: seq });
  await tx.done;
}

/**
 * Makes the session the teacher's copy of `assignment` (Save as assignment), replacing what it
 * had; `earlier` are the digests of the versions saved before it (absent: not known).
 */
export async function putAssignment(db: PyTabsDB, sessionId: string, role: AssignmentRole, assignment: Assignment, earlier?: string[]): Promise<void> {
  const tx = db.transaction(['sessions', 'imports'], 'readwrite');
  if (!(await tx.objectStore('sessions').get(sessionId))) throw new SaidError(said('libb_no_session', { id: sessionId }));
  await tx.objectStore('imports').put({ sessionId, kind: 'assignment', role, assignment, ...(earlier ? { earlier } : {}) });
  await tx.done;
}

/** The session's kept grades table, or null. */
export async function getGrades<Row>(db: PyTabsDB, sessionId: string): Promise<Pick<GradesRecord<Row>, 'digest' | 'rows'> | null> {
  const found = await db.get('imports', [sessionId, 'grades']);
  // The rows are what putGrades was given for this session: grading's own.
  return found?.kind === 'grades' ? { digest: found.digest, rows: found.rows as Row[] } : null;
}

/** Keeps the session's grades table (replacing the last one); a session deleted meanwhile gets none. */
export async function putGrades<Row>(db: PyTabsDB, sessionId: string, digest: string, rows: Row[]): Promise<void> {
  const tx = db.transaction(['sessions', 'imports'], 'readwrite');
  if (await tx.objectStore('sessions').get(sessionId)) await tx.objectStore('imports').put({ sessionId, kind: 'grades', digest, rows });
  await tx.done;
}

/** Forgets the session's grades table. */
export async function deleteGrades(db: PyTabsDB, sessionId: string): Promise<void> {
  await db.delete('imports', [sessionId, 'grades']);
}
