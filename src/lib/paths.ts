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
  if (raw.startsWith('/')) throw new InvalidPathError(`"${raw}" is an absolute path; use a name inside the workspace.`);
  const parts = raw.split('/');
  for (const part of parts) {
    if (part === '..') throw new InvalidPathError(`"${raw}" would leave the workspace ("..").`);
    if (part === '' || part === '.') throw new InvalidPathError(`"${raw}" has an empty or "." path segment.`);
    if (/[<>:"|?*]/.test(part)) throw new InvalidPathError(`"${raw}" contains a character not allowed in file names (< > : " | ? *).`);
  }
  return parts.join('/');
}
