"""An assignment's checks: the teacher's ``def check_*():`` functions, run against a student's work.

A check reads the student's variables as globals (``assert total == 7654321, "..."``).
It runs in a copy of the session's namespace, never in the namespace itself, so
"Check my work" leaves every variable as it was: values are deep-copied, and the
session's own functions are rebuilt on the copy, so a student function that
assigns a global changes the copy's. A value that cannot be copied at all (a
generator, an open file) is shared; a check that mutates one is the teacher's
choice. Each check gets a fresh copy, so one check cannot prepare another.

The outcome of a check is what the student reads: passed, or the assert's
message, or the error it raised. What a check prints is kept up to a limit.
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import types
from typing import Any, TypedDict

from .executor import remember_source
from .said import said as said_text, words

# The pseudo-file the check source is compiled as, so tracebacks name it.
CHECKS_FILE = '<checks>'


class Said(TypedDict, total=False):
    # A catalog key and its parameters (src/lib/i18n/said.ts): the page puts it in the reader's words.
    key: str
    params: dict[str, Any]


def said(key: str, **params: Any) -> Said:
    """What PyTabs says, as the page's catalogs word it; a person's words stay plain strings."""
    return {'key': key, 'params': params} if params else {'key': key}


class CheckOutcome(TypedDict):
    name: str
    passed: bool
    # The student's message: the check's docstring when it passed, else the assert's message
    # (the teacher's words, as written) or why it failed (said).
    message: str | Said
    # The exception's class name when the check raised anything but AssertionError.
    error: str | None
    output: str


class CutWriter(io.TextIOBase):
    """Keeps what is written up to ``limit`` characters and drops the rest; ``cut`` tells whether it did."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0
        self.cut = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self._limit - self._size
        if room > 0:
            self._parts.append(text[:room])
            self._size += min(room, len(text))
        if len(text) > room:
            self.cut = True
        return len(text)

    def kept(self) -> str:
        return ''.join(self._parts)

    def text(self) -> str:
        """What was kept, with a line saying where it was cut."""
        return f"{self.kept()}\n{words(said_text('rt_py_output_cut', count=self._limit))}" if self.cut else self.kept()


def copy_namespace(namespace: dict[str, Any]) -> dict[str, Any]:
    """A namespace a check can use and change without touching ``namespace``."""
    out: dict[str, Any] = {}
    memo: dict[int, Any] = {}
    # Functions first, rebuilt on the copy, so values that hold them (a list of
    # callbacks) get the rebuilt ones through the memo.
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
            twin = types.FunctionType(value.__code__, out, value.__name__, value.__defaults__, value.__closure__)
            twin.__kwdefaults__ = copy.copy(value.__kwdefaults__)
            twin.__qualname__ = value.__qualname__
            twin.__doc__ = value.__doc__
            twin.__dict__.update(value.__dict__)
            memo[id(value)] = twin
            out[name] = twin
    for name, value in namespace.items():
        if name in out:
            continue
        if isinstance(value, (types.ModuleType, type)) or (name.startswith('__') and name.endswith('__')):
            out[name] = value
            continue
        out[name] = _copy_value(value, memo)
    return out


def _copy_value(value: Any, memo: dict[int, Any]) -> Any:
    try:
        return copy.deepcopy(value, memo)
    except Exception:
        pass
    try:
        return pickle.loads(pickle.dumps(value))
    except Exception:
        return value


def run_check(namespace: dict[str, Any], source: str, name: str, output_limit: int) -> CheckOutcome:
    """Runs the check ``name`` of ``source`` against a copy of ``namespace``. Never raises.

    A KeyboardInterrupt (the page's time limit) ends the check as failed with the
    error name ``KeyboardInterrupt``; the page words it ("did not finish in 30 s").
    """
    writer = CutWriter(output_limit)
    try:
        remember_source(CHECKS_FILE, source)
        scope = copy_namespace(namespace)
        with contextlib.redirect_stdout(writer), contextlib.redirect_stderr(writer):
            exec(compile(source, CHECKS_FILE, 'exec', dont_inherit=True), scope)
            check = scope.get(name)
            if not callable(check):
                return _failed(name, said('asg_no_check_function', name=name), 'NameError', writer)
            check()
        doc = (check.__doc__ or '').strip()
        return {'name': name, 'passed': True, 'message': doc, 'error': None, 'output': writer.text()}
    except AssertionError as exc:
        return _failed(name, _text(exc) or said('asg_check_failed', name=name), None, writer)
    except BaseException as exc:
        detail = _text(exc)
        error = type(exc).__name__
        return _failed(name, said('asg_raised', error=error, detail=detail) if detail else said('asg_raised_bare', error=error), error, writer)


def _failed(name: str, message: str | Said, error: str | None, writer: CutWriter) -> CheckOutcome:
    return {'name': name, 'passed': False, 'message': message, 'error': error, 'output': writer.text()}


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return ''
