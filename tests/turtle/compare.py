"""Compares two turtle records (recorder.py): equal, with floats within a tolerance.

Prints nothing and exits 0 when they match; else prints the first differences (path, both
values) and exits 1. ``python3 compare.py expected.json actual.json``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOLERANCE = 1e-6


def differences(expected: Any, actual: Any, path: str = '$', found: list[str] | None = None, limit: int = 10) -> list[str]:
    found = [] if found is None else found
    if len(found) >= limit:
        return found
    numbers = (int, float)
    if isinstance(expected, bool) or isinstance(actual, bool):
        if expected is not actual:
            found.append(f'{path}: {expected!r} != {actual!r}')
    elif isinstance(expected, numbers) and isinstance(actual, numbers):
        # Headings wrap: 359.9999999 and 0.0 are the same direction.
        if abs(expected - actual) > TOLERANCE and abs(abs(expected - actual) - 360) > TOLERANCE:
            found.append(f'{path}: {expected!r} != {actual!r}')
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            found.append(f'{path}: {len(expected)} entries != {len(actual)}')
        for i, (e, a) in enumerate(zip(expected, actual)):
            differences(e, a, f'{path}[{i}]', found, limit)
    elif isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            found.append(f'{path}: keys {sorted(expected)} != {sorted(actual)}')
        for key in expected:
            if key in actual:
                differences(expected[key], actual[key], f'{path}.{key}', found, limit)
    elif expected != actual:
        found.append(f'{path}: {expected!r} != {actual!r}')
    return found


if __name__ == '__main__':
    with open(sys.argv[1]) as e, open(sys.argv[2]) as a:
        found = differences(json.load(e), json.load(a))
    print('\n'.join(found))
    sys.exit(1 if found else 0)
