import * as Comlink from 'comlink';
// The English this worker words its own texts in (tellInEnglish, a SaidError's message).
import './runtime/english';
import { openDb, type PyTabsDB } from '../src/lib/storage/db';
import { SessionStore, type StoredSession } from '../src/lib/storage/session-store';
import { fetchStep } from '../src/lib/fetch-progress';
import { isPrepareMessage, type CoreFiles, type PageSnapshot, type RunEventMessage, type SessionWorkerApi, type StartOptions, type StartStep } from '../src/lib/worker-api';
import { said } from '../src/lib/i18n/said';
import { carrySaidErrors } from '../src/lib/i18n/crossing';
import { PackageLoader, packageIndex, sameLockfile } from './runtime/packages';
import { RUNTIME_SOURCES } from './runtime/python-files';
import { WorkerSession } from './runtime/session';
import { pyodideScript, type CreatePyodideModule } from './runtime/pyodide-script';
import { loadSessionPyodide, type LoadedPyodide } from './runtime/snapshot';

// Its refusals (SaidError, storage's OpenError) cross to the page with their said text.
carrySaidErrors();

// This worker serves exactly one session; the WorkerSession carries its id.
let session: WorkerSession | null = null;
/** This worker's connection to storage, from the moment its start asks for it; only its session's store uses it. */
let storage: Promise<PyTabsDB> | null = null;

/** A value the page sends in a message of its own after the start, and the start awaits. */
function handedOver<T>(): { value: Promise<T | undefined>; give: (value: T | undefined) => void } {
  let give: (value: T | undefined) => void = () => undefined;
  const value = new Promise<T | undefined>((resolve) => (give = resolve));
  return { value, give };
}

// The page's snapshot and its compiled wasm: Pyodide fetches its script and standard library
// meanwhile and needs them only to instantiate. The snapshot is dropped once Python is
// loaded: a resolved promise (and its resolve function) keeps its 31 MB while it is held.
let snapshot: ReturnType<typeof handedOver<PageSnapshot | null>> | null = handedOver();
const wasm = handedOver<WebAssembly.Module>();

/**
 * Pyodide's module script, imported while this worker waits as the page's spare (its
 * prepare message names the core), so the start that takes it need not fetch, decode and
 * parse it. The message is this listener's alone: Comlink never sees it.
 */
let prepared: { indexURL: string; script: Promise<CreatePyodideModule>; coreFiles?: CoreFiles } | null = null;
/** The page's compiled wasm, sent while this worker waited as the spare, and the core it is of. */
let preparedWasm: { indexURL: string; module: WebAssembly.Module } | null = null;
/** A copy of the page's start snapshot, sent while this worker waited as the spare, and the core it is of. */
let preparedSnapshot: { indexURL: string; snapshot: PageSnapshot } | null = null;
/**
 * Python loaded while this worker waited as the spare, from the wasm and snapshot copy it was
 * sent, and what it was loaded for. It holds no session's data: nothing of a session reaches
 * this worker before its start message, and the start restores the session into it.
 */
let warm: { indexURL: string; packageIndexURL: string | undefined; loaded: Promise<LoadedPyodide>; coreFiles?: CoreFiles } | null = null;

/** Loads Python now, for a start to come, if this worker has what a start would be handed. */
function bootWarm(indexURL: string, packageIndexURL: string | undefined): void {
  if (warm || session || preparedWasm?.indexURL !== indexURL || preparedSnapshot?.indexURL !== indexURL) return;
  const given = preparedSnapshot.snapshot;
  // The boot has the snapshot now; a start that finds the boot failed loads without it.
  preparedSnapshot = null;
  const files = prepared?.indexURL === indexURL ? prepared.coreFiles : undefined;
  const loaded = loadSessionPyodide({ indexURL, ...packageIndex(indexURL, packageIndexURL, files?.lockFile).config }, RUNTIME_SOURCES, given, {
    compiled: Promise.resolve(preparedWasm.module),
    script: moduleScript(indexURL),
    files,
  });
  // A failure is the start's to handle (it loads again); unobserved it would be an error event.
  loaded.then(() => performance.mark('pytabs:warm'), () => undefined);
  // The page's copies stay with the boot: the start that takes it reads the lock file from them.
  warm = { indexURL, packageIndexURL, loaded, coreFiles: files };
}

self.addEventListener('message', (event: MessageEvent) => {
  if (!isPrepareMessage(event.data)) return;
  event.stopImmediatePropagation();
  const { indexURL, coreFiles, wasm: module, snapshot: copy, boot } = event.data.pytabsPrepare;
  if (boot) {
    bootWarm(indexURL, boot.packageIndexURL);
    return;
  }
  if (module || copy) {
    if (module) preparedWasm = { indexURL, module };
    if (copy) {
      preparedSnapshot = { indexURL, snapshot: copy };
      performance.mark('pytabs:snapshot-prepared');
    }
    return;
  }
  if (prepared) return;
  prepared = { indexURL, script: pyodideScript(indexURL, coreFiles?.script), coreFiles };
  // A failure is the start's to handle (it imports again); unobserved it would be an error event.
  prepared.script.catch(() => undefined);
});

/** The prepared script when it is this core's and did not fail, else an import now (of the page's copy, `given`, if any). */
function moduleScript(indexURL: string, given?: Uint8Array): Promise<CreatePyodideModule> {
  const ready = prepared?.indexURL === indexURL ? prepared.script : null;
  prepared = null;
  return ready ? ready.catch(() => pyodideScript(indexURL, given)) : pyodideScript(indexURL, given);
}

function current(): WorkerSession {
  // internal: the page calls a session's worker only after its start (sessions/host.ts).
  if (!session) throw new Error('The session has not started yet.');
  return session;
}

const api: SessionWorkerApi = {
  async start(options: StartOptions, onProgress?: (step: StartStep) => void) {
    // internal: the page starts a worker once (sessions/host.ts).
    if (session) throw new Error('This worker already serves a session.');
    const t0 = performance.now();
    // Through Comlink each call is a message on the callback's own port, which nothing orders
    // against the start's answer: the last one is awaited before answering (as a run's events
    // are), so the page sees every step while it still starts. A page that went away must not
    // fail the start.
    let told: Promise<unknown> = Promise.resolve();
    const say = (step: StartStep) => void (told = Promise.resolve(onProgress?.(step)).catch(() => undefined));
    // Python booted while this worker was the spare, when it was booted for this start's core and index.
    const booted = warm;
    const early = booted?.indexURL === options.indexURL && booted.packageIndexURL === options.packageIndexURL ? booted : null;
    warm = null;
    // The page's copies of Pyodide's files: with the start, or with the prepare message of this worker as the spare.
    const files =
      options.coreFiles ?? (booted?.indexURL === options.indexURL ? booted.coreFiles : undefined) ?? (prepared?.indexURL === options.indexURL ? prepared.coreFiles : undefined);
    const index = packageIndex(options.indexURL, options.packageIndexURL, files?.lockFile);
    // Storage is read while Pyodide loads (IndexedDB works off this thread), so a big
    // session's pickles are in hand when Python is ready for them.
    // The only storage this worker ever holds is its session's, with the id bound in.
    const { sessionId } = options;
    let storeReady: Promise<SessionStore> | null = null;
    let stored: Promise<StoredSession> | undefined;
    if (sessionId !== null) {
      storage = openDb(options.dbName, { create: false });
      storeReady = storage.then((db) => new SessionStore(db, sessionId));
      stored = storeReady.then((store) => store.readAll());
      // Observed now; start() awaits it and reports a failure as before.
      stored.catch(() => undefined);
    }
    // The page sends its module and snapshot only to a worker that did not get them as the spare.
    if (preparedWasm?.indexURL === options.indexURL) wasm.give(preparedWasm.module);
    if (preparedSnapshot?.indexURL === options.indexURL) snapshot?.give(preparedSnapshot.snapshot);
    preparedWasm = null;
    preparedSnapshot = null;
    const phases: Record<string, number> = {};
    const at = (phase: string) => () => void (phases[phase] ??= Math.round(performance.now() - t0));
    say({ said: said('rt_start_python') });
    let loaded: LoadedPyodide | null = early ? await early.loaded.catch(() => null) : null;
    // A custom index may have republished since the boot read its lock file: this start reads it
    // as any start does, and the boot's Python serves only if both name the same files.
    if (loaded && options.packageIndexURL) {
      const boot = loaded.pyodide.lockfile;
      if (!sameLockfile(boot, await index.config.lockFileContents)) loaded = null;
    }
    const warmed = loaded !== null;
    // Its boot failed, was for another package index, or read another lock file: a plain
    // load, as the boot took the snapshot this worker had and the page sends it none.
    if (booted && !warmed) snapshot?.give(null);
    try {
      if (!loaded) {
        const script = moduleScript(options.indexURL, files?.script);
        script.then(at('script'), () => undefined);
        wasm.value.then(at('wasm'));
        snapshot?.value.then(at('snapshot'));
        // This worker is the session's own, so its fetch can be watched: the downloads are
        // Pyodide's standard library and lock file, and the snapshot or wasm if the page had none.
        loaded = await loadSessionPyodide({ indexURL: options.indexURL, ...index.config }, RUNTIME_SOURCES, snapshot?.value, {
          compiled: wasm.value,
          onFetch: (p) => say(fetchStep(p)),
          script,
          onInstantiated: at('instantiated'),
          files,
        });
      }
    } finally {
      snapshot = null;
    }
    const { pyodide, ...how } = loaded;
    const loadMs = performance.now() - t0;
    at('loaded')();
    if (sessionId !== null) say({ said: said('rt_start_reading') });
    session = new WorkerSession(pyodide, await storeReady, new PackageLoader(pyodide, index));
    if (options.interruptBuffer) session.setInterruptBuffer(options.interruptBuffer);
    if (options.input) session.setInputChannel(options.input);
    if (options.messages) session.setMessages(options.messages);
    const report = await session.start(stored, say);
    at('restored')();
    await told;
    return { ...report, loadMs, phases, ...how, warm: warmed, workerScript: self.location.href };
  },
  async supplySnapshot(given: PageSnapshot | null | undefined) {
    snapshot?.give(given);
  },
  async supplyWasm(module: WebAssembly.Module | undefined) {
    wasm.give(module);
  },
  run: (code, events, sessionVars, limits, options) =>
    current().run(code, events === undefined ? undefined : (event) => self.postMessage({ pytabsRunEvent: { run: events, event } } satisfies RunEventMessage), sessionVars, limits, options),
  runCheck: (source, name, outputChars) => current().runCheck(source, name, outputChars),
  runProgram: (run) => current().runProgram(run),
  compareOutputs: async (source, name, expected, actual) => current().compareOutputs(source, name, expected, actual),
  sealForGrading: async () => current().sealForGrading(),
  scanCells: async (cells) => current().scanCells(cells),
  writeFile: (path, data) => current().writeFile(path, data),
  deleteFile: (path) => current().deleteFile(path),
  renameFile: (from, to) => current().renameFile(from, to),
  clear: () => current().clear(),
  boundNames: async (code) => current().boundNames(code),
  async releaseStorage() {
    // An opening that failed holds nothing.
    const db = await storage?.catch(() => null);
    db?.close();
  },
};

Comlink.expose(api);
