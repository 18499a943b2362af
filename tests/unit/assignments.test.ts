import 'fake-indexeddb/auto';
import { describe, it, expect, beforeAll } from 'vitest';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { loadPyodide } from 'pyodide';
import type { PyTabsDB } from '../../src/lib/storage/db';
import { commitChange } from '../../src/lib/storage/commit';
import { newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { getAssignment } from '../../src/lib/storage/assignments';
import { portableDevice } from './portable-device';
import { importSession } from '../../src/lib/portability';
import { checkNames, makeAssignment, readAssignment, readSubmission } from '../../src/lib/portability/assignment-file';
import { forgetGrades, keepGrades, keptGrades, saveAsAssignment } from '../../src/lib/assignments/session-assignment';
import { checkWork, handIn } from '../../src/lib/assignments/student';
import { GradingRun, handInBudgetMs, type GradeRow } from '../../src/lib/assignments/grading';
import type { AssignmentManager } from '../../src/lib/assignments/manager';
import { WorkerSession } from '../../workers/runtime/session';
import { RoundHistory } from '../../src/lib/storage/session-store';
import { readFileData } from '../../src/lib/storage/files';
import { gradesTable } from '../../src/lib/assignments/grades-file';
import { setLocale } from '../../src/lib/i18n/catalog';
import { said } from '../../src/lib/i18n/said';
import { tellText } from '../../src/lib/i18n/text';

// Assignments as files on real (fake-indexeddb) storage, with checks on real Pyodide: what
// Save as assignment writes, what a student's session gets, what a hand-in holds, and what
// grading refuses before any worker starts (grading itself runs in workers: tests/e2e/assignments.spec.ts).

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };
const CHECKS = `
def check_total():
    "total is the sum of column n"
    assert total == 10, "total should be the sum of column n"

def check_mean():
    assert mean == 2.5, "mean should be 2.5"

def check_name():
    assert name == "Ada", "name should be Ada"
`;
const draft = {
  title: 'Sums',
  instructions: '# Sums\nAdd up column **n** of `data.csv`.',
  starterCode: 'rows = open("data.csv").read().split()\n',
  checkSource: CHECKS,
  checks: [{ name: 'check_total', points: 2 }],
  timeLimitSeconds: 5,
};

let db: PyTabsDB;
let manager: AssignmentManager;
let python: WorkerSession;
let bobHandIn: Uint8Array;

beforeAll(async () => {
  const device = await portableDevice('assignments');
  db = device.db;
  python = new WorkerSession(await loadPyodide(), null);
  await python.start();
  manager = {
    ...device,
    // The student's Python: one real interpreter stands for the session's worker.
    runCheck: (_id, source, name, options) => python.runCheck(source, name, options?.outputChars ?? 1000),
    runProgram: (_id, run) => python.runProgram(run),
    history: (id) => new RoundHistory(db, id),
    readFile: async (id, path) => {
      const data = await readFileData(db, id, path);
      if (!data) throw new Error(`No file named ${path}.`);
      return data;
    },
    scratchHost: () => {
      throw new Error('grading workers run in the browser');
    },
  };
});

describe('assignment.json', () => {
  it('lists the check functions and gives each its points (1 unless set)', async () => {
    expect(checkNames(CHECKS)).toEqual(['check_total', 'check_mean', 'check_name']);
    const a = await makeAssignment(draft);
    expect(a.checks).toEqual([
      { name: 'check_total', points: 2 },
      { name: 'check_mean', points: 1 },
      { name: 'check_name', points: 1 },
    ]);
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a draft without checks, and a file whose checks were changed after saving', async () => {
    await expect(makeAssignment({ ...draft, checkSource: 'x = 1' })).rejects.toThrow(/no function/);
    const a = await makeAssignment(draft);
    const forged = { format: 'pytabs-assignment', version: 1, ...a, checkSource: 'def check_total():\n    pass\n' };
    await expect(readAssignment(forged)).rejects.toThrow(/does not match its digest/);
    expect(await readAssignment({ format: 'pytabs-assignment', version: 1, ...a })).toEqual(a);
  });

  it('gives a hand-in twice its cells’, checks’ and cases’ time limits plus a minute for each worker start they may need', async () => {
    const cases = ['1', '2', '3'].map((n) => ({ name: `case ${n}`, input: `${n}\n`, expected: `${n}\n`, points: 1, ...(n === '3' ? { timeLimitSeconds: 20 } : {}) }));
    const a = await makeAssignment({ ...draft, program: { rule: 'judge', cases } });
    expect(a.checks).toHaveLength(3);
    // Four cells and three checks at 5 s, cases of 5, 5 and 20 s; starts: the first, then one after each check and case.
    expect(handInBudgetMs(a, 4)).toBe(2 * (5_000 * (4 + 3) + 30_000) + 60_000 * (1 + 3 + 3));
    expect(handInBudgetMs(a, 0)).toBe(2 * (5_000 * 3 + 30_000) + 60_000 * 7);
  });
});

describe('Save as assignment, the student, Hand in', () => {
  let teacherId: string;
  let assignmentFile: Uint8Array;
  let studentId: string;

  beforeAll(async () => {
    teacherId = crypto.randomUUID();
    await putSession(db, newSessionRecord(teacherId, 'Teacher'));
    await commitChange(db, teacherId, {
      files: { put: [{ path: 'data.csv', data: strToU8('1\n2\n3\n4\n'), modifiedAt: 1 }] },
      replay: ['def solution():\n    return 10'],
    });
  });

  it('writes the starter files and assignment.json, not the teacher’s history or variables, and keeps the id on a second save', async () => {
    const { assignment, file } = await saveAsAssignment(manager, teacherId, draft);
    expect(file.name).toBe('Sums.pytabs.zip');
    const entries = unzipSync(file.data);
    expect(Object.keys(entries).sort()).toEqual(['assignment.json', 'files/data.csv', 'history.ipynb', 'history.json', 'manifest.json', 'manifest.sig']);
    expect(JSON.parse(strFromU8(entries['history.json'])).rounds).toEqual([]);
    expect((await getAssignment(db, teacherId))).toEqual({ role: 'teacher', assignment, earlier: [] });
    // The teacher's tab is named as the class's file is.
    expect((await db.get('sessions', teacherId))?.name).toBe('Sums');
    const again = await saveAsAssignment(manager, teacherId, { ...draft, instructions: 'New words' });
    expect(again.assignment.id).toBe(assignment.id);
    expect(again.assignment.digest).not.toBe(assignment.digest);
    // The first version is remembered, so its hand-ins are told from forged copies.
    expect((await getAssignment(db, teacherId))?.earlier).toEqual([assignment.digest]);
    assignmentFile = file.data;
  });

  it('opens for a student as a new session carrying the assignment as the student’s', async () => {
    const opened = await importSession(manager, { name: 'Sums.pytabs.zip', data: assignmentFile });
    studentId = opened.sessionId;
    expect(opened.files).toEqual(['data.csv']);
    const found = await getAssignment(db, studentId);
    expect(found?.role).toBe('student');
    expect(found?.assignment.title).toBe('Sums');
  });

  it('checks the work (two of three pass) without changing a variable, and hands in the results', async () => {
    await python.run('total = 10\nmean = 2.5\nname = "Bob"', undefined, {}, limits);
    const heard: string[] = [];
    const results = await checkWork(manager, studentId, (r) => heard.push(r.name));
    expect(heard).toEqual(['check_total', 'check_mean', 'check_name']);
    expect(results.map((r) => [r.name, r.passed, r.earned])).toEqual([
      ['check_total', true, 2],
      ['check_mean', true, 1],
      ['check_name', false, 0],
    ]);
    expect(results[2].message).toBe('name should be Ada');
    expect((await python.run('name', undefined, {}, limits)).result?.['text/plain']).toBe("'Bob'");

    const file = await handIn(manager, studentId, '  Bob Stone ', results, 1_700_000_000_000);
    bobHandIn = file.data;
    expect(file.name).toBe('Sums-Bob Stone.pytabs.zip');
    const entries = unzipSync(file.data);
    const submission = readSubmission(JSON.parse(strFromU8(entries['submission.json'])));
    expect(submission.student).toBe('Bob Stone');
    expect(submission.results.map((r) => r.earned)).toEqual([2, 1, 0]);
    expect(entries['files/data.csv']).toBeDefined();
    const listed = JSON.parse(strFromU8(entries['manifest.json'])).entries;
    expect(Object.keys(listed)).toContain('submission.json');
    await expect(handIn(manager, studentId, '   ', results)).rejects.toThrow(/Type your name/);
  });

  it('grading refuses, with the reason, a file that is not a hand-in of this assignment, before any worker starts', async () => {
    const teacher = (await getAssignment(db, teacherId))!.assignment;
    const otherTeacher = crypto.randomUUID();
    await putSession(db, newSessionRecord(otherTeacher, 'Other'));
    await saveAsAssignment(manager, otherTeacher, { ...draft, title: 'Other exercise' });
    const otherStudent = (await importSession(manager, { name: 'o.pytabs.zip', data: (await saveAsAssignment(manager, otherTeacher, { ...draft, title: 'Other exercise' })).file.data })).sessionId;
    const wrong = await handIn(manager, otherStudent, 'Eve', []);
    const tampered = unzipSync(wrong.data);
    tampered['files/extra.txt'] = strToU8('not in the manifest');

    const run = new GradingRun(manager, teacher);
    await run.add([
      { name: wrong.name, data: wrong.data },
      { name: 'Sums.pytabs.zip', data: assignmentFile },
      { name: 'notes.txt', data: strToU8('hello') },
      { name: 'tampered.pytabs.zip', data: zipSync(tampered) },
    ]);
    expect(run.rows.map((r) => r.status)).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect(tellText(run.rows[0].errors[0])).toBe('It is a hand-in of another assignment ("Other exercise"), not of "Sums".');
    expect(tellText(run.rows[1].errors[0])).toMatch(/not a hand-in: it has no submission.json/);
    expect(tellText(run.rows[2].errors[0])).toMatch(/not a zip archive/);
    expect(tellText(run.rows[3].errors[0])).toMatch(/"files\/extra.txt" is in the archive but not in its manifest/);
    expect(run.progress).toEqual({ done: 4, total: 4 });
  });

  it('says of a copy of the checks that is not the teacher’s whether it is an earlier version they saved or one they never did', async () => {
    const found = (await getAssignment(db, teacherId))!;
    // Bob handed in the first version; the teacher has saved a second since.
    const handedOut = readAssignment(JSON.parse(strFromU8(unzipSync(bobHandIn)['assignment.json'])));
    expect(found.earlier).toEqual([(await handedOut).digest]);
    // A forger's copy: checks that always pass, its own digest made to match and claimed in submission.json.
    const forged = await makeAssignment({ ...draft, checkSource: CHECKS.replace(/    assert .*/g, '    pass') }, found.assignment.id);
    const entries = unzipSync(bobHandIn);
    entries['assignment.json'] = strToU8(JSON.stringify({ format: 'pytabs-assignment', version: 1, ...forged }));
    const submission = JSON.parse(strFromU8(entries['submission.json']));
    entries['submission.json'] = strToU8(JSON.stringify({ ...submission, assignment: { ...submission.assignment, digest: forged.digest } }));
    const manifest = JSON.parse(strFromU8(entries['manifest.json']));
    for (const name of ['assignment.json', 'submission.json']) {
      const data = entries[name];
      manifest.entries[name] = { sha256: Buffer.from(await crypto.subtle.digest('SHA-256', data)).toString('hex'), size: data.byteLength };
    }
    entries['manifest.json'] = strToU8(JSON.stringify(manifest));
    delete entries['manifest.sig'];
    const files = [{ name: 'bob.pytabs.zip', data: bobHandIn }, { name: 'forged.pytabs.zip', data: zipSync(entries) }];

    const notes = async (earlier: string[] | null) => {
      // The note is read with the file, before its worker: this test has none, so the rows end in "error".
      const run = new GradingRun(manager, found.assignment, undefined, { earlier });
      await run.add(files);
      return run.rows.map((r) => r.note && tellText(r.note));
    };
    expect(await notes(found.earlier!)).toEqual([
      'Handed in from an earlier version of this assignment; graded with your current checks.',
      'Its copy of the checks is no version you saved (changed, with its digests made to match); it was ignored: graded with your checks.',
    ]);
    // Versions saved before they were kept: which it is cannot be told, and the note says both.
    const unknown = 'Its copy of the checks is not your current one (an earlier version, or changed by hand); it was ignored: graded with your checks.';
    expect(await notes(null)).toEqual([unknown, unknown]);
  });

  it('keeps the grades table for the assignment version it was graded with, and a page closed mid-grading marks its unfinished rows', async () => {
    const teacher = (await getAssignment(db, teacherId))!.assignment;
    const row = (id: number, student: string, status: GradeRow['status']): GradeRow => ({
      id, file: `${student}.pytabs.zip`, student, status, results: [], total: id, ms: 5, errors: [], claimed: [], work: { cells: [{ code: 'total = 10', output: '' }], files: [] },
    });
    await keepGrades(manager, teacherId, teacher.digest, [row(1, 'Ann', 'graded'), row(2, 'Ben', 'grading'), row(3, 'Cy', 'waiting')]);
    const kept = await keptGrades(manager, teacherId, teacher.digest);
    expect(kept?.map((r) => [r.student, r.status, r.work?.cells[0].code])).toEqual([['Ann', 'graded', 'total = 10'], ['Ben', 'grading', 'total = 10'], ['Cy', 'waiting', 'total = 10']]);
    // Graded with another version of the assignment: not this table.
    expect(await keptGrades(manager, teacherId, '0'.repeat(64))).toBeNull();

    const run = new GradingRun(manager, teacher, undefined, { kept: kept! });
    expect(run.rows.map((r) => [r.id, r.status, r.errors.map(tellText)])).toEqual([
      [1, 'graded', []],
      [2, 'stopped', ['Not graded: the page was closed while it was graded.']],
      [3, 'stopped', ['Not graded: the page was closed while it was graded.']],
    ]);
    expect(run.progress).toEqual({ done: 3, total: 3 });
    await run.add([{ name: 'notes.txt', data: strToU8('hello') }]);
    expect(run.rows.map((r) => r.id)).toEqual([1, 2, 3, 4]);

    await forgetGrades(manager, teacherId);
    expect(await keptGrades(manager, teacherId, teacher.digest)).toBeNull();
    // A session deleted while its table was being kept gets none.
    await keepGrades(manager, 'no-such-session', teacher.digest, [row(1, 'Ann', 'graded')]);
    expect(await keptGrades(manager, 'no-such-session', teacher.digest)).toBeNull();
  });

  it('keeps grades as said texts: a table graded in English reads in French, and a row kept in English words still reads', async () => {
    const teacher = (await getAssignment(db, teacherId))!.assignment;
    // A refusal, written while the app was in English.
    const run = new GradingRun(manager, teacher);
    await run.add([{ name: 'Sums.pytabs.zip', data: assignmentFile }]);
    const graded: GradeRow = {
      id: 2, file: 'ann.pytabs.zip', student: 'Ann', status: 'graded', total: 2, ms: 1500, claimed: [], work: null,
      results: [
        { name: 'check_total', passed: true, message: 'total is the sum of column n', error: null, output: '', points: 2, earned: 2 },
        { name: 'check_mean', passed: false, message: said('asg_did_not_finish', { seconds: 30 }), error: 'TimeoutError', output: '', points: 1, earned: 0 },
        { name: 'check_name', passed: false, message: 'name should be Ada', error: null, output: '', points: 1, earned: 0 },
      ],
      errors: [said('asg_subject', { name: 'check_mean', text: said('asg_did_not_finish', { seconds: 30 }) })],
      flags: [said('asg_flag_cell', { cell: 1, line: 2, why: said('asg_guard_imports', { what: said('asg_guard_js'), name: 'js' }) })],
    };
    // A row an older PyTabs kept, in English words.
    const older: GradeRow = { id: 3, file: 'cy.pytabs.zip', student: 'Cy', status: 'stopped', total: 0, ms: 0, results: [], claimed: [], work: null, errors: ['Not graded: grading was stopped.'] };
    await keepGrades(manager, teacherId, teacher.digest, [...run.rows, graded, older]);
    const kept = (await keptGrades(manager, teacherId, teacher.digest))!;
    const english = gradesTable(teacher, kept);
    expect(english[0]).toEqual(['Student', 'File', 'check_total (2)', 'check_mean (1)', 'check_name (1)', 'Total (4)', 'Time (s)', 'Status', 'Messages', 'Errors', 'Read this one']);
    try {
      await setLocale('fr');
      const [header, refused, ann, cy] = gradesTable(teacher, kept);
      expect(header).toEqual(['Élève', 'Fichier', 'check_total (2)', 'check_mean (1)', 'check_name (1)', 'Total (4)', 'Durée (s)', 'État', 'Messages', 'Erreurs', 'À lire']);
      expect(refused.slice(5, 10)).toEqual(['', 0, 'refusé', '', 'Ce n’est pas un rendu : il n’a pas de submission.json (une session ou un fichier de devoir ?).']);
      expect(ann.slice(5)).toEqual([
        2,
        1.5,
        'noté',
        'check_mean : ne s’est pas terminé en 30 s; check_name : name should be Ada',
        'check_mean ne s’est pas terminé en 30 s',
        'cellule 1, ligne 2 : importe le JavaScript du navigateur (js)',
      ]);
      expect(cy.slice(7, 10)).toEqual(['arrêté', '', 'Not graded: grading was stopped.']);
    } finally {
      await setLocale('en');
    }
  });
});
