"""What grading can trust of a hand-in: the check machinery sealed before its code runs, and what its code reaches.

A hand-in's code runs in the same Python as the teacher's checks, so it can change
what the checks rely on. Two defences, neither a sandbox:

- ``Seal``: taken before the hand-in's first cell, it holds the modules the checks and
  program cases run on (``pytabs.checks``, ``pytabs.programs``, ``pytabs.runtime`` and
  the standard modules they use, ``builtins``) by identity, never looked up again
  through ``sys.modules``, and remembers every name in them, each function's code,
  defaults and closure, the classes' attributes, and the session's runtime object and
  the PyTabs objects it holds (their class and their own attributes, so that none can
  be shadowed). ``changed()`` names what differs; grading fails every check and case
  after such a change. A program case's expected output is never in this Python at
  all: the page compares.
- ``scan``: a static look at a cell's code (Python's ``ast``) for what reaches past
  the student's own values: the browser (``js``, ``pyodide``), PyTabs' internals,
  the interpreter's (``sys.modules``, also through ``getattr`` or ``vars``, ``builtins``,
  ``gc``, ``inspect``, ``ctypes``, frames, tracebacks and code objects, also by a name in
  a string), a class that redefines equality or truth (``__eq__``, ``__hash__``,
  ``__bool__``, ...), writes to ``globals()``, imports by name. Each finding is a
  line and a reason for the teacher to read; it changes no grade.

This module imports nothing of the browser: CPython runs it too (the tests' referee).
"""

from __future__ import annotations

import ast
import sys
import types
from itertools import accumulate, chain
from operator import attrgetter, is_not, methodcaller
from typing import Any, TypedDict


class Said(TypedDict, total=False):
    # A catalog key and its parameters: the page puts it in the teacher's words.
    key: str
    params: dict[str, Any]


class Flag(TypedDict):
    # The cell (from 1) and the line in it (from 1).
    cell: int
    line: int
    why: Said


def _said(key: str, **params: Any) -> Said:
    return {'key': key, 'params': params} if params else {'key': key}


# The modules a check or a case runs on: their names are sealed.
SEALED_MODULES = (
    'pytabs.checks',
    'pytabs.programs',
    'pytabs.runtime',
    'pytabs.executor',
    'pytabs.display',
    'pytabs.guard',
    'pytabs.state',
    'pytabs.replay',
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


_SEALED_KINDS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type)

# What each sealed function is made of, read in C: its code and defaults, compared by identity.
_CODE = attrgetter('__code__')
_DEFAULTS = attrgetter('__defaults__')
_KWDEFAULTS = attrgetter('__kwdefaults__')
_VALUES = methodcaller('values')


def _closure(function: types.FunctionType) -> tuple[Any, ...]:
    """What a function's closure holds now (a cell's contents can be replaced in place)."""
    return tuple(c.cell_contents for c in function.__closure__ or ())


def _attributes(classes: tuple[type, ...]) -> tuple[tuple[int, ...], tuple[str, ...], tuple[Any, ...]]:
    """How many attributes each class has now, and their names and values, one class after the other."""
    attributes = tuple(map(vars, classes))
    return tuple(map(len, attributes)), tuple(chain.from_iterable(attributes)), tuple(chain.from_iterable(map(_VALUES, attributes)))


def _differ(now: tuple[Any, ...], then: tuple[Any, ...]) -> bool:
    """Whether two tuples hold other objects anywhere: by identity, so no value's __eq__ is asked."""
    return len(now) != len(then) or any(map(is_not, now, then))


# Values an object's own attribute may change between runs (a count, the session variables of the run).
_PLAIN = (int, float, str, bytes, bool, dict, list, set, tuple, type(None))


def _own_attributes(obj: object) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """An object's own attributes: their names, and the values grading calls through (not plain data, which changes as runs go)."""
    attributes = vars(obj)
    return tuple(attributes), tuple(v for v in attributes.values() if not isinstance(v, _PLAIN))


class Seal:
    """The sealed modules and objects, and what each held, as they were when it was taken.

    Modules are held by identity (what ``sys.modules`` names can be swapped; the module a
    function's globals are cannot). Every value is compared by identity, and each function's
    code, defaults and closure, and each class's attributes, too. It holds every object it
    compares, so that no id is reused meanwhile; and it is checked before and after every
    check and case, so its look is a few C-level passes over tuples rather than a
    fingerprint per name.
    """

    def __init__(self, runtime: object | None = None) -> None:
        # Per module: its name, the module, the sealed names in it and the values they held.
        self._modules: list[tuple[str, types.ModuleType, tuple[str, ...], tuple[Any, ...]]] = []
        self._sys_modules = sys.modules
        functions: list[tuple[str, types.FunctionType]] = []
        classes: list[tuple[str, type]] = []
        for name in SEALED_MODULES:
            module = sys.modules.get(name)
            if module is None:
                continue
            # What the checks call: functions, classes, modules. Plain values (a module's state, builtins._) change as runs go.
            entries = {key: value for key, value in vars(module).items() if isinstance(value, _SEALED_KINDS) and not key.startswith('__')}
            self._modules.append((name, module, tuple(entries), tuple(entries.values())))
            functions += [(f'{name}.{key}', value) for key, value in entries.items() if isinstance(value, types.FunctionType)]
            classes += [(f'{name}.{key}', value) for key, value in entries.items() if isinstance(value, type)]
        self._function_names = tuple(label for label, _ in functions)
        self._functions = tuple(function for _, function in functions)
        self._codes = tuple(map(_CODE, self._functions))
        self._defaults = tuple(map(_DEFAULTS, self._functions))
        self._kwdefaults = tuple(map(_KWDEFAULTS, self._functions))
        self._closures = tuple((label, function, _closure(function)) for label, function in functions if function.__closure__)
        self._class_names = tuple(label for label, _ in classes)
        self._classes = tuple(cls for _, cls in classes)
        self._class_attributes = _attributes(self._classes)
        # The runtime object grading calls through, and the PyTabs objects it holds: an attribute
        # set on one of them (run_program on the runtime) would shadow its class's method.
        objects: list[tuple[str, object]] = []
        if runtime is not None:
            # Named as Python would reach them, not in words: the page shows these names in any language.
            objects.append(('runtime', runtime))
            objects += [(f'runtime.{key}', value) for key, value in vars(runtime).items() if type(value).__module__.startswith('pytabs.')]
        self._objects = tuple((label, obj, type(obj), _own_attributes(obj)) for label, obj in objects)

    def changed(self) -> list[str]:
        """The sealed names whose value (or code) is not what it was, as ``module.name``."""
        out: list[str] = []
        if sys.modules is not self._sys_modules:
            out.append('sys.modules')
        for name, module, keys, values in self._modules:
            if self._sys_modules.get(name) is not module:
                out.append(f'sys.modules[{name!r}]')
            # A name that is gone reads as None, which no sealed value is.
            held = tuple(map(vars(module).get, keys))
            if _differ(held, values):
                out += [f'{name}.{key}' for key, a, b in zip(keys, held, values) if a is not b]
        functions = self._functions
        for parts, then in ((map(_CODE, functions), self._codes), (map(_DEFAULTS, functions), self._defaults), (map(_KWDEFAULTS, functions), self._kwdefaults)):
            now_parts = tuple(parts)
            if _differ(now_parts, then):
                out += [label for label, a, b in zip(self._function_names, now_parts, then) if a is not b]
        out += [label for label, function, cells in self._closures if _differ(_closure(function), cells)]
        sizes, keys, values = _attributes(self._classes)
        then_sizes, then_keys, then_values = self._class_attributes
        if sizes != then_sizes or keys != then_keys or _differ(values, then_values):
            # Which classes: each one's attributes against its own part of what was held.
            ends = tuple(accumulate(then_sizes))
            for label, cls, start, end in zip(self._class_names, self._classes, (0, *ends), ends):
                _, now_keys, now_values = _attributes((cls,))
                if now_keys != then_keys[start:end] or _differ(now_values, then_values[start:end]):
                    out.append(label)
        for label, obj, cls, (then_keys_, then_values_) in self._objects:
            now_keys_, now_values_ = _own_attributes(obj)
            if type(obj) is not cls or now_keys_ != then_keys_ or _differ(now_values_, then_values_):
                out.append(label)
        # A name is told once, however many of its parts changed.
        return list(dict.fromkeys(out))


def _own_code() -> types.CodeType:
    with open(__file__, encoding='utf-8') as f:
        return compile(f.read(), __file__, 'exec', dont_inherit=True)


_PRIVATE_NAME = 'pytabs_private_guard'
# This module's code, compiled once on import (so a worker's start snapshot holds it) for private_seal's copies.
_OWN_CODE = _own_code() if __name__ != _PRIVATE_NAME else None


def private_seal(runtime: object | None = None) -> Any:
    """A Seal (of the modules and of ``runtime``) whose own code lives in a namespace of its own, with its own copy of the built-ins.

    The worker holds the seal's ``changed`` (taken before any of the hand-in's code runs), so
    replacing this module's names, or a built-in the seal uses, afterwards changes nothing of it.
    """
    import builtins

    namespace: dict[str, Any] = {'__name__': _PRIVATE_NAME, '__builtins__': dict(vars(builtins))}
    exec(_OWN_CODE, namespace)
    return namespace['Seal'](runtime)


# What reaches past the student's own values, by the name a cell uses.
# Each names its catalog key (asg_guard_<what>).
_MODULES = {
    'js': 'js',
    'pyodide': 'pyodide',
    'pyodide_js': 'pyodide',
    '_pyodide': 'pyodide',
    'pytabs': 'pytabs',
    'builtins': 'builtins',
    'gc': 'gc',
    'inspect': 'inspect',
    'ctypes': 'ctypes',
    'importlib': 'import_by_name',
    'sys': None,  # sys itself is common; what a cell does with it is looked at below
}
# Attributes of functions, frames, tracebacks, generators and code objects: a way up the stack, or into a function's globals.
_FRAME_ATTRIBUTES = frozenset(
    {
        '__globals__', '__code__', '__closure__', '__builtins__', '__subclasses__',
        'tb_frame', 'tb_next', 'f_back', 'f_locals', 'f_globals', 'f_builtins', 'f_code', 'f_trace',
        'gi_frame', 'gi_code', 'cr_frame', 'cr_code', 'ag_frame', 'ag_code',
        'co_consts', 'co_names', 'co_varnames', 'co_code',
    }
)
_BY_NAME = {'getattr', 'setattr', 'delattr', 'hasattr'}
_SYS_ATTRIBUTES = {'modules', '_getframe', 'settrace', 'setprofile', 'addaudithook', 'meta_path', 'path_hooks', 'stdout', 'stderr', '__stdout__'}
# Methods that let a value answer a comparison or a truth test as it pleases; ordering (__lt__) and __len__ are common in clean classes.
_DUNDERS = {'__eq__', '__ne__', '__hash__', '__bool__', '__instancecheck__', '__getattribute__'}
_CALLS = {
    '__import__': 'import_by_name',
    'globals': None,  # only a write through it is flagged
    'exec': 'runs_text',
    'eval': 'runs_text',
    'compile': 'compiles_text',
    'setattr': None,
}


def scan(source: str, cell: int) -> list[Flag]:
    """What in a cell's code reaches the machinery, each with its line; [] for code that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    flags: list[Flag] = []

    def flag(node: ast.AST, key: str, **params: Any) -> None:
        flags.append({'cell': cell, 'line': getattr(node, 'lineno', 1), 'why': _said(f'asg_guard_{key}', **params)})

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _module_flag(node, alias.name, flag)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            _module_flag(node, node.module, flag)
            if node.module == 'sys':
                for alias in node.names:
                    if alias.name in _SYS_ATTRIBUTES:
                        flag(node, 'takes_sys', name=alias.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == 'sys' and node.attr in _SYS_ATTRIBUTES:
            flag(node, 'uses_sys', name=node.attr)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == 'sys' and node.attr == '__dict__':
            flag(node, 'sys_modules', how='sys.__dict__')
        elif isinstance(node, ast.Attribute) and node.attr in _FRAME_ATTRIBUTES:
            flag(node, 'frames', name=node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in _FRAME_ATTRIBUTES:
            # getattr(tb, 'tb_frame'), attrgetter('f_back'): the attribute by its name.
            flag(node, 'frames_by_name', name=repr(node.value))
        elif isinstance(node, ast.Name) and node.id == '__builtins__':
            flag(node, 'builtins_name')
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _DUNDERS:
                    flag(item, 'class_defines', cls=node.name, name=item.name)
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    for t in targets:
                        if isinstance(t, ast.Name) and t.id in _DUNDERS:
                            flag(item, 'class_sets', cls=node.name, name=t.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS:
            what = _CALLS[node.func.id]
            if what:
                flag(node, 'named', what=_said(f'asg_guard_{what}'), name=node.func.id)
            elif node.func.id == 'setattr' and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in _MODULES:
                flag(node, 'changes_module', name=node.args[0].id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == 'sys':
            name = node.args[1] if len(node.args) > 1 else None
            if node.func.id == 'vars':
                flag(node, 'sys_modules', how='vars(sys)')
            elif node.func.id in _BY_NAME and isinstance(name, ast.Constant) and name.value in _SYS_ATTRIBUTES:
                flag(node, 'uses_sys_by', name=name.value, how=node.func.id)
            elif node.func.id in _BY_NAME and not isinstance(name, ast.Constant):
                flag(node, 'sys_computed', how=node.func.id)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and _is_globals_call(t.value):
                    flag(node, 'globals')
                elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in _MODULES:
                    flag(node, 'changes', name=f'{t.value.id}.{t.attr}')
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_globals_call(node.func.value) and node.func.attr in {'update', 'setdefault', 'pop', 'clear', '__setitem__'}:
            flag(node, 'globals')
    flags.sort(key=lambda f: f['line'])
    return flags


def _is_globals_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {'globals', 'vars', 'locals'} and not node.args


def _module_flag(node: ast.AST, name: str, flag: Any) -> None:
    top = name.split('.')[0]
    what = _MODULES.get(top)
    if what:
        flag(node, 'imports', what=_said(f'asg_guard_{what}'), name=top)
