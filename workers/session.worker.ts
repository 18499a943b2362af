import * as Comlink from 'comlink';
import { openDb, type PyTabsDB } from '../src/lib/storage/db';
import type { SessionWorkerApi, StartOptions } from '../src/lib/worker-api';
import { PackageLoader, packageIndex } from './runtime/packages';
import { RUNTIME_SOURCES } from './runtime/python-files';
import { readStoredSession, WorkerSession, type StoredSession } from './runtime/session';
import { loadSessionPyodide } from './runtime/snapshot';

// This worker serves exactly one session; the WorkerSession carries its id.
let session: WorkerSession | null = null;

function current(): WorkerSession {
  if (!session) throw new Error('The session has not started yet.');
  return session;
}

const api: SessionWorkerApi = {
  async start(options: StartOptions) {
    if (session) throw new Error('This worker already serves a session.');
    const t0 = performance.now();
    const index = packageIndex(options.indexURL, options.packageIndexURL);
    // Storage is read while Pyodide loads (IndexedDB works off this thread), so a big
    // session's pickles are in hand when Python is ready for them.
    const { sessionId } = options;
    let dbReady: Promise<PyTabsDB> | null = null;
    let stored: Promise<StoredSession> | undefined;
    if (sessionId !== null) {
      dbReady = openDb(options.dbName);
      stored = dbReady.then((db) => readStoredSession(db, sessionId));
      // Observed now; start() awaits it and reports a failure as before.
      stored.catch(() => undefined);
    }
    const { pyodide, ...snapshot } = await loadSessionPyodide({ indexURL: options.indexURL, ...index.config }, RUNTIME_SOURCES, options.snapshot);
    const loadMs = performance.now() - t0;
    const db = await dbReady;
    session = new WorkerSession(pyodide, db, sessionId, options.limits, new PackageLoader(pyodide, index));
    if (options.interruptBuffer) session.setInterruptBuffer(options.interruptBuffer);
    return { ...(await session.start(stored)), loadMs, ...snapshot };
  },
  run: (code, onEvent, sessionVars) => current().run(code, onEvent, sessionVars),
  writeFile: (path, data) => current().writeFile(path, data),
  deleteFile: (path) => current().deleteFile(path),
  renameFile: (from, to) => current().renameFile(from, to),
  clear: () => current().clear(),
  boundNames: async (code) => current().boundNames(code),
};

Comlink.expose(api);
