"""The referee of pytabs.trace: CPython's own ``sys.settrace`` over a program, written down plainly.

It runs a cell as PyTabs runs one (``pytabs.executor``: statements, then a last
expression on its own) in a fresh ``__main__``-like namespace, with ``input()`` reading
the given lines, and writes each trace event of the cell's frames in a canonical form
that tests/unit/trace.test.ts also makes from PyTabs' record:

- a step: ``{event, line, frames: [{name, line, vars}], stdout}``, frames outermost first;
- a value: ``'type:repr'`` when inline; an object (list, tuple, dict, set, instance) as
  ``{'#': n, ...}`` the first time it is met in the step and ``'#n'`` after, numbered in
  the order met (frames outermost first, variables in their order, depth first), so
  aliasing reads the same in both;
- stdout so far, with each line read by ``input()`` echoed as a terminal shows it.

This is independent of pytabs/trace.py on purpose: only the way a cell is run is shared.
Usage: ``python3 trace_referee.py`` with ``{"source": ..., "input": ...}`` as JSON on stdin.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import types
from typing import Any

from pytabs.executor import execute, parse_cell

FILE = '<cell-1>'


def canon(value: Any, seen: dict[int, int]) -> Any:
    if isinstance(value, (int, float, complex, bool, str, bytes, type(None))):
        return f'{type(value).__name__}:{value!r}'
    if isinstance(value, type):
        return f'class:{value.__qualname__}'
    if isinstance(value, types.ModuleType):
        return f'module:{value.__name__}'
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f'function:{value.__qualname__}'
    drawn = isinstance(value, (list, tuple, dict, set, frozenset)) or (
        type(value).__module__ != 'builtins' and isinstance(getattr(value, '__dict__', None), dict)
    )
    if not drawn:
        return f'{type(value).__name__}:{value!r}'
    if id(value) in seen:
        return f'#{seen[id(value)]}'
    seen[id(value)] = n = len(seen) + 1
    if isinstance(value, dict):
        return {'#': n, 'dict': [[canon(k, seen), canon(v, seen)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {'#': n, 'set': sorted((canon(v, seen) for v in value), key=json.dumps)}
    if isinstance(value, (list, tuple)):
        return {'#': n, 'list' if isinstance(value, list) else 'tuple': [canon(v, seen) for v in value]}
    attrs = {k: v for k, v in vars(value).items() if not k.startswith('__')}
    return {'#': n, 'instance': type(value).__qualname__, 'attrs': {k: canon(v, seen) for k, v in attrs.items()}}


def main() -> None:
    task = json.load(sys.stdin)
    namespace: dict[str, Any] = {'__name__': '__main__', '__builtins__': __builtins__}
    hidden = set(namespace)
    out = io.StringIO()
    steps: list[dict[str, Any]] = []

    class Echo(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            line = super().readline(size)
            out.write(line)
            return line

    def record(frame: types.FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != FILE:
            return None
        chain = []
        walk: types.FrameType | None = frame
        while walk is not None:
            if walk.f_code.co_filename == FILE:
                chain.append(walk)
            walk = walk.f_back
        seen: dict[int, int] = {}
        frames = []
        for f in reversed(chain):
            module = f.f_code.co_name == '<module>'
            names = {k: v for k, v in f.f_locals.items() if not k.startswith('__') and not (module and k in hidden)}
            frames.append({'name': f.f_code.co_name, 'line': f.f_lineno, 'vars': {k: canon(v, seen) for k, v in names.items()}})
        step = {'event': event, 'line': frame.f_lineno, 'frames': frames, 'stdout': out.getvalue()}
        if event == 'return':
            step['returned'] = canon(arg, seen)
        if event == 'exception':
            step['exception'] = arg[0].__name__
        steps.append(step)
        return record

    stdout, stdin = sys.stdout, sys.stdin

    class Tee:
        def write(self, text: str) -> int:
            out.write(text)
            return len(text)

        def flush(self) -> None:
            pass

    sys.stdout, sys.stdin = Tee(), Echo(task['input'])  # type: ignore[assignment]
    error = None
    try:
        cell = parse_cell(task['source'], FILE)
        sys.settrace(record)
        try:
            asyncio.run(execute(cell, namespace))
        finally:
            sys.settrace(None)
    except BaseException as exc:
        error = type(exc).__name__
    finally:
        sys.stdout, sys.stdin = stdout, stdin
    json.dump({'version': sys.version.split()[0], 'steps': steps, 'error': error}, sys.stdout)


if __name__ == '__main__':
    main()
