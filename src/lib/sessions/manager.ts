import { said, SaidError, tell } from '../i18n/said';
import { DEFAULT_DB_NAME, openDb, type PyTabsDB, type SessionRecord } from '../storage/db';
import { RoundHistory, SessionStore } from '../storage/session-store';
import { addNewSession, deleteSessionData, getSession, listSessionRecords, updateSession } from '../storage/sessions';
import { readSettings, SettingsStore, writeSettings, type Settings } from '../storage/settings';
import { countImportsBytes } from '../storage/imports';
import { validateExistingPath, validateWorkspacePath } from '../paths';
import type { CheckOutcome, InputRequest, ProgramCase, ProgramRun, RunEvent, RunOptions, RunResult, StartProgress, StartReport, TraceOptions, VariableInfo, WorkspaceEntry } from '../worker-api';
import { formatBytes } from '../format.ts';
import { hasBroadcastChannel, hasPersistRequest } from '../capabilities';
import { applyCleanup, type CleanupReport } from './cleanup';
import { SessionHost, WorkerTerminatedError, type HostEnv, type HostState } from './host';
import { WorkerPool } from './pool';
import { keepStartSnapshot, pageSnapshot, pageWasm } from './snapshot-cache';
import { prepareSpareWorker } from './spare-worker';
import { SessionElsewhereError, SessionLocks, type Ownership } from './ownership';
import { RunCounts } from './run-counts';
import { ALL_PARTS, type Change, type ChangePart } from './changes';
import { LiveOps, StoredOps, type SessionOps } from './session-ops';
import { quoteName } from '../quote-name';

export type SessionStatus = 'running' | 'idle' | 'starting' | 'asleep' | 'inactive' | 'error';

export interface SessionInfo {
  id: string;
  name: string;
  createdAt: number;
  lastActiveAt: number;
  variableCount: number;
  totalExecutions: number;
  storageBytes: number;
  status: SessionStatus;
}

export interface ManagerOptions {
  dbName?: string;
  /** Absolute URL of the served Pyodide core; defaults to `pyodide/` beside the page. */
  indexURL?: string;
  /** Milliseconds a stop waits for an interrupt before restarting the worker. */
  interruptGraceMs?: number;
  /** A tab of an older PyTabs blocks the database's upgrade; `open` settles once it lets go. */
  onBlocked?: () => void;
}

const MAX_NAME = 100;
/** How long changes (and quiet runs' counts) gather before they are written and other tabs told, at once. */
const BROADCAST_MS = 30;
const MAX_VAR_NAME = 100;
const MAX_VAR_VALUE = 64 * 1024;

function cleanSessionName(name: string): string {
  const trimmed = String(name ?? '').trim();
  if (!trimmed) throw new SaidError(said('libb_session_name_empty'));
  if (trimmed.length > MAX_NAME) throw new SaidError(said('libb_session_name_too_long', { max: MAX_NAME }));
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new SaidError(said('libb_session_name_control'));
  return trimmed;
}

function validateSessionVars(vars: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(vars)) {
    const name = key.trim();
    if (!name) throw new SaidError(said('libb_var_name_empty'));
    if (name.length > MAX_VAR_NAME) throw new SaidError(said('libb_var_name_too_long', { max: MAX_VAR_NAME }));
    if (typeof value !== 'string') throw new SaidError(said('libb_var_not_text', { name: quoteName(name) }));
    if (value.length > MAX_VAR_VALUE) throw new SaidError(said('libb_var_too_long', { name: quoteName(name), max: MAX_VAR_VALUE }));
    out[name] = value;
  }
  return out;
}

/**
 * The app's model and public API (`window.pytabs` on the page): sessions, their runs,
 * files, variables and settings. Every session's live state is a SessionHost keyed by
 * its id; every method takes the id of the session it acts on.
 *
 * @example const pytabs = await SessionManager.open();
 */
export class SessionManager {
  private readonly hosts = new Map<string, SessionHost>();
  private disposed = false;
  /** Keeps at most `maxLiveWorkers` workers live; every use of a host goes through it. */
  private readonly pool = new WorkerPool(() => this.settings.maxLiveWorkers, () => this.hosts.values());
  private readonly listeners = new Set<(change: Change) => void>();
  private readonly progressListeners = new Set<(sessionId: string, progress: StartProgress | null) => void>();
  private readonly inputListeners = new Set<(sessionId: string, request: InputRequest | null) => void>();
  private readonly locks: SessionLocks;
  /**
   * Session variables as this tab last read or wrote them, by session id, so a run need not
   * read the session record first. Only the owning tab changes them; a message from another
   * tab (a delete, a take-over) drops the lot.
   */
  private readonly sessionVars = new Map<string, Record<string, string>>();
  /**
   * Tells other tabs of this app that sessions changed, so their lists stay in step. Without
   * BroadcastChannel a tab reads storage again whenever the person switches to it instead
   * (it comes into view or its window gets focus).
   */
  private channel: BroadcastChannel | null;
  private readonly onSwitchedTo = () => {
    if (document.visibilityState === 'visible') this.otherTabChanged();
  };
  /** Quiet runs' counts, written from a task of their own; every read of session records flushes them first. */
  private readonly runCounts = new RunCounts(() => this.db);
  private laterQueued = false;
  private settings!: Settings;
  /** The package index the settings name, read when asked: a change reaches the next start and the next spare's load. */
  private readonly packageIndexURL = (): string | undefined => this.settings?.packageIndexUrl || undefined;
  /** The IndexedDB database this manager keeps its sessions in. */
  readonly dbName: string;
  /** Absolute URL of the served Pyodide core files. */
  readonly indexURL: string;
  /** What the cleanup policy did when the manager opened (or at the last `cleanup()`). */
  lastCleanup: CleanupReport = { markedInactive: [], deleted: [] };

  private constructor(
    private readonly db: PyTabsDB,
    private readonly options: ManagerOptions,
  ) {
    this.dbName = options.dbName ?? DEFAULT_DB_NAME;
    this.indexURL = options.indexURL ?? new URL('pyodide/', document.baseURI).href;
    this.locks = new SessionLocks(this.dbName, (id) => this.lost(id));
    this.channel = hasBroadcastChannel() ? new BroadcastChannel(`pytabs:${this.dbName}`) : null;
    if (this.channel) this.channel.onmessage = () => this.otherTabChanged();
    else if (globalThis.document) {
      document.addEventListener('visibilitychange', this.onSwitchedTo);
      addEventListener('focus', this.onSwitchedTo);
    }
  }

  private otherTabChanged(): void {
    this.sessionVars.clear();
    this.notify({ sessionId: null, parts: ALL_PARTS });
  }

  /**
   * Opens storage and applies the cleanup policy.
   *
   * @example const pytabs = await SessionManager.open({ dbName: 'my-tests' });
   */
  static async open(options: ManagerOptions = {}): Promise<SessionManager> {
    const db = await openDb(options.dbName ?? DEFAULT_DB_NAME, { onBlocked: options.onBlocked });
    const manager = new SessionManager(db, options);
    // A session's worker starts soon after the app opens and waits for the snapshot, the
    // compiled wasm and its script: get all three now, while storage opens and the page renders.
    // Settings are read meanwhile: the spare loads Python, when idle, for the package index they name.
    prepareSpareWorker(manager.indexURL, pageWasm(manager.indexURL), pageSnapshot(manager.indexURL), manager.packageIndexURL);
    manager.settings = await readSettings(db);
    manager.lastCleanup = await applyCleanup(db, manager.settings);
    await countImportsBytes(db);
    // Without it the browser may evict people's work under storage pressure; it may decline.
    void manager.requestPersistence().catch(() => false);
    return manager;
  }

  /**
   * The latest step of the session's start while it starts in this tab, else null.
   *
   * @example pytabs.startProgress(id)?.text; // 'Fetching python_stdlib.zip: 1.2 MB of 2.5 MB'
   */
  startProgress(sessionId: string): StartProgress | null {
    return this.hosts.get(sessionId)?.progress ?? null;
  }

  /**
   * Hears each step of a session's start ("Fetching pyodide.asm.wasm: 3.1 MB of 8.7 MB"),
   * and null when the start is over. Steps are this tab's own and are not broadcast.
   *
   * @example const stop = pytabs.subscribeProgress((id, step) => console.log(id, step?.text));
   */
  subscribeProgress(listener: (sessionId: string, progress: StartProgress | null) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /**
   * The line the session's run waits for (its `input()`, `getpass` or `sys.stdin` read), or
   * null. Requests are this tab's own and are not broadcast.
   *
   * @example const request = pytabs.pendingInput(id); if (request) pytabs.answerInput(id, request.id, 'Ada');
   */
  pendingInput(sessionId: string): InputRequest | null {
    return this.hosts.get(sessionId)?.pendingInput ?? null;
  }

  /**
   * Hears each request for a line a run of a session makes, and null once it was answered or
   * the run ended.
   *
   * @example const stop = pytabs.subscribeInput((id, request) => request && console.log(id, 'waits for a line'));
   */
  subscribeInput(listener: (sessionId: string, request: InputRequest | null) => void): () => void {
    this.inputListeners.add(listener);
    return () => this.inputListeners.delete(listener);
  }

  /**
   * Answers the session's waiting request for a line; `line` null ends the input (as Ctrl+D
   * in a terminal). Throws when `requestId` is not the request that waits.
   *
   * @example pytabs.answerInput(id, pytabs.pendingInput(id)!.id, 'Ada');
   */
  answerInput(sessionId: string, requestId: string, line: string | null): void {
    const host = this.hosts.get(sessionId);
    if (!host) throw new SaidError(said('libb_not_running_here'));
    host.answerInput(requestId, line);
  }

  /**
   * Calls `listener` after anything a panel shows may have changed (here or in another tab),
   * with what changed, so a page reads again only that (changes.ts).
   *
   * @example const stop = pytabs.subscribe((change) => change.parts.includes('files') && refreshFiles(change.sessionId));
   */
  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(sessionId: string | null, parts: readonly ChangePart[], runs?: number): void {
    this.notify({ sessionId, parts, runs });
    this.later();
  }

  /**
   * What waits for a task of its own, off the path of the call that changed something: the
   * counts of runs that changed nothing (run-counts.ts), then the message that tells other
   * tabs to refresh (a BroadcastChannel message, ~0.05 ms, was the largest cost the page
   * added to a quiet run). Runs in quick succession share one of each per BROADCAST_MS;
   * other tabs still hear of a change within two frames, and every read here flushes the
   * counts first.
   */
  private later(): void {
    if (this.laterQueued) return;
    this.laterQueued = true;
    setTimeout(() => {
      this.laterQueued = false;
      // Other tabs read storage when told: the counts go first.
      void this.runCounts.flush().then(() => this.channel?.postMessage('changed'));
    }, BROADCAST_MS);
  }

  private notify(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  /**
   * Whether this tab owns the session (may run it and change its files), as far as it knows now.
   *
   * @example if (pytabs.ownership(id) === 'elsewhere') showReadOnly();
   */
  ownership(sessionId: string): Ownership {
    return this.locks.owns(sessionId) ? 'owned' : 'elsewhere';
  }

  /**
   * Makes this tab the session's owner unless another tab already is; says which it is.
   *
   * @example const who = await pytabs.claim(id); // 'owned' or 'elsewhere'
   */
  async claim(sessionId: string): Promise<Ownership> {
    const result = await this.locks.claim(sessionId);
    this.notify({ sessionId, parts: ['state'] });
    return result;
  }

  /**
   * Takes the session from the tab that has it; that tab stops its worker and keeps what it committed.
   *
   * @example await pytabs.takeOver(id);
   */
  async takeOver(sessionId: string): Promise<void> {
    await this.requireSession(sessionId);
    await this.locks.takeOver(sessionId);
    this.changed(sessionId, ['state']);
  }

  private lost(sessionId: string): void {
    // The tab that took it may change its session variables now.
    this.sessionVars.delete(sessionId);
    this.hosts.get(sessionId)?.terminate(new WorkerTerminatedError('taken', said('rt_taken_over')));
    this.changed(sessionId, ALL_PARTS);
  }

  private async ensureOwned(sessionId: string): Promise<void> {
    if ((await this.locks.claim(sessionId)) !== 'owned') throw new SessionElsewhereError();
  }

  private host(sessionId: string): SessionHost {
    let host = this.hosts.get(sessionId);
    if (!host) {
      this.ensureOpen();
      host = new SessionHost(sessionId, {
        ...this.workerEnv(),
        interruptGraceMs: this.options.interruptGraceMs,
        // A worker's state is this tab's own (other tabs show the session read-only): no broadcast.
        // Asleep, its status is its record's again.
        onState: (state) => this.notify({ sessionId, parts: state === 'asleep' ? ['state', 'record'] : ['state'] }),
        onProgress: (progress) => {
          for (const listener of this.progressListeners) listener(sessionId, progress);
        },
        onInput: (request) => {
          for (const listener of this.inputListeners) listener(sessionId, request);
        },
      });
      this.hosts.set(sessionId, host);
    }
    return host;
  }

  /** After dispose no worker starts: one started late (a start that waited on a claim) would outlive an erase. */
  private ensureOpen(): void {
    if (this.disposed) throw new SaidError(said('libb_closed_in_tab'));
  }

  /** What every worker this page starts is given, a session's or a stateless one. */
  private workerEnv(): HostEnv {
    return {
      dbName: this.dbName,
      indexURL: this.indexURL,
      // Read at each run, so a change in Settings reaches sessions already running.
      limits: () => ({ variableBytes: this.settings.variableLimitBytes, sessionBytes: this.settings.sessionLimitBytes }),
      packageIndexURL: this.packageIndexURL,
      snapshot: (watch) => pageSnapshot(this.indexURL, watch),
      wasm: (watch) => pageWasm(this.indexURL, watch),
      afterStart: (report) => keepStartSnapshot(this.indexURL, report),
    };
  }

  /** The session's storage, its id bound in. */
  private store(sessionId: string): SessionStore {
    return new SessionStore(this.db, sessionId);
  }

  /** Changes to the session's workspace and variables: through its live worker if it has one, else in storage. */
  private ops(sessionId: string): SessionOps {
    const host = this.hosts.get(sessionId);
    return host?.isLive ? new LiveOps(host, this.pool) : new StoredOps(this.store(sessionId));
  }

  private async requireSession(sessionId: string): Promise<SessionRecord> {
    void this.runCounts.flush();
    const record = await getSession(this.db, sessionId);
    if (!record) throw new SaidError(said('libb_no_session', { id: sessionId }));
    return record;
  }

  /**
   * Creates a session; unnamed, it gets the next "Session N" no stored session has. `id` lets a caller name the session before
   * it exists (the page shows it at once); it must be new, e.g. `crypto.randomUUID()`.
   *
   * @example const s = await pytabs.createSession('Analysis');
   */
  async createSession(name?: string, { id = crypto.randomUUID() }: { id?: string } = {}): Promise<SessionInfo> {
    const record = await addNewSession(this.db, id, name == null ? undefined : cleanSessionName(name));
    this.changed(id, ['record']);
    return this.info(record);
  }

  /**
   * The session's status from its worker in this tab, known without reading storage; null
   * when it has no live worker here (its status is then its record's: `getSession`).
   *
   * @example pytabs.liveStatus(id); // 'running'
   */
  liveStatus(sessionId: string): SessionStatus | null {
    const state: HostState = this.hosts.get(sessionId)?.state ?? 'asleep';
    return state === 'running' ? 'running' : state === 'starting' ? 'starting' : state === 'error' ? 'error' : state === 'ready' ? 'idle' : null;
  }

  private info(record: SessionRecord): SessionInfo {
    const status = this.liveStatus(record.id) ?? (record.status === 'inactive' ? 'inactive' : 'asleep');
    const { id, name, createdAt, lastActiveAt, variableCount, totalExecutions, storageBytes } = record;
    return { id, name, createdAt, lastActiveAt, variableCount, totalExecutions, storageBytes, status };
  }

  /**
   * The person's sessions in this browser, oldest first, with their counters and status.
   * Embeds' sessions (of course pages on this origin) are kept apart and left out, unless
   * `includeEmbeds` asks for them too.
   *
   * @example (await pytabs.listSessions()).map((s) => s.name);
   */
  async listSessions({ includeEmbeds = false }: { includeEmbeds?: boolean } = {}): Promise<SessionInfo[]> {
    // Opened before the read, so the read sees the counts.
    void this.runCounts.flush();
    return (await listSessionRecords(this.db, { embeds: includeEmbeds })).map((r) => this.info(r));
  }

  /**
   * One session's record and status; throws if there is none.
   *
   * @example (await pytabs.getSession(id)).totalExecutions;
   */
  async getSession(sessionId: string): Promise<SessionInfo> {
    return this.info(await this.requireSession(sessionId));
  }

  /**
   * Renames a session (1-100 characters, no control characters).
   *
   * @example await pytabs.renameSession(id, 'Week 3');
   */
  async renameSession(sessionId: string, name: string): Promise<void> {
    const clean = cleanSessionName(name);
    await updateSession(this.db, sessionId, (r) => void (r.name = clean));
    this.changed(sessionId, ['record']);
  }

  /**
   * Starts a session's worker ahead of its first run; resolves once its variables are restored.
   *
   * @example const { restored, failed } = await pytabs.startSession(id);
   */
  async startSession(sessionId: string): Promise<StartReport> {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    return this.pool.use(this.host(sessionId), (h) => h.start());
  }

  /**
   * Runs Python in the session, after whatever it is running; output streams to `onEvent`,
   * and what the run changed is saved before the result comes back. A run that reads input
   * waits for `answerInput` (see `pendingInput`), unless `options.noInput` says why nobody
   * can answer (input() then raises EOFError with that text).
   *
   * @example const r = await pytabs.run(id, 'x = 41\nx + 1'); r.result?.['text/plain']; // '42'
   */
  async run(sessionId: string, code: string, onEvent?: (event: RunEvent) => void, options?: RunOptions): Promise<RunResult> {
    const vars = this.sessionVars.get(sessionId) ?? (await this.requireSession(sessionId)).vars;
    await this.ensureOwned(sessionId);
    this.sessionVars.set(sessionId, vars);
    let result: RunResult | undefined;
    try {
      result = await this.pool.use(this.host(sessionId), (h) => h.run(code, vars, onEvent, this.settings.runTimeoutSeconds * 1000, options));
      this.runCounts.add(sessionId, result.uncounted ?? 0);
      return result;
    } finally {
      if (!result) this.changed(sessionId, ALL_PARTS);
      // Storage holds what it held before, but for the count this page adds.
      else if (result.uncounted) this.changed(sessionId, [], result.uncounted);
      // Its commit changed the record, and variables unless it only wrote files.
      else this.changed(sessionId, result.filesChanged.length || result.filesDeleted.length ? ['record', 'variables', 'files'] : ['record', 'variables']);
    }
  }

  /**
   * Runs code in the session as `run` does (output to `onEvent`, input() asks, `stop` stops it,
   * what it changed is saved) and records each step of it for a step-through: the result's
   * `trace` (docs/api.md; `traceStep` expands a step). A run stopped by an interrupt keeps the
   * steps until the stop; one whose worker had to restart has no `trace`.
   *
   * @example const { trace } = await pytabs.trace(id, 'a = [1]\nb = a\nb.append(2)', { maxSteps: 1000 });
   */
  trace(sessionId: string, code: string, options: TraceOptions & { onEvent?: (event: RunEvent) => void } = {}): Promise<RunResult> {
    const { onEvent, ...limits } = options;
    return this.run(sessionId, code, onEvent, { trace: limits });
  }

  /**
   * Runs code in a fresh scratch worker that keeps nothing.
   *
   * @example (await pytabs.runStateless('1 + 1')).result?.['text/plain']; // '2'
   */
  async runStateless(code: string, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    const host = this.scratchHost();
    try {
      return await host.run(code, {}, onEvent, 0, { noInput: tell(said('lib_stateless_input')) });
    } finally {
      host.terminate();
    }
  }

  /**
   * A host for a scratch session of its own that keeps nothing: its worker never opens
   * storage. Grading replays each hand-in in one; the caller terminates it.
   */
  scratchHost(): SessionHost {
    this.ensureOpen();
    return new SessionHost(null, this.workerEnv());
  }

  /**
   * Runs the check `name` of an assignment's check source against a copy of the session's
   * variables, after whatever it is running: the variables stay as they were and nothing is
   * saved. Past `timeoutMs` it fails with "did not finish in N s".
   *
   * @example (await pytabs.runCheck(id, 'def check_x():\n    assert x == 1, "x should be 1"', 'check_x')).passed;
   */
  async runCheck(sessionId: string, source: string, name: string, { outputChars = 10_000, timeoutMs = 30_000 } = {}): Promise<CheckOutcome> {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    try {
      return await this.pool.use(this.host(sessionId), (h) => h.check(source, name, outputChars, timeoutMs));
    } finally {
      this.changed(sessionId, ['state']);
    }
  }

  /**
   * Runs a program on one case's input lines in the session's worker: a namespace of its
   * own, its stdin those lines (EOFError when they run out). Returns what it printed; the
   * comparison with the case's expected output is the page's (src/lib/assignments/compare.ts).
   * The session's variables stay as they were.
   *
   * @example (await pytabs.runProgram(id, { source: 'print(int(input()) * 2)', filename: '<program>', input: '21\n', outputChars: 10_000 })).stdout; // '42\n'
   */
  async runProgram(sessionId: string, run: ProgramCase, { timeoutMs = 30_000 } = {}): Promise<ProgramRun> {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    try {
      return await this.pool.use(this.host(sessionId), (h) => h.runProgram(run, timeoutMs));
    } finally {
      this.changed(sessionId, ['state']);
    }
  }

  /**
   * Stops the session's running cell: by interrupt when the page is cross-origin isolated,
   * else (or if Python ignores it) by restarting the session from its last commit.
   *
   * @example await pytabs.stop(id); // 'interrupted', 'restarted' or 'idle'
   */
  async stop(sessionId: string): Promise<'idle' | 'interrupted' | 'restarted'> {
    const outcome = (await this.hosts.get(sessionId)?.stop()) ?? 'idle';
    this.changed(sessionId, ALL_PARTS);
    return outcome;
  }

  /** Resolves once the session's runs and calls queued so far have ended (at once when it has no worker). */
  async settled(sessionId: string): Promise<void> {
    await this.hosts.get(sessionId)?.settled();
  }

  /**
   * The session's variables as last committed: type, size, preview, saved or why not.
   *
   * @example (await pytabs.listVariables(id)).filter((v) => !v.persisted);
   */
  async listVariables(sessionId: string): Promise<VariableInfo[]> {
    const records = await this.store(sessionId).listVariables();
    return records.map(({ sessionId: _, hash: __, ...info }) => info);
  }

  /**
   * The session's workspace files (path, size, modified time), without their bytes.
   *
   * @example (await pytabs.listFiles(id)).map((f) => f.path);
   */
  async listFiles(sessionId: string): Promise<WorkspaceEntry[]> {
    return (await this.store(sessionId).listFiles()).map(({ path, size, modifiedAt }) => ({ path, size, modifiedAt }));
  }

  /**
   * A workspace file's bytes; throws if there is no such file.
   *
   * @example new TextDecoder().decode(await pytabs.readFile(id, 'out.csv'));
   */
  async readFile(sessionId: string, path: string): Promise<Uint8Array> {
    const clean = validateExistingPath(path);
    const data = await this.store(sessionId).readFile(clean);
    if (!data) throw new SaidError(said('libb_no_file', { name: quoteName(clean) }));
    return data;
  }

  /**
   * Writes a workspace file (Python sees it at once); the name is checked as an upload's.
   *
   * @example await pytabs.writeFile(id, 'data.csv', new TextEncoder().encode('x\n1\n'));
   */
  async writeFile(sessionId: string, path: string, data: Uint8Array): Promise<void> {
    const clean = validateWorkspacePath(path);
    if (data.byteLength > this.settings.sessionLimitBytes) {
      throw new SaidError(said('libb_file_too_big', { name: quoteName(clean), size: formatBytes(data.byteLength), max: formatBytes(this.settings.sessionLimitBytes) }));
    }
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    await this.ops(sessionId).writeFile(clean, data);
    this.changed(sessionId, ['record', 'files']);
  }

  /**
   * Deletes a workspace file.
   *
   * @example await pytabs.deleteFile(id, 'old.csv');
   */
  async deleteFile(sessionId: string, path: string): Promise<void> {
    const clean = validateExistingPath(path);
    await this.ensureOwned(sessionId);
    await this.ops(sessionId).deleteFile(clean);
    this.changed(sessionId, ['record', 'files']);
  }

  /**
   * Renames a workspace file; refuses to replace an existing one.
   *
   * @example await pytabs.renameFile(id, 'data.csv', 'week1.csv');
   */
  async renameFile(sessionId: string, from: string, to: string): Promise<void> {
    const src = validateExistingPath(from);
    const dest = validateWorkspacePath(to);
    await this.ensureOwned(sessionId);
    await this.ops(sessionId).renameFile(src, dest);
    this.changed(sessionId, ['record', 'files']);
  }

  /**
   * Forgets the session's variables, in memory and storage; its files, history and session variables stay.
   *
   * @example await pytabs.clearSession(id);
   */
  async clearSession(sessionId: string): Promise<void> {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    await this.ops(sessionId).clear();
    this.changed(sessionId, ['record', 'variables']);
  }

  /**
   * Stops the session's worker and removes everything stored under its id.
   *
   * @example await pytabs.deleteSession(id);
   */
  async deleteSession(sessionId: string): Promise<void> {
    const host = this.hosts.get(sessionId);
    host?.terminate(new WorkerTerminatedError('deleted', said('rt_session_deleted')));
    this.hosts.delete(sessionId);
    this.sessionVars.delete(sessionId);
    await deleteSessionData(this.db, sessionId);
    this.locks.release(sessionId);
    this.changed(sessionId, ['record']);
  }

  /**
   * The session's chat history (`src/lib/chat` reads and writes rounds through it).
   *
   * @example const rounds = await listRounds(pytabs, id);
   */
  history(sessionId: string): RoundHistory {
    return this.store(sessionId).history;
  }

  /**
   * The `settings` store, for modules with settings of their own (the assistant's endpoint and key).
   *
   * @example const endpoint = await assistantEndpoint(pytabs.settingsStore);
   */
  get settingsStore(): SettingsStore {
    return (this.#settingsStore ??= new SettingsStore(this.db));
  }

  #settingsStore: SettingsStore | undefined;

  /**
   * The session's key/value session variables, read in Python with `get_session_var`.
   *
   * @example (await pytabs.getSessionVars(id)).region;
   */
  async getSessionVars(sessionId: string): Promise<Record<string, string>> {
    return { ...(await this.requireSession(sessionId)).vars };
  }

  /**
   * Replaces the session's session variables (names up to 100 characters, values up to 64 K).
   *
   * @example await pytabs.setSessionVars(id, { region: 'north' });
   */
  async setSessionVars(sessionId: string, vars: Record<string, string>): Promise<void> {
    const clean = validateSessionVars(vars);
    await this.ensureOwned(sessionId);
    await updateSession(this.db, sessionId, (r) => void (r.vars = clean));
    this.sessionVars.set(sessionId, clean);
    this.changed(sessionId, ['sessionVars']);
  }

  /**
   * Whether the browser keeps this origin's data under storage pressure, and usage against quota.
   *
   * @example const { usage, quota, persisted } = await pytabs.storageStatus();
   */
  async storageStatus(): Promise<{ persisted: boolean; usage: number; quota: number }> {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return { persisted: false, usage: 0, quota: 0 };
    const [persisted, estimate] = await Promise.all([storage.persisted?.() ?? false, storage.estimate()]);
    return { persisted, usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  }

  /**
   * Asks the browser not to evict this origin's data; it may say no.
   *
   * @example const kept = await pytabs.requestPersistence();
   */
  async requestPersistence(): Promise<boolean> {
    return hasPersistRequest() ? navigator.storage.persist() : false;
  }

  /**
   * The settings in force (limits, cleanup days, package index, time limit, live workers).
   *
   * @example pytabs.getSettings().variableLimitBytes;
   */
  getSettings(): Settings {
    return { ...this.settings };
  }

  /**
   * Changes settings; invalid values are refused with the reason. Limits reach running sessions at their next run.
   *
   * @example await pytabs.updateSettings({ runTimeoutSeconds: 30 });
   */
  async updateSettings(change: Partial<Settings>): Promise<Settings> {
    this.settings = await writeSettings(this.db, change);
    this.changed(null, ALL_PARTS);
    return this.getSettings();
  }

  /**
   * Applies the cleanup policy now, sparing sessions with a live worker.
   *
   * @example const { markedInactive, deleted } = await pytabs.cleanup();
   */
  async cleanup(now = Date.now()): Promise<CleanupReport> {
    this.lastCleanup = await applyCleanup(this.db, this.settings, now, (id) => this.hosts.get(id)?.isLive ?? false);
    this.changed(null, ALL_PARTS);
    return this.lastCleanup;
  }

  /**
   * Terminates every worker, lets go of every session and closes storage (page unload, tests).
   * Resolves once every worker has ended and so let go of storage (an erase waits for that).
   *
   * @example addEventListener('pagehide', () => pytabs.dispose());
   */
  dispose(): Promise<void> {
    this.disposed = true;
    // The workers ended here are not news: a page told of them would read the storage being closed.
    this.listeners.clear();
    // The flush's transaction is opened before the connection closes, so it still commits.
    void this.runCounts.flush();
    const ended = [...this.hosts.values()].map((host) => host.terminate());
    for (const id of this.hosts.keys()) this.locks.release(id);
    this.hosts.clear();
    this.channel?.close();
    this.channel = null;
    if (globalThis.document) {
      document.removeEventListener('visibilitychange', this.onSwitchedTo);
      removeEventListener('focus', this.onSwitchedTo);
    }
    this.db.close();
    return Promise.all(ended).then(() => undefined);
  }

  /**
   * After a session's storage was changed beside the manager (an import, a reset, held state
   * let in, by `src/lib/portability`): forgets this tab's copy of its session variables, tells
   * this page and other tabs, and with `restart` ends its worker, whose memory no longer
   * matches storage (a run in flight ends as restarted); its next use starts from storage.
   */
  storageChanged(sessionId: string, restart: boolean): void {
    if (restart) this.hosts.get(sessionId)?.terminate(new WorkerTerminatedError('asleep', said('rt_reloaded_from_storage')));
    this.sessionVars.delete(sessionId);
    this.changed(sessionId, ALL_PARTS);
  }
}
