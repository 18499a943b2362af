import { DEFAULT_DB_NAME, openDb, type PyTabsDB, type SessionRecord } from '../storage/db';
import { commitChange } from '../storage/commit';
import { listFileRecords, readFileData } from '../storage/files';
import { deleteSessionData, getSession, listSessionRecords, newSessionRecord, putSession, updateSession } from '../storage/sessions';
import { readSettings, writeSettings, type Settings } from '../storage/settings';
import { clearVariables, listVariableRecords } from '../storage/variables';
import { validateExistingPath, validateWorkspacePath } from '../paths';
import type { RunEvent, RunResult, StartProgress, VariableInfo, WorkspaceEntry } from '../worker-api';
import { formatBytes } from '../chat/format';
import { applyCleanup, type CleanupReport } from './cleanup';
import { SessionHost, WorkerTerminatedError, type HostEnv, type HostState } from './host';
import { WorkerPool } from './pool';
import { keepStartSnapshot, pageSnapshot, pageWasm } from './snapshot-cache';
import { prepareSpareWorker } from './spare-worker';
import { SessionElsewhereError, SessionLocks, type Ownership } from './ownership';
import { RunCounts } from './run-counts';

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
}

const MAX_NAME = 100;
/** How long changes (and quiet runs' counts) gather before they are written and other tabs told, at once. */
const BROADCAST_MS = 30;
const MAX_VAR_NAME = 100;
const MAX_VAR_VALUE = 64 * 1024;

function cleanSessionName(name: string): string {
  const trimmed = String(name ?? '').trim();
  if (!trimmed) throw new Error('A session name cannot be empty.');
  if (trimmed.length > MAX_NAME) throw new Error(`A session name can have at most ${MAX_NAME} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new Error('A session name cannot contain control characters.');
  return trimmed;
}

function validateSessionVars(vars: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(vars)) {
    const name = key.trim();
    if (!name) throw new Error('A session variable needs a name.');
    if (name.length > MAX_VAR_NAME) throw new Error(`A session variable name can have at most ${MAX_VAR_NAME} characters.`);
    if (typeof value !== 'string') throw new Error(`Session variable "${name}" must be a string.`);
    if (value.length > MAX_VAR_VALUE) throw new Error(`Session variable "${name}" is longer than ${MAX_VAR_VALUE} characters.`);
    out[name] = value;
  }
  return out;
}

/**
 * The app's model and public API: sessions, their runs, files, variables and settings.
 * Every session's live state is a SessionHost keyed by its id.
 */
export class SessionManager {
  private readonly hosts = new Map<string, SessionHost>();
  /** Keeps at most `maxLiveWorkers` workers live; every use of a host goes through it. */
  private readonly pool = new WorkerPool(() => this.settings.maxLiveWorkers, () => this.hosts.values());
  private readonly listeners = new Set<() => void>();
  private readonly progressListeners = new Set<(sessionId: string, progress: StartProgress | null) => void>();
  private readonly locks: SessionLocks;
  /**
   * Session variables as this tab last read or wrote them, by session id, so a run need not
   * read the session record first. Only the owning tab changes them; a message from another
   * tab (a delete, a take-over) drops the lot.
   */
  private readonly sessionVars = new Map<string, Record<string, string>>();
  /** Tells other tabs of this app that sessions changed, so their lists stay in step. */
  private channel: BroadcastChannel | null;
  /** Quiet runs' counts, written from a task of their own; every read of session records flushes them first. */
  private readonly runCounts = new RunCounts(() => this.db);
  private laterQueued = false;
  private settings!: Settings;
  readonly dbName: string;
  readonly indexURL: string;
  lastCleanup: CleanupReport = { markedInactive: [], deleted: [] };

  private constructor(
    readonly db: PyTabsDB,
    private readonly options: ManagerOptions,
  ) {
    this.dbName = options.dbName ?? DEFAULT_DB_NAME;
    this.indexURL = options.indexURL ?? new URL('pyodide/', document.baseURI).href;
    this.locks = new SessionLocks(this.dbName, (id) => this.lost(id));
    this.channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`pytabs:${this.dbName}`);
    if (this.channel) {
      this.channel.onmessage = () => {
        this.sessionVars.clear();
        this.notify();
      };
    }
  }

  /** Opens storage and applies the cleanup policy. */
  static async open(options: ManagerOptions = {}): Promise<SessionManager> {
    const db = await openDb(options.dbName ?? DEFAULT_DB_NAME);
    const manager = new SessionManager(db, options);
    // A session's worker starts soon after the app opens and waits for the snapshot, the
    // compiled wasm and its script: get all three now, while storage opens and the page renders.
    void pageSnapshot(manager.indexURL);
    void pageWasm(manager.indexURL);
    prepareSpareWorker();
    manager.settings = await readSettings(db);
    manager.lastCleanup = await applyCleanup(db, manager.settings);
    // Without it the browser may evict people's work under storage pressure; it may decline.
    void manager.requestPersistence().catch(() => false);
    return manager;
  }

  /**
   * Hears each step of a session's start ("Fetching pyodide.asm.wasm: 3.1 MB of 8.7 MB"),
   * and null when the start is over. Steps are this tab's own and are not broadcast.
   */
  subscribeProgress(listener: (sessionId: string, progress: StartProgress | null) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** The latest step of the session's start while it starts in this tab, else null. */
  startProgress(sessionId: string): StartProgress | null {
    return this.hosts.get(sessionId)?.progress ?? null;
  }

  /** Called after anything a panel shows may have changed. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.notify();
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

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  /** Whether this tab owns the session (may run it and change its files). */
  ownership(sessionId: string): Ownership {
    return this.locks.owns(sessionId) ? 'owned' : 'elsewhere';
  }

  /** Makes this tab the session's owner unless another tab already is. */
  async claim(sessionId: string): Promise<Ownership> {
    const result = await this.locks.claim(sessionId);
    this.notify();
    return result;
  }

  /** Takes the session from the tab that has it; that tab stops its worker and keeps what it committed. */
  async takeOver(sessionId: string): Promise<void> {
    await this.requireSession(sessionId);
    await this.locks.takeOver(sessionId);
    this.changed();
  }

  private lost(sessionId: string): void {
    // The tab that took it may change its session variables now.
    this.sessionVars.delete(sessionId);
    this.hosts.get(sessionId)?.terminate(new WorkerTerminatedError('taken', 'This session was taken over by another tab.'));
    this.changed();
  }

  private async ensureOwned(sessionId: string): Promise<void> {
    if ((await this.locks.claim(sessionId)) !== 'owned') throw new SessionElsewhereError();
  }

  private host(sessionId: string): SessionHost {
    let host = this.hosts.get(sessionId);
    if (!host) {
      host = new SessionHost(sessionId, {
        ...this.workerEnv(),
        interruptGraceMs: this.options.interruptGraceMs,
        // A worker's state is this tab's own (other tabs show the session read-only): no broadcast.
        onState: () => this.notify(),
        onProgress: (progress) => {
          for (const listener of this.progressListeners) listener(sessionId, progress);
        },
      });
      this.hosts.set(sessionId, host);
    }
    return host;
  }

  /** What every worker this page starts is given, a session's or a stateless one. */
  private workerEnv(): HostEnv {
    return {
      dbName: this.dbName,
      indexURL: this.indexURL,
      limits: () => this.limits(),
      packageIndexURL: () => this.packageIndexURL(),
      snapshot: (watch) => pageSnapshot(this.indexURL, watch),
      wasm: (watch) => pageWasm(this.indexURL, watch),
      afterStart: (report) => keepStartSnapshot(this.indexURL, report),
    };
  }

  private packageIndexURL(): string | undefined {
    return this.settings.packageIndexUrl || undefined;
  }

  private limits() {
    return { variableBytes: this.settings.variableLimitBytes, sessionBytes: this.settings.sessionLimitBytes };
  }

  private async requireSession(sessionId: string): Promise<SessionRecord> {
    void this.runCounts.flush();
    const record = await getSession(this.db, sessionId);
    if (!record) throw new Error(`No session with id ${sessionId}.`);
    return record;
  }

  async createSession(name?: string): Promise<SessionInfo> {
    const count = (await listSessionRecords(this.db)).length;
    const record = newSessionRecord(crypto.randomUUID(), cleanSessionName(name ?? `Session ${count + 1}`));
    await putSession(this.db, record);
    this.changed();
    return this.info(record);
  }

  private info(record: SessionRecord): SessionInfo {
    const host = this.hosts.get(record.id);
    const state: HostState = host?.state ?? 'asleep';
    const status: SessionStatus =
      state === 'running' ? 'running'
      : state === 'starting' ? 'starting'
      : state === 'error' ? 'error'
      : state === 'ready' ? 'idle'
      : record.status === 'inactive' ? 'inactive'
      : 'asleep';
    const { id, name, createdAt, lastActiveAt, variableCount, totalExecutions, storageBytes } = record;
    return { id, name, createdAt, lastActiveAt, variableCount, totalExecutions, storageBytes, status };
  }

  async listSessions(): Promise<SessionInfo[]> {
    // Opened before the read, so the read sees the counts.
    void this.runCounts.flush();
    return (await listSessionRecords(this.db)).map((r) => this.info(r));
  }

  async getSession(sessionId: string): Promise<SessionInfo> {
    return this.info(await this.requireSession(sessionId));
  }

  async renameSession(sessionId: string, name: string): Promise<void> {
    const clean = cleanSessionName(name);
    await updateSession(this.db, sessionId, (r) => void (r.name = clean));
    this.changed();
  }

  /** Starts a session's worker ahead of its first run. */
  async startSession(sessionId: string) {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    return this.pool.use(this.host(sessionId), (h) => h.start());
  }

  async run(sessionId: string, code: string, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    const vars = this.sessionVars.get(sessionId) ?? (await this.requireSession(sessionId)).vars;
    await this.ensureOwned(sessionId);
    this.sessionVars.set(sessionId, vars);
    try {
      const result = await this.pool.use(this.host(sessionId), (h) => h.run(code, vars, onEvent, this.settings.runTimeoutSeconds * 1000));
      this.runCounts.add(sessionId, result.uncounted ?? 0);
      return result;
    } finally {
      this.changed();
    }
  }

  /** Runs code in a fresh scratch worker that keeps nothing. */
  async runStateless(code: string, onEvent?: (event: RunEvent) => void): Promise<RunResult> {
    const host = new SessionHost(null, this.workerEnv());
    try {
      return await host.run(code, {}, onEvent);
    } finally {
      host.terminate();
    }
  }

  async stop(sessionId: string) {
    const outcome = (await this.hosts.get(sessionId)?.stop()) ?? 'idle';
    this.changed();
    return outcome;
  }

  async listVariables(sessionId: string): Promise<VariableInfo[]> {
    const records = await listVariableRecords(this.db, sessionId);
    return records.map(({ sessionId: _, hash: __, ...info }) => info);
  }

  async listFiles(sessionId: string): Promise<WorkspaceEntry[]> {
    return (await listFileRecords(this.db, sessionId)).map(({ path, size, modifiedAt }) => ({ path, size, modifiedAt }));
  }

  async readFile(sessionId: string, path: string): Promise<Uint8Array> {
    const clean = validateExistingPath(path);
    const data = await readFileData(this.db, sessionId, clean);
    if (!data) throw new Error(`No file named "${clean}" in this session.`);
    return data;
  }

  /** File operations go through a live worker (so Python sees them), else straight to storage. */
  async writeFile(sessionId: string, path: string, data: Uint8Array): Promise<void> {
    const clean = validateWorkspacePath(path);
    if (data.byteLength > this.settings.sessionLimitBytes) {
      throw new Error(
        `"${clean}" is ${formatBytes(data.byteLength)}; a session holds at most ${formatBytes(this.settings.sessionLimitBytes)} (see Settings).`,
      );
    }
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    const host = this.hosts.get(sessionId);
    if (host?.isLive) await this.pool.use(host, (h) => h.call((api) => api.writeFile(clean, data)));
    else await commitChange(this.db, sessionId, { files: { put: [{ path: clean, data, modifiedAt: Date.now() }] } });
    this.changed();
  }

  async deleteFile(sessionId: string, path: string): Promise<void> {
    const clean = validateExistingPath(path);
    await this.ensureOwned(sessionId);
    const host = this.hosts.get(sessionId);
    if (host?.isLive) await this.pool.use(host, (h) => h.call((api) => api.deleteFile(clean)));
    else {
      await this.readFile(sessionId, clean);
      await commitChange(this.db, sessionId, { files: { delete: [clean] } });
    }
    this.changed();
  }

  async renameFile(sessionId: string, from: string, to: string): Promise<void> {
    const src = validateExistingPath(from);
    const dest = validateWorkspacePath(to);
    await this.ensureOwned(sessionId);
    const host = this.hosts.get(sessionId);
    if (host?.isLive) await this.pool.use(host, (h) => h.call((api) => api.renameFile(src, dest)));
    else {
      const data = await this.readFile(sessionId, src);
      if (await readFileData(this.db, sessionId, dest)) throw new Error(`A file named "${dest}" already exists.`);
      await commitChange(this.db, sessionId, { files: { put: [{ path: dest, data, modifiedAt: Date.now() }], delete: [src] } });
    }
    this.changed();
  }

  /** Forgets the session's variables; its files, history and settings stay. */
  async clearSession(sessionId: string): Promise<void> {
    await this.requireSession(sessionId);
    await this.ensureOwned(sessionId);
    const host = this.hosts.get(sessionId);
    if (host?.isLive) await this.pool.use(host, (h) => h.call((api) => api.clear()));
    else await clearVariables(this.db, sessionId);
    this.changed();
  }

  /** Stops the session's worker and removes everything stored under its id. */
  async deleteSession(sessionId: string): Promise<void> {
    const host = this.hosts.get(sessionId);
    host?.terminate(new WorkerTerminatedError('deleted', 'The session was deleted.'));
    this.hosts.delete(sessionId);
    this.sessionVars.delete(sessionId);
    await deleteSessionData(this.db, sessionId);
    this.locks.release(sessionId);
    this.changed();
  }

  async getSessionVars(sessionId: string): Promise<Record<string, string>> {
    return { ...(await this.requireSession(sessionId)).vars };
  }

  async setSessionVars(sessionId: string, vars: Record<string, string>): Promise<void> {
    const clean = validateSessionVars(vars);
    await this.ensureOwned(sessionId);
    await updateSession(this.db, sessionId, (r) => void (r.vars = clean));
    this.sessionVars.set(sessionId, clean);
    this.changed();
  }

  /** Whether the browser keeps this origin's data under storage pressure, and usage against quota. */
  async storageStatus(): Promise<{ persisted: boolean; usage: number; quota: number }> {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return { persisted: false, usage: 0, quota: 0 };
    const [persisted, estimate] = await Promise.all([storage.persisted?.() ?? false, storage.estimate()]);
    return { persisted, usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  }

  /** Asks the browser not to evict this origin's data; it may say no. */
  async requestPersistence(): Promise<boolean> {
    return (await globalThis.navigator?.storage?.persist?.()) ?? false;
  }

  getSettings(): Settings {
    return { ...this.settings };
  }

  async updateSettings(change: Partial<Settings>): Promise<Settings> {
    this.settings = await writeSettings(this.db, change);
    this.changed();
    return this.getSettings();
  }

  /** Applies the cleanup policy now, sparing sessions with a live worker. */
  async cleanup(now = Date.now()): Promise<CleanupReport> {
    this.lastCleanup = await applyCleanup(this.db, this.settings, now, (id) => this.hosts.get(id)?.isLive ?? false);
    this.changed();
    return this.lastCleanup;
  }

  /** Terminates every worker (page unload, tests). */
  dispose(): void {
    void this.runCounts.flush();
    for (const host of this.hosts.values()) host.terminate();
    for (const id of this.hosts.keys()) this.locks.release(id);
    this.hosts.clear();
    this.channel?.close();
    this.channel = null;
  }
}

