export { sessionAssignment, saveAsAssignment, keptGrades, keepGrades, forgetGrades, type SessionAssignment } from './session-assignment';
export { checkWork, handIn, checkStudentName, CHECK_OUTPUT_CHARS } from './student';
export { GradingRun, gradingPoolSize, type GradeRow, type RowStatus, type SubmittedWork } from './grading';
export { failedMessages, gradesFiles, gradesTable } from './grades-file';
export type { AssignmentManager } from './manager';
export { checkNames, DEFAULT_TIME_LIMIT_S, type Assignment, type AssignmentDraft, type CheckResult, type CheckSpec } from '../portability/assignment-file';
