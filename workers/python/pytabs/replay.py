"""The top-level statements that re-create a session's imports, functions and classes.

Modules cannot be pickled, and functions and classes pickle only by name, so
a restore re-runs the statements that made them; their source is kept with
the session's history.
"""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Iterator, Mapping
from typing import Literal

Statement = ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
How = Literal['import', 'definition']

_MISSING = object()


def replay_statements(tree: ast.Module) -> list[Statement]:
    """The module's own top-level imports, defs and classes, in order (nested ones are not replayed)."""
    return [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]


def statement_source(source: str, node: Statement) -> str:
    """The exact text of node in source, its decorators included."""
    decorators = getattr(node, 'decorator_list', None)
    # A decorator's own position is that of its expression, after the '@';
    # a decorated statement cannot follow ';', so it starts its line.
    start_line, start_col = (decorators[0].lineno, 0) if decorators else (node.lineno, node.col_offset)
    span = types.SimpleNamespace(
        lineno=start_line, col_offset=start_col, end_lineno=node.end_lineno, end_col_offset=node.end_col_offset
    )
    text = ast.get_source_segment(source, span)  # type: ignore[arg-type]
    if text is None:
        raise ValueError('a parsed statement always has a position')  # never shown: ast gives every statement one
    return text


def bound_names(node: Statement) -> list[str]:
    """The names the statement binds, as far as they are known without running it."""
    if isinstance(node, ast.Import):
        return [alias.asname or alias.name.partition('.')[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [alias.asname or alias.name for alias in node.names]
    return [node.name]


def bindings(node: Statement, namespace: Mapping[str, object]) -> Iterator[tuple[str, object, How]]:
    """(name, value, how) for each name whose current value re-running node would bind again.

    A later statement of the same cell may have rebound a name (``import json``
    then ``json = 1``); such a name is not yielded, so its value gets pickled.
    """
    for name, expected, how in _expected_bindings(node, namespace):
        value = namespace.get(name, _MISSING)
        if value is expected and value is not _MISSING and _is_replayable(value):
            yield name, value, how


def _expected_bindings(node: Statement, namespace: Mapping[str, object]) -> Iterator[tuple[str, object, How]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            target = alias.name if alias.asname else alias.name.partition('.')[0]
            yield alias.asname or target, sys.modules.get(target, _MISSING), 'import'
    elif isinstance(node, ast.ImportFrom):
        # Relative imports have no package to be relative to in __main__.
        module = sys.modules.get(node.module or '') if node.level == 0 else None
        if module is None:
            return
        for alias in node.names:
            if alias.name == '*':
                for name in _star_names(module):
                    yield name, getattr(module, name, _MISSING), 'import'
            else:
                value = getattr(module, alias.name, _MISSING)
                if value is _MISSING:
                    value = sys.modules.get(f'{node.module}.{alias.name}', _MISSING)
                yield alias.asname or alias.name, value, 'import'
    else:
        value = namespace.get(node.name, _MISSING)
        # Decorators may wrap the function; functools.wraps keeps these two names.
        defined_here = (
            getattr(value, '__module__', None) == '__main__' and getattr(value, '__qualname__', None) == node.name
        )
        yield node.name, value if defined_here else _MISSING, 'definition'


def _star_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, '__all__', None)
    if names is None:
        return [name for name in vars(module) if not name.startswith('_')]
    return [str(name) for name in names]


def _is_replayable(value: object) -> bool:
    """Modules, classes and functions come back by replay; plain values are pickled instead."""
    return isinstance(value, (types.ModuleType, type)) or callable(value)
