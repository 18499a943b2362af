import { describe, it, expect, beforeAll } from 'vitest';
import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import { loadRuntime } from './load-runtime';

// The Python runtime (workers/python/pytabs) on real Pyodide, called the way the session worker calls it.

const MB = 1024 * 1024;
const LOAD_TIMEOUT = 60_000;

type Bundle = Record<string, string>;
interface RunOutcome {
  status: 'ok' | 'error';
  result?: Bundle;
  error?: { ename: string; evalue: string; traceback: string };
  replay: string[];
}
interface Entry {
  name: string;
  type: string;
  sizeBytes: number;
  preview: string;
  persisted: boolean;
  kind: 'pickle' | 'replay' | 'none';
  reason?: string;
  hash?: string;
  pickle?: Uint8Array;
}
interface VariableChanges {
  put: Entry[];
  delete: string[];
}
interface RestoreReport {
  restored: string[];
  failed: { name: string; reason: string }[];
}
type OutputEvent = { type: 'stdout' | 'stderr'; text: string } | { type: 'display'; bundle: Bundle };

/** Python dict results as plain JS, as the worker converts them (None becomes undefined). */
function plain<T>(proxy: PyProxy): T {
  try {
    return (proxy as unknown as { toJs(o: object): T }).toJs({ dict_converter: Object.fromEntries, create_proxies: false });
  } finally {
    proxy.destroy();
  }
}

/** One session's Python in its own Pyodide, with its output collected in order. */
class Session {
  readonly events: OutputEvent[] = [];

  private constructor(
    readonly pyodide: PyodideInterface,
    readonly rt: PyProxy & Record<string, (...args: unknown[]) => unknown>,
  ) {}

  static async open(sessionId = 's', workspace = '/home/pyodide/workspace'): Promise<Session> {
    const pyodide = await loadRuntime();
    let session: Session | undefined = undefined;
    const decoder = new TextDecoder();
    const stream = (type: 'stdout' | 'stderr') => ({
      write: (bytes: Uint8Array) => {
        session?.events.push({ type, text: decoder.decode(bytes) });
        return bytes.length;
      },
    });
    pyodide.setStdout(stream('stdout'));
    pyodide.setStderr(stream('stderr'));
    const emit = (kind: string, payload: PyProxy) => {
      if (kind === 'display') session?.events.push({ type: 'display', bundle: plain<Bundle>(payload.copy()) });
    };
    const Runtime = pyodide.pyimport('pytabs.runtime').Runtime as (...args: unknown[]) => PyProxy;
    session = new Session(pyodide, Runtime(sessionId, workspace, emit) as Session['rt']);
    return session;
  }

  async run(code: string, sessionVars: Record<string, string> = {}): Promise<RunOutcome> {
    return plain<RunOutcome>((await this.rt.run(code, this.pyodide.toPy(sessionVars))) as PyProxy);
  }

  /** Runs code that must succeed. */
  async ok(code: string, sessionVars: Record<string, string> = {}): Promise<RunOutcome> {
    const outcome = await this.run(code, sessionVars);
    expect(outcome.error?.traceback).toBeUndefined();
    return outcome;
  }

  /** Changes that storage committed (the worker confirms after its transaction). */
  changes(variableLimit = 10 * MB, sessionLimit = 100 * MB): VariableChanges {
    const snap = this.proposeChanges(variableLimit, sessionLimit);
    this.rt.confirm_changes();
    return snap;
  }

  /** Changes whose commit has not (yet) succeeded. */
  proposeChanges(variableLimit = 10 * MB, sessionLimit = 100 * MB): VariableChanges {
    return plain<VariableChanges>(this.rt.changes(variableLimit, sessionLimit) as PyProxy);
  }

  restore(stored: StoredSession): RestoreReport {
    const toPy = (value: unknown) => this.pyodide.toPy(value, { depth: 2 });
    const variables = [...stored.variables.values()].map(({ pickle: _, ...meta }) => meta);
    const pickles = new Map([...stored.variables.values()].filter((v) => v.pickle).map((v) => [v.name, v.pickle]));
    return plain<RestoreReport>(this.rt.restore(toPy(stored.replay), toPy(variables), toPy(pickles)) as PyProxy);
  }

  clear(): void {
    this.rt.clear();
  }

  scanWorkspace(): Record<string, [number, bigint]> {
    return plain(this.rt.scan_workspace() as PyProxy);
  }

  /** repr() of an expression evaluated in the user's namespace (binds nothing there). */
  repr(expression: string): string {
    return this.pyodide.runPython(`repr(${expression})`) as string;
  }

  names(changes: VariableChanges): string[] {
    return changes.put.map((entry) => entry.name);
  }
}

/** What the worker keeps in IndexedDB for a session: replay sources and the variables of each run's changes. */
/** Counts the digests the state module makes from now on, until stop() puts hashlib back. */
function countDigests(s: Session): (() => number) & { stop: () => void } {
  const globals = s.pyodide.toPy({});
  s.pyodide.runPython(
    [
      'import hashlib, pytabs.state as state',
      'class Counting:',
      '    calls = 0',
      '    def blake2b(self, *args, **kwargs):',
      '        Counting.calls += 1',
      '        return hashlib.blake2b(*args, **kwargs)',
      'state.hashlib = Counting()',
    ].join('\n'),
    { globals },
  );
  const count = () => s.pyodide.runPython('Counting.calls', { globals }) as number;
  return Object.assign(count, { stop: () => void s.pyodide.runPython('state.hashlib = hashlib', { globals }) });
}

class StoredSession {
  readonly replay: string[] = [];
  readonly variables = new Map<string, Entry>();

  commit(run: RunOutcome, changes: VariableChanges): void {
    this.replay.push(...run.replay);
    for (const entry of changes.put) this.variables.set(entry.name, entry);
    for (const name of changes.delete) this.variables.delete(name);
  }
}

function entry(changes: VariableChanges, name: string): Entry {
  const found = changes.put.find((e) => e.name === name);
  if (!found) throw new Error(`${name} is not in the changes' put: ${changes.put.map((e) => e.name).join(', ')}`);
  return found;
}

describe('running cells', () => {
  let s: Session;
  beforeAll(async () => {
    s = await Session.open();
  }, LOAD_TIMEOUT);

  it('returns the last expression as a bundle and stores it in _', async () => {
    const out = await s.ok('a = 20\na + 22');
    expect(out.status).toBe('ok');
    expect(out.result).toEqual({ 'text/plain': '42' });
    expect(s.repr('_')).toBe('42');
    expect((await s.ok("'text'")).result?.['text/plain']).toBe("'text'");
  });

  it('shows no result for None, for a statement, or after a trailing semicolon', async () => {
    expect((await s.ok('None')).result).toBeUndefined();
    expect((await s.ok('print("x") or None')).result).toBeUndefined();
    expect((await s.ok('b = 5')).result).toBeUndefined();
    expect((await s.ok('b + 1;  # silenced')).result).toBeUndefined();
    expect((await s.ok('b + 1;\nb + 2')).result?.['text/plain']).toBe('7');
  });

  it('keeps print output and display() in the order they happened', async () => {
    s.events.length = 0;
    await s.ok('print("before", end="")\ndisplay(1, "two")\nprint("after")');
    const kinds = s.events.map((e) => (e.type === 'display' ? `display:${e.bundle['text/plain']}` : `${e.type}:${e.text}`));
    expect(kinds).toEqual(['stdout:before', 'display:1', "display:'two'", 'stdout:after\n']);
  });

  it('builds rich bundles and skips a _repr_ that raises', async () => {
    s.events.length = 0;
    await s.ok(`
class Rich:
    def _repr_html_(self): return '<b>rich</b>'
    def _repr_png_(self): return b'\\x89PNG'
    def _repr_svg_(self): raise ValueError('broken')
    def _repr_json_(self): return {'a': [1, 2]}
    def __repr__(self): return 'Rich()'
class Bundled:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {'text/markdown': '**md**', 'text/plain': 'plain from bundle'}
    def _repr_html_(self): return '<i>loses to the bundle? no, fills a gap</i>'
display(Rich(), Bundled(), Rich)`);
    const bundles = s.events.filter((e) => e.type === 'display').map((e) => e.bundle);
    expect(bundles[0]).toEqual({
      'text/plain': 'Rich()',
      'text/html': '<b>rich</b>',
      'image/png': Buffer.from('\x89PNG', 'latin1').toString('base64'),
      'application/json': '{"a": [1, 2]}',
    });
    expect(bundles[1]).toEqual({
      'text/markdown': '**md**',
      'text/plain': 'plain from bundle',
      'text/html': '<i>loses to the bundle? no, fills a gap</i>',
    });
    // A class's _repr_html_ is an unbound method: only its repr is shown.
    expect(bundles[2]).toEqual({ 'text/plain': "<class '__main__.Rich'>" });
    const result = await s.ok('Rich()');
    expect(result.result?.['text/html']).toBe('<b>rich</b>');
    expect(result.result?.['image/svg+xml']).toBeUndefined();
  });

  it('shows reprs exactly, and cuts a huge one without building it whole', async () => {
    await s.ok("nested = [1, 'a', (2,), {'k': {3, 4}}, frozenset(), b'\\x00', bytearray(b'z'), 1.5, None]\nnested.append(nested)");
    const text = (await s.ok('nested')).result?.['text/plain'];
    expect(text).toBe(s.pyodide.runPython('repr(nested)'));
    await s.ok('big = bytes(50_000_000)');
    const cut = (await s.ok('big')).result?.['text/plain'] ?? '';
    expect(cut.startsWith("b'\\x00\\x00")).toBe(true);
    expect(cut.length).toBeLessThan(100_200);
    expect(cut).toContain('output cut');
    const wide = (await s.ok('list(range(1_000_000))')).result?.['text/plain'] ?? '';
    expect(wide.length).toBeLessThan(100_200);
    expect(wide.startsWith('[0, 1, 2, 3')).toBe(true);
    await s.ok('del big');
  });

  it('runs a cell without await in one step, with the same outcome as through the event loop', async () => {
    const now = (code: string) => plain<RunOutcome>(s.rt.run_now(code, s.pyodide.toPy({})) as PyProxy);
    const direct = now("stepped = [1, 2]\nprint('out')\nsum(stepped)");
    expect(direct).toEqual(await s.run('sum(stepped)'));
    expect(direct.result?.['text/plain']).toBe('3');
    const failed = now('1 / 0');
    expect(failed.error?.ename).toBe('ZeroDivisionError');
    expect(failed.error?.traceback).toContain('1 / 0');
    // A cell that suspends is not for run_now; the worker sends those to run().
    expect(() => now('import asyncio\nawait asyncio.sleep(0.01)')).toThrow('use run()');
  });

  it('supports top-level await', async () => {
    const out = await s.ok('import asyncio\nawait asyncio.sleep(0.01)\nasync def twice(x):\n    return 2 * x\nawait twice(21)');
    expect(out.result?.['text/plain']).toBe('42');
  });

  it('reports tracebacks of the user frames only', async () => {
    const out = await s.run('def inner(x):\n    return x / 0\n\ndef outer():\n    return inner(1)\n\nouter()');
    expect(out.status).toBe('error');
    expect(out.error?.ename).toBe('ZeroDivisionError');
    expect(out.error?.evalue).toBe('division by zero');
    const tb = out.error?.traceback ?? '';
    expect(tb).toMatch(/^Traceback \(most recent call last\):\n {2}File "<cell-\d+>", line 7, in <module>\n {4}outer\(\)/);
    expect(tb).toContain('line 5, in outer\n    return inner(1)');
    expect(tb).toContain('line 2, in inner\n    return x / 0');
    expect(tb.endsWith('ZeroDivisionError: division by zero')).toBe(true);
    expect(tb).not.toMatch(/pytabs|pyodide|executor|_pyodide/);
  });

  it('leaves library frames out but keeps the user line that called them', async () => {
    const out = await s.run("import json\njson.loads('{')");
    const tb = out.error?.traceback ?? '';
    expect(out.error?.ename).toBe('JSONDecodeError');
    expect(tb).toContain("json.loads('{')");
    expect(tb).not.toContain('decoder.py');
    expect(tb.split('\n').at(-1)).toMatch(/^json\.decoder\.JSONDecodeError: Expecting property name/);
  });

  it('shows frames of a module in the workspace', async () => {
    await s.ok("with open('helper.py', 'w') as f:\n    f.write('def boom():\\n    raise ValueError(\"from helper\")\\n')");
    const tb = (await s.run('import helper\nhelper.boom()')).error?.traceback ?? '';
    expect(tb).toContain('helper.py", line 2, in boom\n    raise ValueError("from helper")');
    expect(tb.endsWith('ValueError: from helper')).toBe(true);
  });

  it('imports a module saved in the workspace right after a failed import of it', async () => {
    expect((await s.run('import late_module')).error?.ename).toBe('ModuleNotFoundError');
    s.pyodide.FS.writeFile('/home/pyodide/workspace/late_module.py', 'VALUE = 5\n');
    expect((await s.ok('import late_module\nlate_module.VALUE')).result?.['text/plain']).toBe('5');
  });

  it('reports a SyntaxError with the offending line and a caret', async () => {
    const out = await s.run('x = 1\ny = (2 +\n');
    expect(out.error?.ename).toBe('SyntaxError');
    const tb = out.error?.traceback ?? '';
    expect(tb).toMatch(/File "<cell-\d+>", line 2\n {4}y = \(2 \+\n {8}\^\nSyntaxError: '\(' was never closed$/);
    expect(tb).not.toContain('Traceback');
  });

  it('turns KeyboardInterrupt and SystemExit into error results', async () => {
    const interrupted = await s.run('raise KeyboardInterrupt');
    expect(interrupted.status).toBe('error');
    expect(interrupted.error?.ename).toBe('KeyboardInterrupt');
    expect(interrupted.error?.traceback.endsWith('KeyboardInterrupt')).toBe(true);
    expect((await s.run('import sys\nsys.exit(3)')).error?.ename).toBe('SystemExit');
    expect((await s.ok('1 + 1')).result?.['text/plain']).toBe('2');
  });

  it('turns a real interrupt (the interrupt buffer) into an error result, and the session goes on', async () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    s.pyodide.setInterruptBuffer(buffer);
    const global = globalThis as { stopButton?: Uint8Array };
    global.stopButton = buffer;
    try {
      // The cell presses stop itself: JS cannot run while the loop holds the thread.
      const out = await s.run('import js\nrounds = 0\njs.stopButton[0] = 2  # SIGINT\nwhile True:\n    rounds += 1');
      expect(out.error?.ename).toBe('KeyboardInterrupt');
      expect(out.error?.traceback).toMatch(/File "<cell-\d+>", line 5, in <module>\n {4}rounds \+= 1/);
      expect(buffer[0]).toBe(0);
      // (An interrupt already pending when a run starts can land in Pyodide's own task
      // creation, before this runtime runs: the worker handles that; see worker-session.test.ts.)
      expect((await s.ok('"alive"')).result?.['text/plain']).toBe("'alive'");
    } finally {
      delete global.stopButton;
      s.pyodide.setInterruptBuffer(new Uint8Array(new SharedArrayBuffer(1)));
    }
  });

  it('returns the source of top-level imports, defs and classes to replay', async () => {
    const code = [
      'import json, os.path as osp; import math',
      'from collections import OrderedDict as OD',
      'import functools',
      'value = 3',
      '@functools.lru_cache',
      'def cached(n):',
      '    import re  # nested: not replayed',
      '    return n',
      'async def fetch():',
      '    return 1',
      'class Point:',
      '    def norm(self):',
      '        return 0',
      'if value:',
      '    import string',
      '    def hidden(): pass',
    ].join('\n');
    const out = await s.ok(code);
    expect(out.replay).toEqual([
      'import json, os.path as osp',
      'import math',
      'from collections import OrderedDict as OD',
      'import functools',
      '@functools.lru_cache\ndef cached(n):\n    import re  # nested: not replayed\n    return n',
      'async def fetch():\n    return 1',
      'class Point:\n    def norm(self):\n        return 0',
    ]);
  });

  it('returns to replay only what ran before the statement that failed', async () => {
    const out = await s.run('import json\ndef f(): pass\n1 / 0\ndef g(): pass');
    expect(out.status).toBe('error');
    expect(out.replay).toEqual(['import json', 'def f(): pass']);
    expect((await s.run('def h(:\n    pass')).replay).toEqual([]);
  });

  it('gives get_session_var the values of the current run', async () => {
    expect((await s.ok("get_session_var('city')", { city: 'Oslo' })).result?.['text/plain']).toBe("'Oslo'");
    expect((await s.ok("get_session_var('missing', 'dflt')", { city: 'Oslo' })).result?.['text/plain']).toBe("'dflt'");
    await s.ok("def where():\n    return get_session_var('city')");
    expect((await s.ok('where()', { city: 'Lima' })).result?.['text/plain']).toBe("'Lima'");
    expect((await s.ok("get_session_var('city')")).result).toBeUndefined();
  });

  it('lists the files that code wrote in the workspace', async () => {
    await s.ok("import os\nos.makedirs('out', exist_ok=True)\nopen('out/data.txt', 'w').write('hello')");
    const files = s.scanWorkspace();
    expect(files['out/data.txt'][0]).toBe(5);
    // mtime_ns is past 2**53: it arrives as a BigInt.
    expect(BigInt(files['out/data.txt'][1])).toBeGreaterThan(10n ** 18n);
    expect(Object.keys(files).some((path) => path.includes('__pycache__'))).toBe(false);
    expect((await s.ok('import os\nos.getcwd()')).result?.['text/plain']).toBe("'/home/pyodide/workspace'");
  });
});

describe('isolation', () => {
  it('keeps two sessions’ variables, session variables and workspaces apart', async () => {
    const a = await Session.open('a', '/home/pyodide/a');
    const b = await Session.open('b', '/home/pyodide/b');
    await a.ok("secret = 'only in a'\nopen('mine.txt', 'w').write('a')");
    const fromB = await b.run('secret');
    expect(fromB.error?.ename).toBe('NameError');
    expect(b.changes().put).toEqual([]);
    expect(a.names(a.changes())).toEqual(['secret']);
    expect(Object.keys(b.scanWorkspace())).toEqual([]);
    expect((await b.ok("get_session_var('k')", { k: 'b' })).result?.['text/plain']).toBe("'b'");
  }, 2 * LOAD_TIMEOUT);
});

describe('per-run variable changes', () => {
  let s: Session;
  beforeAll(async () => {
    s = await Session.open();
  }, LOAD_TIMEOUT);
  const fresh = () => {
    s.clear();
    expect(s.changes()).toEqual({ put: [], delete: [] });
  };

  it('reports new values once, and in-place mutation however it happens', async () => {
    fresh();
    await s.ok('n = 1\nitems = [1, 2]\nalias = items\nconfig = {"a": 1}\ndef add(v):\n    items.append(v)');
    const first = s.changes();
    expect(s.names(first)).toEqual(['add', 'alias', 'config', 'items', 'n']);
    const items = entry(first, 'items');
    expect(items).toMatchObject({ type: 'list', kind: 'pickle', persisted: true, preview: '[1, 2]' });
    expect(items.pickle?.length).toBe(items.sizeBytes);
    expect(items.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(entry(first, 'n').pickle).toBeInstanceOf(Uint8Array);

    await s.ok('pass');
    expect(s.changes()).toEqual({ put: [], delete: [] });

    await s.ok('items.append(3)');
    expect(s.names(s.changes())).toEqual(['alias', 'items']);
    await s.ok('alias.append(4)');
    expect(s.names(s.changes())).toEqual(['alias', 'items']);
    await s.ok('add(5)');
    const viaFunction = s.changes();
    expect(s.names(viaFunction)).toEqual(['alias', 'items']);
    expect(entry(viaFunction, 'items').preview).toBe('[1, 2, 3, 4, 5]');
    await s.ok('config["a"] = 1');
    expect(s.changes().put).toEqual([]);
    await s.ok('config["b"] = 2\nn = 1');
    expect(s.names(s.changes())).toEqual(['config']);
  });

  it('reports a change again until its commit is confirmed', async () => {
    fresh();
    await s.ok('kept = [1]\ndropped = 2');
    s.changes();
    await s.ok('kept.append(2)\ndel dropped\nnew = 3');
    const failed = s.proposeChanges();
    expect([s.names(failed), failed.delete]).toEqual([['kept', 'new'], ['dropped']]);
    // The commit failed: the retry proposes the same change, then nothing once confirmed.
    const retry = s.changes();
    expect([s.names(retry), retry.delete]).toEqual([['kept', 'new'], ['dropped']]);
    expect(s.changes()).toEqual({ put: [], delete: [] });
  });

  it('reports deleted names, and not _ or dunder names', async () => {
    fresh();
    await s.ok('x = 1\ny = 2\n__private = 3\n42');
    expect(s.names(s.changes())).toEqual(['x', 'y']);
    await s.ok('del x');
    expect(s.changes()).toEqual({ put: [], delete: ['x'] });
  });

  it('keeps imports, defs and classes by replay', async () => {
    fresh();
    await s.ok('import json\nfrom math import sqrt, pi\ndef f():\n    return 1\nclass K:\n    pass\nk = K()');
    const snap = s.changes();
    expect(entry(snap, 'json')).toMatchObject({ kind: 'replay', persisted: true, type: 'module', reason: 'restored by re-running its import' });
    expect(entry(snap, 'sqrt')).toMatchObject({ kind: 'replay', reason: 'restored by re-running its import' });
    expect(entry(snap, 'f')).toMatchObject({ kind: 'replay', type: 'function', reason: 'restored by re-running its definition' });
    expect(entry(snap, 'K')).toMatchObject({ kind: 'replay', type: 'type', reason: 'restored by re-running its definition' });
    expect(entry(snap, 'pi')).toMatchObject({ kind: 'pickle', type: 'float', persisted: true });
    expect(entry(snap, 'k')).toMatchObject({ kind: 'pickle', type: 'K', persisted: true });
    expect(entry(snap, 'json').pickle).toBeUndefined();
    await s.ok('json = [1]');
    expect(entry(s.changes(), 'json')).toMatchObject({ kind: 'pickle', type: 'list' });
  });

  it('says why a value cannot be kept', async () => {
    fresh();
    await s.ok(`
import importlib
square = lambda v: v * v
gen = (i for i in range(3))
handle = open('notes.txt', 'w')
mod = importlib.import_module('json')
def factory():
    def local():
        pass
    return local
made = factory()
nested = {'k': [1, lambda: 0]}
if True:
    def in_block():
        pass
    kept_fn = in_block`);
    const snap = s.changes();
    const reasons = Object.fromEntries(snap.put.filter((e) => !e.persisted).map((e) => [e.name, e.reason]));
    expect(reasons.square).toMatch(/^lambdas cannot be pickled/);
    expect(reasons.gen).toMatch(/^generators and coroutines cannot be pickled/);
    expect(reasons.handle).toMatch(/^open files cannot be pickled/);
    expect(reasons.mod).toBe('modules are only kept when bound by a top-level import statement');
    expect(reasons.made).toBe('functions and classes defined inside another function cannot be pickled');
    expect(reasons.nested).toBe("lambdas cannot be pickled (a function made with a top-level def can be kept) (found in dict item 'k', list item 1)");
    expect(reasons.in_block).toMatch(/uses 'in_block', which a restore does not re-create/);
    expect(reasons.kept_fn).toMatch(/uses 'in_block', which a restore does not re-create/);
    for (const name of ['square', 'gen', 'handle', 'mod', 'made', 'nested', 'in_block', 'kept_fn']) {
      expect(entry(snap, name)).toMatchObject({ kind: 'none', persisted: false });
      expect(entry(snap, name).pickle).toBeUndefined();
    }
    expect(entry(snap, 'gen').sizeBytes).toBeGreaterThan(0);
    // Unchanged unpicklable values are not reported again; a new one is.
    await s.ok('pass');
    expect(s.changes().put).toEqual([]);
    await s.ok('gen = (i for i in range(3))\nhandle.close()');
    expect(s.names(s.changes())).toEqual(['gen']);
  });

  it('applies the per-variable and per-session limits by name order, and re-puts what fits again', async () => {
    fresh();
    await s.ok('big = bytes(2 * 1024 * 1024)\na = bytes(400_000)\nb = bytes(400_000)\nc = bytes(400_000)');
    const snap = s.changes(1 * MB, 1 * MB);
    expect(entry(snap, 'big')).toMatchObject({ persisted: false, kind: 'none' });
    expect(entry(snap, 'big').reason).toBe('2.0 MB is over the 1.0 MB per-variable limit');
    expect(entry(snap, 'big').sizeBytes).toBeGreaterThan(2 * MB);
    expect(entry(snap, 'a')).toMatchObject({ persisted: true, kind: 'pickle' });
    expect(entry(snap, 'b')).toMatchObject({ persisted: true, kind: 'pickle' });
    expect(entry(snap, 'c')).toMatchObject({ persisted: false, kind: 'none' });
    expect(entry(snap, 'c').reason).toBe('390.6 KB would take the session over its 1.0 MB limit (781.3 KB already kept by other variables)');
    expect(entry(snap, 'c').pickle).toBeUndefined();

    await s.ok('pass');
    expect(s.changes(1 * MB, 1 * MB).put).toEqual([]);
    await s.ok('del a');
    const after = s.changes(1 * MB, 1 * MB);
    expect(after.delete).toEqual(['a']);
    expect(s.names(after)).toEqual(['c']);
    expect(entry(after, 'c')).toMatchObject({ persisted: true, kind: 'pickle' });
    expect(entry(after, 'c').pickle?.length).toBe(entry(after, 'c').sizeBytes);
    // Raising the limit lets the big one in.
    expect(s.names(s.changes(10 * MB, 100 * MB))).toEqual(['big']);
  });

  it('does not re-pickle an unchanged immutable value (measured by the memory pickling it would take)', async () => {
    fresh();
    await s.ok('blob = bytes(20_000_000)\nmutable = bytearray(20_000_000)');
    expect(s.names(s.changes(100 * MB, 1000 * MB))).toEqual(['blob', 'mutable']);
    const peakDuringChanges = (): number => {
      s.pyodide.runPython('import tracemalloc\ntracemalloc.start()', { globals: s.pyodide.toPy({}) });
      try {
        expect(s.changes(100 * MB, 1000 * MB).put).toEqual([]);
        return s.pyodide.runPython('import tracemalloc\ntracemalloc.get_traced_memory()[1]', { globals: s.pyodide.toPy({}) }) as number;
      } finally {
        s.pyodide.runPython('import tracemalloc\ntracemalloc.stop()', { globals: s.pyodide.toPy({}) });
      }
    };
    // The mutable one must be pickled again to see changes: the measure sees that.
    expect(peakDuringChanges()).toBeGreaterThan(20_000_000);
    await s.ok('del mutable');
    s.changes(100 * MB, 1000 * MB);
    expect(peakDuringChanges()).toBeLessThan(1_000_000);
    // An equal value bound anew is pickled again, and found unchanged.
    await s.ok('blob = bytes(20_000_000)');
    expect(s.changes(100 * MB, 1000 * MB).put).toEqual([]);
  });

  it('tells whether a large value changed by comparing its pickle with the kept one, without hashing it again', async () => {
    fresh();
    await s.ok('big = bytearray(2_000_000)\nrows = [[i, str(i)] for i in range(20_000)]');
    const first = s.changes();
    expect(s.names(first)).toEqual(['big', 'rows']);
    const bigHash = entry(first, 'big').hash;
    const digests = countDigests(s);
    try {
      await s.ok('pass');
      expect(s.changes()).toEqual({ put: [], delete: [] });
      expect(digests()).toBe(0);
      // One byte at the very end, and one string deep inside: both are changes.
      await s.ok('big[1_999_999] = 1\nrows[-1][1] = "changed"');
      const changed = s.changes();
      expect(s.names(changed)).toEqual(['big', 'rows']);
      expect(entry(changed, 'big').hash).not.toBe(bigHash);
      expect(entry(changed, 'rows').hash).not.toBe(entry(first, 'rows').hash);
      expect(digests()).toBe(2);
      // Put back as it first was, it is a change again, and its digest is the first one.
      await s.ok('big[1_999_999] = 0');
      expect(entry(s.changes(), 'big').hash).toBe(bigHash);
      // A failed commit keeps the old pickle as the reference: the retry still reports the change.
      await s.ok('big[0] = 7');
      expect(s.names(s.proposeChanges())).toEqual(['big']);
      expect(s.names(s.changes())).toEqual(['big']);
      expect(s.changes()).toEqual({ put: [], delete: [] });
    } finally {
      digests.stop();
    }
  });

  it('forgets everything on clear', async () => {
    fresh();
    await s.ok('x = 1\nimport json\ndef f(): pass');
    expect(s.changes().put.length).toBe(3);
    s.clear();
    expect((await s.run('x')).error?.ename).toBe('NameError');
    expect(s.changes()).toEqual({ put: [], delete: [] });
    await s.ok('x = 2');
    expect(s.names(s.changes())).toEqual(['x']);
    expect((await s.ok('display')).result?.['text/plain']).toMatch(/display/);
  });
});

describe('restoring into a fresh interpreter', () => {
  /** Runs each cell in a first session and commits it, as the worker does after every run. */
  async function storedFrom(cells: string[]): Promise<StoredSession> {
    const first = await Session.open();
    const stored = new StoredSession();
    for (const code of cells) stored.commit(await first.ok(code), first.changes());
    return stored;
  }

  it('brings back values, imports, functions, classes and instances; not what was deleted', async () => {
    const stored = await storedFrom([
      'import json\nfrom math import sqrt\nnumbers = [1, 2.5, "three", None, (4,), {5}]\ntable = {"a": {"b": [1]}}',
      'class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n    def norm(self):\n        return sqrt(self.x ** 2 + self.y ** 2)\np = Point(3, 4)',
      'def double(v):\n    return 2 * v\ndef gone():\n    pass\nsquare = lambda v: v * v\nbuf = bytes(range(256))',
      'del gone\nnumbers.append("later")',
    ]);
    expect([...stored.variables.keys()].sort()).toEqual(['Point', 'buf', 'double', 'json', 'numbers', 'p', 'sqrt', 'square', 'table']);

    const s = await Session.open();
    const report = s.restore(stored);
    expect(report.failed).toEqual([]);
    expect(report.restored).toEqual(['Point', 'buf', 'double', 'json', 'numbers', 'p', 'sqrt', 'table']);
    expect(s.repr('numbers')).toBe(`[1, 2.5, 'three', None, (4,), {5}, 'later']`);
    expect(s.repr('table')).toBe(`{'a': {'b': [1]}}`);
    expect(s.repr('buf == bytes(range(256))')).toBe('True');
    expect((await s.ok('double(21), p.norm(), isinstance(p, Point), json.dumps([1])')).result?.['text/plain']).toBe("(42, 5.0, True, '[1]')");
    expect((await s.run('gone')).error?.ename).toBe('NameError');
    expect((await s.run('square')).error?.ename).toBe('NameError');
    // Storage and bookkeeping agree: only the unkept lambda's stale entry goes.
    expect(s.changes()).toEqual({ put: [], delete: ['square'] });
  }, 3 * LOAD_TIMEOUT);

  it('keeps a large restored pickle as the reference: unchanged costs no digest, a change in place is seen', async () => {
    const stored = await storedFrom(['big = bytearray(1_000_000)\nbig[5] = 5']);
    const s = await Session.open();
    expect(s.restore(stored).restored).toEqual(['big']);
    const digests = countDigests(s);
    try {
      await s.ok('pass');
      expect(s.changes()).toEqual({ put: [], delete: [] });
      expect(digests()).toBe(0);
      await s.ok('big[999_999] = 9');
      const after = s.changes();
      expect(s.names(after)).toEqual(['big']);
      expect(entry(after, 'big').hash).not.toBe(stored.variables.get('big')?.hash);
    } finally {
      digests.stop();
    }
  }, 3 * LOAD_TIMEOUT);

  it('reports a corrupt pickle and a failing replay, and restores the rest', async () => {
    const stored = await storedFrom(['import json\nfirst = [1]\nsecond = {"b": 2}\ndef keep():\n    return "kept"']);
    const second = stored.variables.get('second');
    if (!second?.pickle) throw new Error('second was not stored');
    stored.variables.set('second', { ...second, pickle: new Uint8Array([1, 2, 3]) });
    stored.replay.unshift('import no_such_module_here');

    const s = await Session.open();
    const report = s.restore(stored);
    expect(report.restored).toEqual(['first', 'json', 'keep']);
    expect(report.failed).toHaveLength(2);
    expect(report.failed[0]).toEqual({
      name: 'no_such_module_here',
      reason: "ModuleNotFoundError: No module named 'no_such_module_here'",
    });
    expect(report.failed[1].name).toBe('second');
    expect(report.failed[1].reason).toMatch(/^its stored pickle could not be loaded: UnpicklingError/);
    expect(s.repr('first')).toBe('[1]');
    expect((await s.ok('keep()')).result?.['text/plain']).toBe("'kept'");
    // The failed variable stays in storage (nothing deleted), and is not in the namespace.
    expect(s.changes()).toEqual({ put: [], delete: [] });
    expect((await s.run('second')).error?.ename).toBe('NameError');
  }, 3 * LOAD_TIMEOUT);

  it('replays a definition that needs a restored variable', async () => {
    const stored = await storedFrom(['LIMIT = 7', 'def capped(v, limit=LIMIT):\n    return min(v, limit)\nclass Box(list):\n    size = LIMIT']);
    const s = await Session.open();
    const report = s.restore(stored);
    expect(report.failed).toEqual([]);
    expect(report.restored).toEqual(['Box', 'LIMIT', 'capped']);
    expect((await s.ok('capped(100), Box.size')).result?.['text/plain']).toBe('(7, 7)');
  }, 3 * LOAD_TIMEOUT);
});
