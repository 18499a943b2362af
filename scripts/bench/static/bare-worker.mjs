// Baseline: a worker that does nothing but load Pyodide from the app's own served core.
import { loadPyodide } from '/pyodide/pyodide.mjs';

self.onmessage = async (e) => {
  try {
    await loadPyodide({ indexURL: e.data.indexURL });
    self.postMessage({});
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
