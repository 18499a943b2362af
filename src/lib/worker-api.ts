/**
 * The one interface between the page and a session worker. Both sides import
 * these types, so a mismatch is a compile error.
 */
import type { Said } from './i18n/said';
import type { Text } from './i18n/text';

/** A Jupyter-style MIME bundle: 'text/plain' is always present. */
export type MimeBundle = Record<string, string>;

export interface Limits {
  /** Largest pickled size of one variable that is persisted. */
  variableBytes: number;
  /** Largest total pickled size persisted for one session. */
  sessionBytes: number;
}

/** A start snapshot as the page has it (downloaded, kept on this device, or made here), so the worker need not fetch it. */
export interface PageSnapshot {
  /** Its file name beside the core; the worker checks it names the snapshot of its own runtime. */
  file: string;
  /** Packed as the build's file is (snapshot-codec), or already unpacked, either in shared memory or not. */
  bytes: Uint8Array;
}

export interface StartOptions {
  /** null starts a stateless scratch session: nothing is read from or written to storage. */
  sessionId: string | null;
  /** Absolute URL of the served Pyodide core files (ends with '/'). */
  indexURL: string;
  /** Pyodide package index (lock file directory) for imports of packages. */
  packageIndexURL?: string;
  /** IndexedDB database name (tests use their own). */
  dbName: string;
  /** Shared with the page when it is cross-origin isolated, so a stop can interrupt Python. */
  interruptBuffer?: Uint8Array;
  /** How input() waits for the person in this worker; without it input() says it cannot wait here. */
  input?: InputChannel;
  /** Pyodide's files as the page holds them, when it does: the worker then fetches none of them. */
  coreFiles?: CoreFiles;
  /**
   * The Python runtime's own messages (catalog keys `rt_py_…`) as templates in the language
   * shown when the session starts (`pythonMessages`): what str() of an error PyTabs raises
   * in Python reads, for a program that catches and prints it. The page tells the error's
   * `said` instead, in whoever reads it's language.
   */
  messages?: Record<string, string>;
}

/**
 * Pyodide's files every session worker loads besides its wasm, as the page holds them once it
 * has started a session (src/lib/sessions/core-files.ts): fetching them in each worker
 * through the service worker took 50-60 ms of the browser's CPU per worker here, one
 * started for each hand-in a class is graded with. The core's files, no session's data.
 */
export interface CoreFiles {
  /** `pyodide.asm.mjs`, decoded from its gzip copy. */
  script: Uint8Array;
  /** `python_stdlib.zip`. */
  stdlib: Uint8Array;
  /** `pyodide-lock.json`, as text. */
  lockFile: string;
}

/**
 * How a session's worker waits for a line the person types (input(), getpass), chosen by the
 * page for each worker (src/lib/sessions/input.ts); the wire format is src/lib/stdin-protocol.ts.
 */
export type InputChannel =
  /** The worker blocks on Atomics.wait until the page writes the answer into the buffer. */
  | { kind: 'shared'; buffer: SharedArrayBuffer }
  /** The worker sends a synchronous request to `url`, which the service worker holds until the page posts the answer. */
  | { kind: 'relay'; url: string }
  /** Neither is possible in this window: input() raises `reason`. */
  | { kind: 'none'; reason: string };

/** A run asks the person for a line: the page shows a field and answers with the request's id. */
export interface InputRequest {
  /** Random, so an answer can only ever reach the request it was typed for. */
  id: string;
  /** getpass: the field is masked and the answer is not echoed. */
  password: boolean;
  /**
   * Not a line: a turtle's event loop waits for a click or key on the run's drawing, answered
   * as JSON (src/lib/turtle/events.ts), or, after `waitMs` (null: no limit), for `{"kind":"timer"}`.
   */
  turtle?: { waitMs: number | null };
}

/** What a run of the worker reports: its output, and its requests for input (the host answers those, and keeps them from the run's listener). */
export type WorkerRunEvent = RunEvent | { type: 'input_request'; request: InputRequest };

/** How one run is made. */
export interface RunOptions {
  /**
   * Set when no person is at the keyboard (code the assistant runs, a stateless run): input()
   * raises EOFError with this text at once instead of asking; a said text is an `rt_py_` one,
   * which Python words in the session's language.
   */
  noInput?: string | Said;
  /** Record the run's steps for a step-through (workers/python/pytabs/trace.py); the result then carries `trace`. */
  trace?: TraceOptions;
}

/** The limits of a step-through's recording; each has a default. */
export interface TraceOptions {
  /** Steps recorded (default 5000); past it the run goes on to its end unrecorded and `stepLimitReached` is set. */
  maxSteps?: number;
  /** Objects drawn per step (default 200); past it `objectLimitReached` is set. */
  maxObjects?: number;
  /** Items, entries or attributes kept per object (default 100); the rest is counted in its `more`. */
  maxItems?: number;
  /** Characters of a value shown inline (default 80), the rest cut with '…'. */
  maxRepr?: number;
}

/**
 * A value in a step-through: inline as `[type name, repr]` (`['int', '10']`, `['str', "'hi'"]`,
 * `['function', 'total']`), or a reference to an object by its number (`{ ref: 3 }`).
 */
export type TraceValue = [type: string, repr: string] | { ref: number };

/** One snapshot of an object: the same object keeps its `id` through the whole trace, so aliases share it. */
export interface TraceObject {
  id: number;
  kind: 'list' | 'tuple' | 'dict' | 'set' | 'frozenset' | 'instance';
  /** The type's name: 'list', 'defaultdict', the student's class 'Point'. */
  type: string;
  /** A list's, tuple's or set's items. */
  items?: TraceValue[];
  /** A dict's entries, in order. */
  entries?: [TraceValue, TraceValue][];
  /** An instance's attributes (its `__dict__`), in order. */
  attributes?: [string, TraceValue][];
  /** How many items past `maxItems` were left out. */
  more?: number;
}

/** A frame of the student's code at a step, the outermost (`<module>`) first. */
export interface TraceFrame {
  /** The function's name, `<module>` for the cell itself, a class's name for its body. */
  name: string;
  line: number;
  /** Its variables: an index into `Trace.scopes`. */
  scope: number;
}

export interface TraceStep {
  /** The line about to run (`line`), or where the event happened. */
  line: number;
  event: 'call' | 'line' | 'return' | 'exception';
  frames: TraceFrame[];
  /** The objects the frames reach at this step: an index into `Trace.heaps`. */
  heap: number;
  /** How much of `Trace.stdout` was printed by then (its length in UTF-16 code units). */
  stdout: number;
  /** At a `return`: the value returned. */
  returned?: TraceValue;
  /** At an `exception`: what was raised. */
  exception?: { type: string; message: string };
}

/**
 * A step-through's record (pytabs.trace). Compact, as it is kept: each distinct frame scope,
 * object snapshot and set of objects is stored once and steps refer to it by index;
 * `traceStep` (src/lib/trace.ts) expands one step.
 */
export interface Trace {
  steps: TraceStep[];
  /** Frame variables, each distinct set once: `[name, value]` pairs in the frame's order. */
  scopes: [string, TraceValue][][];
  /** Object snapshots, each distinct one once. */
  objects: TraceObject[];
  /** Sets of objects live at a step: indexes into `objects`. */
  heaps: number[][];
  /** What the recorded steps printed, with each line read by input() echoed as a terminal shows it. */
  stdout: string;
  /** Each line input() read while recording, and the step it was read before. */
  inputs: { step: number; text: string }[];
  limits: Required<TraceOptions>;
  /** The run went on past `maxSteps` unrecorded. */
  stepLimitReached: boolean;
  /** Some step had more than `maxObjects` objects to draw. */
  objectLimitReached: boolean;
}

/** A step of a session's start as the worker tells it: said, not in words. */
export interface StartStep {
  /** What is happening: "Fetching pyodide.asm.wasm: 3.1 MB of 8.7 MB", as a catalog key with parameters. */
  said: Said;
  /** Bytes of the download under way so far, and its size when known. */
  loaded?: number;
  total?: number;
}

/** A step of a session's start, shown while it loads: the UI tells `said`; `text` is it in English, for the API and logs. */
export interface StartProgress extends StartStep {
  text: string;
}

export interface StartReport {
  /** Variables restored from storage. */
  restored: string[];
  /** Variables (or replayed statements) that failed to come back, with the reason. */
  failed: { name: string; reason: string }[];
  /** Python was loaded before the start, while the worker waited as the page's spare. */
  warm?: boolean;
  /** Milliseconds spent in loadPyodide (waiting for the spare's, when warm) and in restoring. */
  loadMs: number;
  restoreMs: number;
  /** Whether Pyodide was restored from the build's memory snapshot, booted plainly after it failed, or had none. */
  snapshot?: 'used' | 'fallback' | 'none';
  /** Why restoring the snapshot failed, when it did. */
  snapshotError?: string;
  /** Whether Pyodide's wasm was the module the page compiled, or fetched and compiled by the worker. */
  wasm?: 'page' | 'fetched';
  /** Whether Pyodide's script, standard library and lock file were the page's (CoreFiles), or fetched by the worker. */
  coreFiles?: 'page' | 'fetched';
  /**
   * Where the worker's load went, in ms from its start message: its module script, the page's
   * wasm and snapshot in hand, the wasm instantiated, Python loaded (for the bench's timelines).
   */
  phases?: Record<string, number>;
  /** The worker's script URL, whose response headers say whether the host limits its network (src/lib/hosting.ts). */
  workerScript?: string;
}

export type RunEvent =
  | { type: 'stdout'; text: string }
  | { type: 'stderr'; text: string }
  /**
   * A line the person answered to input() (or sys.stdin, getpass): never part of stdout, as
   * with a program whose input is piped. `prompt` is what the program printed on the line
   * before it (input()'s prompt; already in stdout), `request` the id of the request it
   * answered. A password's `text` is empty: it is never shown or kept. A terminal shows
   * `text` and the Enter after `prompt`.
   */
  | InputEvent
  | { type: 'display'; bundle: MimeBundle }
  /** A step PyTabs reports (a package loading): `text` in English for the API, `said` for the page to tell. */
  | { type: 'status'; text: string; said?: Said }
  /**
   * A turtle screen's changes since the last ones, as JSON (src/lib/turtle/changes.ts reads it): the
   * page draws them live; the picture the reply keeps comes after as a display event.
   */
  | { type: 'turtle'; changes: string };

export interface InputEvent {
  type: 'input';
  request: string;
  prompt: string;
  text: string;
  password?: boolean;
}

export interface RunError {
  ename: string;
  /** In English when PyTabs wrote it (the page's time limit, a stop), for the API and logs. */
  evalue: string;
  /** The traceback as text, limited to the user's own frames. */
  traceback: string;
  /** PyTabs' own message when PyTabs raised or wrote the error (a time limit, a spreadsheet it cannot read): the UI tells it instead of `evalue`. */
  said?: Said;
  /**
   * What the error means for a beginner, with the names and values of their code, as said texts
   * (workers/python/pytabs/explain.py): what went wrong, then, when it went through several of
   * their functions, where it started and stopped. Absent for errors it has no words for.
   */
  explanation?: Said[];
  /** The line of the run's code where it happened (1-based; the innermost of the cell's own frames). */
  line?: number;
}

export interface VariableInfo {
  name: string;
  type: string;
  /** Pickled size in bytes; for values that are not pickled, an estimate from sys.getsizeof. */
  sizeBytes: number;
  preview: string;
  persisted: boolean;
  /** How it comes back: its pickle, or replaying its def/class/import; why not when not persisted. */
  kind: 'pickle' | 'replay' | 'none';
  reason?: string;
}

export interface RunResult {
  status: 'ok' | 'error';
  /** The last expression's value, when it was not None. */
  result?: MimeBundle;
  error?: RunError;
  durationMs: number;
  /** Paths (relative to the workspace) written or deleted by the run and committed. */
  filesChanged: string[];
  filesDeleted: string[];
  /** Variables of this run that are not persisted, with the reason. */
  notPersisted: { name: string; reason: string }[];
  /** Set when the commit after the run failed, in English (logs, the API); the previous commit is intact. */
  commitError?: string;
  /** The same, said: what the chat tells in the reader's language. */
  commitSaid?: Said;
  /**
   * Runs this result stands for that storage has not counted (1 for a run that changed
   * nothing, or whose commit failed): the page counts them (src/lib/sessions/run-counts.ts).
   */
  uncounted?: number;
  /** The run's steps, when it was asked to record them (`RunOptions.trace`) and its worker lived to answer. */
  trace?: Trace;
}

/**
 * A run's result as the worker sends it: the trace still as the JSON Python wrote. One string
 * crosses to the page in a copy; the same trace as objects (tens of thousands for 10,000 steps)
 * took longer to clone than to parse. `withTrace` (src/lib/trace.ts) parses it.
 */
export type WorkerRunResult = Omit<RunResult, 'trace'> & { traceJson?: string };

/** One check of an assignment as it ran against a session (workers/python/pytabs/checks.py). */
export interface CheckOutcome {
  name: string;
  passed: boolean;
  /** What the student reads: the check's docstring when it passed, else the assert's message (as written) or the error raised (said). */
  message: Text;
  /** The exception's class name when the check raised anything but AssertionError ('KeyboardInterrupt': stopped). */
  error: string | null;
  /** What the check printed, cut at the limit asked for. */
  output: string;
}

/**
 * A program run on one case's input lines, as the worker that runs it is asked for it: never
 * what it should print. The page compares (src/lib/assignments/compare.ts).
 */
export interface ProgramCase {
  /** The program's code, and the name tracebacks give it ('main.py', or '<program>' for a message). */
  source: string;
  filename: string;
  /** The lines sys.stdin holds, each ending in a newline. */
  input: string;
  /** The most of stdout and of stderr kept; a program that prints more is cut ('cut'). */
  outputChars: number;
}

/** What a program printed on one case's input, and how it ended (workers/python/pytabs/programs.py). */
export interface ProgramRun {
  stdout: string;
  /** What it printed to stderr, with its traceback. */
  stderr: string;
  /**
   * finished: ran to its end (or exit(0)); raised: an exception or a non-zero exit; cut: printed
   * more than `outputChars`; stopped: interrupted (Stop, the time limit); not-run: it could not
   * start (a package failed to load, grading found its machinery changed), `error` says why.
   */
  ended: 'finished' | 'raised' | 'cut' | 'stopped' | 'not-run';
  /** The exception's class name when it did not finish ('SystemExit', 'OutputLimit', 'KeyboardInterrupt', 'TimeoutError', 'Tampered'). */
  error: string | null;
  /** Said: how it did not finish ('raised ValueError: …', 'did not finish in 3 s'); '' when it finished. */
  message: Text;
  /** Milliseconds the program ran. */
  ms: number;
}

/** A teacher's compare function's verdict on one case's output (`CompareVerdict` of programs.py). */
export interface CompareVerdict {
  passed: boolean;
  /** What the student reads when it failed: the assert's message (as written), or why the function could not decide (said). */
  message: Text;
  /** The exception's class name when the function could not decide (NameError: no such function). */
  error: string | null;
}

/** What a static look at a hand-in's code found reaching past the student's own values (workers/python/pytabs/guard.py). */
export interface CodeFlag {
  /** The cell (from 1, in replay order) and its line (from 1). */
  cell: number;
  line: number;
  why: Said;
}

export interface WorkspaceEntry {
  path: string;
  size: number;
  modifiedAt: number;
}

/**
 * Posted to a spare session worker before any Comlink call (src/lib/sessions/spare-worker.ts):
 * the core it will load, so that it imports Pyodide's module script while no session has it.
 */
export interface PrepareMessage {
  /**
   * The core to import Pyodide's script from (with the page's copies of its files, when it
   * holds them); then, once the page has them, its compiled wasm and a copy of its start
   * snapshot; then, when the page is idle, `boot`: load Python from them now, for the
   * package index named (no session's data: the start brings that).
   */
  pytabsPrepare: {
    indexURL: string;
    coreFiles?: CoreFiles;
    wasm?: WebAssembly.Module;
    snapshot?: PageSnapshot;
    boot?: { packageIndexURL: string | undefined };
  };
}

export function isPrepareMessage(data: unknown): data is PrepareMessage {
  return typeof (data as PrepareMessage | null)?.pytabsPrepare?.indexURL === 'string';
}

/**
 * One event of a run, posted by the session worker on its own channel, where Comlink's answers
 * come too, rather than through a Comlink callback's port: Firefox ESR 140 holds a port's
 * messages while the worker blocks in a synchronous request, so the page never heard the
 * prompt and the input request of an input() waiting on the service worker (it waited for
 * good). One channel also keeps a run's events before its result. `run` is the number the
 * page gave the run (`SessionWorkerApi.run`), unique in its worker.
 */
export interface RunEventMessage {
  pytabsRunEvent: { run: number; event: WorkerRunEvent };
}

export function isRunEventMessage(data: unknown): data is RunEventMessage {
  return typeof (data as RunEventMessage | null)?.pytabsRunEvent?.run === 'number';
}

/** What the session worker exposes through Comlink. */
export interface SessionWorkerApi {
  /**
   * Starts Pyodide and restores the session, telling `onProgress` what it is doing. Python's
   * own downloads begin at once; its restore waits for `supplySnapshot` and `supplyWasm`.
   */
  start(options: StartOptions, onProgress?: (step: StartStep) => void): Promise<StartReport>;
  /**
   * The page's snapshot for the start; null when the page chose to boot Python plainly (a
   * download would not pay on this link), undefined when it has none (the worker looks for it itself).
   */
  supplySnapshot(snapshot: PageSnapshot | null | undefined): Promise<void>;
  /** Pyodide's wasm as the page compiled it; undefined when it has none (the worker fetches it itself). */
  supplyWasm(module: WebAssembly.Module | undefined): Promise<void>;
  /**
   * Runs a cell; `limits` come with each run, so a change in Settings reaches a live session.
   * With `events`, the run's events are posted as RunEventMessages numbered so; without, none.
   */
  run(
    code: string,
    events: number | undefined,
    sessionVars: Record<string, string>,
    limits: Limits,
    options?: RunOptions,
  ): Promise<WorkerRunResult>;
  /**
   * Runs the check function `name` of an assignment's check `source` against a copy of the
   * session's variables: nothing the check does reaches them, and nothing is committed.
   * What it prints is kept up to `outputChars` characters.
   */
  runCheck(source: string, name: string, outputChars: number): Promise<CheckOutcome>;
  /**
   * Runs a program on one case's input lines in a namespace of its own, its stdin those lines:
   * the session's variables are untouched, and nothing is committed. What it prints comes back;
   * what it should print never goes in.
   */
  runProgram(run: ProgramCase): Promise<ProgramRun>;
  /**
   * Runs the compare function `name` of an assignment's check `source` on one case's expected
   * and actual output (the 'function' rule), in a scratch worker that never runs a student's code.
   */
  compareOutputs(source: string, name: string, expected: string, actual: string): Promise<CompareVerdict>;
  /**
   * Seals what checks and cases run on (grading, before a hand-in's first cell): from then on
   * a check or a case that finds any of it changed fails as `error: 'Tampered'`, naming what changed.
   */
  sealForGrading(): Promise<void>;
  /** What each cell's code reaches past the student's own values (Python's ast); nothing runs. */
  scanCells(cells: string[]): Promise<CodeFlag[]>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  deleteFile(path: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
  /** Forgets every user variable in memory and in storage; files stay. */
  clear(): Promise<void>;
  /** The names a cell binds at module level (to say what a run cut short did not save). */
  boundNames(code: string): Promise<string[]>;
  /**
   * Closes this worker's connection to storage once its opening has settled, before the page
   * ends the worker; storage fails for the worker from then on. WebKit keeps the connection of
   * an open that was still in flight when its worker was terminated, and a delete of the
   * database (an erase) then waits for it.
   */
  releaseStorage(): Promise<void>;
}

/** What the worker that makes a start snapshot on this device exposes (workers/snapshot.worker.ts). */
export interface SnapshotMakerApi {
  /**
   * Boots Pyodide on the wasm that `supplyWasm` gives (its other files it fetches at once),
   * imports the runtime, keeps the packed snapshot in Cache Storage and returns it unpacked.
   */
  make(indexURL: string): Promise<PageSnapshot>;
  /** Pyodide's wasm as the page compiled it; undefined: the worker fetches it itself. */
  supplyWasm(module: WebAssembly.Module | undefined): Promise<void>;
}
