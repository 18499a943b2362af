import 'fake-indexeddb/auto';
import { describe, it, expect, beforeAll } from 'vitest';
import { loadPyodide } from 'pyodide';
import { openDb, type PyTabsDB } from '../../src/lib/storage/db';
import { getSession, newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { listFileRecords, readFileData } from '../../src/lib/storage/files';
import { listVariableRecords, readRestoreState } from '../../src/lib/storage/variables';
import { commitChange } from '../../src/lib/storage/commit';
import type { WorkerRunEvent } from '../../src/lib/worker-api';
import { WorkerSession } from '../../workers/runtime/session';
import { SessionStore } from '../../src/lib/storage/session-store';

// The worker's session logic, run in Node on real Pyodide against IndexedDB
// (fake-indexeddb here; the end-to-end suite covers Chromium's own).

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);
let db: PyTabsDB;

async function startSession(id: string): Promise<{ session: WorkerSession; report: Awaited<ReturnType<WorkerSession['start']>> }> {
  const session = new WorkerSession(await loadPyodide(), new SessionStore(db, id));
  return { session, report: await session.start() };
}

beforeAll(async () => {
  db = await openDb('worker-session-test');
  await putSession(db, newSessionRecord('s1', 'One'));
});

describe('WorkerSession', () => {
  let s: WorkerSession;

  beforeAll(async () => {
    await commitChange(db, 's1', { files: { put: [{ path: 'in/data.txt', data: new TextEncoder().encode('from storage'), modifiedAt: 1 }] } });
    s = (await startSession('s1')).session;
  });

  it('runs code with its stored files in the cwd and streams output in order', async () => {
    const events: WorkerRunEvent[] = [];
    const r = await s.run("print(open('in/data.txt').read())\nprint('to err', file=__import__('sys').stderr)\nlen('abc')", (e) => events.push(e), {}, limits);
    expect(r.status).toBe('ok');
    expect(r.result?.['text/plain']).toBe('3');
    expect(events.filter((e) => e.type === 'stdout').map((e) => (e as { text: string }).text).join('')).toBe('from storage\n');
    expect(events.some((e) => e.type === 'stderr' && e.text.includes('to err'))).toBe(true);
  });

  it('commits files Python writes, changes and deletes, with the counters', async () => {
    const r = await s.run("import os\nos.makedirs('out', exist_ok=True)\nopen('out/a.txt','w').write('A')\nopen('b.txt','w').write('B')", () => {}, {}, limits);
    expect(r.filesChanged.sort()).toEqual(['b.txt', 'out/a.txt']);
    expect(text(await readFileData(db, 's1', 'out/a.txt'))).toBe('A');
    const r2 = await s.run("os.remove('b.txt')\nopen('out/a.txt','w').write('AA')", () => {}, {}, limits);
    expect(r2.filesDeleted).toEqual(['b.txt']);
    expect(r2.filesChanged).toEqual(['out/a.txt']);
    expect(text(await readFileData(db, 's1', 'out/a.txt'))).toBe('AA');
    expect((await listFileRecords(db, 's1')).map((f) => f.path).sort()).toEqual(['in/data.txt', 'out/a.txt']);
    const rec = (await getSession(db, 's1'))!;
    // These two runs committed; the first test's run changed nothing and is the page's to count.
    expect(rec.totalExecutions).toBe(2);
    expect(rec.storageBytes).toBeGreaterThanOrEqual('from storage'.length + 2);
  });

  it('sees files written from outside on its next run, and rejects bad paths', async () => {
    await s.writeFile('new.txt', new TextEncoder().encode('outside'));
    const r = await s.run("open('new.txt').read()", () => {}, {}, limits);
    expect(r.result?.['text/plain']).toBe("'outside'");
    await s.renameFile('new.txt', 'renamed.txt');
    expect((await s.run("sorted(os.listdir('.'))", () => {}, {}, limits)).result?.['text/plain']).toBe("['in', 'out', 'renamed.txt']");
    await expect(s.writeFile('../x', new Uint8Array())).rejects.toThrow('leave the workspace');
    await expect(s.deleteFile('missing.txt')).rejects.toThrow('No file named');
    await s.deleteFile('renamed.txt');
    expect((await listFileRecords(db, 's1')).map((f) => f.path)).not.toContain('renamed.txt');
  });

  it('turns an interrupt pending when a run starts into an error result and goes on', async () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    s.setInterruptBuffer(buffer);
    try {
      buffer[0] = 2; // SIGINT, as a stop that arrived just before the run
      const r = await s.run("'never runs'", () => {}, {}, limits);
      expect(r.error?.ename).toBe('KeyboardInterrupt');
      expect(buffer[0]).toBe(0);
      expect((await s.run("'alive'", () => {}, {}, limits)).result?.['text/plain']).toBe("'alive'");
    } finally {
      s.setInterruptBuffer(new Uint8Array(new SharedArrayBuffer(1)));
    }
  });

  it('passes session variables to get_session_var', async () => {
    const r = await s.run("get_session_var('k', 'd'), get_session_var('nope', 'd')", () => {}, { k: 'v' }, limits);
    expect(r.result?.['text/plain']).toBe("('v', 'd')");
  });

  it('applies the size limits that come with each run, so a change in Settings reaches a live session', async () => {
    const tight = { variableBytes: 1024, sessionBytes: 100 * 1024 * 1024 };
    const first = await s.run("limited = 'x' * 5000", () => {}, {}, tight);
    expect(first.notPersisted.map((v) => v.name)).toEqual(['limited']);
    expect((await listVariableRecords(db, 's1')).find((v) => v.name === 'limited')).toMatchObject({ persisted: false });
    // The same live session, the limit raised: the value fits now and is saved.
    const second = await s.run("limited = 'y' * 5000", () => {}, {}, limits);
    expect(second.notPersisted).toEqual([]);
    expect((await listVariableRecords(db, 's1')).find((v) => v.name === 'limited')).toMatchObject({ persisted: true, kind: 'pickle' });
    await s.run('del limited', () => {}, {}, limits);
  });

  it('persists variables, definitions and imports, and a fresh interpreter restores them', async () => {
    await s.run('import json\ndef twice(x):\n    return 2 * x\nitems = [1, 2]\nitems.append(3)\ngone = 1', () => {}, {}, limits);
    await s.run('del gone\nalias = items\nalias.append(4)', () => {}, {}, limits);
    const vars = Object.fromEntries((await listVariableRecords(db, 's1')).map((v) => [v.name, v]));
    expect(vars.items.kind).toBe('pickle');
    expect(vars.twice.kind).toBe('replay');
    expect(vars.json.kind).toBe('replay');
    expect(vars.gone).toBeUndefined();

    const { session: fresh, report } = await startSession('s1');
    expect(report.failed).toEqual([]);
    // Each variable is its own pickle, so an alias comes back equal but no longer the same object.
    const r = await fresh.run("(items, alias == items, twice(21), json.dumps({'a': 1}), 'gone' in globals())", () => {}, {}, limits);
    expect(r.result?.['text/plain']).toBe('([1, 2, 3, 4], True, 42, \'{"a": 1}\', False)');
  });

  it('keeps the imports and definitions that ran before a statement failed', async () => {
    const r = await s.run('import fractions\ndef tenth(n):\n    return 10 / n\ntenth(0)\ndef never():\n    pass', () => {}, {}, limits);
    expect(r.error?.ename).toBe('ZeroDivisionError');
    const vars = Object.fromEntries((await listVariableRecords(db, 's1')).map((v) => [v.name, v]));
    expect([vars.tenth?.kind, vars.fractions?.kind, vars.never]).toEqual(['replay', 'replay', undefined]);
    const { session: fresh } = await startSession('s1');
    const back = await fresh.run("(tenth(4), fractions.Fraction(1, 2), 'never' in globals())", () => {}, {}, limits);
    expect(back.result?.['text/plain']).toBe("(2.5, Fraction(1, 2), False)");
    await s.run('del tenth, fractions', () => {}, {}, limits);
  });

  it('reports a failed commit, keeps the previous one, and saves the change on the next run', async () => {
    await s.run("before = 'committed'", () => {}, {}, limits);
    const record = (await getSession(db, 's1'))!;
    // A real failed transaction: the session record is missing while the run commits.
    await db.delete('sessions', 's1');
    const failed = await s.run("before = 'changed'\nafter = [1, 2]\nopen('late.txt', 'w').write('late')", () => {}, {}, limits);
    expect(failed.status).toBe('ok');
    expect(failed.commitError).toContain('not saved');
    // Said for the chat, which tells it in the reader's language; the browser's error stays its own words.
    expect(failed.commitSaid).toEqual({ key: 'w3_commit_failed', params: { error: expect.stringMatching(/Error/) } });
    await putSession(db, record);
    const pickled = async () => Object.fromEntries((await readRestoreState(db, 's1')).pickles.map((p) => [p.name, p.data.byteLength]));
    expect(Object.keys(await pickled())).not.toContain('after');
    expect(await readFileData(db, 's1', 'late.txt')).toBeUndefined();

    const retried = await s.run('pass', () => {}, {}, limits);
    expect(retried.commitError).toBeUndefined();
    expect(Object.keys(await pickled())).toEqual(expect.arrayContaining(['after', 'before']));
    expect(text(await readFileData(db, 's1', 'late.txt'))).toBe('late');
    const { session: fresh } = await startSession('s1');
    expect((await fresh.run('(before, after)', () => {}, {}, limits)).result?.['text/plain']).toBe("('changed', [1, 2])");
  });

  it('leaves the count of a run that changed nothing, or failed to commit, to the page, and counts a commit itself', async () => {
    const before = (await getSession(db, 's1'))!;
    const quiet = await s.run('1 + 1', () => {}, {}, limits);
    expect([quiet.commitError, quiet.uncounted]).toEqual([undefined, 1]);
    expect((await s.run('pass', () => {}, {}, limits)).uncounted).toBe(1);
    // Nothing was written for them: the page counts them (run-counts.ts).
    expect((await getSession(db, 's1'))!.totalExecutions).toBe(before.totalExecutions);

    const committed = await s.run("counted = 'yes'", () => {}, {}, limits);
    expect(committed.uncounted).toBeUndefined();
    expect((await getSession(db, 's1'))!.totalExecutions).toBe(before.totalExecutions + 1);

    // A commit that cannot be written (the session record is gone) is not counted either.
    await db.delete('sessions', 's1');
    const failed = await s.run("counted = 'again'", () => {}, {}, limits);
    expect(failed.commitError).toBeDefined();
    expect(failed.uncounted).toBe(1);
    await putSession(db, { ...before, totalExecutions: before.totalExecutions + 1 });
    const retried = await s.run('pass', () => {}, {}, limits);
    // The change it could not save is proposed again, with this run's own count.
    expect([retried.commitError, retried.uncounted]).toEqual([undefined, undefined]);
    expect((await getSession(db, 's1'))!.totalExecutions).toBe(before.totalExecutions + 2);
  });

  it('clear forgets variables in memory and storage but keeps files', async () => {
    await s.clear();
    expect((await s.run('items', () => {}, {}, limits)).error?.ename).toBe('NameError');
    const state = await readRestoreState(db, 's1');
    expect([state.variables.length, state.pickles.length, state.replay.length]).toEqual([0, 0, 0]);
    expect((await listFileRecords(db, 's1')).map((f) => f.path).sort()).toEqual(['in/data.txt', 'late.txt', 'out/a.txt']);
  });
});

describe('a stateless WorkerSession', () => {
  it('runs and keeps nothing in storage', async () => {
    const scratch = new WorkerSession(await loadPyodide(), null);
    await scratch.start();
    const r = await scratch.run("open('x.txt','w').write('x')\nv = 5\nv", () => {}, {}, limits);
    expect(r.result?.['text/plain']).toBe('5');
    expect(r.filesChanged).toEqual(['x.txt']);
    const keys = await db.getAllKeys('files');
    expect(keys.every((k) => (k as string[])[0] === 's1')).toBe(true);
  });

  it('pickles none of its variables after a run (a graded hand-in may hold large ones); a stored session does', async () => {
    const watched = [
      'class Watched:',
      '    pickled = 0',
      '    def __reduce__(self):',
      '        Watched.pickled += 1',
      '        return (Watched, ())',
      'w = Watched()',
    ].join('\n');
    const scratch = new WorkerSession(await loadPyodide(), null);
    await scratch.start();
    await scratch.run(watched, () => {}, {}, limits);
    const r = await scratch.run('Watched.pickled', () => {}, {}, limits);
    expect(r.result?.['text/plain']).toBe('0');
    expect(r.notPersisted).toEqual([]);

    await putSession(db, newSessionRecord('s-watched', 'Watched'));
    const { session: stored } = await startSession('s-watched');
    await stored.run(watched, () => {}, {}, limits);
    expect((await stored.run('Watched.pickled', () => {}, {}, limits)).result?.['text/plain']).toBe('1');
  });
});
