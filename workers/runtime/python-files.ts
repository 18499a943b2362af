import type { PyodideInterface } from 'pyodide';

// The runtime's .py files, bundled as text by Vite (and by Vitest in Node tests).
const sources = import.meta.glob('../python/pytabs/*.py', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

export const RUNTIME_DIR = '/pytabs_runtime';

/** Writes the `pytabs` package into Pyodide's file system and puts it on sys.path. */
export function installRuntimeFiles(pyodide: PyodideInterface): void {
  pyodide.FS.mkdirTree(`${RUNTIME_DIR}/pytabs`);
  for (const [file, text] of Object.entries(sources)) {
    const name = file.slice(file.lastIndexOf('/') + 1);
    pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/${name}`, text);
  }
  // Through a proxy rather than runPython, which would leave `sys` bound in the user's __main__.
  const sys = pyodide.pyimport('sys');
  sys.path.insert(0, RUNTIME_DIR);
  sys.destroy();
}
