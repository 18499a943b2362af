import { readdirSync, readFileSync } from 'node:fs';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * No user-visible literal English in the messages PyTabs' Python runtime writes: what it
 * raises and prints is a said text (workers/python/pytabs/said.py: a catalog key `rt_py_…` and
 * its parameters), never words in the source. The sources are read with Python's own `ast`
 * (in Pyodide, the Python the runtime runs on). A string is reported, with its file and line,
 * when it reads as prose, or when it stands in a `raise` or a `print(...)` with two words or
 * more. Docstrings and the parameters of a `said(...)` call (code, names, what people wrote)
 * are not shown words. A statement marked `# CPython's words` holds the text CPython itself
 * writes: turtle's errors, kept as programs written for CPython expect them, and the error
 * messages explain.py recognises to explain them; one marked `# never shown` is caught inside
 * the runtime. Every .py file of workers/python/pytabs is read, so a new module cannot be missed.
 */
export const PYTHON_FILES = readdirSync(new URL('../../workers/python/pytabs', import.meta.url))
  .filter((file) => file.endsWith('.py'))
  .map((file) => `workers/python/pytabs/${file}`)
  .sort();

const PROSE = /^\s*\p{Lu}\p{Ll}*[’']?\p{Ll}*\s+\S|\p{L}{2,}\s+\p{L}{2,}.*[.!?…:]\s*$/u;
/** Four words in a row, as a reason held in a variable reads ('its stored pickle is missing'), unless they are identifiers (a list of turtle's methods). */
const SENTENCE = /\p{Ll}{2,}(?:\s+\p{Ll}{2,}){3}/u;
const IDENTIFIER = /\w_\w/;
const WORDS = /\p{L}+\s+\p{L}+/u;
const MARKS = ["# CPython's words", '# never shown'];

/** Every string literal of a module with where it stands, as Python's ast sees it (f-strings with {} for their values). */
const FINDER = `
import ast, json

def strings(source):
    tree = ast.parse(source)
    lines = source.split('\\n')
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docs.add(id(first.value))
    found = []

    def visit(node, statement, shown, in_said):
        if isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.Raise):
            shown = True
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ''
            if name == 'print':
                shown = True
            if name == 'said':
                in_said = True
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            if id(node) not in docs and not in_said:
                text = node.value if isinstance(node, ast.Constant) else ''.join(v.value if isinstance(v, ast.Constant) else '{}' for v in node.values)
                marked = '\\n'.join(lines[statement.lineno - 1:statement.end_lineno]) if statement else ''
                found.append({'line': node.lineno, 'text': text, 'shown': shown, 'marked': marked})
            if isinstance(node, ast.JoinedStr):
                return
        for child in ast.iter_child_nodes(node):
            visit(child, statement, shown, in_said)

    visit(tree, None, False, False)
    return json.dumps(found)
`;

export interface PythonLiteral {
  file: string;
  line: number;
  text: string;
}

let pyodide: PyodideInterface;

beforeAll(async () => {
  pyodide = await loadPyodide();
  pyodide.runPython(FINDER);
});

/** The shown English written into `source` (a .py file of the runtime) instead of said. */
export function pythonLiterals(file: string, source: string): PythonLiteral[] {
  const strings = pyodide.globals.get('strings') as (source: string) => string;
  const found = JSON.parse(strings(source)) as { line: number; text: string; shown: boolean; marked: string }[];
  return found
    .filter(({ text, shown, marked }) => (PROSE.test(text) || (SENTENCE.test(text) && !IDENTIFIER.test(text)) || (shown && WORDS.test(text))) && !MARKS.some((mark) => marked.includes(mark)))
    .map(({ line, text }) => ({ file, line, text }));
}

describe("the Python runtime's files", () => {
  it('reads every module of the runtime', () => {
    for (const file of ['executor.py', 'explain.py', 'guard.py', 'trace.py', 'inline_figures.py', 'turtle_colors.py']) expect(PYTHON_FILES).toContain(`workers/python/pytabs/${file}`);
  });

  for (const file of PYTHON_FILES) {
    it(`${file} raises and prints no literal English outside the catalogs`, () => {
      const literals = pythonLiterals(file, readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
      expect(literals.map((l) => `${l.file}:${l.line}: ${JSON.stringify(l.text)}`)).toEqual([]);
    });
  }

  it('finds what a module raises and prints in words, with its line, a reason kept in a variable, and leaves docstrings, said parameters, identifiers and marked lines', () => {
    const source = [
      'def f(path):',
      '    """Reads a file: this is documentation."""',
      "    raise ValueError(f'Cannot read {path!r}: it is damaged')",
      "    raise error(ValueError, said('rt_py_cannot_read', file=repr(path), cause=f'save({path!r}) as text'))",
      "    print('not a number', file=sys.stderr)",
      "    raise TurtleGraphicsError(f'bad color string: {path}')  # CPython's words",
      "    name = 'Python Turtle Graphics'",
      "    raise _no_tk('getcanvas()')",
      "    failures[name] = 'its stored pickle is missing'",
      "    _METHODS = 'back begin_fill forward left right'",
    ].join('\n');
    expect(pythonLiterals('x.py', source)).toEqual([
      { file: 'x.py', line: 3, text: 'Cannot read {}: it is damaged' },
      { file: 'x.py', line: 5, text: 'not a number' },
      { file: 'x.py', line: 7, text: 'Python Turtle Graphics' },
      { file: 'x.py', line: 9, text: 'its stored pickle is missing' },
    ]);
  });
});
