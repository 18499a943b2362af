import { quoteName } from './quote-name';

/** The longest workspace path accepted, in characters. */
export const MAX_PATH_LENGTH = 255;

export class InvalidPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPathError';
  }
}

/**
 * Checks a workspace-relative path and returns it normalised ('a/b.csv').
 * Rejects anything that could leave the workspace or confuse a file system or a page.
 */
export function validateWorkspacePath(raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new InvalidPathError('A file name cannot be empty.');
  if (raw.length > MAX_PATH_LENGTH) {
    throw new InvalidPathError(`A file name can have at most ${MAX_PATH_LENGTH} characters; this one has ${raw.length}.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new InvalidPathError('A file name cannot contain control characters.');
  if (raw.includes('\\')) throw new InvalidPathError('A file name cannot contain a backslash.');
  if (raw.startsWith('/')) throw new InvalidPathError(`${quoteName(raw)} is an absolute path; use a name inside the workspace.`);
  const parts = raw.split('/');
  for (const part of parts) {
    if (part === '..') throw new InvalidPathError(`${quoteName(raw)} would leave the workspace ("..").`);
    if (part === '' || part === '.') throw new InvalidPathError(`${quoteName(raw)} has an empty or "." path segment.`);
    if (/[<>:"|?*]/.test(part)) throw new InvalidPathError(`${quoteName(raw)} contains a character not allowed in file names (< > : " | ? *).`);
  }
  return parts.join('/');
}

/**
 * Checks the name of a file that is already in the workspace (read, delete, rename from).
 * Python may have written names that new names may not have (`<`, `?`, a backslash), so
 * only what could leave the workspace is refused: the lookup is by exact key.
 */
export function validateExistingPath(raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new InvalidPathError('A file name cannot be empty.');
  if (raw.includes('\u0000')) throw new InvalidPathError('A file name cannot contain a NUL character.');
  if (raw.startsWith('/')) throw new InvalidPathError(`${quoteName(raw)} is an absolute path; use a name inside the workspace.`);
  for (const part of raw.split('/')) {
    if (part === '..') throw new InvalidPathError(`${quoteName(raw)} would leave the workspace ("..").`);
    if (part === '' || part === '.') throw new InvalidPathError(`${quoteName(raw)} has an empty or "." path segment.`);
  }
  return raw;
}
