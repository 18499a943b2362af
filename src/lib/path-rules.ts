import { said, type Said } from './i18n/said';
import { quoteName } from './quote-name';

/**
 * What a workspace path may be, as said reasons and no error class: the session worker checks
 * paths with these too, and an error class that words itself would bring the English catalog
 * into the worker.
 */

/** The longest workspace path accepted, in characters. */
export const MAX_PATH_LENGTH = 255;

/**
 * Why `raw` cannot name a new workspace file, or null when it can. Refused: anything that could
 * leave the workspace or confuse a file system or a page.
 */
export function newPathProblem(raw: string): Said | null {
  if (typeof raw !== 'string' || raw.length === 0) return said('lib_path_empty');
  if (raw.length > MAX_PATH_LENGTH) return said('lib_path_too_long', { max: MAX_PATH_LENGTH, length: raw.length });
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return said('lib_path_control');
  if (raw.includes('\\')) return said('lib_path_backslash');
  if (raw.startsWith('/')) return said('lib_path_absolute', { name: quoteName(raw) });
  for (const part of raw.split('/')) {
    if (part === '..') return said('lib_path_leaves', { name: quoteName(raw) });
    if (part === '' || part === '.') return said('lib_path_empty_segment', { name: quoteName(raw) });
    if (/[<>:"|?*]/.test(part)) return said('lib_path_bad_char', { name: quoteName(raw) });
  }
  return null;
}

/**
 * Why `raw` cannot name a file already in the workspace (read, delete, rename from), or null.
 * Python may have written names that new names may not have (`<`, `?`, a backslash), so only
 * what could leave the workspace is refused: the lookup is by exact key.
 */
export function existingPathProblem(raw: string): Said | null {
  if (typeof raw !== 'string' || raw.length === 0) return said('lib_path_empty');
  if (raw.includes('\u0000')) return said('lib_path_nul');
  if (raw.startsWith('/')) return said('lib_path_absolute', { name: quoteName(raw) });
  for (const part of raw.split('/')) {
    if (part === '..') return said('lib_path_leaves', { name: quoteName(raw) });
    if (part === '' || part === '.') return said('lib_path_empty_segment', { name: quoteName(raw) });
  }
  return null;
}
