"""Standard input that waits for the person: ``input()``, ``sys.stdin.readline()`` and ``getpass``.

The worker asks the page for each line through a function it installs after
Python started (the start snapshot must hold no JS object, so nothing here
imports ``js``). CPython's ``input()`` sees a stream without a file
descriptor, so it takes its plain path: it writes the prompt to
``sys.stdout``, flushes it and calls ``sys.stdin.readline()``.
"""

from __future__ import annotations

import getpass
import io
import sys
from collections.abc import Callable
from typing import Protocol

from .said import Said, error, said, words
from .turtle_picture import flush_all as flush_turtle_pictures


class Answer(Protocol):
    """What the page answered to one request for a line.

    ``kind`` is ``'line'`` (``text`` holds it, without its newline), ``'eof'``
    (the person ended the input), ``'cancelled'`` (the run was stopped while it
    waited) or ``'refused'`` (nobody can answer here; ``text`` says why in the
    page's words, or ``said`` in the worker's, as a said text).
    """

    kind: str
    text: str


# ask(password, turtle_wait_ms): turtle_wait_ms is None for a line; for a turtle's event loop, how
# long the page may wait for a click or key before it answers that the time is up (-1: no limit).
Ask = Callable[[bool, 'int | None'], Answer]

# The installed ask, for a turtle's event loop (turtle.py); None until the worker installs one.
_installed: Ask | None = None


class PersonStdin(io.TextIOBase):
    """``sys.stdin`` for a session: each line is asked of the person when a read needs it."""

    def __init__(self, ask: Ask) -> None:
        super().__init__()
        self._ask = ask
        self._pending = ''

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return 'utf-8'

    @property
    def name(self) -> str:
        return '<stdin>'

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        # Raising keeps input() off its terminal path, which would read file descriptor 0.
        raise io.UnsupportedOperation('fileno')  # CPython's words (an io.StringIO says the same)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if size == 0:
            return ''
        if not self._pending:
            # What the program printed reaches the page before the question (input() flushes; a bare readline does not).
            sys.stdout.flush()
            # A turtle drawing so far shows while the program waits (at speed 0 its last changes may still be held).
            flush_turtle_pictures()
            # Each read past the end asks again, as a terminal does after Ctrl+D.
            line = _line(self._ask(False, None))
            if line is None:
                return ''
            # No echo: the worker reports the line as an input event of its own, so stdout
            # holds what the program printed, as when its input is piped.
            self._pending = line
        if size is None or size < 0:
            size = len(self._pending)
        taken, self._pending = self._pending[:size], self._pending[size:]
        return taken

    def read(self, size: int | None = -1) -> str:
        if size is not None and size >= 0:
            return self.readline(size)
        parts = []
        while line := self.readline():
            parts.append(line)
        return ''.join(parts)

    def readlines(self, hint: int = -1) -> list[str]:  # type: ignore[override]
        return list(self)

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def _line(answer: Answer) -> str | None:
    """The answer's text with its newline, None at the end of input; raises for a stop or a refusal."""
    if answer.kind == 'line':
        return str(answer.text) + '\n'
    if answer.kind == 'eof':
        return None
    if answer.kind == 'cancelled':
        raise KeyboardInterrupt
    raise _refusal(answer)


def _refusal(answer: Answer) -> EOFError:
    """Why nobody can answer: the page's words, or the worker's said text put in the session's words."""
    text = getattr(answer, 'said', None)
    if text is None:
        return EOFError(str(answer.text))
    # A JS object from the worker; a dict where a test answers from Python.
    plain: Said = text.to_py() if hasattr(text, 'to_py') else text
    return error(EOFError, plain)


def _getpass_with(ask: Ask) -> Callable[..., str]:
    def ask_password(prompt: str | None = None, stream: object = None) -> str:
        """Asks for a line in a masked field; the answer is never written to the output."""
        # PyTabs' own default prompt (CPython's is 'Password: '), in the session's language.
        sys.stdout.write(words(said('rt_py_password_prompt')) if prompt is None else prompt)
        sys.stdout.flush()
        line = _line(ask(True, None))
        if line is None:
            raise EOFError
        return line[:-1]

    return ask_password


def install(ask: Ask) -> None:
    """Makes ``sys.stdin`` and ``getpass.getpass`` ask the person through ``ask(password, None)``."""
    global _installed
    _installed = ask
    sys.stdin = PersonStdin(ask)
    getpass.getpass = _getpass_with(ask)


def wait_for_event(wait_ms: int | None) -> str | None:
    """Waits for a click or key on the run's turtle drawing, as JSON, or up to wait_ms for
    ``{"kind": "timer"}``; None when nobody can answer here (raises KeyboardInterrupt on Stop)."""
    if _installed is None:
        return None
    flush_turtle_pictures()
    answer = _installed(False, -1 if wait_ms is None else max(0, int(wait_ms)))
    if answer.kind == 'line':
        return str(answer.text)
    if answer.kind == 'cancelled':
        raise KeyboardInterrupt
    return None
