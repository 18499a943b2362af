"""An assignment's program tests, as Python has them: a program run on a case's input lines, and a teacher's compare function.

A case is what course judges check: "with these input lines, the program prints
this". ``run_program`` runs the student's program as a script would
(``__name__ == '__main__'``) in a fresh namespace, never the session's, with
``sys.stdin`` holding the case's lines: when they run out, ``input()`` raises
``EOFError`` as CPython's does with piped input. It returns what the program printed
to stdout (an ``input()`` prompt is part of it, as it is for CPython with piped input)
and to stderr, and how it ended. It is never given the expected output: the page
compares (src/lib/assignments/compare.ts), with the teacher's copy of the cases, so
nothing a hand-in's code can reach holds what it should print.

``compare_outputs`` runs a teacher's ``def compare_…(expected, actual)`` for the
``function`` rule, in a worker that never ran a student's code.

This module imports nothing of the browser: CPython runs it too (the tests' referee).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import sys
import time
import traceback
from typing import Any, Literal, TypedDict

from .checks import CHECKS_FILE, CutWriter, Said, said

# The pseudo-file the program is compiled as when it is not a file of the workspace.
PROGRAM_FILE = '<program>'


class ProgramRun(TypedDict):
    """What one run of a program on a case's input came to."""

    # What it printed to stdout, and to stderr with its traceback, each cut at the limit.
    stdout: str
    stderr: str
    # finished: ran to its end (or exit(0)); raised: an exception, or a non-zero exit;
    # cut: printed more than the limit; stopped: interrupted (Stop, or the page's time limit).
    ended: Literal['finished', 'raised', 'cut', 'stopped']
    # The exception's class name when it did not finish ('SystemExit', 'OutputLimit', 'KeyboardInterrupt').
    error: str | None
    # How it did not finish, said ('raised ValueError: …'); '' when it finished.
    message: str | Said
    # Milliseconds the program ran.
    ms: float


class CompareVerdict(TypedDict):
    passed: bool
    # What the student reads when it failed: the assert's message as written, else said.
    message: str | Said
    # The exception's class name when the compare function could not decide; else None.
    error: str | None


def run_program(source: str, filename: str, input_text: str, output_limit: int) -> ProgramRun:
    """Runs ``source`` with ``input_text`` as its stdin and returns what it printed. Never raises.

    A KeyboardInterrupt (the page's time limit, or Stop) ends it as ``stopped``.
    """
    out, err = CutWriter(output_limit), CutWriter(output_limit)
    namespace: dict[str, Any] = {'__name__': '__main__', '__builtins__': builtins, '__file__': filename}
    stdin = sys.stdin
    error: str | None = None
    t0 = time.perf_counter()
    try:
        sys.stdin = io.StringIO(input_text)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                # Tracebacks show the program's lines.
                linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
                code = compile(source, filename, 'exec', dont_inherit=True)
                exec(code, namespace)
            except SystemExit as exc:
                # exit() ends a script; a non-zero status is a failure a judge reports.
                if exc.code not in (None, 0):
                    error = 'SystemExit'
                    print(f'SystemExit: {exc.code}', file=sys.stderr)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - the student's program may raise anything
                error = type(exc).__name__
                # The student's own frames: this module's are not theirs.
                tb = exc.__traceback__.tb_next if exc.__traceback__ else None
                traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    except KeyboardInterrupt:
        return _ran(out, err, 'stopped', 'KeyboardInterrupt', said('asg_raised_bare', error='KeyboardInterrupt'), t0)
    finally:
        sys.stdin = stdin
    if out.cut:
        return _ran(out, err, 'cut', 'OutputLimit', said('asg_printed_too_much', count=output_limit), t0)
    if error:
        # The traceback's last line ('ValueError: …') is Python's own words.
        detail = err.kept().rstrip().split('\n')[-1] if err.kept().strip() else error
        return _ran(out, err, 'raised', error, said('asg_raised_line', line=detail), t0)
    return _ran(out, err, 'finished', None, '', t0)


def _ran(out: CutWriter, err: CutWriter, ended: Literal['finished', 'raised', 'cut', 'stopped'], error: str | None, message: str | Said, t0: float) -> ProgramRun:
    return {'stdout': out.kept(), 'stderr': err.kept(), 'ended': ended, 'error': error, 'message': message, 'ms': (time.perf_counter() - t0) * 1000}


def compare_outputs(check_source: str, name: str, expected: str, actual: str) -> CompareVerdict:
    """The teacher's compare function's verdict on ``actual``: True or None passes, an assert's message fails. Never raises but KeyboardInterrupt."""
    scope: dict[str, Any] = {'__name__': '__checks__'}
    try:
        exec(compile(check_source, CHECKS_FILE, 'exec', dont_inherit=True), scope)
        compare = scope.get(name)
        if not callable(compare):
            return {'passed': False, 'message': said('asg_no_compare_function', name=name), 'error': 'NameError'}
        try:
            verdict = compare(expected, actual)
        except AssertionError as exc:
            return {'passed': False, 'message': str(exc) or said('asg_output_not_expected'), 'error': None}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the teacher's compare raised
        return {'passed': False, 'message': said('asg_function_raised', name=name, error=type(exc).__name__, detail=str(exc)), 'error': type(exc).__name__}
    if verdict is True or verdict is None:
        return {'passed': True, 'message': '', 'error': None}
    return {'passed': False, 'message': said('asg_output_not_expected'), 'error': None}
