import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WORKER_ENGLISH } from '../../workers/runtime/english';
import { tellWith, type MessageKey, type Said } from '../../src/lib/i18n/said';

/** A text as the session worker words it, with its own English alone (as tellInEnglish does there). */
const inWorker = (text: Said) => tellWith(WORKER_ENGLISH, text);

/**
 * The session worker words some said texts in English itself (an error's message, a package
 * failure's evalue, a reading step's status) from the few messages it bundles by name
 * (workers/runtime/english.ts). A key said in the files whose texts reach those words, and
 * missing from that list, would read as the bare key in logs and in those words.
 */
const WORDED_IN_WORKER = ['workers/runtime/packages.ts', 'workers/runtime/spreadsheets.ts', 'src/lib/path-rules.ts', 'src/lib/storage/db.ts'];

describe("the session worker's own English", () => {
  for (const file of WORDED_IN_WORKER) {
    it(`words every key ${file} says`, () => {
      const keys = [...readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').matchAll(/said\('([a-z][a-zA-Z0-9_]*)'/g)].map((m) => m[1]);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => inWorker({ key: key as MessageKey }) === key)).toEqual([]);
    });
  }

  it("words a package failure whose index could not be read, the reason inside it too", () => {
    const cause = { key: 'rt_index_unreadable', params: { error: 'HTTP 404' } } as const;
    const text = inWorker({ key: 'rt_package_failed', params: { count: 1, names: '"numpy"', index: 'http://127.0.0.1:9/', cause } });
    expect(text).toBe('Could not load package "numpy" from the package index http://127.0.0.1:9/: its pyodide-lock.json could not be read (HTTP 404)');
  });
});
