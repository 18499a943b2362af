"""Referee for tests/unit/explain.test.ts: runs each program in Debian's CPython and reports what it raised.

Reads a JSON list of programs on stdin; prints, for each, the exception's class name and what
pytabs.explain makes of it in this CPython (the same module the session's Pyodide runs), so the
test checks that each program really raises its error outside Pyodide too.
"""

import io
import json
import linecache
import sys

sys.path.insert(0, sys.argv[1])
from pytabs.explain import explain_error  # noqa: E402

CELL = '<cell-1>'


def main() -> None:
    results = []
    for source in json.load(sys.stdin):
        linecache.cache[CELL] = (len(source), None, source.splitlines(keepends=True), CELL)
        sys.stdin = io.StringIO('')
        sys.stdout = io.StringIO()
        sys.setrecursionlimit(200)
        try:
            exec(compile(source, CELL, 'exec'), {'__name__': '__main__'})
            results.append({'ename': None})
        except BaseException as exc:
            sys.setrecursionlimit(1000)
            results.append({'ename': type(exc).__name__, **explain_error(exc, CELL, lambda f: f == CELL)})
    sys.stdout = sys.__stdout__
    print(json.dumps(results))


main()
