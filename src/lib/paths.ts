import { SaidError, said, type Said } from './i18n/said';
import { quoteName } from './quote-name';

/** The longest workspace path accepted, in characters. */
export const MAX_PATH_LENGTH = 255;

/** A name refused as a workspace path; it says why in the reader's language (errorText). */
export class InvalidPathError extends SaidError {
  constructor(reason: Said) {
    super(reason);
    this.name = 'InvalidPathError';
  }
}

/**
 * Checks a workspace-relative path and returns it normalised ('a/b.csv').
 * Rejects anything that could leave the workspace or confuse a file system or a page.
 */
export function validateWorkspacePath(raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new InvalidPathError(said('lib_path_empty'));
  if (raw.length > MAX_PATH_LENGTH) {
    throw new InvalidPathError(said('lib_path_too_long', { max: MAX_PATH_LENGTH, length: raw.length }));
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new InvalidPathError(said('lib_path_control'));
  if (raw.includes('\\')) throw new InvalidPathError(said('lib_path_backslash'));
  if (raw.startsWith('/')) throw new InvalidPathError(said('lib_path_absolute', { name: quoteName(raw) }));
  const parts = raw.split('/');
  for (const part of parts) {
    if (part === '..') throw new InvalidPathError(said('lib_path_leaves', { name: quoteName(raw) }));
    if (part === '' || part === '.') throw new InvalidPathError(said('lib_path_empty_segment', { name: quoteName(raw) }));
    if (/[<>:"|?*]/.test(part)) throw new InvalidPathError(said('lib_path_bad_char', { name: quoteName(raw) }));
  }
  return parts.join('/');
}

/**
 * Checks the name of a file that is already in the workspace (read, delete, rename from).
 * Python may have written names that new names may not have (`<`, `?`, a backslash), so
 * only what could leave the workspace is refused: the lookup is by exact key.
 */
export function validateExistingPath(raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new InvalidPathError(said('lib_path_empty'));
  if (raw.includes('\u0000')) throw new InvalidPathError(said('lib_path_nul'));
  if (raw.startsWith('/')) throw new InvalidPathError(said('lib_path_absolute', { name: quoteName(raw) }));
  for (const part of raw.split('/')) {
    if (part === '..') throw new InvalidPathError(said('lib_path_leaves', { name: quoteName(raw) }));
    if (part === '' || part === '.') throw new InvalidPathError(said('lib_path_empty_segment', { name: quoteName(raw) }));
  }
  return raw;
}
