import { SaidError, type Said } from './i18n/said';
import { existingPathProblem, newPathProblem } from './path-rules';

export { MAX_PATH_LENGTH } from './path-rules';

/** A name refused as a workspace path; it says why in the reader's language (errorText). */
export class InvalidPathError extends SaidError {
  constructor(reason: Said) {
    super(reason);
    this.name = 'InvalidPathError';
  }
}

/** Checks a workspace-relative path for a new file and returns it ('a/b.csv'); see newPathProblem. */
export function validateWorkspacePath(raw: string): string {
  const problem = newPathProblem(raw);
  if (problem) throw new InvalidPathError(problem);
  return raw;
}

/** Checks the name of a file already in the workspace and returns it; see existingPathProblem. */
export function validateExistingPath(raw: string): string {
  const problem = existingPathProblem(raw);
  if (problem) throw new InvalidPathError(problem);
  return raw;
}
