"""Records each program given with CPython's own turtle (run it under xvfb-run): prints {name: record} as JSON.

Each program runs in a fresh interpreter of its own, as a student's would; each gets LINE on
its standard input (for programs that ask).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(line: str, programs: list[str]) -> None:
    records = {}
    for program in programs:
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, 'recorder.py'), program],
            input=line + '\n', capture_output=True, text=True, timeout=120,
        )
        if done.returncode != 0:
            raise SystemExit(f'{program} failed under CPython:\n{done.stderr}')
        records[os.path.basename(program)] = json.loads(done.stdout)
    print(json.dumps(records))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
