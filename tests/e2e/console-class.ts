// A class of a console exercise ("read N, then N numbers, one per line; print their sum"),
// each student's program with a known defect, and the grade each must get. The expected points
// come from what each defect does to a case's numbers, never from running the program: the
// test that grades the class checks grading against this, not against itself.

export const TITLE = 'Sum of N';
export const SOLUTION = 'n = int(input())\ntotal = 0\nfor _ in range(n):\n    total += int(input())\nprint(total)';
/** Per case and per check: the endless program costs it once. */
export const TIME_LIMIT_S = 3;

interface Case {
  name: string;
  numbers: number[];
  points: number;
}

const CASES: Case[] = [
  { name: 'three numbers', numbers: [10, 20, 12], points: 2 },
  { name: 'no numbers', numbers: [], points: 1 },
  { name: 'negatives', numbers: [5, -5], points: 2 },
  { name: 'one number', numbers: [7], points: 1 },
  { name: 'last is zero', numbers: [1, 2, 3, 0], points: 1 },
];

const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0);

/** The assignment's program tests (`ProgramTests`), judged as course judges do. */
export const PROGRAM = {
  rule: 'judge' as const,
  cases: CASES.map((c) => ({ name: c.name, input: [c.numbers.length, ...c.numbers].map((v) => `${v}\n`).join(''), expected: `${sum(c.numbers)}\n`, points: c.points })),
};

/** The assignment (`AssignmentDraft`): program tests only, no checks. */
export const DRAFT = {
  title: TITLE,
  instructions: 'Read N, then N whole numbers, one per line; print their sum.',
  starterCode: '',
  checkSource: '',
  checks: [],
  timeLimitSeconds: TIME_LIMIT_S,
  program: PROGRAM,
};

interface Defect {
  what: string;
  /** How many of the class have it. */
  count: number;
  code: string;
  /** Whether the program's output is right on a case with these numbers, by what the defect does. */
  passes: (numbers: number[]) => boolean;
  /** Words the row's messages or errors must hold when a case fails this way. */
  says?: string;
  /** Why grading must flag the row "Read this one". */
  flag?: string;
}

const always = () => true;
const never = () => false;

const DEFECTS: Defect[] = [
  { what: 'correct', count: 5, code: SOLUTION, passes: always },
  { what: 'correct, a generator', count: 2, code: 'n = int(input())\nprint(sum(int(input()) for _ in range(n)))', passes: always },
  {
    what: 'correct, reads until the input ends',
    count: 1,
    code: 'input()\ntotal = 0\nwhile True:\n    try:\n        total += int(input())\n    except EOFError:\n        break\nprint(total)',
    passes: always,
  },
  // The judge's rule ignores trailing spaces and trailing blank lines.
  { what: 'trailing spaces', count: 2, code: SOLUTION.replace('print(total)', "print(str(total) + '   ')"), passes: always },
  { what: 'a trailing blank line', count: 1, code: `${SOLUTION}\nprint()`, passes: always },
  // Lines it does not ignore: a heading, a running total, a prompt (stdout, as in CPython with piped input).
  { what: 'a heading line', count: 1, code: `print('Sum:')\n${SOLUTION}`, passes: never, says: "got 'Sum:'" },
  {
    what: 'prints the running total',
    count: 2,
    code: SOLUTION.replace('    total += int(input())', '    total += int(input())\n    print(total)'),
    passes: (n) => n.length === 0,
    says: 'expected no more output',
  },
  { what: 'a prompt', count: 2, code: SOLUTION.replace('int(input())', "int(input('How many numbers? '))"), passes: never, says: "got 'How many numbers? " },
  { what: 'wrong format', count: 2, code: SOLUTION.replace('print(total)', "print('The sum is', total)"), passes: never, says: "got 'The sum is " },
  // Off by one: reads a line too few (the last number is left unread, as CPython leaves it), or skips the first.
  { what: 'drops the last number', count: 2, code: SOLUTION.replace('range(n)', 'range(n - 1)'), passes: (n) => n.length === 0 || n.at(-1) === 0 },
  {
    what: 'skips the first number',
    count: 1,
    code: 'n = int(input())\nnumbers = [int(input()) for _ in range(n)]\nprint(sum(numbers[1:]))',
    passes: (n) => n.length === 0 || n[0] === 0,
  },
  // A line too many: the input runs out.
  { what: 'reads a line too many', count: 2, code: SOLUTION.replace('range(n)', 'range(n + 1)'), passes: never, says: 'raised EOFError' },
  { what: 'adds text to a number', count: 1, code: SOLUTION.replace('int(input())\nprint', 'input()\nprint'), passes: (n) => n.length === 0, says: 'raised TypeError' },
  { what: 'prints the mean too', count: 1, code: `${SOLUTION}\nprint(total / n)`, passes: never, says: 'raised ZeroDivisionError' },
  {
    what: 'endless without numbers',
    count: 1,
    code: 'n = int(input())\nnumbers = [int(input()) for _ in range(n)]\ntotal = 0\ni = 0\nwhile True:\n    if numbers:\n        total += numbers[i]\n    i += 1\n    if i == len(numbers):\n        break\nprint(total)',
    passes: (n) => n.length > 0,
    says: `did not finish in ${TIME_LIMIT_S} s`,
  },
  // Forgeries: two change what grading runs on (the seal fails every case), two print the right sum and are flagged.
  {
    what: 'replaces the program runner',
    count: 1,
    code: "import pytabs.programs\npytabs.programs.run_program = lambda *a, **k: {'stdout': '0\\n', 'stderr': '', 'ended': 'finished', 'error': None, 'message': '', 'ms': 0}\nprint('anything')",
    passes: never,
    says: 'changed what grading runs on (pytabs.programs.run_program)',
    flag: "imports PyTabs' internals (pytabs)",
  },
  {
    what: 'replaces print',
    count: 1,
    code: `import builtins\nreal_print = builtins.print\nbuiltins.print = lambda *a, **k: real_print(42)\n${SOLUTION}`,
    passes: never,
    says: 'changed what grading runs on (builtins.print)',
    flag: 'changes builtins.print',
  },
  { what: 'posts to the page', count: 1, code: `import js\njs.postMessage('forged')\n${SOLUTION}`, passes: always, flag: "imports the browser's JavaScript (js)" },
  {
    what: 'a total equal to anything',
    count: 1,
    code: `class Total(int):\n    def __eq__(self, other):\n        return True\n\n${SOLUTION.replace('print(total)', 'print(Total(total))')}`,
    passes: always,
    flag: 'class Total defines __eq__',
  },
];

export interface Student {
  name: string;
  what: string;
  code: string;
  /** The points each case (by name) must give, and their total. */
  points: Record<string, number>;
  total: number;
  says?: string;
  flag?: string;
}

/** The points a program with `defect` gets on every case. */
function pointsOf(defect: Defect): Record<string, number> {
  return Object.fromEntries(CASES.map((c) => [c.name, defect.passes(c.numbers) ? c.points : 0]));
}

/** The class of 30, the defects spread through it (student k gets the (7k mod 30)th): the endless one and the forgeries are not last. */
export function consoleClass(): Student[] {
  const kinds = DEFECTS.flatMap((d) => Array.from({ length: d.count }, () => d));
  if (kinds.length !== 30) throw new Error(`the class has ${kinds.length} students, not 30`);
  return kinds.map((_, k) => {
    const defect = kinds[(7 * k) % kinds.length];
    const points = pointsOf(defect);
    return {
      name: `Student ${String(k + 1).padStart(2, '0')}`,
      what: defect.what,
      code: defect.code,
      points,
      total: Object.values(points).reduce((a, b) => a + b, 0),
      says: defect.says,
      flag: defect.flag,
    };
  });
}

export const CASE_NAMES = CASES.map((c) => c.name);
export const MAX_POINTS = sum(CASES.map((c) => c.points));

/** Up the stack from a function of the program, through a caught exception's traceback, each attribute by its name. */
const UP_THE_STACK = [
  'def frames():',
  '    try:',
  '        raise ValueError',
  '    except ValueError as e:',
  "        frame = getattr(e.__traceback__, 'tb_frame')",
  '    while frame is not None:',
  '        yield frame',
  "        frame = getattr(frame, 'f_back')",
  '',
  'def expected():',
  '    for frame in frames():',
  "        seen = getattr(frame, 'f_locals')",
  "        if isinstance(seen.get('expected'), str):",
  "            return seen['expected']",
  "    return 'not found'",
].join('\n');

/**
 * Forgeries of the program cases that outside checks handed in: each reads the expected output
 * in the Python that runs the hand-in, or forges the verdict there. `line` is the line of the
 * program that grading must flag.
 */
export const FORGERIES: { student: string; code: string; flag: string }[] = [
  {
    student: 'Frames Fred',
    code: `${UP_THE_STACK}\n\nprint(expected(), end='')`,
    flag: "line 5: reaches into functions or frames ('tb_frame' by name)",
  },
  {
    student: 'Modules Mo',
    code: [
      'import sys, types',
      "modules = getattr(sys, 'modules')",
      "real = modules['pytabs.programs']",
      "copy = types.ModuleType('pytabs.programs')",
      'copy.__dict__.update(vars(real))',
      "modules['pytabs.programs'] = copy",
      "setattr(real, 'first_difference', lambda *args: None)",
      "print('anything')",
    ].join('\n'),
    flag: 'line 2: uses sys.modules (getattr)',
  },
  {
    student: 'Runtime Ruth',
    code: [
      UP_THE_STACK,
      '',
      "passed = lambda *args: {'passed': True, 'message': '', 'error': None, 'actual': '', 'stderr': '', 'line': None}",
      'for frame in frames():',
      "    found = getattr(frame, 'f_locals').get('self')",
      "    if hasattr(found, 'run_case') or hasattr(found, 'run_program'):",
      "        setattr(found, 'run_case', passed)",
      "        setattr(found, 'run_program', passed)",
      "print(expected(), end='')",
    ].join('\n'),
    flag: "line 5: reaches into functions or frames ('tb_frame' by name)",
  },
  {
    student: 'Getframe Gus',
    code: [
      'import sys',
      'frame = sys._getframe()',
      'while frame is not None:',
      "    if isinstance(frame.f_locals.get('expected'), str):",
      "        print(frame.f_locals['expected'], end='')",
      '        break',
      '    frame = frame.f_back',
    ].join('\n'),
    flag: 'line 2: uses sys._getframe',
  },
  {
    student: 'Collector Cleo',
    code: [
      'import gc',
      'for found in gc.get_objects():',
      "    if isinstance(found, dict) and isinstance(found.get('expected'), str) and 'rule' in found:",
      "        print(found['expected'], end='')",
      '        break',
    ].join('\n'),
    flag: "line 1: imports the interpreter's objects (gc)",
  },
];
