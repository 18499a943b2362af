import { splitMessage } from '../chat/blocks';
import { said, type Said } from '../i18n/said';
import type { Round } from '../chat/types';
import type { Assignment, CaseSpec, CheckResult, ProgramTests } from '../portability/assignment-file';
import type { CompareVerdict, ProgramCase, ProgramRun } from '../worker-api';
import { judgeCase, type CaseOutcome } from './compare';

/** The program a session's answer is, and where it came from: the panel and the grades say which was tested. */
export type TestedProgram =
  | { from: 'file'; file: string; source: string }
  | { from: 'latest' | 'marked'; seq: number; source: string };

/** Why there is no program to test, said. */
export type NoProgram = { from: 'none'; reason: Said };

/** The name tracebacks give the program: its file, or the message it is. */
export function programFilename(program: TestedProgram): string {
  return program.from === 'file' ? program.file : `<message ${program.seq}>`;
}

/** How the panel (to the student: 'your') and the grades table ('the') name the program tested. */
export function describeProgram(program: TestedProgram | NoProgram, whose: 'your' | 'the' = 'your'): Said {
  switch (program.from) {
    case 'file':
      return said('asg_program_file', { file: program.file });
    case 'latest':
      return whose === 'your' ? said('asg_program_latest_your', { seq: program.seq }) : said('asg_program_latest_the', { seq: program.seq });
    case 'marked':
      return whose === 'your' ? said('asg_program_marked_your', { seq: program.seq }) : said('asg_program_marked_the', { seq: program.seq });
    case 'none':
      return program.reason;
  }
}

/** The Code messages that can be an answer: typed code that ran here (not a question, not a notebook's cell), newest last. */
export function answerRounds(rounds: Round[]): Round[] {
  return rounds.filter((r) => r.kind !== 'ask' && !r.importedFrom && splitMessage(r.message).length > 0);
}

/** A Code message's program: its Python blocks, in order. */
function roundSource(round: Round): string {
  return splitMessage(round.message)
    .map((b) => b.code)
    .join('\n\n');
}

/**
 * The program under test: the file the assignment names, else the message the student
 * marked (while it is there), else their latest Code message.
 */
export function testedProgram(tests: ProgramTests, rounds: Round[], file: (path: string) => string | null, answer?: number): TestedProgram | NoProgram {
  if (tests.file) {
    const source = file(tests.file);
    return source === null ? { from: 'none', reason: said('asg_no_program_file', { file: tests.file }) } : { from: 'file', file: tests.file, source };
  }
  const candidates = answerRounds(rounds);
  const marked = answer === undefined ? undefined : candidates.find((r) => r.seq === answer);
  if (marked) return { from: 'marked', seq: marked.seq, source: roundSource(marked) };
  const latest = candidates.at(-1);
  return latest ? { from: 'latest', seq: latest.seq, source: roundSource(latest) } : { from: 'none', reason: said('asg_no_code_message') };
}

/** Runs a program on one case's input lines somewhere (the student's worker, a hand-in's), within a time limit. */
export type ProgramRunner = (run: ProgramCase, timeoutMs: number) => Promise<ProgramRun>;

/** Runs a teacher's compare function (`name` of check `source`) on one case's outputs, within a time limit. */
export type OutputComparer = (source: string, name: string, expected: string, actual: string, timeoutMs: number) => Promise<CompareVerdict>;

/** What a case shows of the program's output, at most. */
export const CASE_OUTPUT_CHARS = 100_000;

/**
 * Each case of the assignment on `program`, in order, scored: `runner` runs the program on the
 * case's input lines alone, and its output is compared here with the teacher's copy of the
 * case (by `comparer` for the 'function' rule). A case that cannot run (no program) fails with
 * the reason. `keepChars` cuts what a result keeps of the output.
 */
export async function runCases(
  assignment: Assignment,
  program: TestedProgram | NoProgram,
  runner: ProgramRunner,
  comparer: OutputComparer,
  keepChars: number,
  onResult?: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const tests = assignment.program;
  if (!tests) return [];
  const results: CheckResult[] = [];
  for (const spec of tests.cases) {
    const limitMs = caseLimitMs(assignment, spec);
    const judge = (expected: string, actual: string) => comparer(assignment.checkSource, tests.compareName ?? '', expected, actual, limitMs);
    const outcome: CaseOutcome =
      program.from === 'none'
        ? { passed: false, message: said('asg_not_run', { why: program.reason }), error: 'NoProgram', actual: '', stderr: '', line: null }
        : await judgeCase(tests, spec.expected, await runner({ source: program.source, filename: programFilename(program), input: spec.input, outputChars: CASE_OUTPUT_CHARS }, limitMs), judge);
    const result = scoredCase(spec, outcome, keepChars);
    results.push(result);
    onResult?.(result);
  }
  return results;
}

function caseLimitMs(assignment: Assignment, spec: CaseSpec): number {
  return (spec.timeLimitSeconds ?? assignment.timeLimitSeconds) * 1000;
}

function cut(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}\n… output cut` : text;
}

/** A case's outcome as a result row: the checks' shape, with what it fed, expected and got. */
function scoredCase(spec: CaseSpec, outcome: CaseOutcome, keepChars: number): CheckResult {
  const actual = cut(outcome.actual, keepChars);
  return {
    name: spec.name,
    passed: outcome.passed,
    message: outcome.message,
    error: outcome.error,
    output: actual,
    points: spec.points,
    earned: outcome.passed ? spec.points : 0,
    case: { input: spec.input, expected: spec.expected, actual, stderr: cut(outcome.stderr, keepChars), line: outcome.line },
  };
}

/**
 * A case recorded from a run of the teacher's own solution: the lines typed in answer to
 * input() in their latest Code message that ran, and what it printed to stdout, as the
 * input and the expected output. Null when no Code message ran yet.
 */
export function recordedCase(rounds: Round[]): { input: string; expected: string; seq: number } | null {
  const round = answerRounds(rounds)
    .filter((r) => r.state !== 'running')
    .at(-1);
  if (!round) return null;
  let input = '';
  let expected = '';
  for (const event of round.events) {
    if (event.type === 'input') input += `${event.text}\n`;
    else if (event.type === 'stdout') expected += event.text;
  }
  return { input, expected, seq: round.seq };
}
