import 'fake-indexeddb/auto';
import { describe, it, expect } from 'vitest';
import { browserPaths, detectCapabilities, type BrowserFacts } from '../../src/lib/browser-paths';
import { markStorageNoticeDone, storageNoticeDone, storageRisk } from '../../src/lib/storage-risk';
import { openDb } from '../../src/lib/storage/db';
import { SettingsStore } from '../../src/lib/storage/settings';
import type { AppServiceWorkerStatus } from '../../src/lib/offline/service-worker';
import { said, tell, tellInEnglish } from '../../src/lib/i18n/said';
import { setLocale } from '../../src/lib/i18n/catalog';

const ALL: BrowserFacts = {
  sharedMemory: true,
  jspi: true,
  memory64: true,
  gzipStreams: true,
  serviceWorkers: true,
  webLocks: true,
  broadcastChannel: true,
  persistRequest: true,
  persisted: false,
  offline: { offline: 'ready', controlled: true, updateReady: false, reloadPending: false },
  isolated: true,
  host: { isolation: true, workerPolicy: true },
  gpu: { kind: 'none', name: '', f16: false },
};

const lines = (facts: Partial<BrowserFacts>) => browserPaths({ ...ALL, ...facts }).map((p) => tellInEnglish(p.said));
const worker = (status: Partial<AppServiceWorkerStatus>): AppServiceWorkerStatus => ({
  offline: 'unavailable',
  controlled: false,
  updateReady: false,
  reloadPending: false,
  ...status,
});

describe('Settings → This browser', () => {
  it('names the path taken for each capability, as the other engines\' tests read them', () => {
    expect(lines({})).toEqual([
      'Stop: interrupts',
      "Cross-origin isolated: yes, by the host's headers",
      "Python's network: this site and the package index only (the host's policy)",
      'Offline: yes',
      'Python stack switching (JSPI): yes, not needed by PyTabs',
      'Downloads decoded as they stream: yes',
      'One tab per session (Web Locks): yes',
      'Other tabs told of changes: at once',
      'Keep data on this device: can ask',
      'A model in this browser: yes, on the CPU (no GPU through WebGPU here), with up to 4 threads',
      'input(): waits for you (shared memory)',
    ]);
    const bare = lines({
      sharedMemory: false,
      jspi: false,
      memory64: false,
      gzipStreams: false,
      webLocks: false,
      broadcastChannel: false,
      persistRequest: false,
      serviceWorkers: false,
      offline: worker({ unavailable: 'no-service-workers' }),
      isolated: false,
      host: { isolation: false, workerPolicy: false },
    });
    expect(bare[0]).toBe('Stop: restarts from the last saved state');
    expect(bare[1]).toBe('Cross-origin isolated: no: the host sends no headers and this window has no service worker');
    expect(bare[2]).toBe("Python's network: not limited (the host sends no policy for the session worker and no service worker serves it)");
    expect(bare[3]).toMatch(/^Offline: no: this window has no service worker \(a private window/);
    expect(bare[4]).toBe('Python stack switching (JSPI): no (as in Safari), not needed by PyTabs');
    expect(bare[5]).toMatch(/^Downloads decoded as they stream: no: /);
    expect(bare[6]).toMatch(/^One tab per session \(Web Locks\): no: /);
    expect(bare[7]).toBe('Other tabs told of changes: when you switch to them');
    expect(bare[8]).toBe('Keep data on this device: cannot ask');
    expect(bare[9]).toBe(
      'A model in this browser: yes, on the CPU (no GPU through WebGPU here), with one thread (the page is not cross-origin isolated), in the slower compatible build (this browser lacks WebAssembly JSPI and WebAssembly Memory64)',
    );
    expect(lines({ isolated: false })[9]).toBe('A model in this browser: yes, on the CPU (no GPU through WebGPU here), with one thread (the page is not cross-origin isolated)');
    // WebKitGTK behind the headers: isolated, and still no shared memory.
    expect(lines({ sharedMemory: false, jspi: false, memory64: false })[9]).toBe(
      'A model in this browser: yes, on the CPU (no GPU through WebGPU here), with one thread (this browser gives the page no shared memory), in the slower compatible build (this browser lacks WebAssembly JSPI and WebAssembly Memory64)',
    );
    // WebGPU: a GPU, one without the 16-bit floats llama.cpp's WebGPU needs, a software one only (SwiftShader: slower than the CPU), or not asked yet.
    expect(lines({ gpu: { kind: 'hardware', name: 'nvidia ampere', f16: true } })[9]).toBe('A model in this browser: yes, on the GPU through WebGPU (nvidia ampere), with up to 4 threads');
    expect(lines({ gpu: { kind: 'hardware', name: 'intel gen-9', f16: false } })[9]).toBe(
      'A model in this browser: yes, on the CPU (the GPU WebGPU offers here, intel gen-9, lacks the 16-bit floats llama.cpp needs), with up to 4 threads',
    );
    expect(lines({ gpu: { kind: 'software', name: 'google swiftshader', f16: false } })[9]).toBe(
      'A model in this browser: yes, on the CPU (WebGPU offers only a software GPU here, google swiftshader, slower), with up to 4 threads',
    );
    expect(lines({ gpu: null })[9]).toBe('A model in this browser: yes, on the CPU unless WebGPU offers a GPU, with up to 4 threads');
    expect(bare[10]).toMatch(/^input\(\): no: this window has no shared memory and no service worker/);
    expect(lines({ persisted: true })[8]).toBe('Keep data on this device: granted');
  });

  it("reads in the reader's language: each line, and a failure of the service worker with its reason", async () => {
    await setLocale('fr');
    try {
      const french = browserPaths({ ...ALL, gpu: { kind: 'hardware', name: 'nvidia ampere', f16: true } }).map((p) => tell(p.said));
      expect(french).toEqual([
        'Arrêter : interrompt',
        'Isolation cross-origin : oui, par les en-têtes de l’hébergeur',
        'Réseau de Python : ce site et l’index des paquets seulement (la règle de l’hébergeur)',
        'Hors ligne : oui',
        'Changement de pile de Python (JSPI) : oui, PyTabs n’en a pas besoin',
        'Téléchargements décodés au fil de l’eau : oui',
        'Un onglet par session (Web Locks) : oui',
        'Autres onglets avertis des changements : immédiatement',
        'Garder les données sur cet appareil : peut être demandé',
        'Un modèle dans ce navigateur : oui, sur le GPU via WebGPU (nvidia ampere), avec jusqu’à 4 fils d’exécution',
        'input() : vous attend (mémoire partagée)',
      ]);
      const bare = browserPaths({ ...ALL, jspi: false, memory64: false, isolated: false, offline: worker({ offline: 'failed', error: said('libb_sw_files_missing', { missing: 3, files: 40 }) }) });
      expect(tell(bare[3].said)).toBe('Hors ligne : non : 3 des 40 fichiers de l’appli n’ont pas pu être gardés ; la prochaine visite réessaiera');
      expect(tell(bare[9].said)).toBe(
        'Un modèle dans ce navigateur : oui, sur le processeur (pas de GPU via WebGPU ici), avec un seul fil d’exécution (la page n’est pas isolée cross-origin), dans la version compatible, plus lente (il manque à ce navigateur WebAssembly JSPI et WebAssembly Memory64)',
      );
    } finally {
      await setLocale('en');
    }
  });

  it('says how input() waits: on shared memory, else through the service worker that controls the page', () => {
    const input = (facts: Partial<BrowserFacts>) => lines({ sharedMemory: false, ...facts }).at(-1);
    expect(input({ sharedMemory: true, offline: null })).toBe('input(): waits for you (shared memory)');
    expect(input({})).toBe('input(): waits for you (service worker)');
    expect(input({ offline: worker({ offline: 'ready', controlled: false }) })).toMatch(/^input\(\): no: not yet, .*reload/);
  });

  it('says offline "yes" only when a service worker is registered and controls the page, and why not otherwise', () => {
    const offline = (status: AppServiceWorkerStatus | null) => lines({ offline: status })[3];
    expect(offline(worker({ offline: 'ready', controlled: true }))).toBe('Offline: yes');
    expect(offline(worker({ offline: 'ready', controlled: false }))).toMatch(/^Offline: no: .*reload/);
    expect(offline(worker({ offline: 'installing' }))).toMatch(/^Offline: no: being kept/);
    expect(offline(worker({ offline: 'after-first-run' }))).toMatch(/^Offline: no: not yet/);
    expect(offline(worker({ offline: 'failed', error: said('libb_sw_register_failed', { error: 'SecurityError: The operation is insecure.' }) }))).toBe(
      'Offline: no: the service worker could not be registered (SecurityError: The operation is insecure.)',
    );
    expect(offline(worker({ unavailable: 'development' }))).toMatch(/^Offline: no: the development server/);
    expect(offline(null)).toMatch(/^Offline: no: /);
  });

  it('says where isolation and the worker\'s network policy come from: the host, PyTabs\' service worker, or nowhere yet', () => {
    const on = (facts: Partial<BrowserFacts>) => lines(facts).slice(1, 3);
    const plainHost = { host: { isolation: false, workerPolicy: false } };
    expect(on({ ...plainHost, isolated: true })).toEqual([
      "Cross-origin isolated: yes, by PyTabs' service worker (the host sends no headers)",
      "Python's network: this site and the package index only (PyTabs' service worker)",
    ]);
    // A first visit: the service worker took the page over, but its headers come with the next page it serves.
    expect(on({ ...plainHost, isolated: false, offline: worker({ offline: 'after-first-run', controlled: true }) })).toEqual([
      "Cross-origin isolated: from the next visit (the host sends no headers; PyTabs' service worker adds them to the pages it serves)",
      "Python's network: this site and the package index only (PyTabs' service worker)",
    ]);
    expect(on({ ...plainHost, isolated: false, offline: worker({ offline: 'after-first-run', controlled: false }) })[1]).toBe(
      "Python's network: not limited until the next visit (the host sends no policy for the session worker)",
    );
    expect(on({ ...plainHost, isolated: false, offline: worker({ offline: 'failed', error: said('libb_sw_none_active') }) })[0]).toBe(
      "Cross-origin isolated: no: the host sends no headers and PyTabs' service worker is not running",
    );
    // Offline, the host cannot be asked: the fact stands without its source.
    expect(on({ isolated: true, host: { isolation: null, workerPolicy: null } })).toEqual([
      'Cross-origin isolated: yes',
      "Python's network: this site and the package index only (PyTabs' service worker)",
    ]);
  });

  it('detects each capability itself (Node has BroadcastChannel and DecompressionStream, no service workers)', () => {
    const found = detectCapabilities();
    expect(found.broadcastChannel).toBe(true);
    expect(found.gzipStreams).toBe(true);
    expect(found.serviceWorkers).toBe(false);
  });
});

describe('storage at risk', () => {
  it('tells Safari\'s 7-day rule where it can be detected, else the general risk, and nothing once persisted', () => {
    const safari = storageRisk({ persisted: false, persistRequest: true, standalone: false })!;
    expect(safari.text).toContain('7 days');
    expect(safari.homeScreen).toBe(true);
    const other = storageRisk({ persisted: false, persistRequest: true, standalone: undefined })!;
    expect(other.text).toContain('may delete PyTabs’ data after some time without a visit or when space runs low');
    expect(other).toMatchObject({ homeScreen: false, canAsk: true });
    expect(storageRisk({ persisted: false, persistRequest: false, standalone: undefined })!.canAsk).toBe(false);
    expect(storageRisk({ persisted: true, persistRequest: true, standalone: undefined })).toBeNull();
    // From the Home Screen Safari keeps the data: only the general risk remains.
    expect(storageRisk({ persisted: true, persistRequest: true, standalone: true })).toBeNull();
  });

  it('is remembered once dismissed, in the settings store', async () => {
    const store = new SettingsStore(await openDb('storage-risk-notice'));
    expect(await storageNoticeDone(store)).toBe(false);
    await markStorageNoticeDone(store);
    expect(await storageNoticeDone(store)).toBe(true);
  });
});
