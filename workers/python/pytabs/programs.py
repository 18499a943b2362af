"""An assignment's program tests: the student's program run on a case's input lines, its output compared.

A case is what course judges check: "with these input lines, the program prints
this". The program runs as a script would (``__name__ == '__main__'``) in a fresh
namespace, never the session's, with ``sys.stdin`` holding the case's lines: when
they run out, ``input()`` raises ``EOFError`` as CPython's does with piped input.
Its stdout is what is compared (an ``input()`` prompt is part of it, as it is for
CPython with piped input); its stderr is kept beside it for the reader.

The comparison rules:

- ``judge`` (the default): as course judges do, trailing spaces of each line and
  trailing blank lines are ignored;
- ``exact``: the text as it is;
- ``numbers``: the same words, numbers within ``tolerance`` (absolute or relative);
- ``function``: the teacher's ``def compare_…(expected, actual)`` in the check
  source decides: it returns True or False, or fails an ``assert`` whose message
  the student reads.

This module imports nothing of the browser: CPython runs it too (the tests' referee).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import math
import sys
import traceback
from typing import Any, TypedDict

from .checks import CHECKS_FILE, CutWriter

# The pseudo-file the program is compiled as when it is not a file of the workspace.
PROGRAM_FILE = '<program>'


class CaseOutcome(TypedDict):
    passed: bool
    # What the student reads: why it failed, or '' when it passed.
    message: str
    # The exception's class name when the program (or the teacher's compare) raised; else None.
    error: str | None
    # What the program printed to stdout (cut at the limit), and to stderr with its traceback.
    actual: str
    stderr: str
    # The first line (from 1) where actual and expected differ under the rule; None when they agree.
    line: int | None


def judge_lines(text: str) -> list[str]:
    """The lines a judge compares: each without trailing spaces, without the blank lines at the end."""
    lines = [line.rstrip() for line in text.split('\n')]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _number(word: str) -> float | None:
    try:
        value = float(word)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def _words_agree(expected: str, actual: str, tolerance: float) -> bool:
    a, b = expected.split(), actual.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        nx, ny = _number(x), _number(y)
        if nx is not None and ny is not None:
            if not math.isclose(nx, ny, rel_tol=tolerance, abs_tol=tolerance):
                return False
        elif x != y:
            return False
    return True


def _compared_lines(text: str, rule: str) -> list[str]:
    return text.split('\n') if rule == 'exact' else judge_lines(text)


def first_difference(expected: str, actual: str, rule: str, tolerance: float = 0.0) -> int | None:
    """The first line (from 1) where ``actual`` differs from ``expected`` under ``rule``; None when they agree."""
    want, got = _compared_lines(expected, rule), _compared_lines(actual, rule)
    for i in range(max(len(want), len(got))):
        if i >= len(want) or i >= len(got):
            return i + 1
        same = _words_agree(want[i], got[i], tolerance) if rule == 'numbers' else want[i] == got[i]
        if not same:
            return i + 1
    return None


def difference_message(expected: str, actual: str, rule: str, line: int) -> str:
    """The student's words for the first difference, at ``line``."""
    want, got = _compared_lines(expected, rule), _compared_lines(actual, rule)
    if line > len(got):
        return f'line {line}: expected {want[line - 1]!r}, but the output ended'
    if line > len(want):
        return f'line {line}: expected no more output, got {got[line - 1]!r}'
    return f'line {line}: expected {want[line - 1]!r}, got {got[line - 1]!r}'


def _compare_with(check_source: str, name: str, expected: str, actual: str) -> tuple[bool, str, str | None]:
    """The teacher's compare function's verdict: (passed, message, error name)."""
    scope: dict[str, Any] = {'__name__': '__checks__'}
    exec(compile(check_source, CHECKS_FILE, 'exec', dont_inherit=True), scope)
    compare = scope.get(name)
    if not callable(compare):
        return False, f'The checks define no function {name} to compare outputs with.', 'NameError'
    try:
        verdict = compare(expected, actual)
    except AssertionError as exc:
        return False, str(exc) or 'the output is not the one expected', None
    if verdict is True or verdict is None:
        return True, '', None
    return False, 'the output is not the one expected', None


def run_case(
    source: str,
    filename: str,
    input_text: str,
    expected: str,
    rule: str,
    tolerance: float,
    check_source: str,
    compare_name: str,
    output_limit: int,
) -> CaseOutcome:
    """Runs ``source`` on one case and compares its output with ``expected``. Never raises.

    A KeyboardInterrupt (the page's time limit, or Stop) ends the case as failed with
    the error name ``KeyboardInterrupt``; the page words it.
    """
    out, err = CutWriter(output_limit), CutWriter(output_limit)
    namespace: dict[str, Any] = {'__name__': '__main__', '__builtins__': builtins, '__file__': filename}
    stdin = sys.stdin
    error: str | None = None
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
        return _outcome(False, 'raised KeyboardInterrupt', 'KeyboardInterrupt', out, err, None)
    finally:
        sys.stdin = stdin
    actual = out.kept()
    if out.cut:
        return _outcome(False, f'printed more than {output_limit} characters', 'OutputLimit', out, err, None)
    if error:
        detail = err.kept().rstrip().split('\n')[-1] if err.kept().strip() else error
        return _outcome(False, f'raised {detail}', error, out, err, first_difference(expected, actual, rule if rule != 'function' else 'judge', tolerance))
    if rule == 'function':
        try:
            passed, message, raised = _compare_with(check_source, compare_name, expected, actual)
        except KeyboardInterrupt:
            return _outcome(False, 'raised KeyboardInterrupt', 'KeyboardInterrupt', out, err, None)
        except BaseException as exc:  # noqa: BLE001 - the teacher's compare raised
            passed, message, raised = False, f'{compare_name} raised {type(exc).__name__}: {exc}', type(exc).__name__
        line = None if passed else first_difference(expected, actual, 'judge')
        return _outcome(passed, message, raised, out, err, line)
    line = first_difference(expected, actual, rule, tolerance)
    if line is None:
        return _outcome(True, '', None, out, err, None)
    return _outcome(False, difference_message(expected, actual, rule, line), None, out, err, line)


def _outcome(passed: bool, message: str, error: str | None, out: CutWriter, err: CutWriter, line: int | None) -> CaseOutcome:
    return {'passed': passed, 'message': message, 'error': error, 'actual': out.kept(), 'stderr': err.kept(), 'line': line}
