import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import { loadRuntime } from './load-runtime';
import type { RunError } from '../../src/lib/worker-api';

// Errors a beginner can read (workers/python/pytabs/explain.py) on real Pyodide, run the way the
// session worker runs a cell; Debian's CPython runs each program too, as the referee that it
// really raises that error there, and that the same explanation comes out of it.

const LOAD_TIMEOUT = 60_000;
const PYTHON_DIR = fileURLToPath(new URL('../../workers/python', import.meta.url));
const REFEREE = fileURLToPath(new URL('./referee/explain_referee.py', import.meta.url));

interface Case {
  what: string;
  code: string;
  ename: string;
  explanation: unknown[];
  line: number;
}

const text = (value: string) => ({ key: 'explain_value_text', params: { value } });
const whole = (value: string) => ({ key: 'explain_value_int', params: { value } });

const CASES: Case[] = [
  {
    what: 'a misspelt name, with the name the program defined',
    code: 'total = 10\nprint(totl)',
    ename: 'NameError',
    explanation: [{ key: 'explain_name_suggest', params: { name: 'totl', suggestion: 'total' } }],
    line: 2,
  },
  {
    what: 'a misspelt builtin',
    code: "pritn('hello')",
    ename: 'NameError',
    explanation: [{ key: 'explain_name_suggest', params: { name: 'pritn', suggestion: 'print' } }],
    line: 1,
  },
  {
    what: 'a misspelt parameter inside a function, then the path through the calls',
    code: 'def area(width, height):\n    return widht * height\n\nprint(area(2, 3))',
    ename: 'NameError',
    explanation: [
      { key: 'explain_name_suggest', params: { name: 'widht', suggestion: 'width' } },
      { key: 'explain_traceback', params: { start: 4, function: 'area', stop: 2 } },
    ],
    line: 2,
  },
  {
    what: 'a name nothing is close to',
    code: 'colour = blue',
    ename: 'NameError',
    explanation: [{ key: 'explain_name', params: { name: 'blue' } }],
    line: 1,
  },
  {
    what: 'a local variable used before it is given a value',
    code: 'count = 0\ndef add():\n    count = count + 1\nadd()',
    ename: 'UnboundLocalError',
    explanation: [
      { key: 'explain_unbound', params: { name: 'count' } },
      { key: 'explain_traceback', params: { start: 4, function: 'add', stop: 3 } },
    ],
    line: 3,
  },
  {
    what: 'a missing colon',
    code: 'x = 5\nif x > 3\n    print(x)',
    ename: 'SyntaxError',
    explanation: [{ key: 'explain_syntax_colon', params: { line: 2, column: 9 } }],
    line: 2,
  },
  {
    what: 'a bracket never closed',
    code: 'print((1 + 2)\nx = 3',
    ename: 'SyntaxError',
    explanation: [{ key: 'explain_syntax_unclosed', params: { bracket: '(', line: 1, column: 6 } }],
    line: 1,
  },
  {
    what: 'a closing bracket of the wrong kind',
    code: 'nums = [1, 2, 3)',
    ename: 'SyntaxError',
    explanation: [{ key: 'explain_syntax_mismatch', params: { closing: ')', opening: '[', line: 1, column: 16 } }],
    line: 1,
  },
  {
    what: 'an unexpected indent',
    code: 'x = 1\n    y = 2',
    ename: 'IndentationError',
    explanation: [{ key: 'explain_syntax_unexpected_indent', params: { line: 2 } }],
    line: 2,
  },
  {
    what: 'a block that is not indented',
    code: 'for i in range(3):\nprint(i)',
    ename: 'IndentationError',
    explanation: [{ key: 'explain_syntax_expected_indent', params: { line: 2 } }],
    line: 2,
  },
  {
    what: 'a text never closed',
    code: 'name = "Ann\nprint(name)',
    ename: 'SyntaxError',
    explanation: [{ key: 'explain_syntax_string', params: { line: 1 } }],
    line: 1,
  },
  {
    what: 'text + a number, with both values and their kinds',
    code: 'age = "5"\nprint(age + 3)',
    ename: 'TypeError',
    explanation: [{ key: 'explain_type_join', params: { op: '+', left: text("'5'"), right: whole('3') } }],
    line: 2,
  },
  {
    what: 'a number += text',
    code: 'total = 0\nanswer = "7"\ntotal += answer',
    ename: 'TypeError',
    explanation: [{ key: 'explain_type_join', params: { op: '+', left: whole('0'), right: text("'7'") } }],
    line: 3,
  },
  {
    what: 'text compared with a number',
    code: 'guess = "10"\nif guess < 5:\n    print("small")',
    ename: 'TypeError',
    explanation: [{ key: 'explain_type_mixed', params: { op: '<', left: text("'10'"), right: whole('5') } }],
    line: 2,
  },
  {
    what: 'a division by zero, naming the divisor',
    code: 'count = 0\nprint(10 / count)',
    ename: 'ZeroDivisionError',
    explanation: [{ key: 'explain_zero', params: { divisor: 'count' } }],
    line: 2,
  },
  {
    what: "a position past a list's end, with its length and the index tried",
    code: 'nums = [4, 8, 15]\nprint(nums[3])',
    ename: 'IndexError',
    explanation: [{ key: 'explain_index', params: { name: 'nums', length: 3, index: 3, last: 2 } }],
    line: 2,
  },
  {
    what: 'the classic off by one, with len()',
    code: 'nums = [4, 8]\ni = len(nums)\nprint(nums[i])',
    ename: 'IndexError',
    explanation: [{ key: 'explain_index', params: { name: 'nums', length: 2, index: 2, last: 1 } }],
    line: 3,
  },
  {
    what: 'an empty list',
    code: 'scores = []\nbest = scores[0]',
    ename: 'IndexError',
    explanation: [{ key: 'explain_index_empty', params: { name: 'scores', index: 0 } }],
    line: 2,
  },
  {
    what: 'a missing key, with the keys the dict has',
    code: "ages = {'Ann': 12, 'Bob': 13}\nprint(ages['ann'])",
    ename: 'KeyError',
    explanation: [{ key: 'explain_key', params: { key: "'ann'", name: 'ages', keys: "'Ann', 'Bob'" } }],
    line: 2,
  },
  {
    what: 'int() on text that is not a number',
    code: "answer = 'twelve'\nn = int(answer)",
    ename: 'ValueError',
    explanation: [{ key: 'explain_int', params: { text: "'twelve'" } }],
    line: 2,
  },
  {
    what: 'int() on a decimal number',
    code: "n = int('3.5')",
    ename: 'ValueError',
    explanation: [{ key: 'explain_int_decimal', params: { text: "'3.5'" } }],
    line: 1,
  },
  {
    what: 'float() on text that is not a number',
    code: "price = float('ten')",
    ename: 'ValueError',
    explanation: [{ key: 'explain_float', params: { text: "'ten'" } }],
    line: 1,
  },
  {
    what: 'a misspelt method, with the close one',
    code: 'nums = [3, 1]\nnums.apend(4)',
    ename: 'AttributeError',
    explanation: [{ key: 'explain_attribute_suggest', params: { owner: { key: 'explain_owner_type', params: { type: 'list' } }, name: 'apend', suggestion: 'append' } }],
    line: 2,
  },
  {
    what: "a module's misspelt function",
    code: 'import math\nmath.sqr(9)',
    ename: 'AttributeError',
    explanation: [{ key: 'explain_attribute_suggest', params: { owner: { key: 'explain_owner_module', params: { module: 'math' } }, name: 'sqr', suggestion: 'sqrt' } }],
    line: 2,
  },
  {
    what: 'a method called on None (what sort() returns)',
    code: 'nums = [3, 1].sort()\nnums.append(2)',
    ename: 'AttributeError',
    explanation: [{ key: 'explain_attribute_none', params: { name: 'append' } }],
    line: 2,
  },
  {
    what: 'input() with no more input',
    code: "name = input('Your name? ')",
    ename: 'EOFError',
    explanation: [{ key: 'explain_eof' }],
    line: 1,
  },
  {
    what: 'a function that calls itself without end',
    code: 'def countdown(n):\n    return countdown(n - 1)\n\ncountdown(3)',
    ename: 'RecursionError',
    explanation: [{ key: 'explain_recursion', params: { function: 'countdown' } }],
    line: 2,
  },
  {
    what: 'a traceback through several functions',
    code: 'def share(total, people):\n    return total / people\n\ndef report():\n    return share(10, 0)\n\nreport()',
    ename: 'ZeroDivisionError',
    explanation: [
      { key: 'explain_zero', params: { divisor: 'people' } },
      { key: 'explain_traceback', params: { start: 7, function: 'share', stop: 2 } },
    ],
    line: 2,
  },
];

/** Python dict results as plain JS, as the worker converts them. */
function plain<T>(proxy: PyProxy): T {
  try {
    return (proxy as unknown as { toJs(o: object): T }).toJs({ dict_converter: Object.fromEntries, create_proxies: false });
  } finally {
    proxy.destroy();
  }
}

let pyodide: PyodideInterface;
let runtime: PyProxy & Record<string, (...args: unknown[]) => unknown>;
let referee: { ename: string | null; explanation?: unknown[]; line?: number }[];

beforeAll(async () => {
  referee = JSON.parse(execFileSync('/usr/bin/python3', [REFEREE, PYTHON_DIR], { input: JSON.stringify(CASES.map((c) => c.code)), encoding: 'utf8' }));
  pyodide = await loadRuntime();
  pyodide.setStdout({ write: (bytes: Uint8Array) => bytes.length });
  // input() finds the end of its input at once, as a program given none.
  pyodide.setStdin({ stdin: () => null });
  const Runtime = pyodide.pyimport('pytabs.runtime').Runtime as (...args: unknown[]) => PyProxy;
  runtime = Runtime('explain', '/home/pyodide/workspace', () => undefined) as typeof runtime;
}, LOAD_TIMEOUT);

afterAll(() => runtime?.destroy());

async function run(code: string): Promise<RunError> {
  // Each program in a namespace of its own, as the referee's: names of an earlier one would be suggested.
  runtime.clear();
  const out = plain<{ status: string; error?: RunError }>((await runtime.run(code, pyodide.toPy({}))) as PyProxy);
  expect(out.status).toBe('error');
  return out.error!;
}

describe('a plain explanation of the error, with the names and values of the code', () => {
  for (const [i, c] of CASES.entries()) {
    it(`${c.ename}: ${c.what}`, async () => {
      // CPython raises the same error, and the module makes the same of it there.
      expect(referee[i]).toEqual({ ename: c.ename, explanation: c.explanation, line: c.line });
      const error = await run(c.code);
      expect(error.ename).toBe(c.ename);
      expect(error.explanation).toEqual(c.explanation);
      expect(error.line).toBe(c.line);
    });
  }

  it('marks the line of the cell that called into an earlier cell, and leaves the traceback as it was', async () => {
    runtime.clear();
    await runtime.run('def half(n):\n    return n / 0', pyodide.toPy({}));
    const out = plain<{ error: RunError }>((await runtime.run('x = 1\nhalf(x)', pyodide.toPy({}))) as PyProxy);
    expect(out.error.line).toBe(2);
    expect(out.error.explanation).toEqual([
      { key: 'explain_zero', params: { divisor: '0' } },
      { key: 'explain_traceback', params: { start: 2, function: 'half', stop: 2 } },
    ]);
    expect(out.error.traceback).toMatch(/^Traceback \(most recent call last\):\n {2}File "<cell-\d+>", line 2, in <module>\n/);
    expect(out.error.traceback.split('\n').at(-1)).toBe('ZeroDivisionError: division by zero');
  });

  it('reads no value by running the code: a list subclass with its own __getitem__ and __len__ is not measured', async () => {
    const error = await run(
      ['calls = []', 'class Loud(list):', '    def __len__(self):', '        calls.append("len")', '        return 99', 'items = Loud([1])', 'items[5]'].join('\n'),
    );
    expect(error.explanation).toEqual([{ key: 'explain_index_plain' }]);
    expect(pyodide.runPython('import __main__; __main__.calls')?.toJs()).toEqual([]);
  });

  it('says nothing of an error it has no words for', async () => {
    const error = await run("raise RuntimeError('stop here')");
    expect(error.explanation).toBeUndefined();
    expect(error.line).toBe(1);
  });
});

describe('the keys it sends', () => {
  it('are all in the catalogs, so the page has words for each', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(fileURLToPath(new URL('../../workers/python/pytabs/explain.py', import.meta.url)), 'utf8');
    const english = JSON.parse(readFileSync(fileURLToPath(new URL('../../messages/en.json', import.meta.url)), 'utf8'));
    const literal = [...source.matchAll(/'(explain_\w+)'/g)].map((m) => m[1]);
    // The value and kind keys are built from the three kinds it names.
    const built = ['text', 'int', 'float'].flatMap((kind) => [`explain_value_${kind}`, `explain_kind_${kind}`]);
    expect(literal.length).toBeGreaterThan(30);
    expect([...literal, ...built].filter((key) => !(key in english))).toEqual([]);
  });
});
