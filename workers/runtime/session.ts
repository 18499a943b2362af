import type { PyodideInterface } from 'pyodide';
import type { PyProxy } from 'pyodide/ffi';
import type { SessionChange } from '../../src/lib/storage/commit';
import type { SessionStore, StoredSession } from '../../src/lib/storage/session-store';
import { existingPathProblem, newPathProblem } from '../../src/lib/path-rules';
import type {
  CodeFlag,
  CheckOutcome,
  CompareVerdict,
  InputChannel,
  Limits,
  ProgramCase,
  ProgramRun,
  RunError,
  RunOptions,
  StartStep,
  StartReport,
  VariableInfo,
  WorkerRunEvent,
  WorkerRunResult,
} from '../../src/lib/worker-api';
import type { WorkerAnswer } from '../../src/lib/stdin-protocol';
import { installRuntimeFiles } from './python-files';
import { said, SaidError, tellInEnglish, type Said } from '../../src/lib/i18n/said';
import { OutputStream } from './output';
import type { PackageLoader } from './packages';
import { installSpreadsheets } from './spreadsheets';
import { channelSource, requestId, type LineSource } from './stdin';
import { quoteName } from '../../src/lib/quote-name';

/** How a program run can end, as pytabs.programs.run_program says it. */
const ENDINGS: ProgramRun['ended'][] = ['finished', 'raised', 'cut', 'stopped'];

/** A check or a case refused because the hand-in's code changed what it runs on (said: the page words it). */
/** `raw` when `problem` finds nothing, else its refusal (crossing.ts takes its said text to the page). */
function checkedPath(raw: string, problem: (raw: string) => Said | null): string {
  const found = problem(raw);
  if (found) throw new SaidError(found);
  return raw;
}

function tamperedText(changed: string[]): Said {
  const names = changed.slice(0, 5).join(', ');
  const why: Said = changed.length > 5 ? { key: 'asg_changed_machinery_more', params: { names, count: changed.length - 5 } } : { key: 'asg_changed_machinery', params: { names } };
  return notRunText(why);
}

function notRunText(why: Said): Said {
  return { key: 'asg_not_run', params: { why } };
}

/** How an error that ended a check or a program reads: 'raised NameError: …' (said). */
function raisedText(error: string, detail?: string): Said {
  return detail ? { key: 'asg_raised', params: { error, detail } } : { key: 'asg_raised_bare', params: { error } };
}

/** A said text as Python sends it ({'key', 'params'}); what a forged runner returns is not one. */
function isSaidShape(value: unknown): value is Said {
  return typeof value === 'object' && value !== null && typeof (value as Said).key === 'string';
}

/** The session's cwd inside its own worker's file system. */
export const WORKSPACE = '/home/pyodide/workspace';

interface PyRunResult {
  status: 'ok' | 'error';
  result: Record<string, string> | null;
  error: RunError | null;
  replay: string[];
  /**
   * The step-through's record as JSON in UTF-8, when the run recorded one (pytabs.trace). Bytes,
   * not a str: Pyodide turns a str with any non-ASCII character into a JS string one character
   * at a time (about 0.3 µs each), TextDecoder the same bytes at once.
   */
  trace: Uint8Array | null;
}

/** One variable as the runtime's per-run changes report it (`Runtime.changes`). */
type VariableChange = VariableInfo & { hash: string | null; pickle: Uint8Array | null; reason: string | null };

/** Converts a Python dict result into plain JS values (bytes become Uint8Array copies). */
function toPlain<T>(proxy: PyProxy): T {
  try {
    return (proxy as unknown as { toJs(o: object): T }).toJs({ dict_converter: Object.fromEntries, create_proxies: false });
  } finally {
    proxy.destroy();
  }
}

/**
 * One session inside one worker: its Python runtime, its workspace and its commits.
 * Without a store it is a stateless scratch session that never touches storage.
 */
export class WorkerSession {
  private readonly runtime: PyProxy;
  private readonly stdout: OutputStream;
  private readonly stderr: OutputStream;
  private sink: ((event: WorkerRunEvent) => void) | null = null;
  private interrupt: Uint8Array | null = null;
  // What input() raises in a worker the page gave no channel (Node, a page that offered none).
  private lines: LineSource = () => ({ kind: 'refused', said: said('rt_py_w3_input_no_channel') });
  /** The current run's options: whether it may ask anyone. */
  private runOptions: RunOptions = {};
  /** Set by sealForGrading: names what changed of the sealed machinery since then (pytabs.guard). */
  private sealChanged: PyProxy | null = null;
  /** Workspace files as last committed: path → "size:mtime". */
  private known = new Map<string, string>();

  constructor(
    private readonly pyodide: PyodideInterface,
    /** This session's storage, its id bound in; null for a stateless run. */
    private readonly store: SessionStore | null,
    /** Loads the packages a run imports; without one (Node tests) only the core is there. */
    private readonly packages?: PackageLoader,
  ) {
    installRuntimeFiles(pyodide);
    // A long read shows its steps in the reply, and stops between them when the person asks.
    installSpreadsheets(pyodide, {
      progress: (text, step) => this.sink?.({ type: 'status', text, said: step }),
      stopRequested: () => this.interrupt?.[0] === 2,
    });
    this.stdout = new OutputStream('stdout', () => this.sink);
    this.stderr = new OutputStream('stderr', () => this.sink);
    pyodide.setStdout({ write: this.stdout.write });
    pyodide.setStderr({ write: this.stderr.write });
    const emit = (kind: string, payload: PyProxy | string) => {
      // Python's str arrives as a JS string: a turtle's changes are JSON already.
      if (kind === 'turtle' && typeof payload === 'string') {
        this.sink?.({ type: 'turtle', changes: payload });
        return;
      }
      if (kind !== 'display' || typeof payload === 'string') return;
      // display() flushes Python's streams first; forward them before the output so order holds.
      this.stdout.flush();
      this.stderr.flush();
      this.sink?.({ type: 'display', bundle: toPlain<Record<string, string>>(payload.copy()) });
    };
    const stdin = pyodide.pyimport('pytabs.stdin');
    stdin.install((password: boolean, turtleWaitMs?: number) => this.ask(password, turtleWaitMs));
    stdin.destroy();
    const Runtime = pyodide.pyimport('pytabs.runtime').Runtime as (...a: unknown[]) => PyProxy;
    this.runtime = Runtime(store?.sessionId ?? 'stateless', WORKSPACE, emit);
  }

  /** The words str() of an error PyTabs raises in Python takes (StartOptions.messages). */
  setMessages(templates: Record<string, string>): void {
    const module = this.pyodide.pyimport('pytabs.said');
    const dict = this.pyodide.toPy(templates);
    module.set_messages(dict);
    dict.destroy();
    module.destroy();
  }

  /**
   * Lets the page interrupt Python through a shared byte. It is cleared after each run so
   * that a stop landing between the run and its commit cannot break the commit.
   */
  setInterruptBuffer(buffer: Uint8Array): void {
    this.interrupt = buffer;
    this.pyodide.setInterruptBuffer(buffer);
  }

  /** How input() waits for the person: the page's channel, or (tests) any line source. */
  setInputChannel(channel: InputChannel | LineSource): void {
    this.lines = typeof channel === 'function' ? channel : channelSource(channel, () => this.interrupt);
  }

  /**
   * Called by Python's stdin for each line it needs: shows what the run printed so far (the
   * prompt), asks the page, and blocks until the person answers.
   */
  private ask(password: boolean, turtleWaitMs?: number): WorkerAnswer {
    const refusal = this.runOptions.noInput;
    if (refusal) return typeof refusal === 'string' ? { kind: 'refused', text: refusal } : { kind: 'refused', said: refusal };
    const sink = this.sink;
    // Outside a cell's run nobody can answer: the end of input, as a program run with nothing piped in meets it (CPython's own EOFError).
    if (!sink) return { kind: 'eof' };
    this.stdout.flush();
    this.stderr.flush();
    const id = requestId();
    // A turtle's event loop asks for its next click or key the same way (-1: no time limit).
    const turtle = turtleWaitMs === undefined ? {} : { turtle: { waitMs: turtleWaitMs < 0 ? null : turtleWaitMs } };
    const answer = this.lines(id, () => sink({ type: 'input_request', request: { id, password, ...turtle } }));
    // The answered line is an event of its own, never stdout: a listener tells what the program
    // printed from what the person typed (a password's text is never sent). A turtle's click or
    // key is not typed text, and is not one.
    if (answer.kind === 'line' && turtleWaitMs === undefined) {
      sink({ type: 'input', request: id, prompt: this.stdout.takeLine(), text: password ? '' : answer.text, ...(password ? { password } : {}) });
    }
    return answer;
  }

  /**
   * Loads the session's files into the workspace and restores its variables: from `stored`
   * when the worker read them while Pyodide was loading, else read now.
   */
  async start(stored?: Promise<StoredSession>, say: (step: StartStep) => void = () => undefined): Promise<Omit<StartReport, 'loadMs'>> {
    const t0 = performance.now();
    if (!this.store) return { restored: [], failed: [], restoreMs: 0 };
    const { files, state } = await (stored ?? this.store.readAll());
    for (const file of files) this.writeToFs(file.path, file.data);
    this.known = this.scan();
    // Replayed imports need their packages; one that fails to load shows up as a failed replay.
    await this.packages?.loadFor(state.replay.map((r) => r.source).join('\n'), (event) => {
      if (event.type === 'status') say({ said: event.said ?? said('rt_py_text', { text: event.text }) });
    });
    if (state.replay.length || state.pickles.length) say({ said: restoringText(state.replay.length, state.pickles.length) });
    const pickles = new Map(state.pickles.map((p) => [p.name, p.data]));
    const variables = state.variables.map(({ sessionId: _, hash, ...meta }) => ({ ...meta, hash: hash ?? null }));
    const toPy = (v: unknown) => this.pyodide.toPy(v, { depth: 2 });
    const report = toPlain<{ restored: string[]; failed: { name: string; reason: string }[] }>(
      this.runtime.restore(toPy(state.replay.map((r) => r.source)), toPy(variables), toPy(pickles)),
    );
    return { ...report, restoreMs: performance.now() - t0 };
  }

  async run(
    code: string,
    onEvent: ((event: WorkerRunEvent) => void) | undefined,
    sessionVars: Record<string, string>,
    limits: Limits,
    options: RunOptions = {},
  ): Promise<WorkerRunResult> {
    const t0 = performance.now();
    // The worker posts each event on its own channel, before the result (RunEventMessage); a
    // listener that delivers its events later returns a promise, and waiting for the last
    // one before returning keeps them before the result.
    let delivered: unknown;
    const forward = (event: WorkerRunEvent): void => {
      delivered = onEvent?.(event);
    };
    const packageError = await this.packages?.loadFor(code, forward);
    if (packageError) {
      await settled(delivered);
      return { status: 'error', error: packageError, durationMs: performance.now() - t0, filesChanged: [], filesDeleted: [], notPersisted: [] };
    }
    this.sink = forward;
    this.runOptions = options;
    this.stdout.takeLine();
    let py: PyRunResult;
    try {
      const vars = this.pyodide.toPy(sessionVars);
      try {
        // Only a cell that mentions await or async can suspend; any other runs in one step.
        // As JSON both ways: one string crosses into Python, and a trace of thousands of steps comes back as one.
        const trace = options.trace ? JSON.stringify(options.trace) : undefined;
        py = toPlain<PyRunResult>(AWAITS.test(code) ? await this.runtime.run(code, vars, trace) : this.runtime.run_now(code, vars, trace));
      } finally {
        vars.destroy();
      }
    } catch (error) {
      // The runtime catches KeyboardInterrupt itself; one landing in its first instructions escapes.
      if (!String(error).includes('KeyboardInterrupt')) throw error;
      py = { status: 'error', result: null, error: { ename: 'KeyboardInterrupt', evalue: '', traceback: 'KeyboardInterrupt' }, replay: [], trace: null };
    } finally {
      if (this.interrupt) this.interrupt[0] = 0;
      this.stdout.flush();
      this.stderr.flush();
      this.sink = null;
      this.runOptions = {};
    }
    await settled(delivered);
    const result: WorkerRunResult = {
      status: py.status,
      durationMs: 0,
      filesChanged: [],
      filesDeleted: [],
      notPersisted: [],
    };
    if (py.result) result.result = py.result;
    if (py.error) result.error = py.error;
    if (py.trace) result.traceJson = new TextDecoder().decode(py.trace);
    try {
      await this.commitRun(py, result, limits);
    } catch (e) {
      result.commitSaid = describeCommitError(e);
      result.commitError = tellInEnglish(result.commitSaid);
      // Its commit would have counted it; the page counts it instead.
      if (this.store) result.uncounted = 1;
    }
    result.durationMs = performance.now() - t0;
    return result;
  }

  /**
   * Seals the check machinery and this session's runtime object before a hand-in's code runs
   * (pytabs.guard.private_seal): its `changed` is held here, out of Python's reach.
   */
  sealForGrading(): void {
    const guard = this.pyodide.pyimport('pytabs.guard');
    try {
      const seal = guard.private_seal(this.runtime) as PyProxy;
      this.sealChanged?.destroy();
      // A copy: the attribute proxy alone would go with the seal's.
      this.sealChanged = (seal.changed as PyProxy).copy();
      seal.destroy();
    } finally {
      guard.destroy();
    }
  }

  /** The names of the sealed machinery that changed since the seal, [] when none or unsealed. */
  private tampered(): string[] {
    if (!this.sealChanged) return [];
    return toPlain<string[]>((this.sealChanged as unknown as () => PyProxy)());
  }

  /** What each cell's code reaches past the student's own values (pytabs.guard.scan): nothing runs. */
  scanCells(cells: string[]): CodeFlag[] {
    const guard = this.pyodide.pyimport('pytabs.guard');
    try {
      return cells.flatMap((code, i) => toPlain<CodeFlag[]>(guard.scan(code, i + 1)));
    } finally {
      guard.destroy();
    }
  }

  /** One check of an assignment on a copy of the variables (pytabs.checks): no output is forwarded, nothing committed. */
  async runCheck(source: string, name: string, outputChars: number): Promise<CheckOutcome> {
    // A check that imports a package needs it loaded, as a cell would.
    const packageError = await this.packages?.loadFor(source, () => undefined);
    if (packageError) return { name, passed: false, message: raisedText(packageError.ename, packageError.evalue), error: packageError.ename, output: '' };
    const changed = this.tampered();
    if (changed.length) return { name, passed: false, message: tamperedText(changed), error: 'Tampered', output: '' };
    this.runOptions = { noInput: said('rt_py_w3_input_in_check') };
    try {
      const outcome = toPlain<CheckOutcome>(this.runtime.run_check(source, name, outputChars));
      // The student's functions ran inside the check: what they changed voids it.
      const after = this.tampered();
      if (after.length) return { name, passed: false, message: tamperedText(after), error: 'Tampered', output: '' };
      // Python's None arrives as undefined.
      return { ...outcome, error: outcome.error ?? null };
    } catch (error) {
      // The runtime catches KeyboardInterrupt itself; one landing in its first instructions escapes.
      if (!String(error).includes('KeyboardInterrupt')) throw error;
      return { name, passed: false, message: raisedText('KeyboardInterrupt'), error: 'KeyboardInterrupt', output: '' };
    } finally {
      if (this.interrupt) this.interrupt[0] = 0;
      this.runOptions = {};
    }
  }

  /**
   * A program on one case's input lines (pytabs.programs.run_program): its own namespace and
   * stdin, no output forwarded, nothing committed. It is never given what it should print.
   */
  async runProgram(run: ProgramCase): Promise<ProgramRun> {
    const notRun = (error: string, message: Said): ProgramRun => ({ stdout: '', stderr: '', ended: 'not-run', error, message, ms: 0 });
    const packageError = await this.packages?.loadFor(run.source, () => undefined);
    if (packageError) return notRun(packageError.ename, raisedText(packageError.ename, packageError.evalue));
    const changed = this.tampered();
    if (changed.length) return notRun('Tampered', tamperedText(changed));
    try {
      const ran = toPlain<Partial<ProgramRun>>(this.runtime.run_program(run.source, run.filename, run.input, run.outputChars));
      // The program ran beside the machinery: what it changed voids the case.
      const after = this.tampered();
      if (after.length) return notRun('Tampered', tamperedText(after));
      // Outside grading nothing is sealed: a session whose program replaced the runner gets no answer from it.
      if (typeof ran.stdout !== 'string' || typeof ran.stderr !== 'string' || !(typeof ran.message === 'string' || isSaidShape(ran.message)) || !ENDINGS.includes(ran.ended!)) {
        return notRun('Tampered', notRunText({ key: 'asg_runner_replaced' }));
      }
      // Python's None arrives as undefined.
      return { stdout: ran.stdout, stderr: ran.stderr, ended: ran.ended!, error: ran.error ?? null, message: ran.message!, ms: Number(ran.ms) || 0 };
    } catch (error) {
      // The runtime catches KeyboardInterrupt itself; one landing in its first instructions escapes.
      if (!String(error).includes('KeyboardInterrupt')) throw error;
      return { stdout: '', stderr: '', ended: 'stopped', error: 'KeyboardInterrupt', message: raisedText('KeyboardInterrupt'), ms: 0 };
    } finally {
      if (this.interrupt) this.interrupt[0] = 0;
    }
  }

  /** A teacher's compare function on one case's outputs (pytabs.programs.compare_outputs). */
  compareOutputs(source: string, name: string, expected: string, actual: string): CompareVerdict {
    try {
      const verdict = toPlain<CompareVerdict>(this.runtime.compare_outputs(source, name, expected, actual));
      return { ...verdict, error: verdict.error ?? null };
    } catch (error) {
      if (!String(error).includes('KeyboardInterrupt')) throw error;
      return { passed: false, message: { key: 'asg_function_raised_bare', params: { name, error: 'KeyboardInterrupt' } }, error: 'KeyboardInterrupt' };
    } finally {
      if (this.interrupt) this.interrupt[0] = 0;
    }
  }

  private async commitRun(py: PyRunResult, result: WorkerRunResult, limits: Limits): Promise<void> {
    if (!this.store) {
      // A scratch session (a hand-in being graded, a stateless run) keeps nothing: no variable is
      // pickled and no file read to be stored; the result still names the files the run changed.
      const { changed, deleted } = this.changedPaths(this.scan());
      result.filesChanged = changed;
      result.filesDeleted = deleted;
      return;
    }
    const vars = toPlain<{ put: VariableChange[]; delete: string[] }>(this.runtime.changes(limits.variableBytes, limits.sessionBytes));
    result.notPersisted = vars.put.filter((v) => !v.persisted).map((v) => ({ name: v.name, reason: v.reason ?? '' }));
    const { files, now } = this.diffWorkspace();
    result.filesChanged = files.put.map((f) => f.path);
    result.filesDeleted = files.delete;
    if (!files.put.length && !files.delete.length && !vars.put.length && !vars.delete.length && !py.replay.length) {
      // Nothing of the user's changed: storage already holds all of it. The run's count is
      // the page's to write (src/lib/sessions/run-counts.ts), off this run's path.
      this.runtime.confirm_changes();
      result.uncounted = 1;
      return;
    }
    const change: SessionChange = {
      executions: 1,
      files,
      variables: {
        put: vars.put.map(({ pickle, reason, hash, ...meta }) => ({
          ...meta,
          ...(reason ? { reason } : {}),
          ...(hash ? { hash } : {}),
          ...(pickle ? { pickle } : {}),
        })),
        delete: vars.delete,
      },
      // On error the runtime still lists the imports and definitions that ran before it.
      replay: py.replay,
    };
    await this.store.commit(change);
    // Only now is the change storage's: had the commit failed, the next run would propose it again.
    this.runtime.confirm_changes();
    // Storage now holds the workspace as scanned for this commit; walking it again finds the same.
    this.known = now;
  }

  /** Files created, changed or removed in the workspace since the last commit, and the scan that found them. */
  private diffWorkspace(): { files: Required<NonNullable<SessionChange['files']>>; now: Map<string, string> } {
    const now = this.scan();
    const { changed, deleted } = this.changedPaths(now);
    const put = changed.map((path) => ({ path, data: this.pyodide.FS.readFile(`${WORKSPACE}/${path}`), modifiedAt: Date.now() }));
    return { files: { put, delete: deleted }, now };
  }

  /** The paths a scan finds created or changed since the last commit, and those it no longer finds. */
  private changedPaths(now: Map<string, string>): { changed: string[]; deleted: string[] } {
    return {
      changed: [...now].filter(([path, stamp]) => this.known.get(path) !== stamp).map(([path]) => path),
      deleted: [...this.known.keys()].filter((path) => !now.has(path)),
    };
  }

  private scan(): Map<string, string> {
    const entries = toPlain<Record<string, [number, number]>>(this.runtime.scan_workspace());
    return new Map(Object.entries(entries).map(([path, [size, mtime]]) => [path, `${size}:${mtime}`]));
  }

  private writeToFs(path: string, data: Uint8Array): void {
    const full = `${WORKSPACE}/${path}`;
    const dir = full.slice(0, full.lastIndexOf('/'));
    this.pyodide.FS.mkdirTree(dir);
    this.pyodide.FS.writeFile(full, data);
  }

  async writeFile(rawPath: string, data: Uint8Array): Promise<void> {
    const path = checkedPath(rawPath, newPathProblem);
    this.writeToFs(path, data);
    await this.commitFiles({ put: [{ path, data, modifiedAt: Date.now() }] });
  }

  async deleteFile(rawPath: string): Promise<void> {
    const path = checkedPath(rawPath, existingPathProblem);
    if (!this.known.has(path)) throw new SaidError(said('libb_no_file', { name: quoteName(path) }));
    this.pyodide.FS.unlink(`${WORKSPACE}/${path}`);
    await this.commitFiles({ delete: [path] });
  }

  async renameFile(rawFrom: string, rawTo: string): Promise<void> {
    const from = checkedPath(rawFrom, existingPathProblem);
    const to = checkedPath(rawTo, newPathProblem);
    if (!this.known.has(from)) throw new SaidError(said('libb_no_file', { name: quoteName(from) }));
    if (this.known.has(to)) throw new SaidError(said('libb_file_exists', { name: quoteName(to) }));
    const data = this.pyodide.FS.readFile(`${WORKSPACE}/${from}`);
    this.writeToFs(to, data);
    this.pyodide.FS.unlink(`${WORKSPACE}/${from}`);
    await this.commitFiles({ put: [{ path: to, data, modifiedAt: Date.now() }], delete: [from] });
  }

  private async commitFiles(files: NonNullable<SessionChange['files']>): Promise<void> {
    await this.store?.commit({ files });
    this.known = this.scan();
  }

  boundNames(code: string): string[] {
    return toPlain<string[]>(this.runtime.bound_names(code));
  }

  async clear(): Promise<void> {
    this.runtime.clear();
    await this.store?.clear();
  }
}

/** What the user reads when a run's changes could not be saved (the browser's error in its own words). */
function describeCommitError(error: unknown): Said {
  if ((error as { name?: string })?.name === 'QuotaExceededError') return said('w3_commit_quota');
  return said('w3_commit_failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}

const AWAITS = /\b(await|async)\b/;

/** Waits for a value that may be a promise (an event delivered through Comlink); its failure is not the run's. */
async function settled(value: unknown): Promise<void> {
  try {
    await value;
  } catch {
    // The page went away or its handler threw: the run's result still stands.
  }
}

/** "Restoring 3 variables and 2 imports and definitions" */
function restoringText(statements: number, values: number): Said {
  const variables = said('rt_count_variables', { count: values });
  const definitions = said('rt_count_definitions', { count: statements });
  const what = values && statements ? said('list_and', { first: variables, last: definitions }) : values ? variables : definitions;
  return said('rt_restoring', { what });
}
