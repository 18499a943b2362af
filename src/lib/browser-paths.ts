import { hasBroadcastChannel, hasGzipStreams, hasJspi, hasMemory64, hasPersistRequest, hasServiceWorkers, hasSharedMemory, hasWebLocks, type WebGpuFacts } from './capabilities';
import type { HostHeaders } from './hosting';
import { said, type Said } from './i18n/said';
import type { AppServiceWorkerStatus } from './offline/service-worker';
import { inputPath } from './sessions/input';

/** What this browser can do (capabilities.ts) and what it did: the facts the paths are chosen by. */
export interface BrowserFacts {
  sharedMemory: boolean;
  jspi: boolean;
  memory64: boolean;
  gzipStreams: boolean;
  serviceWorkers: boolean;
  webLocks: boolean;
  broadcastChannel: boolean;
  persistRequest: boolean;
  /** The browser keeps this origin's data under storage pressure (`navigator.storage.persisted()`). */
  persisted: boolean;
  /** The page's service worker as src/lib/offline/service-worker.ts knows it; null when it was never started. */
  offline: AppServiceWorkerStatus | null;
  /** `crossOriginIsolated`. */
  isolated: boolean;
  /** What the host sends itself (src/lib/hosting.ts); null until asked. */
  host: HostHeaders | null;
  /** What WebGPU offers (capabilities.ts `webGpu`); null until asked. */
  gpu: WebGpuFacts | null;
}

/** One path the app takes in this browser, as a line for Settings → This browser. */
export interface BrowserPath {
  id: 'stop' | 'isolation' | 'network' | 'offline' | 'jspi' | 'gzip' | 'locks' | 'tabs' | 'persist' | 'model' | 'input';
  /** "Stop: interrupts", "Offline: no: …": told in the reader's language where it is shown. */
  said: Said;
}

/** The capabilities of this page, found now; the rest is asked of the browser, the service worker and the host by the caller. */
export function detectCapabilities(): Omit<BrowserFacts, 'persisted' | 'offline' | 'host' | 'gpu'> {
  return {
    isolated: typeof crossOriginIsolated === 'boolean' && crossOriginIsolated,
    sharedMemory: hasSharedMemory(),
    jspi: hasJspi(),
    memory64: hasMemory64(),
    gzipStreams: hasGzipStreams(),
    serviceWorkers: hasServiceWorkers(),
    webLocks: hasWebLocks(),
    broadcastChannel: hasBroadcastChannel(),
    persistRequest: hasPersistRequest(),
  };
}

/** Whether PyTabs opens offline here, or why not (a reason a person can act on or at least understand). */
export function offlineLine(facts: Pick<BrowserFacts, 'serviceWorkers' | 'offline'>): Said {
  const status = facts.offline;
  if (!facts.serviceWorkers || status?.unavailable === 'no-service-workers') return said('libb_offline_no_worker');
  if (!status || status.unavailable === 'development') return said('libb_offline_development');
  switch (status.offline) {
    case 'ready':
      return said(status.controlled ? 'libb_offline_yes' : 'libb_offline_next_reload');
    case 'installing':
      return said('libb_offline_installing');
    case 'after-first-run':
      return said('libb_offline_after_first_run');
    case 'failed':
      return said('libb_offline_failed', { reason: status.error ?? said('libb_sw_failed_unknown') });
    default:
      return said('libb_offline_none');
  }
}

/** Whether PyTabs' service worker serves this window, or will from the next visit. */
function serviceWorkerServes(facts: Pick<BrowserFacts, 'serviceWorkers' | 'offline'>): 'now' | 'next visit' | 'no' {
  const status = facts.offline;
  if (!facts.serviceWorkers || !status || status.unavailable || status.offline === 'failed') return 'no';
  return status.controlled ? 'now' : 'next visit';
}

/** Whether the page is cross-origin isolated (Stop interrupts, input() waits on shared memory), and by what. */
export function isolationLine(facts: Pick<BrowserFacts, 'isolated' | 'host' | 'serviceWorkers' | 'offline'>): Said {
  if (facts.isolated) {
    if (facts.host?.isolation === true) return said('libb_isolated_by_host');
    if (facts.host?.isolation === false) return said('libb_isolated_by_worker');
    return said('libb_isolated_yes');
  }
  if (serviceWorkerServes(facts) !== 'no') return said('libb_isolated_next_visit');
  if (!facts.serviceWorkers || facts.offline?.unavailable === 'no-service-workers') return said('libb_isolated_no_worker');
  return said('libb_isolated_worker_not_running');
}

/** Whether Python can reach only this site and the package index (the session worker's Content-Security-Policy), and by what. */
export function networkLine(facts: Pick<BrowserFacts, 'host' | 'serviceWorkers' | 'offline'>): Said {
  if (facts.host?.workerPolicy === true) return said('libb_network_by_host');
  const serves = serviceWorkerServes(facts);
  if (serves === 'now') return said('libb_network_by_worker');
  if (serves === 'next visit') return said('libb_network_next_visit');
  return said('libb_network_open');
}

/** How input() waits for the person here (src/lib/sessions/input.ts chooses the same way for each session it starts). */
export function inputLine(facts: Pick<BrowserFacts, 'sharedMemory' | 'serviceWorkers' | 'offline'>): Said {
  const path = inputPath({ ...facts, controlled: facts.offline?.controlled ?? false });
  if (path.kind === 'shared') return said('libb_input_shared');
  if (path.kind === 'relay') return said('libb_input_relay');
  return said(facts.serviceWorkers ? 'libb_input_not_yet' : 'libb_input_none');
}

/** The path the app takes for each capability, one line each, in the order Settings shows them. */
export function browserPaths(facts: BrowserFacts): BrowserPath[] {
  return [
    { id: 'stop', said: said(facts.sharedMemory ? 'libb_stop_interrupts' : 'libb_stop_restarts') },
    { id: 'isolation', said: isolationLine(facts) },
    { id: 'network', said: networkLine(facts) },
    { id: 'offline', said: offlineLine(facts) },
    // Reported, not used: a cell never enters Python through a stack-switching call, so
    // pyodide.ffi.run_sync fails in every engine (tests/engines/browser-lines.spec.ts).
    { id: 'jspi', said: said(facts.jspi ? 'libb_jspi_yes' : 'libb_jspi_no') },
    { id: 'gzip', said: said(facts.gzipStreams ? 'libb_gzip_yes' : 'libb_gzip_no') },
    { id: 'locks', said: said(facts.webLocks ? 'libb_locks_yes' : 'libb_locks_no') },
    { id: 'tabs', said: said(facts.broadcastChannel ? 'libb_tabs_at_once' : 'libb_tabs_on_switch') },
    { id: 'persist', said: said(facts.persisted ? 'libb_persist_granted' : facts.persistRequest ? 'libb_persist_can_ask' : 'libb_persist_cannot_ask') },
    { id: 'model', said: modelLine(facts) },
    { id: 'input', said: inputLine(facts) },
  ];
}

/** Where a model computes, by what WebGPU offers (workers/model.worker.ts's gpuPlan decides the same way). */
function modelsGpu(gpu: WebGpuFacts | null): Said {
  if (gpu === null) return said('libb_gpu_unknown');
  if (gpu.kind === 'none') return said('libb_gpu_none');
  const name = gpu.name;
  if (gpu.kind === 'software') return said('libb_gpu_software', { name });
  if (!gpu.f16) return said('libb_gpu_no_f16', { name });
  return said('libb_gpu_yes', { name });
}

/** Whether Ask can use a model in this browser, and on what (workers/model.worker.ts decides the same way). */
export function modelLine(facts: Pick<BrowserFacts, 'jspi' | 'memory64' | 'isolated' | 'sharedMemory' | 'gpu'>): Said {
  const threads = said(!facts.isolated ? 'libb_threads_not_isolated' : facts.sharedMemory ? 'libb_threads_four' : 'libb_threads_no_shared');
  const where = modelsGpu(facts.gpu);
  // Names of WebAssembly features, the same in every language.
  const missing = [facts.jspi ? '' : 'WebAssembly JSPI', facts.memory64 ? '' : 'WebAssembly Memory64'].filter(Boolean);
  if (!missing.length) return said('libb_model', { where, threads });
  const lacks = missing.length === 2 ? said('list_and', { first: missing[0], last: missing[1] }) : missing[0];
  return said('libb_model_compatible', { where, threads, lacks });
}
