"""What grading can trust of a hand-in: the check machinery sealed before its code runs, and what its code reaches.

A hand-in's code runs in the same Python as the teacher's checks, so it can change
what the checks rely on. Two defences, neither a sandbox:

- ``Seal``: taken before the hand-in's first cell, it remembers every name of the
  modules the checks and program cases run on (``pytabs.checks``, ``pytabs.programs``,
  ``pytabs.runtime`` and the standard modules they use, ``builtins``), each
  function's code, defaults and closure, and the classes' attributes. ``changed()``
  names what differs; grading fails every check and case after such a change.
- ``scan``: a static look at a cell's code (Python's ``ast``) for what reaches past
  the student's own values: the browser (``js``, ``pyodide``), PyTabs' internals,
  the interpreter's (``sys.modules``, ``builtins``, ``gc``, ``inspect``, ``ctypes``,
  frames), a class that redefines equality or truth (``__eq__``, ``__hash__``,
  ``__bool__``, ...), writes to ``globals()``, imports by name. Each finding is a
  line and a reason for the teacher to read; it changes no grade.

This module imports nothing of the browser: CPython runs it too (the tests' referee).
"""

from __future__ import annotations

import ast
import sys
import types
from typing import Any, TypedDict


class Flag(TypedDict):
    # The cell (from 1) and the line in it (from 1).
    cell: int
    line: int
    why: str


# The modules a check or a case runs on: their names are sealed.
SEALED_MODULES = (
    'pytabs.checks',
    'pytabs.programs',
    'pytabs.runtime',
    'pytabs.executor',
    'pytabs.display',
    'pytabs.guard',
    'builtins',
    'copy',
    'pickle',
    'contextlib',
    'io',
    'types',
    'linecache',
    'traceback',
    'math',
)


def _fingerprint(value: Any) -> tuple[Any, ...]:
    """What a value is and, for a function or a class, what it does."""
    if isinstance(value, types.FunctionType):
        return (id(value), value.__code__, value.__defaults__, value.__kwdefaults__, tuple(id(c.cell_contents) for c in value.__closure__ or ()))
    if isinstance(value, type):
        return (id(value), tuple(sorted((k, id(v)) for k, v in vars(value).items())))
    return (id(value),)


_SEALED_KINDS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type)


class Seal:
    """The names of the sealed modules, and what each held, as they were when it was taken."""

    def __init__(self) -> None:
        self._taken: dict[str, dict[str, tuple[Any, ...]]] = {}
        # Each value is held, so that no id is reused by another object meanwhile.
        self._held: list[Any] = []
        for name in SEALED_MODULES:
            module = sys.modules.get(name)
            if module is None:
                continue
            # What the checks call: functions, classes, modules. Plain values (a module's state, builtins._) change as runs go.
            entries = {key: value for key, value in vars(module).items() if isinstance(value, _SEALED_KINDS) and not key.startswith('__')}
            self._held.append(entries)
            self._taken[name] = {key: _fingerprint(value) for key, value in entries.items()}

    def changed(self) -> list[str]:
        """The sealed names whose value (or code) is not what it was, as ``module.name``."""
        out: list[str] = []
        for name, taken in self._taken.items():
            module = sys.modules.get(name)
            now = vars(module) if module is not None else {}
            if module is None:
                out.append(name)
                continue
            for key, print_ in taken.items():
                if key not in now or _fingerprint(now[key]) != print_:
                    out.append(f'{name}.{key}')
        return out


def private_seal() -> Any:
    """A Seal whose own code lives in a namespace of its own, with its own copy of the built-ins.

    The worker holds the seal's ``changed`` (taken before any of the hand-in's code runs), so
    replacing this module's names, or a built-in the seal uses, afterwards changes nothing of it.
    """
    import builtins

    with open(__file__, encoding='utf-8') as f:
        source = f.read()
    namespace: dict[str, Any] = {'__name__': 'pytabs_private_guard', '__builtins__': dict(vars(builtins))}
    exec(compile(source, __file__, 'exec', dont_inherit=True), namespace)
    return namespace['Seal']()


# What reaches past the student's own values, by the name a cell uses.
_MODULES = {
    'js': "the browser's JavaScript (js)",
    'pyodide': 'Pyodide itself (pyodide)',
    'pyodide_js': 'Pyodide itself (pyodide_js)',
    '_pyodide': 'Pyodide itself (_pyodide)',
    'pytabs': "PyTabs' internals (pytabs)",
    'builtins': 'the built-in functions (builtins)',
    'gc': "the interpreter's objects (gc)",
    'inspect': 'frames and source (inspect)',
    'ctypes': 'memory (ctypes)',
    'importlib': 'imports by name (importlib)',
    'sys': None,  # sys itself is common; what a cell does with it is looked at below
}
_SYS_ATTRIBUTES = {'modules', '_getframe', 'settrace', 'setprofile', 'addaudithook', 'meta_path', 'path_hooks', 'stdout', 'stderr', '__stdout__'}
# Methods that let a value answer a comparison or a truth test as it pleases; ordering (__lt__) and __len__ are common in clean classes.
_DUNDERS = {'__eq__', '__ne__', '__hash__', '__bool__', '__instancecheck__', '__getattribute__'}
_CALLS = {
    '__import__': 'imports by name (__import__)',
    'globals': None,  # only a write through it is flagged
    'exec': 'runs code from text (exec)',
    'eval': 'runs code from text (eval)',
    'compile': 'compiles code from text (compile)',
    'setattr': None,
}


def scan(source: str, cell: int) -> list[Flag]:
    """What in a cell's code reaches the machinery, each with its line; [] for code that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    flags: list[Flag] = []

    def flag(node: ast.AST, why: str) -> None:
        flags.append({'cell': cell, 'line': getattr(node, 'lineno', 1), 'why': why})

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _module_flag(node, alias.name, flag)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            _module_flag(node, node.module, flag)
            if node.module == 'sys':
                for alias in node.names:
                    if alias.name in _SYS_ATTRIBUTES:
                        flag(node, f'takes sys.{alias.name}')
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == 'sys' and node.attr in _SYS_ATTRIBUTES:
            flag(node, f'uses sys.{node.attr}')
        elif isinstance(node, ast.Attribute) and node.attr in {'__globals__', '__code__', '__closure__', '__builtins__', '__subclasses__', 'f_globals', 'f_locals', 'f_back', 'gi_frame', 'tb_frame'}:
            flag(node, f'reaches into functions or frames ({node.attr})')
        elif isinstance(node, ast.Name) and node.id == '__builtins__':
            flag(node, 'uses __builtins__')
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _DUNDERS:
                    flag(item, f'class {node.name} defines {item.name}: its values can answer a check as they please')
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    for t in targets:
                        if isinstance(t, ast.Name) and t.id in _DUNDERS:
                            flag(item, f'class {node.name} sets {t.id}: its values can answer a check as they please')
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
            why = _CALLS[node.func.id]
            if why:
                flag(node, why)
            elif node.func.id == 'setattr' and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in _MODULES:
                flag(node, f'changes the module {node.args[0].id}')
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and _is_globals_call(t.value):
                    flag(node, 'writes through globals()')
                elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in _MODULES:
                    flag(node, f'changes {t.value.id}.{t.attr}')
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_globals_call(node.func.value) and node.func.attr in {'update', 'setdefault', 'pop', 'clear', '__setitem__'}:
            flag(node, 'writes through globals()')
    flags.sort(key=lambda f: f['line'])
    return flags


def _is_globals_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {'globals', 'vars', 'locals'} and not node.args


def _module_flag(node: ast.AST, name: str, flag: Any) -> None:
    top = name.split('.')[0]
    why = _MODULES.get(top)
    if why:
        flag(node, f'imports {why}')
