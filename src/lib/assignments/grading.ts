import { splitMessage } from '../chat/blocks';
import type { Round } from '../chat/types';
import { terminalText } from '../chat/terminal';
import { said, SaidError, tell, type Said } from '../i18n/said';
import type { Text } from '../i18n/text';
import { ImportError } from '../portability/errors';
import { parseJson } from '../portability/checks';
import { readSessionArchive, type ImportFile } from '../portability/import';
import { assignmentTests, ASSIGNMENT_ENTRY, readAssignment, readSubmission, scored, SUBMISSION_ENTRY, type Assignment, type CheckResult } from '../portability/assignment-file';
import { MAX_IMPORT_BYTES } from '../portability/limits';
import { formatBytes } from '../format';
import { endedByStop, WorkerTerminatedError, type SessionHost } from '../sessions/host';
import type { AssignmentManager } from './manager';
import { describeProgram, runCases, testedProgram, type NoProgram, type OutputComparer, type ProgramRunner, type TestedProgram } from './program';

/**
 * Hand-ins graded at once, each in a worker of its own. Two cores run two Pythons flat out;
 * one more overlaps what a start and a replay leave idle (waiting on messages, the snapshot's
 * copy), and memory grows with this number, never with the class size.
 */
export function gradingPoolSize(cores = globalThis.navigator?.hardwareConcurrency || 2): number {
  return Math.max(2, Math.min(4, cores + 1));
}

/** The most a check's or a cell's output keeps for the teacher to read. */
const OUTPUT_CHARS = 2000;
/**
 * What one worker start may take in a hand-in's time budget (`handInBudgetMs`): a worker ended
 * under a check or a case (its time limit, on a page that cannot interrupt Python) is started
 * again, and the cells replayed, as often as the checks and cases need. A start took 25 s in
 * WebKitGTK on a busy 2-core machine.
 */
const START_ALLOWANCE_MS = 60_000;
/** Cells that did not finish (each costing the time limit and a fresh worker) after which a hand-in's row ends as "error". */
const MAX_UNFINISHED = 3;

export type RowStatus = 'waiting' | 'grading' | 'graded' | 'error' | 'refused' | 'stopped';

/**
 * A hand-in as the teacher can read it, read-only: its code cells with what they showed, and
 * its files. A cell the assistant ran says what the student asked it.
 */
export interface SubmittedWork {
  /** What the cell showed: the program's text as written, and PyTabs' own words (its errors, the cut) said, for the reader's language; rows kept before hold one string. */
  cells: { code: string; output: Text[] | string; asked?: string }[];
  files: { path: string; size: number }[];
}

/** One row of the grades table. */
export interface GradeRow {
  /** Its place in the table; rows keep it. */
  id: number;
  file: string;
  /** The name handed in, or the file's name while it is read or when it was refused. */
  student: string;
  status: RowStatus;
  /** The teacher's checks as they ran on this hand-in, in the assignment's order. */
  results: CheckResult[];
  total: number;
  /** Milliseconds this hand-in took to grade. */
  ms: number;
  /**
   * What went wrong, said (kept so, it reads in the teacher's language): a refusal's reason, a
   * cell or check that did not finish, a crash. Rows kept before have English strings.
   */
  errors: Text[];
  /** The results the student's browser computed: shown beside the grade, never used for it. */
  claimed: CheckResult[];
  /** Set when it was handed in from an earlier version of the assignment. */
  note?: Text;
  /** Which program its cases tested ("message 3 (the latest code)"); absent without cases. */
  program?: Text;
  /**
   * "Read this one": what its code reaches past the student's own values (a static look), and
   * what it changed of the grading machinery, each with where ("cell 2, line 3: imports js").
   */
  flags?: Text[];
  work: SubmittedWork | null;
}

/** A code cell of a hand-in, as the student's browser ran it. */
interface Cell {
  code: string;
  /** It did not finish there: the student stopped it, or their session's time limit or another tab ended it. */
  stopped: boolean;
}

/** A hand-in read and checked, waiting for its turn. */
interface Queued {
  row: GradeRow;
  files: { path: string; data: Uint8Array }[];
  cells: Cell[];
  /** The program its cases test (the assignment's file, the marked message or the latest Code message), or why there is none. */
  program: TestedProgram | NoProgram | null;
}

/** The submission's worker ended under it in a way that ends its grading (a crash, a cell that never finished). */
class Ended extends SaidError {}

/** How a `GradingRun` grades, beyond its assignment; each has a default. */
export interface GradingOptions {
  /** Hand-ins graded at once; default `gradingPoolSize()`. */
  poolSize?: number;
  /** Rows kept from an earlier page: one that was still being graded when it closed is marked so. */
  kept?: GradeRow[];
  /** The digests of the assignment's earlier versions saved on this device; null (the default) when not known (saved before they were kept). */
  earlier?: readonly string[] | null;
  /** Each hand-in's time budget in milliseconds; default `handInBudgetMs` of the assignment and the hand-in's replayed cells. */
  budgetMs?: number;
}

/**
 * Grades hand-ins of `assignment` with the teacher's own checks. Each hand-in is replayed in
 * a fresh scratch session (its files written, its code cells run in order), then each check
 * runs within the time limit; a pool of at most `poolSize` workers grades side by side. Rows
 * change as they go; `onChange` hears each change. Nothing of a hand-in is stored.
 */
export class GradingRun {
  readonly rows: GradeRow[] = [];
  private readonly queue: Queued[] = [];
  private readonly live = new Set<SessionHost>();
  /** The worker the teacher's compare functions run in: started for this run, it never runs a hand-in's code. */
  private judge: SessionHost | null = null;
  private workers = 0;
  private stopped = false;
  private idle: Promise<void> = Promise.resolve();
  private finish: () => void = () => undefined;

  readonly poolSize: number;
  private readonly earlier: readonly string[] | null;
  /** Each hand-in's time budget when set; otherwise `handInBudgetMs`. */
  private readonly budgetMs: number | undefined;

  constructor(
    private readonly manager: AssignmentManager,
    readonly assignment: Assignment,
    private readonly onChange: (row: GradeRow) => void = () => undefined,
    { poolSize = gradingPoolSize(), kept = [], earlier = null, budgetMs }: GradingOptions = {},
  ) {
    this.poolSize = poolSize;
    this.earlier = earlier;
    this.budgetMs = budgetMs;
    for (const row of kept) {
      const unfinished = row.status === 'waiting' || row.status === 'grading';
      this.rows.push(unfinished ? { ...row, status: 'stopped', errors: [...row.errors, said('asg_not_graded_closed')] } : row);
    }
  }

  /** Rows done (graded, failed, refused or stopped) and all rows, for the progress bar. */
  get progress(): { done: number; total: number } {
    return { done: this.rows.filter((r) => r.status !== 'waiting' && r.status !== 'grading').length, total: this.rows.length };
  }

  get maxPoints(): number {
    return assignmentTests(this.assignment).reduce((sum, c) => sum + c.points, 0);
  }

  /**
   * Reads the files in turn (each refused with its reason, or queued) and grades them, the
   * first while the next are read; resolves when every row so far is done.
   */
  async add(files: ImportFile[]): Promise<void> {
    this.stopped = false;
    for (const file of files) {
      const row = this.newRow(file.name);
      try {
        const queued = await this.read(file, row);
        if (this.stopped) this.settle(row, 'stopped', [said('asg_not_graded_stopped')]);
        else {
          this.queue.push(queued);
          this.spawn();
        }
      } catch (error) {
        row.status = 'refused';
        row.errors = [error instanceof ImportError ? (error.said ?? error.message) : said('asg_unreadable', { error: String(error) })];
      }
      this.onChange(row);
    }
    return this.workers ? this.idle : undefined;
  }

  /** Starts workers for what is queued, up to the pool's size. */
  private spawn(): void {
    if (!this.workers) this.idle = new Promise((resolve) => (this.finish = resolve));
    // Each work() takes its first hand-in before it awaits anything.
    while (this.workers < this.poolSize && this.queue.length) {
      this.workers++;
      void this.work();
    }
  }

  /** Stops grading: hand-ins being graded end now, waiting ones are not graded. */
  stop(): void {
    this.stopped = true;
    for (const item of this.queue.splice(0)) this.settle(item.row, 'stopped', [said('asg_not_graded_stopped')]);
    for (const host of this.live) void host.terminate(new WorkerTerminatedError('stopped', said('asg_grading_stopped')));
    this.live.clear();
    this.judge = null;
  }

  private newRow(file: string): GradeRow {
    const row: GradeRow = { id: this.rows.length + 1, file, student: file, status: 'waiting', results: [], total: 0, ms: 0, errors: [], claimed: [], work: null };
    this.rows.push(row);
    return row;
  }

  /** Checks a file is a hand-in of this assignment, or throws an ImportError saying why it is not. */
  private async read(file: ImportFile, row: GradeRow): Promise<Queued> {
    if (file.data.byteLength > MAX_IMPORT_BYTES) throw new ImportError(said('asg_too_big', { size: formatBytes(file.data.byteLength), max: formatBytes(MAX_IMPORT_BYTES) }));
    const archive = await readSessionArchive(file.data, this.manager.getSettings(), 'grading');
    const entry = archive.entries.get(SUBMISSION_ENTRY);
    if (!entry) throw new ImportError(said('asg_not_hand_in'));
    const submission = readSubmission(parseJson(entry, SUBMISSION_ENTRY));
    if (submission.assignment.id !== this.assignment.id) {
      throw new ImportError(said('asg_other_assignment', { theirs: submission.assignment.title, ours: this.assignment.title }));
    }
    row.student = submission.student;
    row.claimed = submission.results;
    row.note = await this.differs(archive.entries.get(ASSIGNMENT_ENTRY), submission.assignment.digest);
    // Rounds imported from a notebook never ran in the student's session; an Ask round ran what its code cards ran.
    const rounds = archive.rounds
      .filter((r) => !r.importedFrom)
      .map((round) => ({ round, asked: round.kind === 'ask', cells: ranCells(round) }))
      .filter(({ asked, cells }) => !asked || cells.length);
    row.work = {
      cells: rounds.map(({ round, asked, cells }) =>
        asked ? { code: cells.map((c) => c.code).join('\n\n'), output: shownOutput(round), asked: round.message } : { code: round.message, output: shownOutput(round) },
      ),
      files: archive.files.map((f) => ({ path: f.path, size: f.data.byteLength })),
    };
    const tests = this.assignment.program;
    let program: Queued['program'] = null;
    if (tests) {
      const file = (path: string) => {
        const found = archive.files.find((f) => f.path === path);
        return found ? new TextDecoder().decode(found.data) : null;
      };
      program = testedProgram(tests, archive.rounds, file, submission.answer);
      row.program = describeProgram(program, 'the');
    }
    return { row, files: archive.files, cells: rounds.flatMap(({ cells }) => cells), program };
  }

  /**
   * A note when the hand-in's copy of the assignment is not the teacher's: it is ignored either
   * way. Only a digest the teacher saved is "another version": a copy whose checks were changed
   * and its digests made to match is self-consistent, so what tells it apart is that no version
   * of it was ever saved here.
   */
  private async differs(inside: Uint8Array | undefined, claimed: string): Promise<Said | undefined> {
    let copy: string | null = null;
    try {
      copy = inside ? (await readAssignment(parseJson(inside, ASSIGNMENT_ENTRY))).digest : null;
    } catch {
      // A copy that does not match its own digest was changed by hand.
    }
    const current = this.assignment.digest;
    if (copy === current && claimed === current) return undefined;
    if (claimed === current || copy !== claimed) return said('asg_note_changed');
    if (this.earlier?.includes(claimed)) return said('asg_note_earlier');
    if (this.earlier) return said('asg_note_forged');
    return said('asg_note_unknown');
  }

  private async work(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) await this.grade(item);
    } finally {
      if (--this.workers === 0) {
        if (this.judge) this.release(this.judge);
        this.judge = null;
        this.finish();
      }
    }
  }

  /** Runs a teacher's compare function in the run's judge worker, started on first use. */
  private readonly compare: OutputComparer = (source, name, expected, actual, timeoutMs) => {
    if (!this.judge) {
      this.judge = this.manager.scratchHost();
      this.live.add(this.judge);
    }
    return this.judge.compare(source, name, expected, actual, timeoutMs);
  };

  private async grade({ row, files, cells, program }: Queued): Promise<void> {
    row.status = 'grading';
    this.onChange(row);
    const t0 = performance.now();
    const limitMs = this.assignment.timeLimitSeconds * 1000;
    const errors: Text[] = [];
    let host: SessionHost | null = null;
    // Program cases run in a namespace of their own: without checks, no cell need be replayed.
    const replayed = this.assignment.checks.length ? cells : [];
    // Cells left out of every replay: those the student stopped, and those that did not finish here.
    const left = new Set<number>();
    for (const [i, cell] of replayed.entries()) {
      if (!cell.stopped) continue;
      left.add(i);
      errors.push(said('asg_cell_stopped', { cell: i + 1 }));
    }
    // Flags by their JSON: each said once.
    const flags = new Map<string, Text>();
    const flag = (text: Text) => flags.set(JSON.stringify(text), text);
    const tampered = (result: CheckResult) => {
      if (result.error === 'Tampered') flag(said('asg_named', { name: result.name, text: notRunWhy(result.message) }));
    };
    let scanned = false;
    let timedOut = 0;
    const fresh = async (): Promise<SessionHost> => {
      // A cell that did not finish is left out and the replay starts again in a fresh worker, whether
      // or not its worker could be interrupted: what it half did never counts, on any page.
      for (;;) {
        if (host) this.release(host);
        host = this.manager.scratchHost();
        this.live.add(host);
        // Started now, so that "not live" below means ended (a hand-in with no file and no cell to replay starts none);
        // sealed, and its code looked at, before any of it runs.
        await host.call((api) => api.sealForGrading());
        if (!scanned) {
          scanned = true;
          for (const found of await this.scan(host, cells.map((c) => c.code), program)) flag(found);
        }
        const unfinished = await this.replay(host, files, replayed, left, limitMs, errors);
        if (unfinished === null) return host;
        left.add(unfinished);
        if (++timedOut >= MAX_UNFINISHED) throw new Ended(said('asg_cells_unfinished', { count: MAX_UNFINISHED }));
      }
    };
    const budgetMs = this.budgetMs ?? handInBudgetMs(this.assignment, replayed.length);
    const spent = () => performance.now() - t0 > budgetMs;
    // What the budget left out, told once in the row's errors.
    const notRun: string[] = [];
    const seconds = Math.round(budgetMs / 1000);
    const budgetText = said('asg_not_run', { why: said('asg_budget_spent', { seconds }) });
    try {
      let current = await fresh();
      for (const spec of this.assignment.checks) {
        if (!spent() && !current.isLive) current = await fresh();
        const over = spent();
        if (over) notRun.push(spec.name);
        const outcome = over
          ? { name: spec.name, passed: false, message: budgetText, error: 'NotRun', output: '' }
          : await current.check(this.assignment.checkSource, spec.name, OUTPUT_CHARS, limitMs);
        const result = scored({ ...outcome, output: outcome.output.slice(0, OUTPUT_CHARS) }, spec);
        tampered(result);
        row.results.push(result);
        // A failed assert is a grade; anything else the check raised is an error worth a look.
        if (result.error && result.error !== 'NotRun') errors.push(said('asg_subject', { name: spec.name, text: result.message }));
        row.total += result.earned;
        this.onChange(row);
      }
      if (program) {
        const runner: ProgramRunner = async (run, timeoutMs) => {
          if (!spent() && !current.isLive) current = await fresh();
          if (spent()) return { stdout: '', stderr: '', ended: 'not-run', error: 'NotRun', message: budgetText, ms: 0 };
          return current.runProgram(run, timeoutMs);
        };
        await runCases(this.assignment, program, runner, this.compare, OUTPUT_CHARS, (result) => {
          tampered(result);
          row.results.push(result);
          if (result.error === 'NotRun') notRun.push(result.name);
          // A wrong output, or a program that raised, is a grade (its message says why); one that did not finish is worth a look.
          else if (result.error === 'TimeoutError') errors.push(said('asg_subject', { name: result.name, text: result.message }));
          row.total += result.earned;
          this.onChange(row);
        });
      }
      if (notRun.length) errors.push(said('asg_budget_not_run', { seconds, names: notRun.join(', ') }));
      this.settle(row, this.stopped ? 'stopped' : 'graded', errors, t0);
    } catch (error) {
      if (this.stopped) this.settle(row, 'stopped', [...errors, said('asg_grading_stopped')], t0);
      else this.settle(row, 'error', [...errors, error instanceof Ended ? error.said : describeFailure(error)], t0);
    } finally {
      if (host) this.release(host);
      if (flags.size) {
        row.flags = [...flags.values()];
        this.onChange(row);
      }
    }
  }

  /** What the hand-in's code (its cells, and the file its cases test) reaches past the student's own values, before any of it runs. */
  private async scan(host: SessionHost, cells: string[], program: Queued['program']): Promise<Said[]> {
    const found: Said[] = (await host.call((api) => api.scanCells(cells))).map((f) => said('asg_flag_cell', { cell: f.cell, line: f.line, why: f.why }));
    if (program?.from === 'file') {
      const name = program.file;
      found.push(...(await host.call((api) => api.scanCells([program.source]))).map((f) => said('asg_flag_file', { file: name, line: f.line, why: f.why })));
    }
    return found;
  }

  /**
   * The hand-in's files into the scratch workspace, then its code cells in order (but those
   * `left` out), each within the time limit. Returns the first cell that did not finish (the
   * worker is then spoiled: interrupted half way, or ended), or null when all were run.
   */
  private async replay(host: SessionHost, files: Queued['files'], cells: Cell[], left: ReadonlySet<number>, limitMs: number, errors: Text[]): Promise<number | null> {
    // A replay after a check ended its worker meets the same cells again: each is told once.
    const note = (text: Said) => void (errors.some((e) => JSON.stringify(e) === JSON.stringify(text)) || errors.push(text));
    for (const file of files) await host.call((api) => api.writeFile(file.path, file.data));
    for (const [i, { code }] of cells.entries()) {
      if (left.has(i)) continue;
      // Python raises it in the language shown while grading; the grade keeps only the error's name.
      const result = await host.run(code, {}, undefined, limitMs, { noInput: tell(said('lib2_grading_no_input')) });
      if (this.stopped) throw new Ended(said('asg_grading_stopped'));
      const ename = result.error?.ename;
      if (!ename) continue;
      if (ename === 'SessionCrashed') throw new Ended(said('asg_cell_crashed', { cell: i + 1, error: result.error?.evalue ?? '' }));
      if (ename === 'TimeoutError' || !host.isLive) {
        note(ename === 'TimeoutError' ? said('asg_cell_timeout', { cell: i + 1, seconds: limitMs / 1000 }) : said('asg_cell_ended', { cell: i + 1, error: ename }));
        return i;
      }
      note(said('asg_cell_raised', { cell: i + 1, error: ename }));
    }
    return null;
  }

  private release(host: SessionHost): void {
    this.live.delete(host);
    void host.terminate(new WorkerTerminatedError('deleted', said('lib2_grading_hand_in_ended')));
  }

  private settle(row: GradeRow, status: RowStatus, errors: Text[], t0?: number): void {
    row.status = status;
    row.errors = errors;
    if (t0 !== undefined) row.ms = performance.now() - t0;
    this.onChange(row);
  }
}

/**
 * How long one hand-in may take to grade: twice what its replayed cells, its checks and its
 * cases may take at most (each its time limit), and a minute for each worker start they may
 * need (the first, and one after each check and case). Every check and case runs, the worker
 * started again after each that ended it, until this is spent; the rule is the same whether
 * or not the page can interrupt Python.
 */
export function handInBudgetMs(assignment: Assignment, cells: number): number {
  const limitMs = assignment.timeLimitSeconds * 1000;
  const cases = assignment.program?.cases ?? [];
  const caseMs = cases.reduce((sum, c) => sum + (c.timeLimitSeconds ?? assignment.timeLimitSeconds) * 1000, 0);
  const starts = 1 + assignment.checks.length + cases.length;
  return 2 * (limitMs * (cells + assignment.checks.length) + caseMs) + START_ALLOWANCE_MS * starts;
}

/** A worker that failed under a hand-in, said. */
function describeFailure(error: unknown): Said {
  if (error instanceof WorkerTerminatedError && error.cause === 'crashed') return said('asg_worker_crashed', { error: error.message });
  return said('asg_grading_failed', { error: error instanceof Error ? error.message : String(error) });
}

/** Why a check or case was not run ('not run: …' said), without its 'not run'; an older string as it is. */
function notRunWhy(message: Text): Text {
  if (typeof message === 'string') return message.replace(/^not run: /, '');
  const why = message.key === 'asg_not_run' ? message.params?.why : undefined;
  return typeof why === 'string' || typeof why === 'object' ? why : message;
}

/**
 * The cells a round ran, in order, each marked when it did not finish there: a Code message's
 * cells, or the code an Ask round's cards ran (as approved or edited; a skipped card never started).
 */
function ranCells(round: Round): Cell[] {
  const stopped = new Set(round.events.flatMap((e) => (e.type === 'exec_error' && endedByStop(e.error.ename) ? [e.block] : [])));
  if (round.kind === 'ask') return round.events.flatMap((e) => (e.type === 'code_start' ? [{ code: e.code, stopped: stopped.has(e.block) }] : []));
  return splitMessage(round.message).map((b, block) => ({ code: b.code, stopped: stopped.has(block) }));
}

/** What a round showed: its output, values and errors, cut for the read-only view (PyTabs' own short words are not counted). */
function shownOutput(round: Round): Text[] {
  const out: Text[] = [];
  let room = OUTPUT_CHARS;
  for (const e of round.events) {
    const shown: Text[] =
      e.type === 'stdout' || e.type === 'stderr' || e.type === 'input'
        ? [terminalText(e)]
        : e.type === 'result'
          ? [`${e.bundle['text/plain'] ?? ''}\n`]
          : e.type === 'exec_error'
            ? [`${e.error.ename}: `, e.error.said ?? e.error.evalue, '\n']
            : [];
    for (const text of shown) {
      const chars = typeof text === 'string' ? text.length : 0;
      if (chars > room) {
        out.push(`${(text as string).slice(0, room)}\n`, said('rt_py_output_cut', { count: OUTPUT_CHARS }));
        return out;
      }
      out.push(text);
      room -= chars;
    }
  }
  return out;
}
