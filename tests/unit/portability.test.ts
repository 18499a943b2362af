import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { openDb, sessionRange, type PyTabsDB } from '../../src/lib/storage/db';
import { commitChange } from '../../src/lib/storage/commit';
import { getSession, newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { readAllFiles } from '../../src/lib/storage/files';
import { readRestoreState } from '../../src/lib/storage/variables';
import { DEFAULT_SETTINGS, type Settings } from '../../src/lib/storage/settings';
import { appendEvent, newRound } from '../../src/lib/chat/round';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import { messageParts, splitMessage } from '../../src/lib/chat/blocks';
import { portableDevice } from './portable-device';
import {
  confirmImportedState,
  discardImportedState,
  downloadAllWork,
  eraseAllData,
  exportSession,
  fetchPrepared,
  heldState,
  importSession,
  ImportError,
  onDataErased,
  openPrepared,
  preparedLinkTarget,
  resetToOriginal,
  sessionOrigin,
  type PortableManager,
} from '../../src/lib/portability';

// Sessions as files, on real (fake-indexeddb) storage: what an export holds, read back with
// fflate and Debian's nbformat, what an import writes, and what it refuses without writing.

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
let n = 0;

/**
 * The manager as portability sees it, over a real database: ownership and workers belong to
 * the page (covered end to end), so here a claim always succeeds and restarts are recorded.
 */
interface Device extends PortableManager {
  /** The test's own connection, to seed and read storage. */
  db: PyTabsDB;
  restarts: { id: string; restart: boolean }[];
  disposed: number;
}

async function device(settings: Partial<Settings> = {}): Promise<Device> {
  const restarts: Device['restarts'] = [];
  const d: Device = Object.assign(
    await portableDevice('portability', {
      getSettings: () => ({ ...DEFAULT_SETTINGS, ...settings }),
      storageChanged: (id, restart) => void restarts.push({ id, restart }),
      dispose: async () => void d.disposed++,
    }),
    { restarts, disposed: 0 },
  );
  return d;
}

function round(sessionId: string, seq: number, message: string, events: RoundEvent[]): Round {
  const r = newRound(sessionId, seq, message, [], 1_700_000_000_000 + seq);
  appendEvent(r, { type: 'round_start', at: r.createdAt });
  for (const e of events) appendEvent(r, e);
  const state = events.some((e) => e.type === 'exec_error') ? 'failed' : 'finished';
  appendEvent(r, { type: 'round_end', durationMs: 12, state });
  r.state = state;
  r.durationMs = 12;
  return r;
}

/** A session with files (one binary, one in a folder, one named as only Python names files), variables, a replay log and a history with every kind of output. */
async function seedSession(db: PyTabsDB, id = 's1', name = 'Lesson 3: données') {
  await putSession(db, { ...newSessionRecord(id, name, 1000), vars: { region: 'north', note: 'a <b> c' } });
  const binary = new Uint8Array(256).map((_, i) => i);
  await commitChange(db, id, {
    files: {
      put: [
        { path: 'data.csv', data: bytes('x\n1\n2\n'), modifiedAt: 1111 },
        { path: 'out/bytes.bin', data: binary, modifiedAt: 2222 },
        { path: 'what?.txt', data: bytes('python wrote this name'), modifiedAt: 3333 },
      ],
    },
    variables: {
      put: [
        { name: 'total', type: 'int', sizeBytes: 5, preview: '3', persisted: true, kind: 'pickle', hash: 'h1', pickle: new Uint8Array([128, 4, 75, 3, 46]) },
        { name: 'mean', type: 'function', sizeBytes: 0, preview: '<function mean>', persisted: true, kind: 'replay' },
        { name: 'gen', type: 'generator', sizeBytes: 100, preview: '<generator>', persisted: false, kind: 'none', reason: 'generators cannot be pickled' },
      ],
    },
    replay: ['import statistics', 'def mean(xs):\n    return sum(xs) / len(xs)'],
  });
  const rounds = [
    round(id, 1, 'Load the data:\n\n```python\nprint("hi")\nimport sys; print("warn", file=sys.stderr)\n1 + 2\n```\n\nThen a picture:\n\n```python\nshow()\n```\n\nAnd a mistake:\n\n```python\n1/0\n```', [
      { type: 'code_start', block: 0, total: 3, code: 'print("hi")\nimport sys; print("warn", file=sys.stderr)\n1 + 2' },
      { type: 'stdout', block: 0, text: 'hi\n' },
      { type: 'stderr', block: 0, text: 'warn\n' },
      { type: 'status', block: 0, text: 'Loading numpy' },
      { type: 'result', block: 0, bundle: { 'text/plain': '3' } },
      { type: 'code_end', block: 0, durationMs: 3, notPersisted: [] },
      { type: 'code_start', block: 1, total: 3, code: 'show()' },
      { type: 'display', block: 1, bundle: { 'text/plain': '<Figure>', 'image/png': PNG } },
      { type: 'display', block: 1, bundle: { 'text/plain': '{}', 'application/json': '{"a": [1, 2]}' } },
      { type: 'files_written', block: 1, changed: ['out/bytes.bin'], deleted: [] },
      { type: 'code_end', block: 1, durationMs: 3, notPersisted: [] },
      { type: 'code_start', block: 2, total: 3, code: '1/0' },
      {
        type: 'exec_error',
        block: 2,
        error: {
          ename: 'ZeroDivisionError',
          evalue: 'division by zero',
          traceback: 'Traceback (most recent call last):\n  File "<cell>", line 1\nZeroDivisionError: division by zero',
          explanation: [{ key: 'explain_zero', params: { divisor: '0' } }],
          line: 1,
        },
      },
      { type: 'code_end', block: 2, durationMs: 1, notPersisted: [] },
    ]),
    round(id, 2, 'for i in range(10**6): print(i)', [
      { type: 'code_start', block: 0, total: 1, code: 'for i in range(10**6): print(i)' },
      { type: 'stdout', block: 0, text: '0\n1\n' },
      { type: 'truncated', block: 0, what: 'output', limit: 200_000, total: 6_888_890, tail: '999999\n' },
      // Its changes were not saved: said, as the worker says it now.
      { type: 'code_end', block: 0, durationMs: 900, notPersisted: [], commitError: { key: 'w3_commit_failed', params: { error: 'UnknownError: the disk went away' } } },
    ]),
    // An assistant round, as the assistant issue will store it: a question, code it ran, and kinds of event this version does not know.
    { ...round(id, 3, 'What is the mean of x?', [
      { type: 'assistant_text', text: 'Let me compute it.' } as unknown as RoundEvent,
      { type: 'code_start', block: 0, total: 1, code: 'mean([1, 2])' },
      { type: 'result', block: 0, bundle: { 'text/plain': '1.5' } },
      { type: 'code_end', block: 0, durationMs: 1, notPersisted: [] },
    ]), kind: 'ask' } as Round,
  ];
  rounds[1].fullOutput = new Blob(['0\n1\n…\n999999\n'], { type: 'text/plain;charset=utf-8' });
  for (const r of rounds) await db.put('rounds', r);
  return rounds;
}

const roundsOf = async (db: PyTabsDB, id: string) => (await db.getAll('rounds', sessionRange(id))) as unknown as Round[];

/** Every key and value of every store, to show that a refused import wrote nothing. */
async function dump(db: PyTabsDB): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const store of Array.from(db.objectStoreNames)) {
    const values = await db.getAll(store);
    out[store] = JSON.stringify(values, (_, v) => (v instanceof Uint8Array ? sha256(v) : v instanceof Blob ? `blob:${v.size}` : v));
  }
  return JSON.stringify(out);
}

const tmp = mkdtempSync(path.join(tmpdir(), 'pytabs-portability-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Debian's nbformat validates a notebook (python3-nbformat), as `jupyter` itself would. */
function nbformatValidate(notebook: Uint8Array): { status: number | null; stderr: string } {
  const file = path.join(tmp, `nb-${n++}.ipynb`);
  writeFileSync(file, notebook);
  const run = spawnSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))', file], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

let home: Device;
beforeEach(async () => {
  home = await device();
});

describe('messageParts', () => {
  it('keeps the prose around the Python blocks, fences of other languages included, in order, with the line each block starts on', () => {
    const message = 'Load it:\n\n```python\nx = 1\n```\n\n```bash\nls\n```\nthen\n```\nx\n```\n```python\n\n```';
    expect(messageParts(message)).toEqual([
      { kind: 'prose', text: 'Load it:\n' },
      { kind: 'code', code: 'x = 1', line: 4 },
      { kind: 'prose', text: '\n```bash\nls\n```\nthen' },
      { kind: 'code', code: 'x', line: 12 },
      { kind: 'prose', text: '```python\n\n```' },
    ]);
    expect(messageParts('print(1)')).toEqual([{ kind: 'code', code: 'print(1)', line: 1 }]);
    expect(splitMessage(message)).toEqual([{ code: 'x = 1' }, { code: 'x' }]);
  });
});

describe('exportSession', () => {
  it('packs files byte for byte, a manifest with the sha256 of every entry, and a notebook nbformat accepts', async () => {
    await seedSession(home.db);
    const file = await exportSession(home, 's1', 5000);
    expect(file.name).toBe('Lesson 3_ données.pytabs.zip');
    const zip = unzipSync(file.data);
    const manifest = JSON.parse(strFromU8(zip['manifest.json']));
    expect(manifest).toMatchObject({
      format: 'pytabs-session',
      formatVersion: 1,
      app: { name: 'PyTabs', version: expect.any(String) },
      pyodide: '314.0.7',
      exportedAt: 5000,
      session: { name: 'Lesson 3: données', createdAt: 1000, vars: { region: 'north', note: 'a <b> c' } },
      stateHeld: false,
    });
    // Every entry but the manifest and its signature is listed, with its real sha256 and size.
    const others = Object.keys(zip).filter((k) => k !== 'manifest.json' && k !== 'manifest.sig').sort();
    expect(Object.keys(manifest.entries).sort()).toEqual(others);
    for (const name of others) {
      expect(manifest.entries[name].sha256, name).toBe(sha256(zip[name]));
      expect(manifest.entries[name].size, name).toBe(zip[name].byteLength);
    }
    expect(text(zip['manifest.sig'])).toMatch(/^[0-9a-f]{64}$/);

    const files = await readAllFiles(home.db, 's1');
    for (const f of files) expect(zip[`files/${f.path}`], f.path).toEqual(f.data);
    expect(manifest.entries['files/out/bytes.bin'].modifiedAt).toBe(2222);
    expect(others).toEqual(expect.arrayContaining(['history.json', 'history.ipynb', 'history/output-2.txt', 'state/variables.json', 'state/replay.json', 'state/pickles/2.pickle']));
    expect(zip['state/pickles/2.pickle']).toEqual(new Uint8Array([128, 4, 75, 3, 46]));
    expect(JSON.parse(strFromU8(zip['state/replay.json'])).replay).toEqual(['import statistics', 'def mean(xs):\n    return sum(xs) / len(xs)']);
    expect(text(zip['history/output-2.txt'])).toBe('0\n1\n…\n999999\n');

    expect(nbformatValidate(zip['history.ipynb'])).toEqual({ status: 0, stderr: '' });
    const nb = JSON.parse(strFromU8(zip['history.ipynb']));
    expect([nb.nbformat, nb.nbformat_minor]).toEqual([4, 5]);
    const cells = nb.cells as { cell_type: string; source: string; outputs?: Record<string, unknown>[]; execution_count?: number | null; id: string }[];
    expect(new Set(cells.map((c) => c.id)).size).toBe(cells.length);
    expect(cells.map((c) => c.cell_type)).toEqual(['markdown', 'code', 'markdown', 'code', 'markdown', 'code', 'code', 'markdown', 'code']);
    expect(cells[0].source).toBe('Load the data:');
    const [first, picture, mistake, long, question, asked] = [cells[1], cells[3], cells[5], cells[6], cells[7], cells[8]];
    expect(first.execution_count).toBe(1);
    expect(first.outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: 'hi\n' },
      { output_type: 'stream', name: 'stderr', text: 'warn\n' },
      { output_type: 'execute_result', execution_count: 1, data: { 'text/plain': '3' }, metadata: {} },
    ]);
    expect(picture.outputs).toEqual([
      { output_type: 'display_data', data: { 'text/plain': '<Figure>', 'image/png': PNG }, metadata: {} },
      { output_type: 'display_data', data: { 'text/plain': '{}', 'application/json': { a: [1, 2] } }, metadata: {} },
    ]);
    expect(mistake.outputs).toEqual([
      { output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: ['Traceback (most recent call last):', '  File "<cell>", line 1', 'ZeroDivisionError: division by zero'] },
    ]);
    expect(long.execution_count).toBe(4);
    expect(long.outputs![0].text).toContain('6888883 more characters');
    expect(question.source).toBe('**Question:** What is the mean of x?');
    expect(asked.source).toBe('mean([1, 2])');
    expect(asked.outputs).toEqual([{ output_type: 'execute_result', execution_count: 5, data: { 'text/plain': '1.5' }, metadata: {} }]);
  });

  it('exports every session in one zip, each importable, two of one name under two names', async () => {
    await seedSession(home.db, 's1', 'Same');
    await seedSession(home.db, 's2', 'Same');
    await putSession(home.db, newSessionRecord('s3', 'Empty', 2000));
    const all = await downloadAllWork(home, Date.UTC(2026, 10, 23));
    expect(all.name).toBe('pytabs-work-2026-11-23.zip');
    const zip = unzipSync(all.data);
    expect(Object.keys(zip).sort()).toEqual(['Empty.pytabs.zip', 'Same (2).pytabs.zip', 'Same.pytabs.zip']);
    const other = await device();
    for (const [name, data] of Object.entries(zip)) {
      const result = await importSession(other, { name, data });
      expect(result.name).toBe(name.startsWith('Empty') ? 'Empty' : 'Same');
    }
    expect((await other.db.getAll('sessions')).length).toBe(3);
  });
});

describe('importSession of a .pytabs.zip', () => {
  it('brings back files, history and session variables as a new session, and this device\'s own variables at once', async () => {
    const rounds = await seedSession(home.db);
    const file = await exportSession(home, 's1');
    const result = await importSession(home, file);
    const id = result.sessionId;
    expect(id).not.toBe('s1');
    expect(result).toMatchObject({ name: 'Lesson 3: données', kind: 'session', rounds: 3, held: null, warnings: [] });
    expect(home.restarts).toEqual([{ id, restart: false }]);
    const record = (await getSession(home.db, id))!;
    expect(record.vars).toEqual({ region: 'north', note: 'a <b> c' });
    expect([record.variableCount, record.replaySeq]).toEqual([3, 2]);

    const [before, after] = await Promise.all([readAllFiles(home.db, 's1'), readAllFiles(home.db, id)]);
    expect(after).toEqual(before);
    const back = await roundsOf(home.db, id);
    expect(back.map(({ id: _, sessionId: __, fullOutput: ___, ...r }) => r)).toEqual(rounds.map(({ id: _, sessionId: __, fullOutput: ___, ...r }) => r));
    expect(back.every((r) => r.sessionId === id && r.id === `${id}:${r.seq}`)).toBe(true);
    expect(await back[1].fullOutput!.text()).toBe('0\n1\n…\n999999\n');
    expect(back[1].fullOutput!.type).toBe('text/plain;charset=utf-8');
    expect((back[2] as Round & { kind?: string }).kind).toBe('ask');

    const state = await readRestoreState(home.db, id);
    expect(state.replay.map((r) => r.source)).toEqual(['import statistics', 'def mean(xs):\n    return sum(xs) / len(xs)']);
    expect(state.pickles.map((p) => [p.name, Array.from(p.data)])).toEqual([['total', [128, 4, 75, 3, 46]]]);
    // The file's pickle digest is not trusted: the worker computes its own.
    expect(state.variables.map((v) => [v.name, v.kind, v.hash])).toEqual([['gen', 'none', undefined], ['mean', 'replay', undefined], ['total', 'pickle', undefined]]);
  });

  it('holds saved variables from another device until the person confirms, merging them under the session\'s own', async () => {
    await seedSession(home.db);
    const file = await exportSession(home, 's1');
    const school = await device();
    const result = await importSession(school, file);
    const id = result.sessionId;
    expect(result.held).toEqual({ source: file.name, variables: ['gen', 'mean', 'total'], statements: 2 });
    // Files and history come without asking; nothing the worker restores runs code.
    expect((await readAllFiles(school.db, id)).length).toBe(3);
    expect((await roundsOf(school.db, id)).length).toBe(3);
    expect(await readRestoreState(school.db, id)).toEqual({ variables: [], pickles: [], replay: [] });
    expect((await getSession(school.db, id))!.variableCount).toBe(0);
    expect(await heldState(school, id)).toEqual(result.held);

    // The person ran something of their own before saying yes: theirs wins.
    await commitChange(school.db, id, {
      variables: { put: [{ name: 'total', type: 'int', sizeBytes: 3, preview: '99', persisted: true, kind: 'pickle', pickle: new Uint8Array([1, 2, 3]) }] },
      replay: ['import math'],
    });
    school.restarts.length = 0;
    await confirmImportedState(school, id);
    expect(school.restarts).toEqual([{ id, restart: true }, { id, restart: true }]);
    const state = await readRestoreState(school.db, id);
    expect(state.replay.map((r) => r.source)).toEqual(['import statistics', 'def mean(xs):\n    return sum(xs) / len(xs)', 'import math']);
    expect(state.pickles.map((p) => [p.name, Array.from(p.data)])).toEqual([['total', [1, 2, 3]]]);
    expect(state.variables.map((v) => v.name).sort()).toEqual(['gen', 'mean', 'total']);
    const record = (await getSession(school.db, id))!;
    expect([record.variableCount, record.replaySeq]).toEqual([3, 3]);
    expect(await heldState(school, id)).toBeNull();
    await expect(confirmImportedState(school, id)).rejects.toThrow('no saved variables waiting');

    // A session exported while its state is still held keeps it held, even back home.
    const again = await importSession(school, file);
    const reExported = await exportSession(school, again.sessionId);
    expect(JSON.parse(strFromU8(unzipSync(reExported.data)['manifest.json'])).stateHeld).toBe(true);
    const backHome = await importSession(school, reExported);
    expect(backHome.held?.variables).toEqual(['gen', 'mean', 'total']);
    await discardImportedState(school, backHome.sessionId);
    expect(await heldState(school, backHome.sessionId)).toBeNull();
    expect((await readAllFiles(school.db, backHome.sessionId)).length).toBe(3);
    expect(await readRestoreState(school.db, backHome.sessionId)).toEqual({ variables: [], pickles: [], replay: [] });
  });

  it('counts a signature under another device\'s key, or none, as made elsewhere', async () => {
    await seedSession(home.db);
    const file = await exportSession(home, 's1');
    const zip = unzipSync(file.data);
    zip['manifest.sig'] = bytes('0'.repeat(64));
    const forged = await importSession(home, { name: 'forged.pytabs.zip', data: zipSync(zip) });
    expect(forged.held).not.toBeNull();
    delete zip['manifest.sig'];
    const unsigned = await importSession(home, { name: 'unsigned.pytabs.zip', data: zipSync(zip) });
    expect(unsigned.held).not.toBeNull();
  });
});

/** A session archive made by hand: a manifest listing `entries` with their true sha256, changed by `patch`. */
function craft(entries: Record<string, Uint8Array>, patch: (manifest: Record<string, unknown>) => void = () => undefined): Uint8Array {
  const listed = Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, { sha256: sha256(v), size: v.byteLength }]));
  const manifest: Record<string, unknown> = {
    format: 'pytabs-session',
    formatVersion: 1,
    app: { name: 'PyTabs', version: '0.1.0' },
    pyodide: '314.0.7',
    exportedAt: 1,
    session: { name: 'Crafted', createdAt: 1, vars: {} },
    entries: listed,
  };
  patch(manifest);
  return zipSync({ 'manifest.json': strToU8(JSON.stringify(manifest)), ...entries });
}

/** Bytes that do not compress (xorshift), so that cutting an archive cuts an entry. */
function noise(size: number): Uint8Array {
  let x = 2463534242;
  return new Uint8Array(size).map(() => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

/** Sets a zip's declared unpacked size of every entry (local header and central directory) to `size`. */
function lieAboutSizes(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x04034b50) view.setUint32(i + 22, size, true);
    else if (sig === 0x02014b50) view.setUint32(i + 24, size, true);
  }
  return out;
}

/** A kept step-through as the recorder writes it: one step, `a` referring to list #1. */
const TRACE = {
  steps: [{ line: 1, event: 'line', frames: [{ name: '<module>', line: 1, scope: 0 }], heap: 0, stdout: 0 }],
  scopes: [[['a', { ref: 1 }]]],
  objects: [{ id: 1, kind: 'list', type: 'list', items: [['int', '1']] }],
  heaps: [[0]],
  stdout: '',
  inputs: [],
  limits: { maxSteps: 5000, maxObjects: 200, maxItems: 100, maxRepr: 80 },
  stepLimitReached: false,
  objectLimitReached: false,
};

/** A session file whose one round kept `trace` (changed by `patch`) as its step-through. */
function withTrace(patch: (trace: Record<string, unknown>) => void = () => undefined): Uint8Array {
  const trace = structuredClone(TRACE) as unknown as Record<string, unknown>;
  patch(trace);
  return craft({
    'history.json': bytes(JSON.stringify({ format: 'pytabs-history', version: 1, rounds: [{ seq: 1, createdAt: 1, message: 'a = [1]', files: [], state: 'finished', events: [{ type: 'trace', block: 0, trace }] }] })),
  });
}

describe('a round\'s step-through in a session file', () => {
  it('comes back as it was kept', async () => {
    const target = await device();
    const { sessionId } = await importSession(target, { name: 'steps.pytabs.zip', data: withTrace() });
    expect((await roundsOf(target.db, sessionId))[0].events).toEqual([{ type: 'trace', block: 0, trace: TRACE }]);
  });
});

describe('hostile files', () => {
  const refusals: [string, () => Uint8Array, RegExp, Partial<Settings>?][] = [
    ['a "../" path', () => craft({ 'files/../evil.txt': bytes('x') }), /would leave the workspace/],
    ['an absolute path', () => craft({ 'files//etc/passwd': bytes('x') }), /absolute path|empty or "\." path segment/],
    ['an entry outside files/', () => craft({ '../../evil.sh': bytes('x') }), /which a PyTabs session file does not have/],
    ['a control character in a name', () => craft({ 'files/a\u0007b.txt': bytes('x') }), /control characters/],
    ['a file that is also a folder', () => craft({ 'files/a': bytes('x'), 'files/a/b': bytes('y') }), /also a folder/],
    ['a zip bomb that declares its size', () => craft({ 'files/zeros.bin': new Uint8Array(3 * 1024 * 1024) }), /unpacks to 3\.0 MB; at most 1\.0 MB/, { sessionLimitBytes: 1024 * 1024 }],
    ['a zip bomb that lies about its size', () => lieAboutSizes(zipSync({ 'files/zeros.bin': new Uint8Array(64 * 1024 * 1024) }), 1000), /more than the 1,000 B it declares \(a zip bomb\?\)/],
    ['a wrong sha256', () => {
      const zip = unzipSync(craft({ 'files/data.csv': bytes('x\n1\n') }));
      zip['files/data.csv'] = bytes('x\n2\n');
      return zipSync(zip);
    }, /does not match the sha256/],
    ['an entry the manifest does not list', () => {
      const zip = unzipSync(craft({ 'files/data.csv': bytes('x') }));
      zip['files/extra.txt'] = bytes('y');
      return zipSync(zip);
    }, /not in its manifest/],
    ['a huge manifest', () => craft({}, (m) => void (m.padding = 'x'.repeat(2 * 1024 * 1024))), /"manifest\.json" unpacks to 2\.0 MB; at most 1\.0 MB/],
    ['a manifest whose name is a number', () => craft({}, (m) => void ((m.session as Record<string, unknown>).name = 42)), /session "name" must be text/],
    ['a manifest whose sha256 is a number', () => craft({ 'files/a.txt': bytes('a') }, (m) => void (((m.entries as Record<string, Record<string, unknown>>)['files/a.txt']).sha256 = 5)), /"sha256" must be text/],
    ['a manifest whose entries are a list', () => craft({}, (m) => void (m.entries = [])), /"entries" must be an object/],
    ['a manifest whose session variables are not text', () => craft({}, (m) => void ((m.session as Record<string, unknown>).vars = { a: { b: 1 } })), /"a" must be text/],
    ['a manifest from a newer format', () => craft({}, (m) => void (m.formatVersion = 7)), /newer PyTabs \(format 7\)/],
    ['a manifest that is not JSON', () => zipSync({ 'manifest.json': bytes('{"format": ') }), /manifest\.json is not valid JSON/],
    ['no manifest', () => zipSync({ 'files/a.txt': bytes('a') }), /no manifest\.json/],
    ['too many entries', () => {
      const many: Record<string, Uint8Array> = {};
      for (let i = 0; i <= 20_000; i++) many[`files/f${i}.txt`] = new Uint8Array(0);
      return zipSync(many);
    }, /more than 20000 entries/],
    ['not a zip', () => bytes('this is not an archive at all'), /not a zip archive/],
    ['a truncated zip', () => craft({ 'files/a.bin': noise(200_000) }).slice(0, 50_000), /ends in the middle of "files\/a\.bin": the file is cut short/],
    ['a variable that is not a Python name', () => craft({
      'state/variables.json': bytes(JSON.stringify({ variables: [{ name: "__import__('os')", type: 'int', sizeBytes: 1, preview: '1', persisted: true, kind: 'none' }] })),
    }), /not a Python name/],
    ['a pickle over the variable limit', () => craft({
      'state/variables.json': bytes(JSON.stringify({ variables: [{ name: 'big', type: 'bytes', sizeBytes: 1, preview: '', persisted: true, kind: 'pickle', pickle: 'state/pickles/0.pickle' }] })),
      'state/pickles/0.pickle': new Uint8Array(2048),
    }), /"state\/pickles\/0\.pickle" unpacks to 2\.0 KB; at most 1\.0 KB/, { variableLimitBytes: 1024 }],
    ['a history event of the wrong shape', () => craft({
      'history.json': bytes(JSON.stringify({ format: 'pytabs-history', version: 1, rounds: [{ seq: 1, createdAt: 1, message: 'x', files: [], state: 'finished', events: [{ type: 'stdout', block: 0, text: 5 }] }] })),
    }), /round 1 event 1 \(stdout\) has no valid "text"/],
    ...(
      [
        ['a commit error of another kind of text', { key: 'notice_imported', params: { name: 'x' } }, /"commitError" has an invalid "key"/],
        ['a commit error with a parameter of its own', { key: 'w3_commit_failed', params: { error: 'E', more: { key: 'w3_commit_quota' } } }, /"commitError" has an invalid parameter/],
        ['a commit error that is neither text nor said', 7, /"commitError" must be an object/],
      ] as const
    ).map(([what, commitError, message]): [string, () => Uint8Array, RegExp] => [
      what,
      () => craft({
        'history.json': bytes(JSON.stringify({ format: 'pytabs-history', version: 1, rounds: [{ seq: 1, createdAt: 1, message: 'x', files: [], state: 'finished', events: [{ type: 'code_end', block: 0, durationMs: 1, notPersisted: [], commitError }] }] })),
      }),
      message,
    ]),
    ['a step-through whose step points past its tables', () => withTrace((t) => void ((t.steps as { heap: number }[])[0].heap = 3)), /step-through step 1 "heap"/],
    ['a step-through whose frame has no variables', () => withTrace((t) => void ((t.steps as { frames: { scope: number }[] }[])[0].frames[0].scope = 1)), /step-through step 1 frame "scope"/],
    ['a step-through without steps', () => withTrace((t) => void delete t.steps), /step-through "steps"/],
    ['a step-through object of an unknown kind', () => withTrace((t) => void ((t.objects as { kind: string }[])[0].kind = 'module')), /step-through object 1 has an unknown "kind"/],
    ['a step-through value that is neither inline nor a reference', () => withTrace((t) => void (t.scopes = [[['a', ['int']]]])), /step-through variable is not a pair/],
    ...(
      [
        ['an error line that is not a line', { line: '3' }, /error "line"/],
        ['an explanation of another kind of text', { explanation: [{ key: 'notice_imported', params: { name: 'x' } }] }, /"explanation" has an invalid "key"/],
        ['an explanation nested without end', { explanation: [{ key: 'explain_key', params: { key: { key: 'explain_key', params: { key: { key: 'explain_eof' } } } } }] }, /invalid parameter/],
      ] as const
    ).map(([what, extra, message]): [string, () => Uint8Array, RegExp] => [
      what,
      () => craft({
        'history.json': bytes(JSON.stringify({ format: 'pytabs-history', version: 1, rounds: [{ seq: 1, createdAt: 1, message: 'x', files: [], state: 'failed', events: [{ type: 'exec_error', block: 0, error: { ename: 'E', evalue: '', traceback: 'E', ...extra } }] }] })),
      }),
      message,
    ]),
  ];

  for (const [what, make, message, settings] of refusals) {
    it(`refuses ${what} with a clear error and writes nothing`, async () => {
      const target = await device(settings);
      await seedSession(target.db);
      await exportSession(target, 's1');
      const before = await dump(target.db);
      const error = await importSession(target, { name: 'hostile.pytabs.zip', data: make() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as Error).message).toMatch(/^Cannot import "hostile\.pytabs\.zip": /);
      expect((error as Error).message).toMatch(message);
      expect(await dump(target.db)).toBe(before);
      expect(target.restarts).toEqual([]);
    });
  }

  it('refuses a file of an unknown kind and a notebook of another nbformat, writing nothing', async () => {
    const before = await dump(home.db);
    await expect(importSession(home, { name: 'essay.docx', data: zipSync({ 'word/document.xml': bytes('<w/>') }) })).rejects.toThrow(/imports sessions \(\.pytabs\.zip\), Jupyter notebooks \(\.ipynb\) and Python files/);
    await expect(importSession(home, { name: 'old.ipynb', data: bytes('{"nbformat": 3, "worksheets": []}') })).rejects.toThrow(/version 3 notebook/);
    await expect(importSession(home, { name: 'broken.ipynb', data: bytes('{"nbformat": 4, "cells": [') })).rejects.toThrow(/not valid JSON/);
    await expect(importSession(home, { name: 'bad\u0001name.py', data: bytes('x = 1') })).rejects.toThrow(/control characters/);
    expect(await dump(home.db)).toBe(before);
  });
});

/** A notebook as Jupyter writes one, made by Debian's nbformat itself. */
function jupyterNotebook(): Uint8Array {
  const script = `
import nbformat, sys
from nbformat.v4 import new_notebook, new_markdown_cell, new_code_cell, new_output
nb = new_notebook()
nb.cells = [
  new_markdown_cell("# Lesson\\nAn example that must not run:\\n\\n\`\`\`python\\nimport os; os.remove('x')\\n\`\`\`"),
  new_code_cell("print('hello')\\n1 + 1", execution_count=1, outputs=[
    new_output('stream', name='stdout', text='hello\\n'),
    new_output('execute_result', data={'text/plain': '2'}, execution_count=1),
  ]),
  new_code_cell("plot()", execution_count=2, outputs=[
    new_output('display_data', data={'image/png': '${PNG}', 'text/plain': '<Figure>'}),
    new_output('display_data', data={'application/json': [1, 2], 'text/plain': '[1, 2]'}),
  ]),
  new_code_cell("s = '''\\n\`\`\`\\n'''\\n1/0", execution_count=3, outputs=[
    new_output('error', ename='ZeroDivisionError', evalue='division by zero', traceback=['\\x1b[0;31mZeroDivisionError\\x1b[0m', 'division by zero']),
  ]),
  new_code_cell("not_run_yet = True"),
  new_markdown_cell("The end."),
]
nbformat.write(nb, sys.stdout)
`;
  const run = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return bytes(run.stdout);
}

describe('importSession of a notebook or a Python file', () => {
  it('turns a notebook\'s cells into history, not run, with its outputs and the messages "Run all" sends', async () => {
    const result = await importSession(home, { name: 'Lesson 1.ipynb', data: jupyterNotebook() });
    expect(result).toMatchObject({ name: 'Lesson 1', kind: 'notebook', files: [], rounds: 4, held: null });
    const rounds = await roundsOf(home.db, result.sessionId);
    expect(rounds.every((r) => r.importedFrom === 'Lesson 1.ipynb')).toBe(true);
    // The markdown's own python example is shown as text, so sending the message runs only the cell.
    expect(rounds[0].message).toContain('```text\nimport os');
    expect(result.runAll.map((m) => splitMessage(m).map((b) => b.code))).toEqual([
      ["print('hello')\n1 + 1"],
      ['plot()'],
      ["s = '''\n```\n'''\n1/0"],
      ['not_run_yet = True'],
    ]);
    expect(result.runAll).toEqual(rounds.map((r) => r.message));
    const kinds = (r: Round) => r.events.map((e) => e.type);
    expect(kinds(rounds[0])).toEqual(['round_start', 'code_start', 'stdout', 'result', 'code_end', 'round_end']);
    expect(rounds[1].events.filter((e) => e.type === 'display').map((e) => e.type === 'display' && e.bundle)).toEqual([
      { 'image/png': PNG, 'text/plain': '<Figure>' },
      { 'application/json': '[1,2]', 'text/plain': '[1, 2]' },
    ]);
    expect(rounds[2].state).toBe('failed');
    expect(rounds[2].events.find((e) => e.type === 'exec_error')).toMatchObject({ error: { ename: 'ZeroDivisionError', traceback: 'ZeroDivisionError\ndivision by zero' } });
    expect(kinds(rounds[3])).toEqual(['round_start', 'round_end']);
    expect(rounds[3].message).toContain('The end.');

    // And back out as a notebook that nbformat accepts.
    const exported = unzipSync((await exportSession(home, result.sessionId)).data);
    expect(nbformatValidate(exported['history.ipynb'])).toEqual({ status: 0, stderr: '' });
  });

  it('puts a .py file in a new session\'s workspace', async () => {
    const result = await importSession(home, { name: 'évaluation.py', data: bytes('print("ok")\n') });
    expect(result).toMatchObject({ name: 'évaluation', kind: 'python', files: ['évaluation.py'], rounds: 0, runAll: [] });
    expect((await readAllFiles(home.db, result.sessionId)).map((f) => [f.path, text(f.data)])).toEqual([['évaluation.py', 'print("ok")\n']]);
  });
});

describe('prepared sessions by link', () => {
  let server: Server;
  let base = '';
  const served = new Map<string, { body: Uint8Array; type: string }>();
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        const file = served.get(req.url ?? '');
        if (!file) {
          res.writeHead(404).end('not found');
          return;
        }
        res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.byteLength }).end(file.body);
      }).listen(0, '127.0.0.1', () => {
        base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        resolve();
      });
    });
  afterAll(() => server?.close());

  it('reads the target of #/open?from=, relative to the app', () => {
    expect(preparedLinkTarget('#/open?from=lessons%2Fweek1.pytabs.zip', 'https://school.example/python/')).toBe('https://school.example/python/lessons/week1.pytabs.zip');
    expect(preparedLinkTarget('#/open?from=https://cdn.example/a.ipynb', 'https://school.example/python/')).toBe('https://cdn.example/a.ipynb');
    expect(preparedLinkTarget('#/s/abc', 'https://school.example/')).toBeNull();
    expect(() => preparedLinkTarget('#/open?from=javascript:alert(1)', 'https://school.example/')).toThrow(/http or https/);
    expect(() => preparedLinkTarget('#/open', 'https://school.example/')).toThrow(/names no file/);
    expect(() => preparedLinkTarget('#/open?x=1', 'https://school.example/')).toThrow(/names no file/);
  });

  it('fetches a prepared file, opens it as a session, and resets the session to it', async () => {
    await start();
    await seedSession(home.db);
    const teacher = await exportSession(home, 's1');
    served.set('/lesson.pytabs.zip', { body: teacher.data, type: 'application/zip' });
    served.set('/page.pytabs.zip', { body: bytes('<!doctype html><title>Not found</title>'), type: 'text/html' });
    served.set('/big.pytabs.zip', { body: new Uint8Array(5000), type: 'application/zip' });

    await expect(fetchPrepared(`${base}/missing.pytabs.zip`)).rejects.toThrow(/there is no file at this address/);
    await expect(fetchPrepared(`${base}/page.pytabs.zip`)).rejects.toThrow(/it is a web page, not a PyTabs session/);
    await expect(fetchPrepared(`${base}/big.pytabs.zip`, { maxBytes: 1000 })).rejects.toThrow(/at most 1,000 B can be opened/);
    await expect(fetchPrepared('http://127.0.0.1:1/nothing.pytabs.zip')).rejects.toThrow(/the network failed/);

    const student = await device();
    const prepared = await fetchPrepared(`${base}/lesson.pytabs.zip`);
    expect(prepared).toMatchObject({ url: `${base}/lesson.pytabs.zip`, name: 'lesson.pytabs.zip' });
    const opened = await openPrepared(student, prepared);
    const id = opened.sessionId;
    expect(opened.held?.variables).toEqual(['gen', 'mean', 'total']);
    expect(await sessionOrigin(student, id)).toMatchObject({ url: `${base}/lesson.pytabs.zip`, name: 'lesson.pytabs.zip' });
    const original = await dump(student.db);

    // The student works: changes a file, adds one, runs a message, renames the session.
    await commitChange(student.db, id, {
      files: { put: [{ path: 'data.csv', data: bytes('changed'), modifiedAt: 9 }, { path: 'mine.txt', data: bytes('new'), modifiedAt: 9 }] },
      variables: { put: [{ name: 'mine', type: 'int', sizeBytes: 1, preview: '1', persisted: true, kind: 'pickle', pickle: new Uint8Array([1]) }] },
      replay: ['import json'],
    });
    await student.db.put('rounds', round(id, 2, 'x = 1', []));
    await student.db.put('sessions', { ...(await getSession(student.db, id))!, name: 'My copy' });
    student.restarts.length = 0;

    await resetToOriginal(student, id);
    expect(student.restarts).toEqual([{ id, restart: true }, { id, restart: true }]);
    // Back to the file exactly, saved variables still held, the origin kept for another reset.
    const normalise = (s: string) => s.replace(/lastActiveAt\\":\d+/g, '');
    expect(normalise(await dump(student.db))).toBe(normalise(original));

    // Once the student let the saved variables load, a reset loads them again without asking.
    await confirmImportedState(student, id);
    await resetToOriginal(student, id);
    expect(await heldState(student, id)).toBeNull();
    expect((await readRestoreState(student.db, id)).pickles.map((p) => p.name)).toEqual(['total']);
    await expect(resetToOriginal(student, (await importSession(student, teacher)).sessionId)).rejects.toThrow(/not opened from a link/);
  });
});

describe('eraseAllData', () => {
  it('deletes the database while another tab has it open; that tab lets go and hears why', async () => {
    await seedSession(home.db);
    await exportSession(home, 's1');
    // The other tab: its manager's connection, and its page listening.
    const otherTab = await openDb(home.dbName);
    const other: Pick<PortableManager, 'dbName' | 'dispose'> & { disposed: number } = {
      dbName: home.dbName,
      disposed: 0,
      dispose: async () => void other.disposed++,
    };
    const heard: string[] = [];
    await onDataErased(other, (reason) => heard.push(reason));
    let blocked = 0;
    const report = await eraseAllData(home, { onBlocked: () => blocked++ });
    expect(report.databases).toContain(home.dbName);
    expect(blocked).toBe(0);
    expect(heard).toEqual(['erased']);
    expect([home.disposed, other.disposed]).toEqual([1, 1]);
    expect(() => otherTab.transaction('sessions')).toThrow();
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(home.dbName);
    // Opening again is a first visit: no session, no settings, no device key.
    const fresh = await openDb(home.dbName);
    expect(await fresh.getAll('sessions')).toEqual([]);
    expect(await fresh.getAll('settings')).toEqual([]);
    fresh.close();
  });

  it('tells of a connection that does not let go, and finishes once it closes', async () => {
    await seedSession(home.db);
    // An older page: no versionchange handler, so it holds the database until it closes.
    const stubborn = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(home.dbName);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    let told!: (holder: string) => void;
    const blocked = new Promise<string>((resolve) => (told = resolve));
    let done = false;
    const erasing = eraseAllData(home, { onBlocked: told }).then(() => (done = true));
    expect(await blocked).toBe('tab');
    expect(done).toBe(false);
    stubborn.close();
    await erasing;
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(home.dbName);
  });

  it('tells the page that erases once its erase is done, not as the delete begins', async () => {
    await seedSession(home.db);
    let done = false;
    const heard: string[] = [];
    await onDataErased(home, (reason) => heard.push(`${reason}, erase done: ${done}`));
    await eraseAllData(home).then(() => (done = true));
    await expect.poll(() => heard).toEqual(['erased, erase done: true']);
    expect(home.disposed).toBeGreaterThan(0);
  });

  it('a page that starts listening after the erase hears of it at once and does not bring the database back', async () => {
    const name = `${home.dbName}-gone`;
    const page = { dbName: name, disposed: 0, dispose: async () => void page.disposed++ };
    const heard: string[] = [];
    await onDataErased(page, (reason) => heard.push(reason));
    expect(heard).toEqual(['erased']);
    expect(page.disposed).toBe(1);
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name);
  });
});
