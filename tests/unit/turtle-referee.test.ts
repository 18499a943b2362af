import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PyodideInterface } from 'pyodide';
import { loadRuntime } from './load-runtime';

// PyTabs' turtle against the real thing: Debian's CPython runs each course-style program with
// its own turtle (Tk, under Xvfb) and a recorder (tests/turtle/recorder.py) that notes every
// step's position, heading and pen and reads what was drawn off the Tk canvas; PyTabs' turtle
// runs the same program in Pyodide with the same recorder. The records must agree, floats to 1e-6.
const TURTLE_DIR = fileURLToPath(new URL('../turtle/', import.meta.url));
const PROGRAMS = readdirSync(path.join(TURTLE_DIR, 'programs')).filter((f) => f.endsWith('.py')).sort();
const ANSWER = '7';

let pyodide: PyodideInterface;
let cpython: Record<string, unknown>;

beforeAll(async () => {
  const programs = PROGRAMS.map((p) => path.join(TURTLE_DIR, 'programs', p));
  const referee = execFileSync('xvfb-run', ['-a', '/usr/bin/python3', path.join(TURTLE_DIR, 'record_cpython.py'), ANSWER, ...programs], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  cpython = JSON.parse(referee) as Record<string, unknown>;
  pyodide = await loadRuntime();
  pyodide.FS.mkdirTree('/referee');
  for (const file of ['recorder.py', 'compare.py']) pyodide.FS.writeFile(`/referee/${file}`, readFileSync(path.join(TURTLE_DIR, file), 'utf8'));
  pyodide.setStdin({ stdin: () => ANSWER });
  // The session's Runtime is what makes `import turtle` find PyTabs' turtle.
  pyodide.runPython(
    `import sys\nsys.path.insert(0, '/referee')\nfrom pytabs.runtime import Runtime\nRuntime('turtle-test', '/tmp/ws', lambda kind, payload: None)`,
    { globals: pyodide.toPy({}) },
  );
}, 120_000);

/** The program's record in PyTabs: a fresh turtle module each time, as a fresh process has. */
function recordInPyodide(program: string): unknown {
  const source = readFileSync(path.join(TURTLE_DIR, 'programs', program), 'utf8');
  const json = pyodide.runPython(
    `import json, sys\nsys.modules.pop('turtle', None)\nimport turtle, recorder\njson.dumps(recorder.run(turtle, source))`,
    { globals: pyodide.toPy({ source }) },
  ) as string;
  return JSON.parse(json);
}

function differences(expected: unknown, actual: unknown): string[] {
  const found = pyodide.runPython(`import json, compare\ncompare.differences(json.loads(e), json.loads(a))`, {
    globals: pyodide.toPy({ e: JSON.stringify(expected), a: JSON.stringify(actual) }),
  });
  return found.toJs() as string[];
}

describe('turtle records match CPython turtle', () => {
  it.each(PROGRAMS)('%s', (program) => {
    const expected = cpython[program] as { steps: unknown[]; drawn: unknown[][] };
    // A record that says nothing would match anything: each program draws and takes steps.
    expect(expected.steps.length).toBeGreaterThan(3);
    expect(expected.drawn.flat().length).toBeGreaterThan(0);
    expect(differences(expected, recordInPyodide(program))).toEqual([]);
  });

  it('finds a difference when there is one', () => {
    const record = recordInPyodide('square.py') as { drawn: [string, ...unknown[]][][] };
    record.drawn[0][1][3] = (record.drawn[0][1][3] as number) + 0.001;
    expect(differences(cpython['square.py'], record)).toHaveLength(1);
  });
});
