export { SessionManager, type SessionInfo, type SessionStatus, type ManagerOptions } from './sessions/manager';
export { SessionElsewhereError, type Ownership } from './sessions/ownership';
export type { CleanupReport } from './sessions/cleanup';
export type { Settings } from './storage/settings';
export { DEFAULT_SETTINGS } from './storage/settings';
export { validateWorkspacePath, validateExistingPath, InvalidPathError } from './paths';
export type { RunEvent, RunResult, RunError, MimeBundle, StartProgress, VariableInfo, WorkspaceEntry } from './worker-api';
export * from './chat';
export * from './assistant';
