import { loadPyodide } from 'pyodide';
import type { PyTabsDB } from '../../src/lib/storage/db';
import { getSession, newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { listFileRecords } from '../../src/lib/storage/files';
import { listVariableRecords } from '../../src/lib/storage/variables';
import { DEFAULT_SETTINGS, SettingsStore, type Settings } from '../../src/lib/storage/settings';
import { RoundHistory, SessionStore } from '../../src/lib/storage/session-store';
import type { RunEvent, RunOptions, RunResult, VariableInfo, WorkspaceEntry } from '../../src/lib/worker-api';
import type { AssistantEngine } from '../../src/lib/assistant/ask';
import { WorkerSession } from '../../workers/runtime/session';
import { withTrace } from '../../src/lib/trace';

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };

interface Live {
  session: WorkerSession;
  interrupt: Uint8Array;
  queue: Promise<unknown>;
}

/**
 * The session engine's surface that `ask` uses, on real Pyodide in Node: one WorkerSession per
 * session (the worker's own session logic, each with its own interpreter), runs serialized per
 * session as the page's host does, and Stop through the interrupt buffer as in the browser.
 * Only the worker and its Comlink hop are left out.
 */
export class PyodideEngine implements AssistantEngine {
  private readonly live = new Map<string, Live>();

  readonly settingsStore: SettingsStore;

  constructor(readonly db: PyTabsDB) {
    this.settingsStore = new SettingsStore(db);
  }

  history(sessionId: string): RoundHistory {
    return new RoundHistory(this.db, sessionId);
  }

  async open(sessionId: string, vars: Record<string, string> = {}): Promise<void> {
    await putSession(this.db, { ...newSessionRecord(sessionId, sessionId), vars });
    const session = new WorkerSession(await loadPyodide(), new SessionStore(this.db, sessionId));
    await session.start();
    const interrupt = new Uint8Array(new SharedArrayBuffer(1));
    session.setInterruptBuffer(interrupt);
    this.live.set(sessionId, { session, interrupt, queue: Promise.resolve() });
  }

  private get(sessionId: string): Live {
    const live = this.live.get(sessionId);
    if (!live) throw new Error(`No session ${sessionId} in the test engine`);
    return live;
  }

  private queued<T>(sessionId: string, task: (s: WorkerSession) => Promise<T>): Promise<T> {
    const live = this.get(sessionId);
    const next = live.queue.then(() => task(live.session));
    live.queue = next.catch(() => undefined);
    return next;
  }

  async run(sessionId: string, code: string, onEvent?: (event: RunEvent) => void, options?: RunOptions): Promise<RunResult> {
    const vars = (await getSession(this.db, sessionId))?.vars ?? {};
    // Requests for input are the host's to answer; the assistant's runs make none.
    return this.queued(sessionId, async (s) => withTrace(await s.run(code, (e) => e.type !== 'input_request' && onEvent?.(e), vars, limits, options)));
  }

  async stop(sessionId: string): Promise<'idle' | 'interrupted' | 'restarted'> {
    this.get(sessionId).interrupt[0] = 2; // SIGINT
    return 'interrupted';
  }

  async writeFile(sessionId: string, path: string, data: Uint8Array): Promise<void> {
    await this.queued(sessionId, (s) => s.writeFile(path, data));
  }

  async listFiles(sessionId: string): Promise<WorkspaceEntry[]> {
    return (await listFileRecords(this.db, sessionId)).map(({ path, size, modifiedAt }) => ({ path, size, modifiedAt }));
  }

  async listVariables(sessionId: string): Promise<VariableInfo[]> {
    return (await listVariableRecords(this.db, sessionId)).map(({ sessionId: _, hash: __, ...info }) => info);
  }

  async getSessionVars(sessionId: string): Promise<Record<string, string>> {
    return { ...((await getSession(this.db, sessionId))?.vars ?? {}) };
  }

  getSettings(): Settings {
    return { ...DEFAULT_SETTINGS };
  }
}
