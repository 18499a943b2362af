import { loadPyodide, version, type PyodideInterface } from 'pyodide';
import { isServedFile } from '../../src/lib/served-file.ts';
import { snapshotImage, type SnapshotImage } from '../../src/lib/snapshot-codec.ts';
import type { FetchProgress } from '../../src/lib/fetch-progress.ts';
import { interceptLoad } from './load-fetches.ts';
import { compileSmallModulesOnce } from './wasm-trampolines.ts';
import type { CreatePyodideModule } from './pyodide-script.ts';
import type { CoreFiles, PageSnapshot } from '../../src/lib/worker-api';

/*
 * A memory snapshot of a Pyodide that has already booted and imported the session runtime.
 * Most of a plain `loadPyodide` is Python's own bootstrap; restoring the snapshot skips it.
 *
 * The snapshot API is private in Pyodide 314 (`_makeSnapshot`, `makeMemorySnapshot`,
 * `_loadSnapshot`), so every use has a way out: a missing snapshot is a plain load, one that
 * fails to load is retried as a plain load, and tests/unit/snapshot.test.ts notices when it
 * breaks. It is made at build time in Node (vite.config.ts) with nothing of the session in
 * it: Python must hold no JS object when the snapshot is made, so stdout, the JS modules and
 * the session's Runtime are all set up after it is restored.
 */

/** Where the runtime package lives in every session's file system (part of the snapshot's key). */
export const RUNTIME_DIR = '/pytabs_runtime';

/**
 * Imported into the snapshot: the runtime, its stdin and its spreadsheet functions (which
 * import their JS module only when used), so that a restored session compiles none of them
 * (about 0.1 s of a fresh worker's CPU in Chromium), and grading's guard, which each hand-in's
 * worker imports first (~10 ms of each hand-in's CPU). Then the standard modules data and
 * classroom sessions import most: Pyodide compiles them from the zip's sources on import
 * (statistics with decimal and fractions took ~80 ms), and a restore replays such imports
 * before anything else.
 * `random` is reseeded after each restore (afterRestore).
 */
export const SNAPSHOT_IMPORTS = [
  'pytabs.runtime',
  'pytabs.stdin',
  'pytabs.spreadsheets',
  'pytabs.guard',
  'csv',
  'datetime',
  'functools',
  'importlib.util',
  'json',
  'math',
  'statistics',
  'random',
  'decimal',
  'fractions',
  'pathlib',
  'string',
  'textwrap',
];

export type SnapshotUse = 'used' | 'fallback' | 'none';

/** Runtime sources by file name (e.g. 'state.py'). */
export type RuntimeSources = Record<string, string>;

/**
 * Names the snapshot after everything baked into it, so a worker never restores a snapshot
 * made from other runtime files or another Pyodide (a stale build, the dev server).
 */
export async function snapshotFileName(sources: RuntimeSources): Promise<string> {
  const parts = [version, RUNTIME_DIR, SNAPSHOT_IMPORTS.join(',')];
  for (const name of Object.keys(sources).sort()) parts.push(name, sources[name]);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(parts.join('\0')));
  const hex = Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
  return `snapshot-${hex}.bin`;
}

/**
 * Boots a Pyodide, imports the runtime and returns its memory snapshot: at build time in
 * Node, and on a device whose first visit did not download the build's (workers/snapshot.worker.ts).
 */
export async function makeSnapshot(
  sources: RuntimeSources,
  options: Pick<NonNullable<Parameters<typeof loadPyodide>[0]>, 'indexURL' | 'createPyodideModule'> = {},
): Promise<Uint8Array> {
  const pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
  pyodide.FS.mkdirTree(`${RUNTIME_DIR}/pytabs`);
  for (const [name, text] of Object.entries(sources)) pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/${name}`, text);
  // Own globals: the snapshot's __main__ must stay as a fresh interpreter leaves it.
  const scratch = pyodide.toPy({});
  pyodide.runPython(
    `import importlib, sys\nsys.path.insert(0, ${JSON.stringify(RUNTIME_DIR)})\n` +
      `for name in ${JSON.stringify(SNAPSHOT_IMPORTS)}:\n    importlib.import_module(name)`,
    { globals: scratch },
  );
  scratch.destroy();
  return pyodide.makeMemorySnapshot();
}

type LoadConfig = NonNullable<Parameters<typeof loadPyodide>[0]> & { indexURL: string };

export interface LoadedPyodide {
  pyodide: PyodideInterface;
  snapshot: SnapshotUse;
  /** Why the snapshot was not used, when it was there but failed. */
  snapshotError?: string;
  /** Whether the wasm was the module the page compiled, or fetched and compiled here. */
  wasm: 'page' | 'fetched';
  /** Whether the standard library (and the lock file and script: session.worker.ts) were the page's copies, or fetched here. */
  coreFiles: 'page' | 'fetched';
}

async function fetchSnapshot(url: string): Promise<SnapshotImage | null> {
  const response = await fetch(url);
  if (!isServedFile(response)) return null;
  return snapshotImage(new Uint8Array(await response.arrayBuffer()));
}

const PENDING = Symbol('pending');

/** What `value` resolved to if it has already settled (undefined if it failed), else PENDING. */
function settledValue<T>(value: T | Promise<T>): Promise<T | undefined | typeof PENDING> {
  const later = new Promise<typeof PENDING>((resolve) => setTimeout(resolve, 0, PENDING));
  return Promise.race([Promise.resolve(value).catch(() => undefined), later]);
}

/** Raised into loadPyodide instead of a snapshot when there is none, so the plain load follows. */
class NoSnapshot extends Error {}

/** How a worker's load gets its wasm and reports its downloads. */
export interface LoadOptions {
  /** Pyodide's wasm as the page compiled it (a browser worker); without it Pyodide fetches its own. */
  compiled?: Promise<WebAssembly.Module | undefined>;
  /** Hears each download of the load as it streams. */
  onFetch?: (progress: FetchProgress) => void;
  /** Pyodide's module script, imported while the rest loads (pyodide-script.ts); without it Pyodide imports its own. */
  script?: Promise<CreatePyodideModule>;
  /** Hears that the page's compiled wasm was instantiated. */
  onInstantiated?: () => void;
  /** The page's copy of Pyodide's standard library (CoreFiles): then it is not fetched. */
  files?: Pick<CoreFiles, 'stdlib'>;
}

/**
 * A Pyodide for one session: restored from the snapshot the page hands over (or, when the
 * page has none, the build's if it is served beside the core), else (or if restoring fails)
 * booted the plain way; null from the page means boot plainly. `given` may still be on its
 * way: Pyodide starts fetching its script, wasm and standard library at once and waits for
 * the snapshot only when it instantiates the wasm.
 */
export async function loadSessionPyodide(
  config: LoadConfig,
  sources: RuntimeSources,
  /** The snapshot as the page has it; used only if it is this runtime's. */
  given?: PageSnapshot | null | Promise<PageSnapshot | null | undefined>,
  { compiled, onFetch, script, onInstantiated, files }: LoadOptions = {},
): Promise<LoadedPyodide> {
  const fetches = interceptLoad(config.indexURL, { compiled, onFetch, onInstantiated, files });
  const restoreModule = compileSmallModulesOnce();
  // Pyodide asks for the factory only once it has the snapshot: the import is under way by then.
  const withScript: LoadConfig = script ? { ...config, createPyodideModule: async (settings) => (await script)(settings) } : config;
  try {
    const loaded = await loadWithSnapshot(withScript, sources, given);
    return { ...loaded, wasm: fetches.wasmUsed() ? 'page' : 'fetched', coreFiles: fetches.filesUsed() ? 'page' : 'fetched' };
  } finally {
    fetches.restore();
    restoreModule();
  }
}

async function loadWithSnapshot(
  config: LoadConfig,
  sources: RuntimeSources,
  given?: PageSnapshot | null | Promise<PageSnapshot | null | undefined>,
): Promise<Omit<LoadedPyodide, 'wasm' | 'coreFiles'>> {
  // A page that already chose a plain boot: no snapshot attempt, whose downloads the plain
  // load would then ask for again.
  if ((await settledValue(given)) === null) return { pyodide: await loadPyodide(config), snapshot: 'none' };
  const image = (async (): Promise<SnapshotImage> => {
    let found: SnapshotImage | null = null;
    try {
      const [file, handed] = await Promise.all([snapshotFileName(sources), given]);
      // null: the page chose a plain boot, as fetching the build's snapshot would not pay on its link.
      // indexURL ends with '/' (a URL in the browser, a directory in Node).
      if (handed !== null) found = handed?.file === file ? snapshotImage(handed.bytes) : await fetchSnapshot(`${config.indexURL}${file}`);
    } catch {
      // Offline without it in the cache, or no snapshot served: the plain load needs neither.
    }
    if (!found) throw new NoSnapshot();
    return found;
  })();
  const restore = restoreInPlace(image, config);
  // Pyodide awaits it only after loading its script: until then a missing snapshot would be
  // reported as an unhandled rejection (the worker's error event), though the load handles it.
  restore.head.catch(() => undefined);
  try {
    const pyodide = await loadPyodide({ ...config, createPyodideModule: restore.createPyodideModule, _loadSnapshot: restore.head });
    releaseSnapshotBytes(pyodide);
    afterRestore(pyodide);
    return { pyodide, snapshot: 'used' };
  } catch (error) {
    const plain = await loadPyodide(config);
    return error instanceof NoSnapshot ? { pyodide: plain, snapshot: 'none' } : { pyodide: plain, snapshot: 'fallback', snapshotError: String(error) };
  }
}

/** What of Pyodide's module the restore reaches: its private API's restore and its heap. */
interface RestoringModule {
  API: { restoreSnapshot: (bytes: Uint8Array) => unknown };
  HEAPU8: Uint8Array;
}

/**
 * What loadPyodide is given to restore `image` straight into the interpreter's memory. Pyodide
 * (314) restores a snapshot by checking its header, reading the JSON metadata after it, and
 * copying everything from the memory offset the header names into its heap
 * (`API.restoreSnapshot`, private). It is handed the header alone, so that copy is empty, and
 * the module factory then copies the memory from the image itself: the page's packed (or
 * shared) bytes reach the heap in one copy, where unpacking them first made a 31 MB array per
 * worker and copied it again (20-40 ms of each start's CPU, and the garbage). Should Pyodide
 * restore another way, the snapshot fails its checks (tests/unit/snapshot.test.ts) and the
 * load falls back to a plain one.
 */
function restoreInPlace(
  image: Promise<SnapshotImage>,
  config: LoadConfig,
): { head: Promise<Uint8Array>; createPyodideModule: CreatePyodideModule } {
  const head = image.then((found) => {
    // Pyodide's header: magic, the memory's offset, the metadata's length (u32 each), its build id.
    const offset = new DataView(found.slice(4, 8).buffer).getUint32(0, true);
    // internal: a failed restore falls back to a plain load (loadSessionPyodide); the start report keeps why.
    if (offset < 16 || offset > found.length) throw new Error('The memory snapshot has no valid header.');
    return found.slice(0, offset);
  });
  const factory: CreatePyodideModule =
    config.createPyodideModule ?? (async (settings) => ((await import(/* @vite-ignore */ `${config.indexURL}pyodide.asm.mjs`)) as { default: CreatePyodideModule }).default(settings));
  // Pyodide keeps its load options, this factory among them, for the interpreter's lifetime:
  // the factory lets go of the image once it is asked for the module.
  let pending: Promise<SnapshotImage> | null = image;
  return {
    head,
    async createPyodideModule(settings) {
      // Pyodide awaited the header before it asks for the module, and sized the memory by it.
      // internal: a failed restore falls back to a plain load; the start report keeps why.
      const [found, header] = await Promise.all([pending ?? Promise.reject(new Error('The snapshot was restored already.')), head]);
      pending = null;
      (settings as { INITIAL_MEMORY?: number }).INITIAL_MEMORY = found.length;
      const module = (await factory(settings)) as unknown as RestoringModule;
      const { API: api } = module;
      const restore = api.restoreSnapshot;
      api.restoreSnapshot = (bytes) => {
        api.restoreSnapshot = restore;
        const metadata = restore(bytes);
        // internal: a failed restore falls back to a plain load; the start report keeps why.
        if (bytes !== header) throw new Error('Pyodide restored a snapshot it was not handed.');
        found.copyTo(module.HEAPU8, header.length);
        return metadata;
      };
      return module as unknown as Awaited<ReturnType<CreatePyodideModule>>;
    },
  };
}

/**
 * Pyodide keeps its load options for the interpreter's lifetime (`_api.config`, private),
 * and with them the snapshot it restored from: here only its header (restoreInPlace), but a
 * whole one is 31 MB per worker, 40% of a session's memory, that the heap no longer needs once
 * its contents were copied in. A test notices if the options move.
 */
function releaseSnapshotBytes(pyodide: PyodideInterface): void {
  const api = (pyodide as unknown as { _api?: { config?: { _loadSnapshot?: unknown } } })._api;
  if (api?.config) api.config._loadSnapshot = undefined;
}

/**
 * Undoes what every session restored from one snapshot would otherwise share: `random`'s
 * global generator was seeded when the snapshot was made, so each session reseeds it from
 * the OS. Also checks that the runtime really is in the restored interpreter.
 */
function afterRestore(pyodide: PyodideInterface): void {
  const scratch = pyodide.toPy({});
  try {
    pyodide.runPython(
      `import sys\nif 'pytabs.runtime' not in sys.modules:\n    raise RuntimeError('the snapshot lacks the runtime')\n` +
        `if 'random' in sys.modules:\n    sys.modules['random'].seed()`,
      { globals: scratch },
    );
  } finally {
    scratch.destroy();
  }
}
