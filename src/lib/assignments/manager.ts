import type { PortableManager } from '../portability/manager';
import type { SessionManager } from '../sessions/manager';

/** What assignments need of the session manager: portability's part, a check and a program run in a session, and scratch sessions (grading, compare functions). */
export type AssignmentManager = PortableManager & Pick<SessionManager, 'runCheck' | 'runProgram' | 'scratchHost' | 'readFile' | 'history'>;
