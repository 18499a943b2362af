import type { PortableManager } from '../portability/manager';
import type { SessionManager } from '../sessions/manager';

/** What assignments need of the session manager: portability's part, a check, a program run and a compare in a session, and scratch sessions for grading. */
export type AssignmentManager = PortableManager & Pick<SessionManager, 'runCheck' | 'runProgram' | 'compareOutputs' | 'scratchHost' | 'readFile' | 'history'>;
