"""The referee of a program case's comparison: the judge rules as CPython's own str, float and math have them.

PyTabs compares on the page (src/lib/assignments/compare.ts); tests/unit/program-tests.test.ts
runs this with Debian's CPython on the same outputs and expects the same verdicts and messages.
Reads a JSON list of [expected, actual, rule, tolerance] and prints [line, message] for each.
"""

from __future__ import annotations

import json
import math
import sys


def judge_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.split('\n')]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def number(word: str) -> float | None:
    try:
        value = float(word)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def words_agree(expected: str, actual: str, tolerance: float) -> bool:
    a, b = expected.split(), actual.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        nx, ny = number(x), number(y)
        if nx is not None and ny is not None:
            if not math.isclose(nx, ny, rel_tol=tolerance, abs_tol=tolerance):
                return False
        elif x != y:
            return False
    return True


def compared(text: str, rule: str) -> list[str]:
    return text.split('\n') if rule == 'exact' else judge_lines(text)


def first_difference(expected: str, actual: str, rule: str, tolerance: float) -> int | None:
    want, got = compared(expected, rule), compared(actual, rule)
    for i in range(max(len(want), len(got))):
        if i >= len(want) or i >= len(got):
            return i + 1
        same = words_agree(want[i], got[i], tolerance) if rule == 'numbers' else want[i] == got[i]
        if not same:
            return i + 1
    return None


def message(expected: str, actual: str, rule: str, line: int) -> str:
    want, got = compared(expected, rule), compared(actual, rule)
    if line > len(got):
        return f'line {line}: expected {want[line - 1]!r}, but the output ended'
    if line > len(want):
        return f'line {line}: expected no more output, got {got[line - 1]!r}'
    return f'line {line}: expected {want[line - 1]!r}, got {got[line - 1]!r}'


if __name__ == '__main__':
    out = []
    for expected, actual, rule, tolerance in json.load(sys.stdin):
        line = first_difference(expected, actual, rule, tolerance)
        out.append([line, None if line is None else message(expected, actual, rule, line)])
    print(json.dumps(out))
