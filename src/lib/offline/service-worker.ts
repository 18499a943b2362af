/// <reference types="vite-plugin-pwa/vanillajs" />
import { registerSW } from 'virtual:pwa-register';
import { hasServiceWorkers } from '../capabilities';
import { said, type Said } from '../i18n/said';
import type { SessionManager } from '../sessions/manager';
import { holdWorkersUntil } from '../sessions/spare-worker';
import { KEEP_APP, type KeepAppReport, type KeepAppRequest } from './keep-app';
import { packageSource } from './offline-packages';

/** What the page knows of its service worker (src/sw.ts), for the update banner and Settings. */
export interface AppServiceWorkerStatus {
  /**
   * `unavailable`: no service worker here (the dev server, a private window, a browser with
   * them switched off): the app works, only not offline. `after-first-run`: the app is kept once
   * a session's first run returned. `installing`: keeping the app. `ready`: it opens offline.
   * `failed`: registering or keeping failed (`error` says why).
   */
  offline: 'unavailable' | 'after-first-run' | 'installing' | 'ready' | 'failed';
  /** Why it is `unavailable`: the development server registers none; `no-service-workers`: this window has none. */
  unavailable?: 'development' | 'no-service-workers';
  /** Why it `failed`, as a clause: "the service worker could not be registered (…)". */
  error?: Said;
  /** A service worker controls this page now (so a reload with the network gone is served by it). */
  controlled: boolean;
  /** A new version is installed and waits for Reload. */
  updateReady: boolean;
  /** Reload was asked for and waits until no run is in flight in this tab. */
  reloadPending: boolean;
}

/** A reload waits until no session of this tab has been starting or running for this long (the blocks of one message run back to back). */
const IDLE_SETTLE_MS = 400;
/** Long-lived tabs look for a new version this often (a navigation looks anyway). */
const UPDATE_CHECK_MS = 60 * 60 * 1000;
/** Remembers which build already reloaded once for a missing chunk, so a chunk missing for good cannot loop. */
const CHUNK_RELOAD_KEY = 'pytabs:reloaded-for-missing-chunk';
/**
 * How long session workers wait for the service worker to take a first visit over: one
 * created before it does is never served by it in Chromium (input() without shared memory
 * needs that). A first install keeps nothing, so this is the fetch of `sw.js` (22 kB).
 */
const CONTROL_WAIT_MS = 5000;

// Embeds' sessions too: in an embed's frame, its session is the one that runs.
async function busy(manager: SessionManager): Promise<boolean> {
  return (await manager.listSessions({ includeEmbeds: true })).some((s) => s.status === 'running' || s.status === 'starting');
}

async function executions(manager: SessionManager): Promise<number> {
  return (await manager.listSessions({ includeEmbeds: true })).reduce((sum, s) => sum + s.totalExecutions, 0);
}

/** Resolves once no session of this tab has been starting or running for IDLE_SETTLE_MS. */
export function whenIdle(manager: SessionManager): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const check = async () => {
      clearTimeout(timer);
      if (done || (await busy(manager))) return;
      timer = setTimeout(async () => {
        if (done || (await busy(manager))) return;
        done = true;
        unsubscribe();
        resolve();
      }, IDLE_SETTLE_MS);
    };
    const unsubscribe = manager.subscribe(() => void check());
    void check();
  });
}

/**
 * The page's side of the service worker: registers it as the page opens (a first install
 * keeps nothing and takes the page over at once; session workers wait for that), has it keep
 * the app after the first run, shows a waiting new version and applies it when no run is in
 * flight, and turns a chunk that vanished in an update into one reload.
 */
export class AppServiceWorker {
  private current: AppServiceWorkerStatus = { offline: 'unavailable', controlled: false, updateReady: false, reloadPending: false };
  private readonly listeners = new Set<(status: AppServiceWorkerStatus) => void>();
  private update: ((reload?: boolean) => Promise<void>) | null = null;
  /** Set when this tab applied the update: it reloads itself, so the new worker's taking control needs no banner. */
  private applying = false;
  private attachManager!: (manager: SessionManager) => void;
  /** The page's sessions, once storage is open (main.ts attaches them). */
  private readonly manager = new Promise<SessionManager>((resolve) => (this.attachManager = resolve));

  get status(): AppServiceWorkerStatus {
    return this.current;
  }

  subscribe(listener: (status: AppServiceWorkerStatus) => void): () => void {
    this.listeners.add(listener);
    listener(this.current);
    return () => this.listeners.delete(listener);
  }

  private set(change: Partial<AppServiceWorkerStatus>): void {
    this.current = { ...this.current, ...change };
    for (const listener of this.listeners) listener(this.current);
  }

  /** The page's sessions: what tells a first run and an idle moment. */
  attach(manager: SessionManager): void {
    this.attachManager(manager);
  }

  /** Starts it all; `enabled` is false in the dev server. */
  start(enabled: boolean): void {
    this.watchMissingChunks();
    if (!hasServiceWorkers()) return this.set({ unavailable: 'no-service-workers' });
    if (!enabled) return this.set({ unavailable: 'development' });
    const container = navigator.serviceWorker;
    this.set({ controlled: Boolean(container.controller), offline: 'after-first-run' });
    container.addEventListener('controllerchange', () => this.set({ controlled: Boolean(container.controller) }));
    holdWorkersUntil(this.untilControlled());
    this.register();
    void this.keepApp();
  }

  /** Resolves once a service worker controls the page, its registration failed, or CONTROL_WAIT_MS passed. */
  private untilControlled(): Promise<void> {
    if (navigator.serviceWorker.controller) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(failed);
        resolve();
      };
      const timer = setTimeout(done, CONTROL_WAIT_MS);
      const failed = (status: AppServiceWorkerStatus) => void (status.offline === 'failed' && done());
      this.listeners.add(failed);
      navigator.serviceWorker.addEventListener('controllerchange', done, { once: true });
    });
  }

  private register(): void {
    this.update = registerSW({
      immediate: true,
      onNeedRefresh: () => this.set({ updateReady: true }),
      // Another tab applied the new version, which now serves this tab too while its code is
      // the old version's: Reload is offered (and a missing chunk reloads it).
      onNeedReload: () => {
        if (!this.applying) this.set({ updateReady: true });
      },
      onRegisteredSW: (_url, registration) => {
        if (registration) setInterval(() => void registration.update().catch(() => undefined), UPDATE_CHECK_MS);
      },
      onRegisterError: (error: unknown) =>
        this.set({ offline: 'failed', error: said('libb_sw_register_failed', { error: error instanceof Error ? error.message : String(error) }) }),
    });
  }

  /**
   * Has the service worker keep the app: at once when it was kept on an earlier visit (it
   * only counts), else after a session's first run in this page, so its downloads never
   * compete with a first visit's.
   */
  private async keepApp(): Promise<void> {
    const registration = await navigator.serviceWorker.ready;
    const counted = await askKeepApp(registration, false);
    if ('missing' in counted && counted.missing === 0) return this.kept();
    const manager = await this.manager;
    const before = await executions(manager);
    await new Promise<void>((resolve) => {
      const unsubscribe = manager.subscribe(async () => {
        if ((await executions(manager)) <= before) return;
        unsubscribe();
        resolve();
      });
    });
    this.set({ offline: 'installing' });
    const report = await askKeepApp(registration, true);
    if ('error' in report) return this.set({ offline: 'failed', error: said('libb_sw_keep_failed', { error: report.error }) });
    if (report.missing) return this.set({ offline: 'failed', error: said('libb_sw_files_missing', { missing: report.missing, files: report.files }) });
    this.kept();
  }

  private kept(): void {
    this.set({ offline: 'ready' });
    void this.keepPackageIndex();
  }

  /**
   * Sessions that started before the service worker existed read a custom package index's
   * lock file without it; fetching it once more through the worker keeps it, so what those
   * sessions load stays loadable offline (the app's own lock file is precached).
   */
  private async keepPackageIndex(): Promise<void> {
    const container = navigator.serviceWorker;
    // Installed comes before activated: the fetch must wait until the worker controls the page.
    if (!container.controller) await new Promise((resolve) => container.addEventListener('controllerchange', resolve, { once: true }));
    const manager = await this.manager;
    const custom = manager.getSettings().packageIndexUrl;
    if (custom) await fetch(packageSource(manager.indexURL, custom).lockURL).catch(() => undefined);
  }

  /**
   * What the service worker keeps of the app for offline use: the files of Workbox's precache
   * for this scope and their bytes (sizes of the stored bodies, which are not read). Null when
   * there is no service worker.
   */
  async keptApp(): Promise<{ files: number; bytes: number } | null> {
    const registration = hasServiceWorkers() ? await navigator.serviceWorker.getRegistration() : undefined;
    if (!registration || !(await caches.has(`workbox-precache-v2-${registration.scope}`))) return null;
    const cache = await caches.open(`workbox-precache-v2-${registration.scope}`);
    let bytes = 0;
    const keys = await cache.keys();
    for (const key of keys) bytes += (await (await cache.match(key))?.blob())?.size ?? 0;
    return { files: keys.length, bytes };
  }

  /** Loads the new version once no run is in flight in this tab (a run would be cut short). */
  async reload(): Promise<void> {
    if (this.current.reloadPending) return;
    this.set({ reloadPending: true });
    await whenIdle(await this.manager);
    const waiting = hasServiceWorkers() ? (await navigator.serviceWorker.getRegistration())?.waiting : undefined;
    if (waiting && this.update) {
      this.applying = true;
      navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
      await this.update(true);
    } else {
      location.reload();
    }
  }

  /**
   * Vite reports a chunk it could not load (an old page asking for a file an update removed)
   * as `vite:preloadError`; the caller still sees its import fail. One reload when idle brings
   * the page to the version that is there; a second failure on the same build is not
   * reloaded again.
   */
  private watchMissingChunks(): void {
    addEventListener('vite:preloadError', () => {
      const build = import.meta.url;
      try {
        if (sessionStorage.getItem(CHUNK_RELOAD_KEY) === build) return;
        sessionStorage.setItem(CHUNK_RELOAD_KEY, build);
      } catch {
        // Without sessionStorage nothing could stop a loop: the failed import reports itself.
        return;
      }
      void this.manager.then(whenIdle).then(() => location.reload());
    });
  }
}

/**
 * Asks the service worker to keep the app (or only to count what it has not kept). A reply
 * comes on a port of its own, the usual pattern for a request to a service worker.
 */
function askKeepApp(registration: ServiceWorkerRegistration, fill: boolean): Promise<KeepAppReport> {
  const worker = registration.active;
  if (!worker) return Promise.resolve({ error: said('libb_sw_none_active') });
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event: MessageEvent<KeepAppReport>) => resolve(event.data);
    worker.postMessage({ type: KEEP_APP, fill } satisfies KeepAppRequest, [channel.port2]);
  });
}

let instance: AppServiceWorker | null = null;

/**
 * Starts the page's service worker handling once, as the page opens (src/main.ts), before any
 * session worker: those wait until it controls the page.
 */
export function startAppServiceWorker(): AppServiceWorker {
  if (!instance) {
    instance = new AppServiceWorker();
    instance.start(import.meta.env.PROD);
  }
  return instance;
}

/** The page's service worker handling, once started; null before. */
export function appServiceWorker(): AppServiceWorker | null {
  return instance;
}
