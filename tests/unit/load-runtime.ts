import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { englishPythonMessages } from '../../src/lib/i18n/python-english';

const SOURCE_DIR = fileURLToPath(new URL('../../workers/python/pytabs/', import.meta.url));
/** Where the worker puts the package too, so tracebacks and paths look the same as in the browser. */
export const RUNTIME_DIR = '/pytabs_runtime';

/**
 * A fresh Pyodide (from node_modules) with the `pytabs` package on its sys.path,
 * installed the way the worker installs it: every .py file of the one flat package dir, and its English words.
 */
export async function loadRuntime(): Promise<PyodideInterface> {
  const pyodide = await loadPyodide();
  pyodide.FS.mkdirTree(`${RUNTIME_DIR}/pytabs`);
  for (const name of readdirSync(SOURCE_DIR).filter((file) => file.endsWith('.py'))) {
    pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/${name}`, readFileSync(path.join(SOURCE_DIR, name), 'utf8'));
  }
  // Its words in English, as the worker writes them before a session's start sends the reader's.
  pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/messages.json`, JSON.stringify(englishPythonMessages()));
  // Own globals, so __main__ (the user's namespace) starts as Python leaves it.
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(RUNTIME_DIR)})`, {
    globals: pyodide.toPy({}),
  });
  return pyodide;
}
