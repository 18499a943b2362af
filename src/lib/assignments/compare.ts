import { said, type Said } from '../i18n/said';
import type { Text } from '../i18n/text';
import type { ProgramTests } from '../portability/assignment-file';
import type { CompareVerdict, ProgramRun } from '../worker-api';

// A program case's comparison, on the page with the teacher's copy of the case: the Python that
// ran the program never holds what it should have printed. Hand-written because the verdicts and
// messages must be exactly what Python's str.rstrip(), str.split(), float(), math.isclose() and
// repr() give (tests/unit/program-tests.test.ts referees them against CPython).

type CompareRule = ProgramTests['rule'];

/** What one case came to. */
export interface CaseOutcome {
  passed: boolean;
  /** What the student reads: why it failed ('line 2: expected '5', got '6'', said), '' when it passed. */
  message: Text;
  /** The exception's class name when the program (or the compare function) raised ('TimeoutError': out of time). */
  error: string | null;
  /** What the program printed to stdout, and to stderr (with its traceback). */
  actual: string;
  stderr: string;
  /** The first line (from 1) that differs under the rule; null when none does (or it did not finish). */
  line: number | null;
}

/** A teacher's compare function asked about one case (the 'function' rule), somewhere that never ran the student's code. */
export type OutputJudge = (expected: string, actual: string) => Promise<CompareVerdict>;

// Python's str.isspace() characters: what rstrip() and split() without arguments take as space.
const TRAILING_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;
const SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
// float()'s decimal syntax (ASCII digits), with the underscores it allows between digits.
const DECIMAL = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const INFINITY = /^[+-]?(?:inf|infinity)$/i;
// What Python's repr() escapes: characters str.isprintable() says no to (a space is printable).
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** The lines a judge compares: each without trailing spaces, without the blank lines at the end. */
export function judgeLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(TRAILING_SPACE, ''));
  while (lines.length && !lines.at(-1)) lines.pop();
  return lines;
}

/** A word as float() reads it; null when it is not a number, or NaN (which compares as a word). */
function numberOf(word: string): number | null {
  if (INFINITY.test(word)) return word.startsWith('-') ? -Infinity : Infinity;
  return DECIMAL.test(word) ? Number(word.replaceAll('_', '')) : null;
}

/** math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance). */
function isClose(a: number, b: number, tolerance: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(tolerance * b) || diff <= Math.abs(tolerance * a) || diff <= tolerance;
}

function wordsAgree(expected: string, actual: string, tolerance: number): boolean {
  const a = expected.split(SPACE).filter(Boolean);
  const b = actual.split(SPACE).filter(Boolean);
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const nx = numberOf(x);
    const ny = numberOf(b[i]);
    return nx !== null && ny !== null ? isClose(nx, ny, tolerance) : x === b[i];
  });
}

function comparedLines(text: string, rule: CompareRule): string[] {
  return rule === 'exact' ? text.split('\n') : judgeLines(text);
}

/** The first line (from 1) where `actual` differs from `expected` under `rule`; null when they agree. */
export function firstDifference(expected: string, actual: string, rule: CompareRule, tolerance = 0): number | null {
  const want = comparedLines(expected, rule);
  const got = comparedLines(actual, rule);
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (i >= want.length || i >= got.length) return i + 1;
    const same = rule === 'numbers' ? wordsAgree(want[i], got[i], tolerance) : want[i] === got[i];
    if (!same) return i + 1;
  }
  return null;
}

/** A string as Python's repr() writes it: the student reads the lines as Python would show them. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) {
      const [prefix, width] = code < 0x100 ? ['x', 2] : code < 0x10000 ? ['u', 4] : ['U', 8];
      out += `\\${prefix}${code.toString(16).padStart(width, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** The first difference, at `line`, said to the student; the lines as Python's repr() writes them. */
export function differenceMessage(expected: string, actual: string, rule: CompareRule, line: number): Said {
  const want = comparedLines(expected, rule);
  const got = comparedLines(actual, rule);
  if (line > got.length) return said('asg_diff_ended', { line, expected: pyRepr(want[line - 1]) });
  if (line > want.length) return said('asg_diff_extra', { line, actual: pyRepr(got[line - 1]) });
  return said('asg_diff', { line, expected: pyRepr(want[line - 1]), actual: pyRepr(got[line - 1]) });
}

/**
 * A case's verdict on what the program printed: a program that raised fails (its first
 * difference still shown), one cut or stopped fails with no line, else `tests.rule` decides
 * (for 'function', `judge` runs the teacher's compare function).
 */
export async function judgeCase(tests: Pick<ProgramTests, 'rule' | 'tolerance'>, expected: string, run: ProgramRun, judge: OutputJudge): Promise<CaseOutcome> {
  const ran = { actual: run.stdout, stderr: run.stderr };
  const rule = tests.rule === 'function' ? 'judge' : tests.rule;
  const tolerance = tests.rule === 'numbers' ? (tests.tolerance ?? 0) : 0;
  if (run.ended === 'raised') return { ...ran, passed: false, message: run.message, error: run.error, line: firstDifference(expected, run.stdout, rule, tolerance) };
  if (run.ended !== 'finished') return { ...ran, passed: false, message: run.message, error: run.error, line: null };
  if (tests.rule === 'function') {
    const verdict = await judge(expected, run.stdout);
    return { ...ran, ...verdict, line: verdict.passed ? null : firstDifference(expected, run.stdout, 'judge') };
  }
  const line = firstDifference(expected, run.stdout, rule, tolerance);
  if (line === null) return { ...ran, passed: true, message: '', error: null, line: null };
  return { ...ran, passed: false, message: differenceMessage(expected, run.stdout, rule, line), error: null, line };
}
