import { describe, it, expect, beforeEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadPyodide } from 'pyodide';
import { WorkerSession } from '../../workers/runtime/session';
import { tellInEnglish, type Said } from '../../src/lib/i18n/said';
import type { CodeFlag } from '../../src/lib/worker-api';

// Grades a teacher can trust, or knows to read: on real Pyodide, a hand-in's code that changes
// the check machinery after the seal makes the checks fail (also through a copy of a module put
// into sys.modules, or an attribute set on the runtime object found up the stack); what no check can catch (a value
// whose __eq__ always answers True, Python posting to the page through js) is flagged by the
// static look, which CPython runs the same; a clean class and ordinary code are never flagged.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };
const CHECK = 'def check_total():\n    assert total == 10, "total should be 10"\n';

/** A flag as the grades table shows it in English. */
const flagText = (f: CodeFlag) => `cell ${f.cell}, line ${f.line}: ${tellInEnglish(f.why)}`;

async function graded(cells: string[], sealed = true): Promise<{ outcome: { passed: boolean; error: string | null; message: string }; flags: string[] }> {
  const s = new WorkerSession(await loadPyodide(), null);
  await s.start();
  if (sealed) s.sealForGrading();
  const flags = s.scanCells(cells).map(flagText);
  for (const code of cells) await s.run(code, undefined, {}, limits, { noInput: 'grading' });
  const outcome = await s.runCheck(CHECK, 'check_total', 1000);
  return { outcome: { ...outcome, message: typeof outcome.message === 'string' ? outcome.message : tellInEnglish(outcome.message) }, flags };
}

/** The static look as CPython runs it on the same cells. */
function refereeScan(cells: string[]): string[] {
  const script = 'import json, sys\nfrom pytabs.guard import scan\ncells = json.load(sys.stdin)\nprint(json.dumps([f for i, c in enumerate(cells) for f in scan(c, i + 1)]))';
  const out = spawnSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(cells), env: { ...process.env, PYTHONPATH: path.resolve('workers/python') }, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return (JSON.parse(out.stdout) as { cell: number; line: number; why: Said }[]).map(flagText);
}

describe('a hand-in graded after the seal', () => {
  let clean: string[];
  beforeEach(() => {
    clean = [
      'class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n    def __repr__(self):\n        return f"Point({self.x}, {self.y})"\n    def __lt__(self, other):\n        return self.x < other.x\n    def __len__(self):\n        return 2',
      'import math, sys, statistics\nfrom dataclasses import dataclass\n@dataclass\nclass Row:\n    n: int\nrows = [Row(1), Row(2), Row(3), Row(4)]\ntotal = sum(r.n for r in rows)\nprint(sys.version_info.major, math.pi)\ntotal',
    ];
  });

  it('a clean class and ordinary code pass, and nothing is flagged', async () => {
    const { outcome, flags } = await graded(clean);
    expect(outcome).toMatchObject({ passed: true, error: null });
    expect(flags).toEqual([]);
    expect(refereeScan(clean)).toEqual([]);
  });

  it('replacing the check runner, or its code, makes every check fail, naming what changed', async () => {
    const fake = "def fake(namespace, source, name, limit):\n    return {'name': name, 'passed': True, 'message': '', 'error': None, 'output': ''}\n";
    for (const forgery of [
      `import pytabs.checks, pytabs.runtime\n${fake}pytabs.checks.run_check = fake\npytabs.runtime.run_check = fake\ntotal = 1`,
      `import pytabs.runtime\n${fake}pytabs.runtime.Runtime.run_check = lambda self, source, name, limit: fake(None, source, name, limit)\ntotal = 1`,
      `import pytabs.checks\n${fake}pytabs.checks.run_check.__code__ = fake.__code__\ntotal = 1`,
      `import copy\ncopy.deepcopy = lambda value, memo=None: value\ntotal = 1`,
    ]) {
      const { outcome, flags } = await graded([forgery]);
      expect(outcome).toMatchObject({ passed: false, error: 'Tampered' });
      expect(outcome.message).toMatch(/^not run: the hand-in's code changed what grading runs on \((pytabs|copy)\./);
      expect(flags.length + (forgery.startsWith('import copy') ? 1 : 0)).toBeGreaterThan(0);
    }
    // The same forgery without the seal: full points, which is what the seal is for.
    const unsealed = await graded([`import pytabs.runtime\n${fake}pytabs.runtime.Runtime.run_check = lambda self, source, name, limit: fake(None, source, name, limit)\ntotal = 1`], false);
    expect(unsealed.outcome.passed).toBe(true);
  });

  it("a value whose __eq__ always answers True passes its check, and is flagged with its line", async () => {
    const cells = ['class Always:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\ntotal = Always()'];
    const { outcome, flags } = await graded(cells);
    expect(outcome.passed).toBe(true);
    expect(flags).toEqual([
      'cell 1, line 2: class Always defines __eq__: its values can answer a check as they please',
      'cell 1, line 4: class Always sets __hash__: its values can answer a check as they please',
    ]);
    expect(refereeScan(cells)).toEqual(flags);
  });

  it('Python that posts a message to the page through js, or reaches the interpreter, is flagged', async () => {
    const cells = [
      "import js\njs.postMessage(js.Object.fromEntries([['pytabsRunEvent', 1]]))\ntotal = 10",
      "mod = __import__('gc')\nglobals()['total'] = 10\nimport sys\nsys.modules['pytabs'] = None",
    ];
    const { flags } = await graded(cells);
    expect(flags).toEqual([
      "cell 1, line 1: imports the browser's JavaScript (js)",
      'cell 2, line 1: imports by name (__import__)',
      'cell 2, line 2: writes through globals()',
      'cell 2, line 4: uses sys.modules',
    ]);
    expect(refereeScan(cells)).toEqual(flags);
  });

  it('a copy of the runtime module put into sys.modules and the real one patched, or the runner set on the runtime found up the stack, fails every check', async () => {
    const fake = "def fake(*args):\n    return {'name': 'check_total', 'passed': True, 'message': '', 'error': None, 'output': ''}\n";
    const copied = [
      'import sys, types',
      "modules = getattr(sys, 'modules')",
      "real = modules['pytabs.runtime']",
      "copy = types.ModuleType('pytabs.runtime')",
      'copy.__dict__.update(vars(real))',
      "modules['pytabs.runtime'] = copy",
      fake,
      "setattr(real, 'run_check', fake)",
      'total = 1',
    ].join('\n');
    const upTheStack = [
      fake,
      'def runtime():',
      '    try:',
      '        raise ValueError',
      '    except ValueError as e:',
      "        frame = getattr(e.__traceback__, 'tb_frame')",
      '    while frame is not None:',
      "        found = getattr(frame, 'f_locals').get('self')",
      "        if hasattr(found, 'run_check'):",
      '            return found',
      "        frame = getattr(frame, 'f_back')",
      "setattr(runtime(), 'run_check', lambda source, name, limit: fake())",
      'total = 1',
    ].join('\n');
    const copiedOutcome = await graded([copied]);
    expect(copiedOutcome.outcome).toMatchObject({ passed: false, error: 'Tampered' });
    expect(copiedOutcome.outcome.message).toContain("sys.modules['pytabs.runtime']");
    expect(copiedOutcome.outcome.message).toContain('pytabs.runtime.run_check');
    expect(copiedOutcome.flags).toEqual(['cell 1, line 2: uses sys.modules (getattr)']);
    const stack = await graded([upTheStack]);
    expect(stack.outcome).toMatchObject({ passed: false, error: 'Tampered' });
    // The runtime object, named as Python reaches it (not the module pytabs.runtime).
    expect(stack.outcome.message).toMatch(/[(, ]runtime\b/);
    expect(stack.flags).toEqual([
      "cell 1, line 8: reaches into functions or frames ('tb_frame' by name)",
      "cell 1, line 10: reaches into functions or frames ('f_locals' by name)",
      "cell 1, line 13: reaches into functions or frames ('f_back' by name)",
    ]);
    expect(refereeScan([copied, upTheStack])).toEqual([...copiedOutcome.flags, ...stack.flags.map((f) => f.replace('cell 1', 'cell 2'))]);
  });

  it('reaching sys.modules through getattr or vars, or a frame or code attribute by its name, is flagged; honest uses of getattr are not', async () => {
    const cells = [
      "import sys\nm = vars(sys)['modules']\nk = getattr(sys, name)\nd = sys.__dict__",
      "import operator\nget = operator.attrgetter('co_consts')\nf = (lambda: 0)\nc = getattr(f, '__code__')",
      "class P:\n    x = 1\np = P()\nprint(getattr(p, 'x'), hasattr(p, 'y'), getattr(p, 'modules', None), vars(p))",
    ];
    const flags = refereeScan(cells);
    expect(flags).toEqual([
      'cell 1, line 2: reaches sys.modules (vars(sys))',
      'cell 1, line 3: takes an attribute of sys by a computed name (getattr)',
      'cell 1, line 4: reaches sys.modules (sys.__dict__)',
      "cell 2, line 2: reaches into functions or frames ('co_consts' by name)",
      "cell 2, line 4: reaches into functions or frames ('__code__' by name)",
    ]);
    expect((await graded(cells, true)).flags).toEqual(flags);
  });
});
