import * as Comlink from 'comlink';
import { openDb, type PyTabsDB } from '../src/lib/storage/db';
import { fetchStep, watchFetches } from '../src/lib/fetch-progress';
import type { PageSnapshot, SessionWorkerApi, StartOptions, StartProgress } from '../src/lib/worker-api';
import { PackageLoader, packageIndex } from './runtime/packages';
import { RUNTIME_SOURCES } from './runtime/python-files';
import { readStoredSession, WorkerSession, type StoredSession } from './runtime/session';
import { loadSessionPyodide } from './runtime/snapshot';

// This worker serves exactly one session; the WorkerSession carries its id.
let session: WorkerSession | null = null;

// The page's snapshot, which comes in a message of its own after the start: Pyodide fetches
// its script, wasm and standard library meanwhile and needs the snapshot only to instantiate.
// Dropped once Python is loaded: a resolved promise keeps its 31 MB for as long as it is held.
let supply: (snapshot: PageSnapshot | undefined) => void = () => undefined;
let snapshotGiven: Promise<PageSnapshot | undefined> | null = new Promise((resolve) => (supply = resolve));
// Pyodide's wasm as the page compiled it, likewise.
let supplyWasm: (module: WebAssembly.Module | undefined) => void = () => undefined;
const wasmGiven = new Promise<WebAssembly.Module | undefined>((resolve) => (supplyWasm = resolve));

function current(): WorkerSession {
  if (!session) throw new Error('The session has not started yet.');
  return session;
}

const api: SessionWorkerApi = {
  async start(options: StartOptions, onProgress?: (progress: StartProgress) => void) {
    if (session) throw new Error('This worker already serves a session.');
    const t0 = performance.now();
    // Through Comlink each call is a message; a page that went away must not fail the start.
    const say = (progress: StartProgress) => void Promise.resolve(onProgress?.(progress)).catch(() => undefined);
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
    say({ text: 'Starting Python' });
    // This worker is the session's own, so its fetch can be watched: the downloads are
    // Pyodide's wasm, standard library and lock file, and the snapshot if the page had none.
    const unwatch = watchFetches((p) => say(fetchStep(p)));
    let loaded: Awaited<ReturnType<typeof loadSessionPyodide>>;
    try {
      loaded = await loadSessionPyodide({ indexURL: options.indexURL, ...index.config }, RUNTIME_SOURCES, snapshotGiven ?? undefined, wasmGiven);
    } finally {
      unwatch();
      // Its resolve function holds the promise too.
      snapshotGiven = null;
      supply = () => undefined;
    }
    const { pyodide, ...snapshot } = loaded;
    const loadMs = performance.now() - t0;
    if (sessionId !== null) say({ text: "Reading this session's files and variables from storage" });
    const db = await dbReady;
    session = new WorkerSession(pyodide, db, sessionId, options.limits, new PackageLoader(pyodide, index));
    if (options.interruptBuffer) session.setInterruptBuffer(options.interruptBuffer);
    return { ...(await session.start(stored, say)), loadMs, ...snapshot };
  },
  async supplySnapshot(snapshot: PageSnapshot | undefined) {
    supply(snapshot);
  },
  async supplyWasm(module: WebAssembly.Module | undefined) {
    supplyWasm(module);
  },
  run: (code, onEvent, sessionVars) => current().run(code, onEvent, sessionVars),
  writeFile: (path, data) => current().writeFile(path, data),
  deleteFile: (path) => current().deleteFile(path),
  renameFile: (from, to) => current().renameFile(from, to),
  clear: () => current().clear(),
  boundNames: async (code) => current().boundNames(code),
};

Comlink.expose(api);
