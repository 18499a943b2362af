// Baseline for a run's round trip: runPython('pass') behind Comlink, with nothing else around it.
import * as Comlink from './comlink.mjs';
import { loadPyodide } from '/pyodide/pyodide.mjs';

let pyodide;
Comlink.expose({
  async load(indexURL) {
    pyodide = await loadPyodide({ indexURL });
  },
  run(code) {
    pyodide.runPython(code);
  },
});
