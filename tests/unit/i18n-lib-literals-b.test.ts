import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Temporary, until these files join CONVERTED_LIB (tests/unit/i18n-lib-literals.test.ts) at the
 * merge: the src/lib files whose person-facing texts are said write no sentence in English into
 * an Error, nor a line of Settings → This browser.
 */
const FILES = [
  'src/lib/browser-paths.ts',
  'src/lib/offline/offline-packages.ts',
  'src/lib/offline/service-worker.ts',
  'src/lib/sessions/input.ts',
  'src/lib/sessions/manager.ts',
  'src/lib/sessions/ownership.ts',
  'src/lib/sessions/session-ops.ts',
  'src/lib/storage/settings.ts',
  'src/lib/storage/sessions.ts',
  'src/lib/storage/commit.ts',
  'src/lib/storage/imports.ts',
  'src/lib/storage/assignments.ts',
  'src/lib/assignments/student.ts',
  'src/lib/assignments/session-assignment.ts',
];

/** A thrown `new Error('…')` with words, or a returned sentence: what a person would read. */
const WRITTEN = /new (?:Range)?Error\(\s*[`'"][^`'"]*\p{L}{2,}\s+\p{L}{2,}|return\s+[`'"]\p{Lu}\p{Ll}+[^`'"]*\s\p{L}{2,}/u;

describe('converted src/lib files (issue 43, part B)', () => {
  for (const file of FILES) {
    it(`${file} writes no English sentence a person reads`, () => {
      const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
      const found = lines.flatMap((line, i) => (WRITTEN.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
      expect(found).toEqual([]);
    });
  }

  it('finds a thrown English sentence and a returned line', () => {
    expect(WRITTEN.test("  if (!x) throw new Error('A session name cannot be empty.');")).toBe(true);
    expect(WRITTEN.test("  return 'Offline: no: the development server registers no service worker';")).toBe(true);
    expect(WRITTEN.test("  throw new SaidError(said('libb_no_session', { id }));")).toBe(false);
  });
});
