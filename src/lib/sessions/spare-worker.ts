import type { PageSnapshot, PrepareMessage } from '../worker-api';
import { sleep } from '../timing';
import { whenIdle } from './idle';
import { snapshotForWorker } from './snapshot-share';
import { coreFilesInHand } from './core-files';

/**
 * One session worker whose script has loaded but that serves no session yet. A session
 * that starts takes it and skips downloading and parsing the worker's script (0.6 MB,
 * 0.1-0.2 s here) and Pyodide's module script (1.25 MB, fetched from its .gz copy and decoded,
 * or the page's copy once it holds one (core-files.ts), and parsed: 0.05-0.9 s of a later
 * start here, the most on a busy machine), so their cost
 * moves off the start's path into idle time. Once it holds the page's compiled wasm and a
 * copy of the start snapshot, it loads Python from them when the page is idle (warm): a
 * start that takes it then only restores its session (a later start after a pause took
 * 0.8-1.3 s here without it, most of it instantiating and restoring Python). That Python is
 * one more than the pool's live workers hold (the pool bounds sessions, not this one).
 * It holds nothing of any session until a host sends it a start message, and from then on it
 * belongs to that host alone.
 */

interface Spare {
  worker: Worker;
  /** The core it imports Pyodide from. */
  indexURL: string;
  /** Its script failed to load: no host should wait on it. */
  broken: boolean;
  /** The page's compiled wasm was sent to it while it waited. */
  hasWasm: boolean;
  /** A copy of the page's start snapshot was sent to it while it waited. */
  hasSnapshot: boolean;
  /** The page's copies of Pyodide's files came with its prepare message (core-files.ts). */
  hasCoreFiles: boolean;
}

/**
 * How long after it holds the wasm and snapshot the spare waits before loading Python (then
 * still for an idle moment): a start has just ended, and its session's first runs, on a
 * 2-core machine, should not share the cores with a Python nobody asked for yet.
 */
const BOOT_AFTER_MS = 3000;

/** What the spare is asked to load Python for: the package index sessions start with now. */
export type PackageIndexSetting = () => string | undefined;

/** A worker for a session to start in, and whether it holds the page's compiled wasm and start snapshot already. */
export interface TakenWorker {
  worker: Worker;
  hasWasm: boolean;
  hasSnapshot: boolean;
  hasCoreFiles: boolean;
}

let spare: Spare | null = null;
/** What session workers wait for before they are created (the service worker taking a first visit over). */
let gate: Promise<void> = Promise.resolve();
/** A spare is being made once the gate opens. */
let preparing = false;

/**
 * Holds the creation of session workers until `until` settles: a worker created before the
 * page's service worker controls it is never served by it in Chromium, so input() without
 * shared memory could not reach it (src/lib/offline/service-worker.ts sets this).
 */
export function holdWorkersUntil(until: Promise<void>): void {
  gate = until.catch(() => undefined).then(() => void performance.mark('pytabs:workers-may-start'));
}

function create(): Worker {
  return new Worker(new URL('../../../workers/session.worker.ts', import.meta.url), { type: 'module' });
}

/**
 * Loads a spare worker's script, and Pyodide's from `indexURL`, once workers may start, unless
 * one is waiting already; then sends it the page's compiled `wasm` once there is one, so a
 * start that takes it need not wait for that message: in WebKitGTK a module sent with the
 * start reached the worker 0.1-0.9 s after it (the most right after another session's
 * start), and the restore waited for it. It also gets the page's start `snapshot`
 * (snapshot-share.ts), when the page is idle: without shared memory that copies 15 MB, which
 * held the page's thread 50-200 ms a start on this machine, on the start's path. With both,
 * it loads Python, for the package index `packageIndexURL` names then, BOOT_AFTER_MS later
 * when the page is idle.
 */
export function prepareSpareWorker(
  indexURL: string,
  wasm?: Promise<WebAssembly.Module | undefined>,
  snapshot?: Promise<PageSnapshot | null | undefined>,
  packageIndexURL: PackageIndexSetting = () => undefined,
): void {
  if (spare || preparing || typeof Worker === 'undefined') return;
  preparing = true;
  void gate.then(() => {
    preparing = false;
    if (spare) return;
    const coreFiles = coreFilesInHand(indexURL);
    const entry: Spare = { worker: create(), indexURL, broken: false, hasWasm: false, hasSnapshot: false, hasCoreFiles: Boolean(coreFiles) };
    entry.worker.addEventListener('error', () => void (entry.broken = true), { once: true });
    entry.worker.postMessage({ pytabsPrepare: { indexURL, coreFiles } } satisfies PrepareMessage);
    spare = entry;
    const wasmSent = (wasm ?? Promise.resolve(undefined))
      .then((module) => {
        // Taken meanwhile: its start is handed the module as any other.
        if (!module || spare !== entry) return;
        entry.worker.postMessage({ pytabsPrepare: { indexURL, wasm: module } } satisfies PrepareMessage);
        entry.hasWasm = true;
      })
      .catch(() => undefined);
    const snapshotSent = (snapshot ?? Promise.resolve(undefined))
      .then((found) =>
        whenIdle(
          () => {
            // Taken meanwhile: its start is handed the snapshot as any other.
            if (!found || spare !== entry) return;
            const { snapshot: handed, transfer } = snapshotForWorker(found);
            entry.worker.postMessage({ pytabsPrepare: { indexURL, snapshot: handed } } satisfies PrepareMessage, transfer);
            entry.hasSnapshot = true;
          },
          { within: 1000, otherwise: 50 },
        ),
      )
      .catch(() => undefined);
    const boot = () => {
      // Taken meanwhile, or without what a load needs: the start loads Python itself.
      if (spare !== entry || !entry.hasWasm || !entry.hasSnapshot) return;
      entry.worker.postMessage({ pytabsPrepare: { indexURL, boot: { packageIndexURL: packageIndexURL() } } } satisfies PrepareMessage);
      performance.mark('pytabs:spare-boot');
    };
    void Promise.all([wasmSent, snapshotSent])
      .then(() => sleep(BOOT_AFTER_MS))
      .then(() => whenIdle(boot, { within: 2000, otherwise: 200 }));
  });
}

/** The spare worker if one is ready, else a new one, once workers may start; `indexURL` is the core the start loads. */
export async function takeWorker(indexURL: string): Promise<TakenWorker> {
  await gate;
  const entry = spare;
  spare = null;
  const same = entry?.indexURL === indexURL;
  if (entry && !entry.broken) return { worker: entry.worker, hasWasm: entry.hasWasm && same, hasSnapshot: entry.hasSnapshot && same, hasCoreFiles: entry.hasCoreFiles && same };
  entry?.worker.terminate();
  return { worker: create(), hasWasm: false, hasSnapshot: false, hasCoreFiles: false };
}
