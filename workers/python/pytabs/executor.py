"""Running one cell of user code the way a notebook does, and reporting its errors."""

from __future__ import annotations

import ast
import inspect
import linecache
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any, NotRequired, TypedDict

from .said import Said, said_of

# Lets a cell `await` at top level, as in Jupyter; such a cell compiles to a coroutine.
_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


class ErrorInfo(TypedDict):
    ename: str
    evalue: str
    traceback: str
    # PyTabs' own message, when PyTabs raised the error: the page tells it in the reader's language.
    said: NotRequired[Said]
    # What it means in plain words, and its line in the cell (pytabs.explain).
    explanation: NotRequired[list[Said]]
    line: NotRequired[int]


@dataclass(frozen=True)
class Cell:
    """A parsed cell: its statements, and whether its value is shown."""

    filename: str
    source: str
    tree: ast.Module

    @property
    def shows_value(self) -> bool:
        """Whether the last statement is an expression not silenced by a trailing ';' (Jupyter's convention)."""
        if not self.tree.body or not isinstance(self.tree.body[-1], ast.Expr):
            return False
        last = self.tree.body[-1]
        # ast positions count UTF-8 bytes; bytes.splitlines breaks lines where the parser does.
        line = self.source.encode('utf-8').splitlines()[(last.end_lineno or last.lineno) - 1]
        return not line[last.end_col_offset or 0 :].lstrip().startswith(b';')


def parse_cell(source: str, filename: str) -> Cell:
    """Parses source; a SyntaxError names filename and carries the offending line."""
    remember_source(filename, source)
    tree = compile(source, filename, 'exec', flags=ast.PyCF_ONLY_AST | _FLAGS, dont_inherit=True)
    return Cell(filename, source, tree)


def remember_source(filename: str, source: str) -> None:
    """Makes the source of a pseudo-file visible to tracebacks and inspect.getsource.

    The entry's mtime of None tells linecache.checkcache to keep it.
    """
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)


async def execute(cell: Cell, namespace: dict[str, Any]) -> object:
    """Runs the cell in namespace; returns the value of its last expression if it is shown, else None."""
    body = cell.tree.body
    shown = cell.shows_value
    statements = body[:-1] if shown else body
    if statements:
        await _evaluate(_compile(ast.Module(body=statements, type_ignores=[]), cell.filename, 'exec'), namespace)
    if not shown:
        return None
    last = body[-1]
    assert isinstance(last, ast.Expr)
    return await _evaluate(_compile(ast.Expression(body=last.value), cell.filename, 'eval'), namespace)


def _compile(tree: ast.Module | ast.Expression, filename: str, mode: str) -> CodeType:
    return compile(tree, filename, mode, flags=_FLAGS, dont_inherit=True)


async def _evaluate(code: CodeType, namespace: dict[str, Any]) -> object:
    value = eval(code, namespace)
    if code.co_flags & inspect.CO_COROUTINE:
        value = await value
    return value


def describe_error(exc: BaseException, is_user_file: Callable[[str], bool]) -> ErrorInfo:
    """The error as the user should see it: only frames of their own code, ending in 'Name: message'."""
    report = traceback.TracebackException.from_exception(exc)
    _keep_user_frames(report, is_user_file, set())
    info: ErrorInfo = {
        'ename': type(exc).__name__,
        'evalue': _safe_str(exc),
        'traceback': ''.join(report.format()).rstrip('\n'),
    }
    text = said_of(exc)
    if text is not None:
        info['said'] = text
    return info


def _keep_user_frames(
    report: traceback.TracebackException, is_user_file: Callable[[str], bool], seen: set[int]
) -> None:
    """Drops runtime and library frames, here and in chained and grouped exceptions."""
    if id(report) in seen:
        return
    seen.add(id(report))
    report.stack = traceback.StackSummary.from_list(
        [frame for frame in report.stack if is_user_file(frame.filename)]
    )
    for linked in (report.__cause__, report.__context__, *(report.exceptions or ())):
        if linked is not None:
            _keep_user_frames(linked, is_user_file, seen)


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return f'<{type(exc).__name__} whose str() failed>'
