import * as Comlink from 'comlink';
import { keepLocalSnapshot } from '../src/lib/local-snapshot';
import { packSnapshot } from '../src/lib/snapshot-codec';
import type { SnapshotMakerApi } from '../src/lib/worker-api';
import { interceptLoad } from './runtime/load-fetches';
import { pyodideScript, type CreatePyodideModule } from './runtime/pyodide-script';
import { RUNTIME_SOURCES } from './runtime/python-files';
import { makeSnapshot, snapshotFileName } from './runtime/snapshot';

// A worker of its own, serving no session, that makes the start snapshot on this device the
// way the build makes it (nothing else happens in its Python first: the snapshot would fail
// after a package load or with a JS object held), keeps it, and is then terminated.

let giveWasm: (module: WebAssembly.Module | undefined) => void = () => undefined;
const wasm = new Promise<WebAssembly.Module | undefined>((resolve) => (giveWasm = resolve));

const api: SnapshotMakerApi = {
  async make(indexURL) {
    const fetches = interceptLoad(indexURL, { compiled: wasm });
    // Pyodide's module script from its decoded .gz copy, as the session worker imports it.
    const script = pyodideScript(indexURL);
    const createPyodideModule: CreatePyodideModule = async (settings) => (await script)(settings);
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = (await makeSnapshot(RUNTIME_SOURCES, { indexURL, createPyodideModule })) as Uint8Array<ArrayBuffer>;
    } finally {
      fetches.restore();
    }
    const file = await snapshotFileName(RUNTIME_SOURCES);
    // Kept if the device lets it (a full quota does not): the page uses it either way.
    await keepLocalSnapshot(indexURL, file, packSnapshot(bytes)).catch(() => undefined);
    return Comlink.transfer({ file, bytes }, [bytes.buffer]);
  },
  async supplyWasm(module) {
    giveWasm(module);
  },
};

Comlink.expose(api);
