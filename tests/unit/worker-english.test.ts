import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inEnglish } from '../../workers/runtime/english';
import type { MessageKey } from '../../src/lib/i18n/said';

/**
 * The session worker words some said texts in English itself (an error's message, a package
 * failure's evalue: only words cross to the page there) from the few messages it bundles by
 * name (workers/runtime/english.ts). A key said in the files whose texts reach those words,
 * and missing from that list, would reach the page as the bare key.
 */
const WORDED_IN_WORKER = ['workers/runtime/packages.ts', 'workers/runtime/spreadsheets.ts', 'src/lib/path-rules.ts'];

describe("the session worker's own English", () => {
  for (const file of WORDED_IN_WORKER) {
    it(`words every key ${file} says`, () => {
      const keys = [...readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').matchAll(/said\('([a-z][a-zA-Z0-9_]*)'/g)].map((m) => m[1]);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => inEnglish({ key: key as MessageKey }) === key)).toEqual([]);
    });
  }

  it("words a package failure whose index could not be read, the reason inside it too", () => {
    const cause = { key: 'rt_index_unreadable', params: { error: 'HTTP 404' } } as const;
    const text = inEnglish({ key: 'rt_package_failed', params: { count: 1, names: '"numpy"', index: 'http://127.0.0.1:9/', cause } });
    expect(text).toBe('Could not load package "numpy" from the package index http://127.0.0.1:9/: its pyodide-lock.json could not be read (HTTP 404)');
  });
});
