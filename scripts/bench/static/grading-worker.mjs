// G2's baseline: what a teacher could do without PyTabs' grading, one hand-in per fresh worker
// that loads bare Pyodide, writes the student's data.xlsx, runs their code and then the
// checks in the same namespace (read_excel reads the first sheet with SheetJS, as the app's
// does), and answers with the points. Nothing sealed, nothing scanned, no time limits.
import { loadPyodide } from '/pyodide/pyodide.mjs';
import * as XLSX from '/bench/xlsx.mjs';

const HARNESS = `
import json
from js import sheetRows
from pyodide.ffi import to_js

def read_excel(path, sheet_name=0):
    with open(path, 'rb') as f:
        return json.loads(sheetRows(to_js(f.read()), sheet_name))

def _grade(code, check_source, checks):
    ns = {'read_excel': read_excel, '__name__': '__main__'}
    exec(code, ns)
    exec(check_source, ns)
    points = 0
    for name, worth in checks:
        try:
            ns[name]()
            points += worth
        except AssertionError:
            pass
    return points
`;

self.sheetRows = (bytes, sheet) => {
  const book = XLSX.read(bytes, { type: 'array' });
  return JSON.stringify(XLSX.utils.sheet_to_json(book.Sheets[book.SheetNames[sheet]]));
};

self.onmessage = async ({ data: { indexURL, book, code, checkSource, checks } }) => {
  try {
    const pyodide = await loadPyodide({ indexURL });
    pyodide.FS.writeFile('data.xlsx', new Uint8Array(book));
    pyodide.runPython(HARNESS);
    const points = pyodide.globals.get('_grade')(code, checkSource, pyodide.toPy(checks.map((c) => [c.name, c.points])));
    self.postMessage({ points });
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
