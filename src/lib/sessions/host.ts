import * as Comlink from 'comlink';
import type { Limits, RunEvent, RunResult, SessionWorkerApi, StartReport } from '../worker-api';

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
}

/** Raised into pending calls when the worker is terminated under them. */
export class WorkerTerminatedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerTerminatedError';
  }
}

interface LiveWorker {
  worker: Worker;
  api: Comlink.Remote<SessionWorkerApi>;
  started: Promise<StartReport>;
  /** Rejects when the worker is terminated, so calls pending on it settle. */
  killed: Promise<never>;
  kill: (reason: Error) => void;
  interrupt?: Uint8Array;
}

/**
 * Owns one session's worker: starts it on first use, serializes its runs and file
 * operations, and stops a run by interrupt or, failing that, by restarting the worker
 * from the session's last commit.
 */
export class SessionHost {
  private live: LiveWorker | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;
  private _state: HostState = 'asleep';
  lastUsed = 0;
  lastStart: StartReport | null = null;

  constructor(
    readonly sessionId: string | null,
    private readonly env: HostEnv,
  ) {}

  get state(): HostState {
    return this._state;
  }

  private setState(state: HostState): void {
    this._state = state;
    this.env.onState?.(state);
  }

  /** Starts the worker if it is not running; resolves once the session is restored. */
  start(): Promise<StartReport> {
    return this.ensureLive().started;
  }

  private ensureLive(): LiveWorker {
    if (this.live) return this.live;
    const worker = new Worker(new URL('../../../workers/session.worker.ts', import.meta.url), { type: 'module' });
    const api = Comlink.wrap<SessionWorkerApi>(worker);
    let kill!: (reason: Error) => void;
    const killed = new Promise<never>((_, reject) => (kill = reject));
    killed.catch(() => undefined);
    const interrupt = globalThis.crossOriginIsolated ? new Uint8Array(new SharedArrayBuffer(1)) : undefined;
    const live: LiveWorker = { worker, api, killed, kill, interrupt, started: Promise.resolve(null as never) };
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      if (this.live === live) this.terminate(new WorkerTerminatedError(`The session's worker crashed: ${event.message || 'unknown error'}`));
    });
    this.setState('starting');
    live.started = Promise.race([
      api.start({
        sessionId: this.sessionId,
        indexURL: this.env.indexURL,
        dbName: this.env.dbName,
        limits: this.env.limits(),
        interruptBuffer: interrupt,
        packageIndexURL: this.env.packageIndexURL?.(),
      }),
      killed,
    ]).then(
      (report) => {
        this.lastStart = report;
        if (this.live === live && this.running === 0) this.setState('ready');
        return report;
      },
      (error) => {
        if (this.live === live) this.setState('error');
        throw error;
      },
    );
    this.live = live;
    return live;
  }

  /** Runs `task` after everything queued before it, on a started worker. */
  private enqueue<T>(task: (live: LiveWorker) => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const live = this.ensureLive();
      await live.started;
      this.lastUsed = Date.now();
      return Promise.race([task(live), live.killed]);
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  run(code: string, sessionVars: Record<string, string>, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    const t0 = performance.now();
    return this.enqueue(async (live) => {
      this.running++;
      this.setState('running');
      if (live.interrupt) live.interrupt[0] = 0;
      try {
        return await live.api.run(code, Comlink.proxy(onEvent ?? (() => undefined)), sessionVars);
      } finally {
        this.running--;
        if (this.live === live) this.setState(this.running ? 'running' : 'ready');
      }
    }).catch((error: unknown) => {
      if (!(error instanceof WorkerTerminatedError)) throw error;
      return {
        status: 'error',
        error: { ename: 'SessionRestarted', evalue: error.message, traceback: error.message },
        durationMs: performance.now() - t0,
        filesChanged: [],
        filesDeleted: [],
        notPersisted: [],
      } satisfies RunResult;
    });
  }

  /** Any other worker call, queued behind runs. */
  call<T>(task: (api: Comlink.Remote<SessionWorkerApi>) => Promise<T>): Promise<T> {
    return this.enqueue((live) => task(live.api));
  }

  get isRunning(): boolean {
    return this.running > 0;
  }

  get isLive(): boolean {
    return this.live !== null;
  }

  /**
   * Stops the current run. With an interrupt buffer Python gets a KeyboardInterrupt and
   * keeps its state; if it does not stop within the grace period (or there is no buffer)
   * the worker is terminated and the session restarts from its last commit.
   */
  async stop(): Promise<'idle' | 'interrupted' | 'restarted'> {
    const live = this.live;
    if (!live || this.running === 0) return 'idle';
    if (live.interrupt) {
      live.interrupt[0] = 2; // SIGINT
      const settled = await Promise.race([
        this.tail.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.env.interruptGraceMs ?? 1500)),
      ]);
      if (settled) return 'interrupted';
    }
    this.terminate(new WorkerTerminatedError('The run was stopped; the session restarted from its last saved state.'));
    void this.start().catch(() => undefined);
    return 'restarted';
  }

  /** Ends the worker now; pending calls reject, and the next call starts a fresh one. */
  terminate(reason: Error = new WorkerTerminatedError('The session was put to sleep.')): void {
    const live = this.live;
    if (!live) return;
    this.live = null;
    live.worker.terminate();
    live.kill(reason);
    live.api[Comlink.releaseProxy]();
    this.running = 0;
    this.setState('asleep');
  }
}
