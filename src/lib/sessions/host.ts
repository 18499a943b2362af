import * as Comlink from 'comlink';
import { hasSharedMemory } from '../capabilities';
import { fetchStep, type FetchProgress } from '../fetch-progress';
import { noteWorkerScript } from '../hosting';
import type { InputAnswer } from '../stdin-protocol';
import { isRunEventMessage, type CheckOutcome, type CompareVerdict, type InputRequest, type Limits, type ProgramCase, type ProgramRun, type RunEvent, type RunError, type RunOptions, type RunResult, type SessionWorkerApi, type StartProgress, type StartReport, type StartStep, type WorkerRunEvent } from '../worker-api';
import { said, tellInEnglish, SaidError, type Said } from '../i18n/said';
import { carrySaidErrors } from '../i18n/crossing';
import { pythonMessages } from '../i18n/python';
import { openInputChannel, type PageInput } from './input';
import type { PageSnapshot } from './snapshot-cache';
import { snapshotForWorker } from './snapshot-share';
import { prepareSpareWorker, takeWorker } from './spare-worker';
import { coreFilesInHand, fetchCoreFiles } from './core-files';
import { within } from '../timing';
import { withTrace } from '../trace';

// The session worker's refusals reach the page with their said text (a SaidError, storage's OpenError).
carrySaidErrors();

export type HostState = 'asleep' | 'starting' | 'ready' | 'running' | 'error';

export interface HostEnv {
  dbName: string;
  indexURL: string;
  limits: () => Limits;
  /** The package index setting when a worker starts; undefined means the official CDN. */
  packageIndexURL?: () => string | undefined;
  /** How long a stop waits for Python to honour an interrupt before the worker is terminated. */
  interruptGraceMs?: number;
  onState?: (state: HostState) => void;
  /** What a start is doing while the session is 'starting'; null once it is done. */
  onProgress?: (progress: StartProgress | null) => void;
  /** The page's start snapshot (null: boot plainly), handed to each worker it starts; `watch` hears its download. */
  snapshot?: (watch: (progress: FetchProgress) => void) => Promise<PageSnapshot | null | undefined>;
  /** Pyodide's wasm as the page compiled it, handed to each worker it starts; `watch` hears its download. */
  wasm?: (watch: (progress: FetchProgress) => void) => Promise<WebAssembly.Module | undefined>;
  /** Hears each start that succeeded (the page keeps or makes its start snapshot then). */
  afterStart?: (report: StartReport) => void;
  /** Hears a run ask the person for a line, and null once it was answered or the run ended. */
  onInput?: (request: InputRequest | null) => void;
}

/** Why a worker was ended under a pending call. */
export type EndCause = 'stopped' | 'timeout' | 'crashed' | 'asleep' | 'deleted' | 'taken';

/** Raised into pending calls when the worker is terminated under them: said for the UI, in English as its message. */
export class WorkerTerminatedError extends SaidError {
  constructor(
    readonly cause: EndCause,
    text: Said,
  ) {
    super(text);
    this.name = 'WorkerTerminatedError';
  }
}

/** The error name a run's result carries when its worker ended under it, by cause. */
const RESULT_NAMES: Record<EndCause, string> = {
  stopped: 'KeyboardInterrupt',
  timeout: 'TimeoutError',
  crashed: 'SessionCrashed',
  asleep: 'SessionRestarted',
  deleted: 'SessionDeleted',
  taken: 'SessionTakenOver',
};

/** Causes that stop a run from outside (a person, the time limit, sleep, another tab) rather than fail it. */
const STOPPING: readonly EndCause[] = ['stopped', 'timeout', 'asleep', 'taken'];

/**
 * Whether a run's error name means it was stopped rather than failed on its own: the one
 * list of such names, shared by the host that gives them and the chat that shows them.
 */
export function endedByStop(ename: string | undefined): boolean {
  return STOPPING.some((cause) => RESULT_NAMES[cause] === ename);
}

interface LiveWorker {
  /** Null until the worker exists: it is created once workers may start (spare-worker.ts). */
  worker: Worker | null;
  api: Comlink.Remote<SessionWorkerApi> | null;
  started: Promise<StartReport>;
  /** Rejects when the worker is terminated, so calls pending on it settle. */
  killed: Promise<never>;
  kill: (reason: Error) => void;
  interrupt?: Uint8Array;
  /** Whether its start answered: its connection to storage is open by then (or it has none), and ending the worker closes it. */
  startAnswered: boolean;
  /** How the worker waits for the person's lines (input()); chosen with the worker, once the page's service worker had its chance to control it. */
  input: PageInput | null;
  /**
   * Calls running Python on this worker. Only runInWorker changes it, up on entry and down in
   * its `finally`; a worker that ends takes its count with it, so a run that ends after its
   * worker did (a crash, a stop) can never push a later worker's count below zero.
   */
  running: number;
}

/** A run's time limit, which stops counting while the run waits for input. */
type RunClock = { pause: () => void; resume: () => void };

/** A live worker whose start succeeded: it exists. */
type StartedWorker = LiveWorker & { worker: Worker; api: Comlink.Remote<SessionWorkerApi>; input: PageInput };

/** A run's request for a line, while the person has not answered it. */
interface PendingInput {
  request: InputRequest;
  live: StartedWorker;
  /** The run's time limit does not count the time a person takes to answer. */
  resumeClock: () => void;
}

/**
 * Owns one session's worker: starts it on first use, serializes its runs and file
 * operations, and stops a run by interrupt or, failing that, by restarting the worker
 * from the session's last commit.
 */
export class SessionHost {
  private live: LiveWorker | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private _state: HostState = 'asleep';
  /** Set while a stop is under way, so the run's result can say why it ended. */
  private stopCause: 'stopped' | 'timeout' | null = null;
  /** The current start's latest step, while one is under way. */
  progress: StartProgress | null = null;
  /** The current run's request for a line, until the person answers it or the run ends. */
  private waiting: PendingInput | null = null;
  /** Runs numbered so far: a run's events carry its number (RunEventMessage). */
  private runs = 0;

  constructor(
    readonly sessionId: string | null,
    private readonly env: HostEnv,
  ) {}

  get state(): HostState {
    return this._state;
  }

  private setState(state: HostState): void {
    this._state = state;
    if (state !== 'starting') this.setProgress(null);
    this.env.onState?.(state);
  }

  private setProgress(progress: StartProgress | null): void {
    if (progress && this._state !== 'starting') return;
    this.progress = progress;
    this.env.onProgress?.(progress);
  }

  /** Starts the worker if it is not running; resolves once the session is restored. */
  start(): Promise<StartReport> {
    return this.ensureLive().started;
  }

  private ensureLive(): LiveWorker {
    if (this.live) return this.live;
    let kill!: (reason: Error) => void;
    const killed = new Promise<never>((_, reject) => (kill = reject));
    killed.catch(() => undefined);
    const interrupt = hasSharedMemory() ? new Uint8Array(new SharedArrayBuffer(1)) : undefined;
    const live: LiveWorker = { worker: null, api: null, input: null, killed, kill, interrupt, started: Promise.resolve(null as never), startAnswered: this.sessionId === null, running: 0 };
    this.live = live;
    this.setState('starting');
    live.started = Promise.race([this.launch(live), killed]).then(
      (report) => {
        performance.mark('pytabs:session-started', { detail: { sessionId: this.sessionId, loadMs: report.loadMs, restoreMs: report.restoreMs, snapshot: report.snapshot, warm: report.warm === true } });
        // Workers from now on get Pyodide's files from the page, which its worker just fetched.
        fetchCoreFiles(this.env.indexURL);
        // The next session to start (or wake) finds a worker whose script is loaded.
        prepareSpareWorker(this.env.indexURL, this.env.wasm?.(() => undefined), this.env.snapshot?.(() => undefined), this.env.packageIndexURL);
        noteWorkerScript(report.workerScript);
        this.env.afterStart?.(report);
        if (this.live === live && live.running === 0) this.setState('ready');
        return report;
      },
      (error) => {
        // Drop the broken worker so that the next call tries a fresh one.
        if (this.live === live) {
          this.live = null;
          void endWorker(live, this.sessionId);
          this.setState('error');
        }
        throw error;
      },
    );
    return live;
  }

  /** Creates `live`'s worker once workers may start, and starts the session in it. */
  private async launch(live: LiveWorker): Promise<StartReport> {
    const { worker, hasWasm, hasSnapshot, hasCoreFiles } = await takeWorker(this.env.indexURL);
    performance.mark('pytabs:worker-taken', { detail: this.sessionId });
    // Ended while it waited for the worker: the worker is nobody's.
    if (this.live !== live) {
      worker.terminate();
      return live.killed;
    }
    const api = Comlink.wrap<SessionWorkerApi>(worker);
    const input = openInputChannel();
    live.worker = worker;
    live.api = api;
    live.input = input;
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      if (this.live === live) this.terminate(new WorkerTerminatedError('crashed', said('rt_worker_crashed', { error: event.message || said('rt_uncaught_error') })));
    });
    // Steps of this worker's start only: a later worker's start has its own.
    const progress = (step: StartStep) => void (this.live === live && this.setProgress({ ...step, text: tellInEnglish(step.said) }));
    const started = api.start(
      {
        sessionId: this.sessionId,
        indexURL: this.env.indexURL,
        dbName: this.env.dbName,
        interruptBuffer: live.interrupt,
        input: input.offer,
        packageIndexURL: this.env.packageIndexURL?.(),
        coreFiles: hasCoreFiles ? undefined : coreFilesInHand(this.env.indexURL),
        messages: pythonMessages(),
      },
      Comlink.proxy(progress),
    );
    // A start that failed may have failed before its storage opened: that worker is asked to let go.
    started.then(() => (live.startAnswered = true), () => undefined);
    // Sent after the start, so the worker fetches Python's other files while the page still
    // fetches the snapshot and compiles the wasm (a first visit) or shares the snapshot; a
    // terminated worker's proxy refuses them.
    const watch = (download: FetchProgress) => progress(fetchStep(download));
    if (!hasSnapshot) handOver(this.env.snapshot?.(watch), (snapshot) => api.supplySnapshot(snapshot && handedSnapshot(snapshot)));
    if (!hasWasm) handOver(this.env.wasm?.(watch), (module) => api.supplyWasm(module));
    return started;
  }

  /** Runs `task` after everything queued before it, on a started worker. */
  private enqueue<T>(task: (live: StartedWorker) => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const live = this.ensureLive();
      await live.started;
      // A start that succeeded was launched: its worker exists.
      return Promise.race([task(live as StartedWorker), live.killed]);
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * The life of one call that runs Python (a run or a check), after everything queued before
   * it: the session is running, the interrupt is cleared, `timeoutMs` is counted (paused while
   * the run waits for input), and a call that rejects means the worker itself broke, which
   * ends it. `call` reads `stopCause` to tell a time limit from a Stop.
   */
  private runInWorker<T>(timeoutMs: number, call: (live: StartedWorker, clock: RunClock) => Promise<T>): Promise<T> {
    return this.enqueue(async (live) => {
      live.running++;
      this.setState('running');
      if (live.interrupt) live.interrupt[0] = 0;
      const clock = runClock(timeoutMs, () => void this.stop('timeout'));
      try {
        return await call(live, clock);
      } catch (error) {
        if (error instanceof WorkerTerminatedError) throw error;
        // Python errors come back as results; a rejected call means the worker itself broke.
        const crash = new WorkerTerminatedError('crashed', said('rt_worker_failed', { error: String(error) }));
        if (this.live === live) this.terminate(crash);
        throw crash;
      } finally {
        clock.pause();
        if (this.waiting?.live === live) this.setWaiting(null);
        live.running--;
        if (this.live === live) {
          this.stopCause = null;
          this.setState(live.running ? 'running' : 'ready');
        }
      }
    });
  }

  /**
   * Runs code after everything queued before it. Never rejects for a worker that ended
   * under the run (stop, time limit, crash): that becomes an error result saying what
   * happened and which names the run bound that were not saved.
   */
  run(
    code: string,
    sessionVars: Record<string, string>,
    onEvent?: (event: RunEvent) => void,
    timeoutMs = 0,
    options: RunOptions = {},
  ): Promise<RunResult> {
    const t0 = performance.now();
    return this.runInWorker(timeoutMs, async (live, clock) => {
      const events = (event: WorkerRunEvent) => {
        if (event.type !== 'input_request') onEvent?.(event);
        else if (this.live === live) {
          clock.pause();
          this.setWaiting({ request: event.request, live, resumeClock: clock.resume });
        }
      };
      // No listener and no person to ask: a run's events then stay in the worker.
      const asks = !options.noInput && live.input.offer.kind !== 'none';
      const run = onEvent || asks ? ++this.runs : undefined;
      // This run's events, from its own worker, by its number (RunEventMessage: not a Comlink port).
      const hear = ({ data }: MessageEvent) => {
        if (isRunEventMessage(data) && data.pytabsRunEvent.run === run) events(data.pytabsRunEvent.event);
      };
      if (run !== undefined) live.worker.addEventListener('message', hear);
      let result: RunResult;
      try {
        result = withTrace(await live.api.run(code, run, sessionVars, this.env.limits(), options));
      } finally {
        live.worker.removeEventListener('message', hear);
      }
      if (this.stopCause === 'timeout' && result.error?.ename === 'KeyboardInterrupt') result.error = timeLimitError(timeoutMs);
      return result;
    }).catch((error: unknown) => {
      if (!(error instanceof WorkerTerminatedError)) throw error;
      return this.endedRun(error, code, timeoutMs, t0);
    });
  }

  /**
   * Runs one check of an assignment (`runCheck`) after everything queued before it, within
   * `timeoutMs`: past it the check is interrupted, or its worker ended (the session then
   * starts again from its last commit, which the check never changed), and it fails with
   * "did not finish in N s". Rejects with a WorkerTerminatedError when the worker crashed.
   */
  check(source: string, name: string, outputChars: number, timeoutMs: number): Promise<CheckOutcome> {
    const unfinished = (): CheckOutcome => ({ name, passed: false, message: said('asg_did_not_finish', { seconds: Math.round(timeoutMs / 1000) }), error: 'TimeoutError', output: '' });
    return this.runInWorker(timeoutMs, async (live) => {
      const outcome = await live.api.runCheck(source, name, outputChars);
      return this.stopCause === 'timeout' && outcome.error === 'KeyboardInterrupt' ? unfinished() : outcome;
    }).catch((error: unknown) => {
      if (error instanceof WorkerTerminatedError && error.cause === 'timeout') return unfinished();
      throw error;
    });
  }

  /**
   * Runs a program on one case's input lines (`runProgram`) after everything queued before it,
   * within `timeoutMs`, as `check` runs a check: past it the run ends 'stopped' as a TimeoutError,
   * "did not finish in N s".
   */
  runProgram(run: ProgramCase, timeoutMs: number): Promise<ProgramRun> {
    const unfinished = (): ProgramRun => ({ stdout: '', stderr: '', ended: 'stopped', error: 'TimeoutError', message: said('asg_did_not_finish', { seconds: Math.round(timeoutMs / 1000) }), ms: timeoutMs });
    return this.runInWorker(timeoutMs, async (live) => {
      const ran = await live.api.runProgram(run);
      return this.stopCause === 'timeout' && ran.error === 'KeyboardInterrupt' ? unfinished() : ran;
    }).catch((error: unknown) => {
      if (error instanceof WorkerTerminatedError && error.cause === 'timeout') return unfinished();
      throw error;
    });
  }

  /**
   * Runs a teacher's compare function (`compareOutputs`) within `timeoutMs`: past it the case
   * fails with "did not finish in N s".
   */
  compare(source: string, name: string, expected: string, actual: string, timeoutMs: number): Promise<CompareVerdict> {
    const unfinished = (): CompareVerdict => ({ passed: false, message: said('asg_function_did_not_finish', { name, seconds: Math.round(timeoutMs / 1000) }), error: 'TimeoutError' });
    return this.runInWorker(timeoutMs, async (live) => {
      const verdict = await live.api.compareOutputs(source, name, expected, actual);
      return this.stopCause === 'timeout' && verdict.error === 'KeyboardInterrupt' ? unfinished() : verdict;
    }).catch((error: unknown) => {
      if (error instanceof WorkerTerminatedError && error.cause === 'timeout') return unfinished();
      throw error;
    });
  }

  /** The result of a run whose worker ended: restarts the session and names what was not saved. */
  private async endedRun(error: WorkerTerminatedError, code: string, timeoutMs: number, t0: number): Promise<RunResult> {
    let unsaved: string[] = [];
    // A scratch session saves nothing: starting a worker again only to name what it lost is waste.
    if (this.sessionId !== null && error.cause !== 'deleted' && error.cause !== 'taken') {
      try {
        unsaved = await this.call((api) => api.boundNames(code));
      } catch {
        // The restart failed too; its own error shows on the session's next call.
      }
    }
    // A scratch session (grading's) has nothing saved to restart from or to lose: it only says what ended the run.
    const scratch = this.sessionId === null;
    const what: Said =
      error.cause === 'timeout' ? (scratch ? timeoutText(timeoutMs) : said('rt_restarted_after', { what: timeoutText(timeoutMs) }))
      : error.said;
    const text =
      scratch || error.cause === 'deleted' || error.cause === 'taken' ? what
      : unsaved.length ? said('rt_not_saved_from_run', { what, names: unsaved.join(', ') })
      : said('rt_nothing_lost', { what });
    return {
      status: 'error',
      error: pageError(RESULT_NAMES[error.cause], text),
      durationMs: performance.now() - t0,
      filesChanged: [],
      filesDeleted: [],
      notPersisted: unsaved.map((name) => ({ name, reason: 'the run was cut short before its commit' })),
    };
  }

  private setWaiting(pending: PendingInput | null): void {
    this.waiting = pending;
    this.env.onInput?.(pending?.request ?? null);
  }

  /** The line the current run waits for, if it waits for one. */
  get pendingInput(): InputRequest | null {
    return this.waiting?.request ?? null;
  }

  /**
   * Answers the run's request for a line (`line` null: the end of input, as Ctrl+D in a
   * terminal). Throws when that request is not the one waiting: an answer never reaches
   * another request than the one it was typed for.
   */
  answerInput(requestId: string, line: string | null): void {
    const pending = this.waiting;
    if (!pending || pending.request.id !== requestId || this.live !== pending.live) {
      throw new SaidError(said('libb_input_not_waiting'));
    }
    const answer: InputAnswer = line === null ? { kind: 'eof' } : { kind: 'line', text: line };
    pending.live.input.answer(requestId, answer);
    this.setWaiting(null);
    pending.resumeClock();
  }

  /** Resolves once everything queued so far (runs, calls) has ended, however it ended; starts no worker. */
  settled(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  /** Any other worker call, queued behind runs. */
  call<T>(task: (api: Comlink.Remote<SessionWorkerApi>) => Promise<T>): Promise<T> {
    return this.enqueue((live) => task(live.api));
  }

  get isRunning(): boolean {
    return (this.live?.running ?? 0) > 0;
  }

  get isLive(): boolean {
    return this.live !== null;
  }

  /**
   * Stops the current run. With an interrupt buffer Python gets a KeyboardInterrupt and
   * keeps its state; if it does not stop within the grace period (two, when Python took the
   * interrupt), or there is no buffer, the worker is terminated and the session restarts
   * from its last commit.
   */
  async stop(cause: 'stopped' | 'timeout' = 'stopped'): Promise<'idle' | 'interrupted' | 'restarted'> {
    const live = this.live;
    if (!live || live.running === 0) return 'idle';
    this.stopCause = cause;
    const cancelled = this.cancelInput(live);
    if (live.interrupt || cancelled) {
      if (live.interrupt) live.interrupt[0] = 2; // SIGINT
      // A worker blocked waiting for a line sees the interrupt when woken.
      live.input?.wake();
      const grace = this.env.interruptGraceMs ?? INTERRUPT_GRACE_MS;
      const t0 = performance.now();
      let settled = await this.settlesWithin(grace);
      // Pyodide sets the byte back to 0 when Python takes the interrupt. Taken, but the run has
      // not come back: it is ending (its commit), the page's thread was held, or the code caught
      // the interrupt. One more grace before the restart, which would lose what it commits.
      const taken = live.interrupt?.[0] === 0;
      if (!settled && taken && this.live === live) settled = await this.settlesWithin(grace);
      // The record of each stop (a test's failure prints it).
      const detail = { sessionId: this.sessionId, settled, taken, input: cancelled, ms: Math.round(performance.now() - t0) };
      performance.mark('pytabs:stop', { detail });
      if (settled) return 'interrupted';
    }
    if (this.live !== live) return 'restarted';
    this.terminate(new WorkerTerminatedError(cause, said(cause === 'timeout' ? 'rt_hit_time_limit' : 'rt_stopped_restarted')));
    return 'restarted';
  }

  /** Whether everything queued so far ends within `ms`. */
  private settlesWithin(ms: number): Promise<boolean> {
    return within(this.tail.then(() => true), ms, false);
  }

  /** Tells a run waiting for a line that it was stopped (Python raises KeyboardInterrupt); false if none waits. */
  private cancelInput(live: LiveWorker): boolean {
    const pending = this.waiting;
    if (!pending || pending.live !== live) return false;
    this.setWaiting(null);
    try {
      pending.live.input.answer(pending.request.id, { kind: 'cancelled' });
      return true;
    } catch {
      // The answer cannot reach the worker: the stop restarts it instead.
      return false;
    }
  }

  /**
   * Ends the session's worker: pending calls reject now, and the next call starts a fresh
   * one. Resolves once the worker itself has ended, which for a worker still starting waits
   * until it let go of storage (`endWorker`).
   */
  terminate(reason: WorkerTerminatedError = new WorkerTerminatedError('asleep', said('rt_put_to_sleep'))): Promise<void> {
    const live = this.live;
    if (!live) return Promise.resolve();
    this.live = null;
    live.kill(reason);
    this.stopCause = null;
    if (this.waiting?.live === live) this.setWaiting(null);
    this.setState('asleep');
    return endWorker(live, this.sessionId);
  }
}

/**
 * How long a worker still starting gets to close its connection to storage before it is
 * ended anyway (one that hangs would otherwise hold up an erase for good). Its answer waits
 * for the open to settle and for the worker's thread to be free of Pyodide's load: 0.5-1.8 s
 * in WebKitGTK on this 2-core machine.
 */
const RELEASE_MS = 10_000;

/**
 * Terminates a worker. One whose start has not answered may have an open of storage in
 * flight: WebKit keeps the connection such an open makes once its worker is gone, and a
 * delete of the database (an erase of all data) then waits for it, without even a `blocked`
 * event (still waiting a minute later in WebKitGTK 2.50). So that worker is asked to close
 * its connection first.
 */
async function endWorker(live: LiveWorker, sessionId: string | null): Promise<void> {
  const { worker, api } = live;
  // Not created yet: launch() ends the worker it gets for a host that let this one go.
  if (!worker || !api) return;
  const t0 = performance.now();
  let release: 'not asked' | 'answered' | 'failed' | 'timed out' = 'not asked';
  if (!live.startAnswered) {
    release = await within(api.releaseStorage().then(() => 'answered' as const), RELEASE_MS, 'timed out' as const).catch(() => 'failed' as const);
  }
  worker.terminate();
  api[Comlink.releaseProxy]();
  // The record of how each worker let go of storage, for an erase that waits (a test's failure prints it).
  performance.mark('pytabs:worker-ended', { detail: { sessionId, release, ms: Math.round(performance.now() - t0) } });
}

/**
 * How long a stop waits for the interrupted run to end and commit before it restarts the
 * worker, which loses what the run had not committed. 1.5 s once ran out on this 2-core
 * machine under a full test suite's load for a loop that did honour the interrupt.
 */
const INTERRUPT_GRACE_MS = 3000;

/**
 * A run's time limit that can pause: the time a person takes to answer input() is not the
 * run's. Without a limit it does nothing.
 */
function runClock(limitMs: number, expire: () => void): RunClock {
  let left = limitMs;
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const resume = () => {
    if (limitMs <= 0 || timer !== undefined) return;
    since = performance.now();
    timer = setTimeout(expire, Math.max(0, left));
  };
  const pause = () => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    left -= performance.now() - since;
  };
  resume();
  return { pause, resume };
}

/** The page's snapshot as the worker's supplySnapshot gets it: shared, or a transferred copy (snapshot-share.ts). */
function handedSnapshot(page: PageSnapshot): PageSnapshot {
  const { snapshot, transfer } = snapshotForWorker(page);
  return transfer.length ? Comlink.transfer(snapshot, transfer) : snapshot;
}

/** Sends what the page has (undefined if it has nothing, or getting it failed) once it is there. */
function handOver<T>(value: Promise<T | undefined> | undefined, send: (value: T | undefined) => Promise<void>): void {
  void Promise.resolve(value)
    .catch(() => undefined)
    .then(send)
    .catch(() => undefined);
}

/** What a run Python stopped at the page's time limit (its KeyboardInterrupt) ends with. */
export function timeLimitError(timeoutMs: number): RunError {
  return pageError('TimeoutError', timeoutText(timeoutMs));
}

function timeoutText(ms: number): Said {
  return said('rt_time_limit', { s: Math.round(ms / 1000) });
}

/** An error the page wrote (no Python raised it): its traceback is its one line, in English as the API has it (where the page has English: tellInEnglish). */
function pageError(ename: string, text: Said): RunError {
  const evalue = tellInEnglish(text);
  return { ename, evalue, traceback: `${ename}: ${evalue}`, said: text };
}
