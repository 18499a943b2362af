export { sessionAssignment, markAnswer, saveAsAssignment, keptGrades, keepGrades, forgetGrades, type SessionAssignment } from './session-assignment';
export { checkWork, handIn, checkStudentName, CHECK_OUTPUT_CHARS } from './student';
export { GradingRun, gradingPoolSize, type GradeRow, type GradingOptions, type RowStatus, type SubmittedWork } from './grading';
export { failedMessages, gradesFiles, gradesTable, rowErrors, statusText } from './grades-file';
export type { AssignmentManager } from './manager';
export { assignmentTests, checkNames, DEFAULT_TIME_LIMIT_S, type Assignment, type AssignmentDraft, type CaseSpec, type CheckResult, type CheckSpec, type ProgramTests } from '../portability/assignment-file';
export { answerRounds, CASE_OUTPUT_CHARS, describeProgram, programFilename, recordedCase, testedProgram, type NoProgram, type TestedProgram } from './program';
export { programOf } from './student';
