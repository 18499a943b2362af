import 'fake-indexeddb/auto';
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { loadPyodide } from 'pyodide';
import type { PyTabsDB } from '../../src/lib/storage/db';
import { newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { commitChange } from '../../src/lib/storage/commit';
import { RoundHistory } from '../../src/lib/storage/session-store';
import { readFileData } from '../../src/lib/storage/files';
import { newRound } from '../../src/lib/chat/round';
import { importSession } from '../../src/lib/portability';
import { makeAssignment, readAssignment, readSubmission, type AssignmentDraft } from '../../src/lib/portability/assignment-file';
import { sha256Hex } from '../../src/lib/portability/manifest';
import { encodeJson } from '../../src/lib/portability/checks';
import { markAnswer, saveAsAssignment } from '../../src/lib/assignments/session-assignment';
import { checkWork, handIn } from '../../src/lib/assignments/student';
import { gradesTable } from '../../src/lib/assignments/grades-file';
import { recordedCase, runCases } from '../../src/lib/assignments/program';
import { differenceMessage, firstDifference, judgeCase, type CaseOutcome } from '../../src/lib/assignments/compare';
import { appendEvent } from '../../src/lib/chat/round';
import type { GradeRow } from '../../src/lib/assignments/grading';
import type { AssignmentManager } from '../../src/lib/assignments/manager';
import type { PyodideInterface } from 'pyodide';
import type { ProgramTests } from '../../src/lib/portability/assignment-file';
import { WorkerSession } from '../../workers/runtime/session';
import { tellText } from '../../src/lib/i18n/text';
import { portableDevice } from './portable-device';

// Program tests ("with these input lines the program prints this") on real Pyodide, with
// CPython as the referee of the runs and of the comparison rules (compared on the page, never
// in the Python that ran the program: a search of that Python's memory finds no expected
// output), and as an assignment's cases: the file format (older files keep their digest),
// Check my work on the student's latest or marked Code message or a named file, and what a
// hand-in and the grades table carry.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };

/** Three console exercises of a first course, each a correct solution. */
const SUM_OF_N = 'n = int(input())\ntotal = 0\nfor _ in range(n):\n    total += int(input())\nprint(total)';
const GREATER = "a = int(input('First number: '))\nb = int(input('Second number: '))\nprint('The greater is', max(a, b))";
const UNTIL_STOP = "words = []\nwhile True:\n    word = input()\n    if word == 'Stop':\n        break\n    words.append(word)\nprint(len(words), 'words')";

/** One case as a test states it: the program, its input lines, the expected output and the rule. */
interface Case {
  source: string;
  input: string;
  expected: string;
  rule: ProgramTests['rule'];
  tolerance: number;
  checkSource: string;
  compareName: string;
}

function caseRun(source: string, input: string, expected: string, more: Partial<Case> = {}): Case {
  return { source, input, expected, rule: 'judge', tolerance: 0, checkSource: '', compareName: '', ...more };
}

/** Runs a CPython script of the tests' own with pytabs importable, `input` as JSON on its stdin. */
function cpython(script: string, input: unknown): unknown {
  const out = spawnSync('/usr/bin/python3', ['-c', script], {
    input: JSON.stringify(input),
    env: { ...process.env, PYTHONPATH: `${path.resolve('workers/python')}:${path.resolve('tests/unit/referee')}` },
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

/** The same case with CPython running the program (pytabs/programs.py) and judging its output (referee/judge.py). */
function referee(run: Case): { passed: boolean; line: number | null; actual: string } {
  const script = [
    'import json, sys',
    'from pytabs.programs import run_program',
    'from judge import first_difference',
    'r = json.load(sys.stdin)',
    "o = run_program(r['source'], '<program>', r['input'], 10000)",
    "line = first_difference(r['expected'], o['stdout'], r['rule'], r['tolerance'])",
    "print(json.dumps({'passed': o['ended'] == 'finished' and line is None, 'line': line, 'actual': o['stdout']}))",
  ].join('\n');
  return cpython(script, run) as { passed: boolean; line: number | null; actual: string };
}

/** CPython's lines and messages for each [expected, actual, rule, tolerance]. */
function refereeMessages(pairs: [string, string, ProgramTests['rule'], number][]): [number | null, string | null][] {
  return cpython("import json, runpy, sys\nrunpy.run_module('judge', run_name='__main__')", pairs) as [number | null, string | null][];
}

let python: WorkerSession;
/** The teacher's side: compare functions run here, in a Python that never runs a student's program. */
let judge: WorkerSession;

/** A case as grading has it: the program run in the student's Python on the input alone, its output compared here; its message in English. */
async function onCase(run: Case): Promise<CaseOutcome> {
  const ran = await python.runProgram({ source: run.source, filename: '<program>', input: run.input, outputChars: 10_000 });
  const outcome = await judgeCase(run, run.expected, ran, async (expected, actual) => judge.compareOutputs(run.checkSource, run.compareName, expected, actual));
  return { ...outcome, message: tellText(outcome.message) };
}

beforeAll(async () => {
  python = new WorkerSession(await loadPyodide(), null);
  await python.start();
  judge = new WorkerSession(await loadPyodide(), null);
  await judge.start();
});

describe('a program on one case', () => {
  it('agrees with CPython on three console exercises, right and wrong', async () => {
    const runs = [
      caseRun(SUM_OF_N, '3\n10\n20\n12\n', '42\n'),
      caseRun(SUM_OF_N, '2\n1\n1\n', '3\n'),
      caseRun(GREATER, '7\n12\n', 'First number: Second number: The greater is 12\n'),
      caseRun(GREATER, '7\n12\n', 'The greater is 12\n'),
      caseRun(UNTIL_STOP, 'a\nb\nc\nStop\nnot read\n', '3 words\n'),
    ];
    for (const run of runs) {
      const outcome = await onCase(run);
      const cpython = referee(run);
      expect({ passed: outcome.passed, line: outcome.line, actual: outcome.actual }).toEqual(cpython);
    }
    const wrong = await onCase(runs[1]);
    expect(wrong).toMatchObject({ passed: false, line: 1, message: "line 1: expected '3', got '2'" });
    // A prompt is part of stdout, as with CPython and piped input: a case that leaves it out fails on line 1.
    expect((await onCase(runs[3])).line).toBe(1);
  });

  it('runs in a namespace of its own: the session keeps its variables, and the program sees none of them', async () => {
    await python.run('total = "the session\'s"', undefined, {}, limits);
    const outcome = await onCase(caseRun("print('total' in globals(), __name__)\ntotal = 1", '', 'False __main__\n'));
    expect(outcome).toMatchObject({ passed: true, actual: 'False __main__\n' });
    expect((await python.run('total', undefined, {}, limits)).result?.['text/plain']).toBe('"the session\'s"');
  });

  it('raises EOFError when the case runs out of lines, as CPython does, with the traceback of the program', async () => {
    const outcome = await onCase(caseRun(SUM_OF_N, '3\n1\n2\n', '3\n'));
    expect(outcome).toMatchObject({ passed: false, error: 'EOFError', message: 'raised EOFError: EOF when reading a line' });
    expect(outcome.stderr).toContain('line 4, in <module>');
    expect(outcome.stderr).not.toContain('programs.py');
  });

  it('compares as a judge by default, or exactly, or numbers within a tolerance, or by the teacher\'s function', async () => {
    const sloppy = "print('4  ')\nprint()\nprint()";
    expect((await onCase(caseRun(sloppy, '', '4\n'))).passed).toBe(true);
    expect(await onCase(caseRun(sloppy, '', '4\n', { rule: 'exact' }))).toMatchObject({ passed: false, line: 1 });
    const float = 'print(0.1 + 0.2, "apples")';
    expect(await onCase(caseRun(float, '', '0.3 apples\n'))).toMatchObject({ passed: false, message: "line 1: expected '0.3 apples', got '0.30000000000000004 apples'" });
    expect((await onCase(caseRun(float, '', '0.3 apples\n', { rule: 'numbers', tolerance: 1e-9 }))).passed).toBe(true);
    expect((await onCase(caseRun(float, '', '0.3 pears\n', { rule: 'numbers', tolerance: 1e-9 }))).passed).toBe(false);
    const checkSource = 'def compare_output(expected, actual):\n    assert actual.lower() == expected.lower(), "the words differ"\n';
    const byFunction = { rule: 'function' as const, checkSource, compareName: 'compare_output' };
    expect((await onCase(caseRun("print('HELLO')", '', 'hello\n', byFunction))).passed).toBe(true);
    expect(await onCase(caseRun("print('bye')", '', 'hello\n', byFunction))).toMatchObject({ passed: false, message: 'the words differ', line: 1 });
    // More output than expected, and less.
    expect((await onCase(caseRun("print(1)\nprint(2)", '', '1\n'))).message).toBe("line 2: expected no more output, got '2'");
    expect((await onCase(caseRun('print(1)', '', '1\n2\n'))).message).toBe("line 2: expected '2', but the output ended");
  });
});

describe('the comparison on the page', () => {
  it('gives the lines and messages CPython gives: the spaces str.rstrip() and split() take, the numbers float() reads, the lines as repr() writes them', () => {
    const pairs: [string, string, ProgramTests['rule'], number][] = [
      ['42\n', '42 \t\n\n\n', 'judge', 0],
      ['42\n', '42\x85\u3000\u00a0\n', 'judge', 0],
      ['42\n', '42\u200b\n', 'judge', 0],
      ['42\n', '42\ufeff\n', 'judge', 0],
      ['a\n\nb\n', 'a\nb\n', 'judge', 0],
      ['a \n', 'a\n', 'exact', 0],
      ['1\r\n2\n', '1\n2\n', 'judge', 0],
      ['1\r\n2\n', '1\n2\n', 'exact', 0],
      ['1000 apples\n', '1_000 apples\n', 'numbers', 0],
      ['1000\n', '1__000\n', 'numbers', 0],
      ['1000\n', '1e3\n', 'numbers', 0],
      ['0.5 .5 5. 5\n', '.5 0.5 5 5.0\n', 'numbers', 0],
      ['inf -Infinity\n', 'INF -inf\n', 'numbers', 0],
      ['nan\n', 'nan\n', 'numbers', 0],
      ['nan\n', 'NaN\n', 'numbers', 0],
      ['0x10\n', '16\n', 'numbers', 0],
      ['-0 +3\n', '0 3\n', 'numbers', 0],
      ['3.14159\n', '3.1416\n', 'numbers', 1e-4],
      ['3.14159\n', '3.1416\n', 'numbers', 1e-6],
      ['100\n', '100.5\n', 'numbers', 0.01],
      ['1e308\n', '1e400\n', 'numbers', 0.5],
      ['x\u3000y\n', 'x y\n', 'numbers', 0],
      ["it's\n", 'its\n', 'judge', 0],
      ['say "hi"\n', "say 'hi' \"now\"\n", 'judge', 0],
      ['tab\there\n', 'back\\slash\x00\x7f\x9f\u00ad é 🐍 \u2028 \ud800 \u{10ffff}\n', 'exact', 0],
      ['one\n', '', 'judge', 0],
      ['', 'more\n', 'judge', 0],
    ];
    const ours = pairs.map(([expected, actual, rule, tolerance]) => {
      const line = firstDifference(expected, actual, rule, tolerance);
      return [line, line === null ? null : tellText(differenceMessage(expected, actual, rule, line))];
    });
    expect(ours).toEqual(refereeMessages(pairs));
    // Not all agree: the referee tells differences apart.
    expect(ours.filter(([line]) => line === null).length).toBeGreaterThan(5);
    expect(ours.filter(([line]) => line !== null).length).toBeGreaterThan(5);
  });
});

describe('what the Python that runs a hand-in holds', () => {
  it("never holds a case's expected output: a search of its memory after the cases ran finds none, by any rule", async () => {
    const pyodide: PyodideInterface = await loadPyodide();
    const student = new WorkerSession(pyodide, null);
    await student.start();
    const expected = `zebra ${crypto.randomUUID()} expected\n`;
    const typed = `giraffe-${crypto.randomUUID()}`;
    const source = 'line = input()\nprint(line.upper())';
    for (const program of [
      { rule: 'judge' as const, cases: [{ name: 'one', input: `${typed}\n`, expected, points: 1 }] },
      { rule: 'exact' as const, cases: [{ name: 'one', input: `${typed}\n`, expected, points: 1 }] },
      { rule: 'numbers' as const, tolerance: 0.1, cases: [{ name: 'one', input: `${typed}\n`, expected, points: 1 }] },
      { rule: 'function' as const, compareName: 'compare_output', cases: [{ name: 'one', input: `${typed}\n`, expected, points: 1 }] },
    ]) {
      const assignment = await makeAssignment({
        title: 'Shout',
        instructions: '',
        starterCode: '',
        checkSource: 'def compare_output(expected, actual):\n    assert expected == actual, "not the same"\n',
        checks: [],
        timeLimitSeconds: 5,
        program,
      });
      const [result] = await runCases(
        assignment,
        { from: 'file', file: 'main.py', source },
        (run) => student.runProgram(run),
        async (checkSource, name, want, got) => judge.compareOutputs(checkSource, name, want, got),
        2000,
      );
      expect(result).toMatchObject({ passed: false, case: { expected, actual: `${typed.toUpperCase()}\n` } });
    }
    // Pyodide's wasm memory: every Python object of this interpreter lives in it.
    const heap = Buffer.from((pyodide as unknown as { _module: { HEAPU8: Uint8Array } })._module.HEAPU8.buffer);
    // The search finds what the program was given and what it printed...
    expect(heap.indexOf(Buffer.from(typed))).toBeGreaterThanOrEqual(0);
    expect(heap.indexOf(Buffer.from(typed.toUpperCase()))).toBeGreaterThanOrEqual(0);
    // ...and nothing of what it should have printed.
    expect(heap.indexOf(Buffer.from(expected.trim()))).toBe(-1);
    expect(heap.indexOf(Buffer.from(expected.split(' ')[1]))).toBe(-1);
  });
});

describe('program cases in an assignment', () => {
  let db: PyTabsDB;
  let manager: AssignmentManager;
  const draft: AssignmentDraft = {
    title: 'Sum of N',
    instructions: 'Read N, then N numbers; print their sum.',
    starterCode: '',
    checkSource: '',
    checks: [],
    timeLimitSeconds: 5,
    program: {
      rule: 'judge',
      cases: [
        { name: 'three numbers', input: '3\n10\n20\n12', expected: '42\n', points: 2 },
        { name: 'none', input: '0\n', expected: '0\n', points: 1 },
      ],
    },
  };

  beforeAll(async () => {
    const device = await portableDevice('program-tests');
    db = device.db;
    manager = {
      ...device,
      runCheck: (_id, source, name, options) => python.runCheck(source, name, options?.outputChars ?? 1000),
      runProgram: (_id, run) => python.runProgram(run),
      history: (id) => new RoundHistory(db, id),
      readFile: async (id, file) => {
        const data = await readFileData(db, id, file);
        if (!data) throw new Error(`No file named ${file}.`);
        return data;
      },
      scratchHost: () => {
        throw new Error('grading workers run in the browser');
      },
    };
  });

  it('keeps the digest of files made before program tests, and refuses a case changed after saving', async () => {
    const { program: _, ...old } = draft;
    const plain = await makeAssignment({ ...old, checkSource: 'def check_x():\n    pass\n' });
    const { title, instructions, starterCode, checkSource, checks, timeLimitSeconds } = plain;
    expect(plain.digest).toBe(await sha256Hex(encodeJson([title, instructions, starterCode, checkSource, checks, timeLimitSeconds])));
    expect(plain.program).toBeUndefined();

    const a = await makeAssignment(draft);
    // An input's last line gets its newline, as a terminal's Enter gives it.
    expect(a.program?.cases[0].input).toBe('3\n10\n20\n12\n');
    expect(await readAssignment({ format: 'pytabs-assignment', version: 2, ...a })).toEqual(a);
    const forged = { format: 'pytabs-assignment', version: 2, ...a, program: { ...a.program, cases: [{ ...a.program!.cases[0], expected: 'anything\n' }, a.program!.cases[1]] } };
    await expect(readAssignment(forged)).rejects.toThrow(/does not match its digest/);
    await expect(makeAssignment({ ...draft, program: { rule: 'function', compareName: 'compare_output', cases: draft.program!.cases } })).rejects.toThrow(/define no function compare_output/);
    await expect(makeAssignment({ ...draft, program: { rule: 'judge', cases: [draft.program!.cases[0], { ...draft.program!.cases[1], name: 'three numbers' }] } })).rejects.toThrow(/Two tests are named/);
  });

  it("tests the student's latest Code message, or the one they mark, and hands in which one it was", async () => {
    const teacherId = crypto.randomUUID();
    await putSession(db, newSessionRecord(teacherId, 'Teacher'));
    const { file } = await saveAsAssignment(manager, teacherId, draft);
    const studentId = (await importSession(manager, { name: file.name, data: file.data })).sessionId;
    expect((await checkWork(manager, studentId)).map((r) => [r.name, r.passed, tellText(r.message)])).toEqual([
      ['three numbers', false, 'not run: there is no Code message to test yet'],
      ['none', false, 'not run: there is no Code message to test yet'],
    ]);

    const history = new RoundHistory(db, studentId);
    const say = (message: string) => history.insert((seq) => ({ ...newRound(studentId, seq, message, []), state: 'finished' as const }));
    await say(SUM_OF_N);
    // A later message that only looks at a value: it would be "the latest", so the student marks message 1.
    await say('n = int(input())\nprint(n * 0)');
    const latest = await checkWork(manager, studentId);
    expect(latest.map((r) => [r.name, r.passed, r.earned])).toEqual([
      ['three numbers', false, 0],
      ['none', true, 1],
    ]);
    expect(latest[0].case).toMatchObject({ input: '3\n10\n20\n12\n', expected: '42\n', actual: '0\n', line: 1 });
    expect(tellText(latest[0].message)).toBe("line 1: expected '42', got '0'");

    await markAnswer(manager, studentId, 1);
    const marked = await checkWork(manager, studentId);
    expect(marked.map((r) => [r.name, r.passed, r.earned])).toEqual([
      ['three numbers', true, 2],
      ['none', true, 1],
    ]);
    const handed = await handIn(manager, studentId, 'Ada', marked);
    const submission = readSubmission(JSON.parse(strFromU8(unzipSync(handed.data)['submission.json'])));
    expect(submission.answer).toBe(1);
    // The hand-in's history keeps both messages, so grading finds the marked one.
    expect(JSON.parse(strFromU8(unzipSync(handed.data)['history.json'])).rounds.map((r: { seq: number }) => r.seq)).toEqual([1, 2]);
  });

  it("records a case from the teacher's latest Code message that ran: the lines typed, and what it printed", () => {
    const ran = newRound('t', 1, SUM_OF_N, []);
    for (const e of [
      { type: 'input', block: 0, request: 'a', prompt: '', text: '2' },
      { type: 'input', block: 0, request: 'b', prompt: '', text: '5' },
      { type: 'input', block: 0, request: 'c', prompt: '', text: '7' },
      { type: 'stdout', block: 0, text: '12\n' },
    ] as const)
      appendEvent(ran, e);
    ran.state = 'finished';
    const asked = { ...newRound('t', 2, 'what is n?', []), kind: 'ask' as const, state: 'finished' as const };
    expect(recordedCase([ran, asked])).toEqual({ input: '2\n5\n7\n', expected: '12\n', seq: 1 });
    expect(recordedCase([asked])).toBeNull();
  });

  it('tests a named file instead, and the grades table has a column per case and the program tested', async () => {
    const withFile = await makeAssignment({ ...draft, program: { ...draft.program!, file: 'main.py' } });
    const teacherId = crypto.randomUUID();
    await putSession(db, newSessionRecord(teacherId, 'Teacher 2'));
    await commitChange(db, teacherId, { files: { put: [{ path: 'main.py', data: new TextEncoder().encode('# your program\n'), modifiedAt: 1 }] } });
    const { file } = await saveAsAssignment(manager, teacherId, { ...draft, program: { ...draft.program!, file: 'main.py' } });
    const studentId = (await importSession(manager, { name: file.name, data: file.data })).sessionId;
    await commitChange(db, studentId, { files: { put: [{ path: 'main.py', data: new TextEncoder().encode(SUM_OF_N), modifiedAt: 2 }] } });
    expect((await checkWork(manager, studentId)).map((r) => r.passed)).toEqual([true, true]);

    const row: GradeRow = {
      id: 1, file: 'a.pytabs.zip', student: 'Ada', status: 'graded', total: 2, ms: 1200, errors: [], claimed: [], work: null, program: 'the file main.py',
      results: [
        { name: 'three numbers', passed: true, message: '', error: null, output: '42\n', points: 2, earned: 2 },
        { name: 'none', passed: false, message: "line 1: expected '0', got ''", error: null, output: '', points: 1, earned: 0 },
      ],
    };
    expect(gradesTable(withFile, [row])).toEqual([
      ['Student', 'File', 'three numbers (2)', 'none (1)', 'Total (3)', 'Time (s)', 'Status', 'Messages', 'Errors', 'Program tested', 'Read this one'],
      ['Ada', 'a.pytabs.zip', 2, 0, 2, 1.2, 'graded', "none: line 1: expected '0', got ''", '', 'the file main.py', ''],
    ]);
  });
});
