import { hasBroadcastChannel, hasGzipStreams, hasJspi, hasMemory64, hasPersistRequest, hasServiceWorkers, hasSharedMemory, hasWebLocks, type WebGpuFacts } from './capabilities';
import type { HostHeaders } from './hosting';
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
  /** "Stop: interrupts", "Offline: no: …": what a person reads, and what tests in every engine look for. */
  text: string;
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
export function offlineLine(facts: Pick<BrowserFacts, 'serviceWorkers' | 'offline'>): string {
  const status = facts.offline;
  if (!facts.serviceWorkers || status?.unavailable === 'no-service-workers') {
    return 'Offline: no: this window has no service worker (a private window, or service workers are switched off)';
  }
  if (!status || status.unavailable === 'development') return 'Offline: no: the development server registers no service worker';
  switch (status.offline) {
    case 'ready':
      return status.controlled ? 'Offline: yes' : 'Offline: no: kept on this device, used after the next reload';
    case 'installing':
      return 'Offline: no: being kept on this device now';
    case 'after-first-run':
      return 'Offline: no: not yet, PyTabs is kept on this device after your first run';
    case 'failed':
      return `Offline: no: ${status.error ?? 'the service worker failed, no reason given'}`;
    default:
      return 'Offline: no: no service worker is registered';
  }
}

/** Whether PyTabs' service worker serves this window, or will from the next visit. */
function serviceWorkerServes(facts: Pick<BrowserFacts, 'serviceWorkers' | 'offline'>): 'now' | 'next visit' | 'no' {
  const status = facts.offline;
  if (!facts.serviceWorkers || !status || status.unavailable || status.offline === 'failed') return 'no';
  return status.controlled ? 'now' : 'next visit';
}

/** Whether the page is cross-origin isolated (Stop interrupts, input() waits on shared memory), and by what. */
export function isolationLine(facts: Pick<BrowserFacts, 'isolated' | 'host' | 'serviceWorkers' | 'offline'>): string {
  if (facts.isolated) {
    if (facts.host?.isolation === true) return "Cross-origin isolated: yes, by the host's headers";
    if (facts.host?.isolation === false) return "Cross-origin isolated: yes, by PyTabs' service worker (the host sends no headers)";
    return 'Cross-origin isolated: yes';
  }
  if (serviceWorkerServes(facts) !== 'no') {
    return "Cross-origin isolated: from the next visit (the host sends no headers; PyTabs' service worker adds them to the pages it serves)";
  }
  if (!facts.serviceWorkers || facts.offline?.unavailable === 'no-service-workers') {
    return 'Cross-origin isolated: no: the host sends no headers and this window has no service worker';
  }
  return "Cross-origin isolated: no: the host sends no headers and PyTabs' service worker is not running";
}

/** Whether Python can reach only this site and the package index (the session worker's Content-Security-Policy), and by what. */
export function networkLine(facts: Pick<BrowserFacts, 'host' | 'serviceWorkers' | 'offline'>): string {
  if (facts.host?.workerPolicy === true) return "Python's network: this site and the package index only (the host's policy)";
  const serves = serviceWorkerServes(facts);
  if (serves === 'now') return "Python's network: this site and the package index only (PyTabs' service worker)";
  if (serves === 'next visit') return "Python's network: not limited until the next visit (the host sends no policy for the session worker)";
  return "Python's network: not limited (the host sends no policy for the session worker and no service worker serves it)";
}

/** How input() waits for the person here (src/lib/sessions/input.ts chooses the same way for each session it starts). */
export function inputLine(facts: Pick<BrowserFacts, 'sharedMemory' | 'serviceWorkers' | 'offline'>): string {
  const path = inputPath({ ...facts, controlled: facts.offline?.controlled ?? false });
  if (path.kind === 'shared') return 'input(): waits for you (shared memory)';
  if (path.kind === 'relay') return 'input(): waits for you (service worker)';
  return facts.serviceWorkers
    ? "input(): no: not yet, PyTabs' service worker does not control this page (reload it)"
    : 'input(): no: this window has no shared memory and no service worker (a private window, or service workers are switched off)';
}

/** The path the app takes for each capability, one line each, in the order Settings shows them. */
export function browserPaths(facts: BrowserFacts): BrowserPath[] {
  return [
    { id: 'stop', text: facts.sharedMemory ? 'Stop: interrupts' : 'Stop: restarts from the last saved state' },
    { id: 'isolation', text: isolationLine(facts) },
    { id: 'network', text: networkLine(facts) },
    { id: 'offline', text: offlineLine(facts) },
    {
      id: 'jspi',
      // Reported, not used: a cell never enters Python through a stack-switching call, so
      // pyodide.ffi.run_sync fails in every engine (tests/engines/browser-lines.spec.ts).
      text: facts.jspi
        ? 'Python stack switching (JSPI): yes, not needed by PyTabs'
        : 'Python stack switching (JSPI): no (as in Safari), not needed by PyTabs',
    },
    {
      id: 'gzip',
      text: facts.gzipStreams
        ? 'Downloads decoded as they stream: yes'
        : 'Downloads decoded as they stream: no: Python is downloaded uncompressed (about 7 MB more on a first visit)',
    },
    {
      id: 'locks',
      text: facts.webLocks
        ? 'One tab per session (Web Locks): yes'
        : 'One tab per session (Web Locks): no: every tab runs the sessions it opens; use a session in one tab at a time',
    },
    {
      id: 'tabs',
      text: facts.broadcastChannel ? 'Other tabs told of changes: at once' : 'Other tabs told of changes: when you switch to them',
    },
    {
      id: 'persist',
      text: facts.persisted
        ? 'Keep data on this device: granted'
        : facts.persistRequest
          ? 'Keep data on this device: can ask'
          : 'Keep data on this device: cannot ask',
    },
    { id: 'model', text: modelLine(facts) },
    { id: 'input', text: inputLine(facts) },
  ];
}

/** Where a model computes, by what WebGPU offers (workers/model.worker.ts's gpuPlan decides the same way). */
function modelsGpu(gpu: WebGpuFacts | null): string {
  if (gpu === null) return 'on the CPU unless WebGPU offers a GPU';
  if (gpu.kind === 'none') return 'on the CPU (no GPU through WebGPU here)';
  if (gpu.kind === 'software') return `on the CPU (WebGPU offers only a software GPU here, ${gpu.name}, slower)`;
  if (!gpu.f16) return `on the CPU (the GPU WebGPU offers here, ${gpu.name}, lacks the 16-bit floats llama.cpp needs)`;
  return `on the GPU through WebGPU (${gpu.name})`;
}

/** Whether Ask can use a model in this browser, and on what (workers/model.worker.ts decides the same way). */
export function modelLine(facts: Pick<BrowserFacts, 'jspi' | 'memory64' | 'isolated' | 'sharedMemory' | 'gpu'>): string {
  const threads = !facts.isolated
    ? 'with one thread (the page is not cross-origin isolated)'
    : facts.sharedMemory
      ? 'with up to 4 threads'
      : 'with one thread (this browser gives the page no shared memory)';
  const missing = [facts.jspi ? '' : 'WebAssembly JSPI', facts.memory64 ? '' : 'WebAssembly Memory64'].filter(Boolean);
  const build = missing.length ? `, in the slower compatible build (this browser lacks ${missing.join(' and ')})` : '';
  const where = modelsGpu(facts.gpu);
  return `A model in this browser: yes, ${where}, ${threads}${build}`;
}
