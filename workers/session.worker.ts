import * as Comlink from 'comlink';
import { openDb } from '../src/lib/storage/db';
import type { SessionWorkerApi, StartOptions } from '../src/lib/worker-api';
import { PackageLoader, packageIndex } from './runtime/packages';
import { RUNTIME_SOURCES } from './runtime/python-files';
import { WorkerSession } from './runtime/session';
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
    const { pyodide, ...snapshot } = await loadSessionPyodide({ indexURL: options.indexURL, ...index.config }, RUNTIME_SOURCES);
    const loadMs = performance.now() - t0;
    const db = options.sessionId === null ? null : await openDb(options.dbName);
    session = new WorkerSession(pyodide, db, options.sessionId, options.limits, new PackageLoader(pyodide, index));
    if (options.interruptBuffer) session.setInterruptBuffer(options.interruptBuffer);
    return { ...(await session.start()), loadMs, ...snapshot };
  },
  run: (code, onEvent, sessionVars) => current().run(code, onEvent, sessionVars),
  writeFile: (path, data) => current().writeFile(path, data),
  deleteFile: (path) => current().deleteFile(path),
  renameFile: (from, to) => current().renameFile(from, to),
  clear: () => current().clear(),
  boundNames: async (code) => current().boundNames(code),
};

Comlink.expose(api);
