import type { PyodideInterface } from 'pyodide';
import { RUNTIME_DIR } from './snapshot';
import { englishPythonMessages } from '../../src/lib/i18n/python-english';

export { RUNTIME_DIR };

// The runtime's .py files, bundled as text by Vite (and by Vitest in Node tests).
const sources = import.meta.glob('../python/pytabs/*.py', { query: '?raw', import: 'default', eager: true }) as Record<
  string,
  string
>;

/** The runtime's sources by file name, as the snapshot's name is derived from them. */
export const RUNTIME_SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(sources).map(([file, text]) => [file.slice(file.lastIndexOf('/') + 1), text]),
);

/**
 * Writes the `pytabs` package into Pyodide's file system and puts it on sys.path, with its
 * messages in English (`messages.json`, read by said.py until a session's start sets the
 * reader's language). A Pyodide
 * restored from the snapshot already has the path (it is in Python's memory) but not the
 * files (the file system is not), which tracebacks and inspect still read.
 */
export function installRuntimeFiles(pyodide: PyodideInterface): void {
  pyodide.FS.mkdirTree(`${RUNTIME_DIR}/pytabs`);
  // As bytes: the file system's own encoding of a string is a JavaScript loop over its
  // characters, which a fresh worker runs cold (~20 ms for these 70 kB in Chromium).
  const encoder = new TextEncoder();
  for (const [name, text] of Object.entries(RUNTIME_SOURCES)) {
    pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/${name}`, encoder.encode(text));
  }
  pyodide.FS.writeFile(`${RUNTIME_DIR}/pytabs/messages.json`, encoder.encode(JSON.stringify(englishPythonMessages())));
  // Through a proxy rather than runPython, which would leave `sys` bound in the user's __main__.
  const sys = pyodide.pyimport('sys');
  if (!sys.path.includes(RUNTIME_DIR)) sys.path.insert(0, RUNTIME_DIR);
  sys.destroy();
}
