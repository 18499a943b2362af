import type { Assignment, AssignmentRecord, AssignmentRole, PyTabsDB } from './db';

/** The session's assignment and its role in it, or null. */
export async function getAssignment(db: PyTabsDB, sessionId: string): Promise<Omit<AssignmentRecord, 'sessionId' | 'kind'> | null> {
  const found = await db.get('imports', [sessionId, 'assignment']);
  return found?.kind === 'assignment' ? { role: found.role, assignment: found.assignment } : null;
}

/** Makes the session the teacher's copy of `assignment` (Save as assignment), replacing what it had. */
export async function putAssignment(db: PyTabsDB, sessionId: string, role: AssignmentRole, assignment: Assignment): Promise<void> {
  const tx = db.transaction(['sessions', 'imports'], 'readwrite');
  if (!(await tx.objectStore('sessions').get(sessionId))) throw new Error(`No session with id ${sessionId}.`);
  await tx.objectStore('imports').put({ sessionId, kind: 'assignment', role, assignment });
  await tx.done;
}
