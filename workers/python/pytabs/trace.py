"""Recording a run step by step for "Step through": ``sys.settrace`` over the student's own frames.

Each step is one trace event (``call``, ``line``, ``return``, ``exception``) in a frame of
the student's code (``is_user_file``: cells and workspace modules; PyTabs' and the
standard library's frames are neither recorded nor shown). A step holds the line, the
student's frames from the outermost in with their variables, the objects those reach
(lists, tuples, dicts, sets, instances), and how much the run had printed by then.

The record is kept with a round, so it is compact: values that fit on a line are
inline (``[type, repr]``), anything drawn is a reference to a numbered object (the same
object keeps its number, so ``b = a`` shows two references to one object), and each
distinct frame scope, object snapshot and set of live objects is stored once and
referred to by index. A loop of 10,000 steps over unchanged lists then stores each
list once. The output is one string; a step keeps its length at that moment.

Past ``max_steps`` the run goes on untraced to its end, and the record says so.
This module imports nothing of the browser: CPython runs it too (the bench's baseline).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypedDict

# Values shown inline, by repr; everything else is a reference or a described value.
_INLINE = (int, float, complex, bool, str, bytes, type(None))
_CONTAINERS = (list, tuple, dict, set, frozenset)
# How many ints or strs keep their keys at once: a repr made again costs more than a look-up, in wasm most.
_KNOWN_VALUES = 20_000
# A function, class or module is named, not drawn.
_NAMED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)

class TraceOptions(TypedDict, total=False):
    """The limits a recording keeps (all optional; see ``DEFAULTS``)."""

    maxSteps: int
    maxObjects: int
    maxItems: int
    maxRepr: int


DEFAULTS: TraceOptions = {'maxSteps': 5000, 'maxObjects': 200, 'maxItems': 100, 'maxRepr': 80}


class Recorder:
    """Records the steps of one run; ``record()`` gives them as plain data (see docs/api.md)."""

    def __init__(self, options: TraceOptions, is_user_file: Callable[[str], bool], hidden_globals: frozenset[str]) -> None:
        limits = {**DEFAULTS, **options}
        self._max_steps = max(0, int(limits['maxSteps']))
        self._max_objects = max(0, int(limits['maxObjects']))
        self._max_items = max(0, int(limits['maxItems']))
        self._max_repr = max(8, int(limits['maxRepr']))
        self._is_user_file = is_user_file
        self._hidden = hidden_globals
        self._user_code: dict[types.CodeType, bool] = {}
        # Keys of the values seen, for the exact types whose equal values have equal reprs.
        self._known: dict[type, dict[Any, tuple[str, str]]] = {int: {}, str: {}}
        self._type_names: dict[type, str] = {}
        self._shown_names: dict[tuple[Any, ...], tuple[str, ...]] = {}
        # Each frame's user frames from the outermost in, while it runs: a running frame's callers
        # do not change, and the worker's own frames under the cell are then walked once, not per step.
        self._chains: dict[types.FrameType, tuple[types.FrameType, ...]] = {}
        # Object numbers by id(); the objects are held so that no id is reused while recording.
        self._numbers: dict[int, int] = {}
        self._held: list[object] = []
        self._steps: list[dict[str, Any]] = []
        self._scopes: dict[tuple[tuple[str, Any], ...], int] = {}
        self._objects: dict[tuple[Any, ...], int] = {}
        self._heaps: dict[tuple[int, ...], int] = {}
        self._output: list[str] = []
        self._printed = 0
        self._inputs: list[dict[str, Any]] = []
        self._recording = False
        self.steps_cut = False
        self.objects_cut = False

    @contextmanager
    def recording(self) -> Iterator[None]:
        """Traces what runs inside the block; stdout is teed and stdin's lines noted meanwhile."""
        stdout, stdin, before = sys.stdout, sys.stdin, sys.gettrace()
        sys.stdout = _Tee(stdout, self)  # type: ignore[assignment]
        sys.stdin = _Noting(stdin, self)  # type: ignore[assignment]
        self._recording = self._max_steps > 0
        self.steps_cut = self._max_steps == 0
        sys.settrace(self._global if self._recording else None)
        try:
            yield
        finally:
            sys.settrace(before)
            self._recording = False
            self._chains.clear()
            # The student's code may have replaced them; what it set stays.
            if isinstance(sys.stdout, _Tee):
                sys.stdout = stdout
            if isinstance(sys.stdin, _Noting):
                sys.stdin = stdin

    def record(self) -> dict[str, Any]:
        """The recording as JSON-ready data, in the shape docs/api.md documents as ``Trace``."""
        return {
            'steps': self._steps,
            'scopes': [[[name, _plain(value)] for name, value in scope] for scope in self._scopes],
            'objects': [_object_plain(key) for key in self._objects],
            'heaps': [list(heap) for heap in self._heaps],
            'stdout': ''.join(self._output),
            'inputs': self._inputs,
            'limits': {
                'maxSteps': self._max_steps,
                'maxObjects': self._max_objects,
                'maxItems': self._max_items,
                'maxRepr': self._max_repr,
            },
            'stepLimitReached': self.steps_cut,
            'objectLimitReached': self.objects_cut,
        }

    def printed(self, text: str) -> None:
        if self._recording:
            self._output.append(text)
            self._printed += len(text)

    def answered(self, line: str) -> None:
        """A line read from stdin while recording: echoed in the output, as a terminal shows it."""
        if self._recording:
            self._inputs.append({'step': len(self._steps), 'text': line.rstrip('\n')})
            self.printed(line if line.endswith('\n') else line + '\n')

    def _user(self, code: types.CodeType) -> bool:
        known = self._user_code.get(code)
        if known is None:
            known = self._user_code[code] = self._is_user_file(code.co_filename)
        return known

    def _global(self, frame: types.FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if not self._recording or not self._user(frame.f_code):
            return None
        self._step(frame, event, arg)
        return self._local if self._recording else None

    def _local(self, frame: types.FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if not self._recording:
            return None
        self._step(frame, event, arg)
        return self._local

    def _step(self, frame: types.FrameType, event: str, arg: object) -> None:
        if len(self._steps) >= self._max_steps:
            self._stop(frame)
            return
        frames = self._chain(frame)
        reached: list[object] = []
        shown = [
            {'name': f.f_code.co_name, 'line': f.f_lineno, 'scope': self._scope(f, reached)} for f in frames
        ]
        step: dict[str, Any] = {'line': frame.f_lineno, 'event': event, 'frames': shown}
        if event == 'return':
            step['returned'] = _plain(self._value(arg, reached))
        elif event == 'exception' and isinstance(arg, tuple) and len(arg) == 3:
            step['exception'] = {'type': getattr(arg[0], '__name__', str(arg[0])), 'message': _text(arg[1])}
        step['heap'] = self._heap(reached)
        step['stdout'] = self._printed
        self._steps.append(step)
        if event == 'return':
            # Also a generator's yield: resumed later, it may have other callers.
            del self._chains[frame]

    def _chain(self, frame: types.FrameType) -> tuple[types.FrameType, ...]:
        """The user's frames from the outermost to ``frame`` (one of them), remembered until it returns."""
        chain = self._chains.get(frame)
        if chain is not None:
            return chain
        inner = [frame]
        outer: tuple[types.FrameType, ...] = ()
        walk = frame.f_back
        while walk is not None:
            known = self._chains.get(walk)
            if known is not None:
                outer = known
                break
            if self._user(walk.f_code):
                inner.append(walk)
            walk = walk.f_back
        chain = self._chains[frame] = outer + tuple(reversed(inner))
        return chain

    def _stop(self, frame: types.FrameType) -> None:
        """The step limit: tracing ends in every frame, and the run goes on at full speed."""
        self._recording = False
        self.steps_cut = True
        self._chains.clear()
        sys.settrace(None)
        walk: types.FrameType | None = frame
        while walk is not None:
            walk.f_trace = None
            walk = walk.f_back

    def _scope(self, frame: types.FrameType, reached: list[object]) -> int:
        local = frame.f_locals
        module = frame.f_code.co_name == '<module>'
        # The names shown, by the names bound (in order): the module's PyTabs names are then
        # skipped at C speed, not one by one at each step.
        bound = (module, *local)
        names = self._shown_names.get(bound)
        if names is None:
            names = self._shown_names[bound] = tuple(
                [name for name in bound[1:] if not name.startswith('__') and not (module and name in self._hidden)]
            )
        # A list comprehension, not a generator: 3.12+ runs it inline, with no object made for it.
        pairs = tuple([(name, self._value(local[name], reached)) for name in names])
        return self._scopes.setdefault(pairs, len(self._scopes))

    def _value(self, value: object, reached: list[object]) -> Any:
        """A value's key: (type name, repr) inline, or its object's number (the object is noted as reached)."""
        kind = type(value)
        known = self._known.get(kind)
        if known is not None:
            key = known.get(value)
            if key is None:
                key = self._remember(known, kind, value)
            return key
        if isinstance(value, _INLINE):
            return (kind.__name__, self._repr(value))
        if isinstance(value, _NAMED):
            return (_named_kind(value), getattr(value, '__qualname__', None) or getattr(value, '__name__', '?'))
        if isinstance(value, _CONTAINERS) or _is_instance(value):
            reached.append(value)
            return self._number(value)
        if kind.__module__ == 'builtins':
            return (kind.__name__, self._repr(value))
        return (kind.__name__, f'<{kind.__name__} object>')

    def _remember(self, known: dict[Any, tuple[str, str]], kind: type, value: Any) -> tuple[str, str]:
        """An int's or str's key, kept for the next step that shows the same value (most do)."""
        key = (kind.__name__, self._repr(value))
        # Not a long text or a huge number: kept, it would outlive its variable.
        if (len(value) if kind is str else value.bit_length()) <= 256:
            if len(known) >= _KNOWN_VALUES:
                known.clear()
            known[value] = key
        return key

    def _number(self, value: object) -> int:
        number = self._numbers.get(id(value))
        if number is None:
            number = self._numbers[id(value)] = len(self._held) + 1
            self._held.append(value)
        return number

    def _repr(self, value: object) -> str:
        if isinstance(value, str) and len(value) > self._max_repr:
            return repr(value[: self._max_repr]) + '…'
        if isinstance(value, int) and value.bit_length() > 256:
            return f'<int of {value.bit_length()} bits>'
        try:
            text = repr(value)
        except Exception:
            return f'<{type(value).__name__} object>'
        return text if len(text) <= self._max_repr else text[: self._max_repr] + '…'

    def _type_name(self, value: object) -> str:
        """type(value).__name__, which makes a new str each time for a built-in type."""
        kind = type(value)
        name = self._type_names.get(kind)
        if name is None:
            name = self._type_names[kind] = kind.__name__
        return name

    def _heap(self, reached: list[object]) -> int:
        """Snapshots every object reached from the frames (breadth first, up to max_objects)."""
        drawn: list[int] = []
        seen: set[int] = set()
        queue = reached
        at = 0
        while at < len(queue):
            value = queue[at]
            at += 1
            ident = id(value)
            if ident in seen:
                continue
            seen.add(ident)
            if len(drawn) >= self._max_objects:
                self.objects_cut = True
                break
            key = self._snapshot(value, queue)
            drawn.append(self._objects.setdefault(key, len(self._objects)))
        heap = tuple(drawn)
        return self._heaps.setdefault(heap, len(self._heaps))

    def _snapshot(self, value: object, reached: list[object]) -> tuple[Any, ...]:
        """(number, kind, type name, items, left out) where items are values or (key, value) pairs."""
        number = self._number(value)
        limit = self._max_items
        if isinstance(value, dict):
            pairs = list(value.items())
            items = tuple([(self._value(k, reached), self._value(v, reached)) for k, v in pairs[:limit]])
            return (number, 'dict', self._type_name(value), items, max(0, len(pairs) - limit))
        if isinstance(value, (list, tuple)):
            items = tuple([self._value(v, reached) for v in (value if len(value) <= limit else value[:limit])])
            kind = 'list' if isinstance(value, list) else 'tuple'
            return (number, kind, self._type_name(value), items, max(0, len(value) - limit))
        if isinstance(value, (set, frozenset)):
            members = list(value)
            items = tuple([self._value(v, reached) for v in members[:limit]])
            return (number, 'frozenset' if isinstance(value, frozenset) else 'set', self._type_name(value), items, max(0, len(members) - limit))
        attributes = [(name, v) for name, v in vars(value).items() if not name.startswith('__')]
        items = tuple([(name, self._value(v, reached)) for name, v in attributes[:limit]])
        return (number, 'instance', type(value).__qualname__, items, max(0, len(attributes) - limit))


def _is_instance(value: object) -> bool:
    """An instance of a class (the student's, usually) whose attributes can be drawn."""
    return type(value).__module__ != 'builtins' and isinstance(getattr(value, '__dict__', None), dict)


def _named_kind(value: object) -> str:
    if isinstance(value, type):
        return 'class'
    if isinstance(value, types.ModuleType):
        return 'module'
    return 'function'


def _plain(key: Any) -> Any:
    """A value's key as JSON data: [type, repr] inline, {'ref': n} for an object."""
    return {'ref': key} if isinstance(key, int) else [key[0], key[1]]


def _object_plain(key: tuple[Any, ...]) -> dict[str, Any]:
    number, kind, type_name, items, left_out = key
    shown: dict[str, Any] = {'id': number, 'kind': kind, 'type': type_name}
    if kind == 'dict':
        shown['entries'] = [[_plain(k), _plain(v)] for k, v in items]
    elif kind == 'instance':
        shown['attributes'] = [[name, _plain(v)] for name, v in items]
    else:
        shown['items'] = [_plain(v) for v in items]
    if left_out:
        shown['more'] = left_out
    return shown


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:
        return ''


class _Tee:
    """sys.stdout while recording: writes through, and counts what was printed for each step."""

    def __init__(self, stream: Any, recorder: Recorder) -> None:
        self._stream = stream
        self._recorder = recorder

    def write(self, text: str) -> int:
        self._recorder.printed(text)
        return self._stream.write(text)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Noting:
    """sys.stdin while recording: each line read (``input()``'s answer) becomes part of the trace."""

    def __init__(self, stream: Any, recorder: Recorder) -> None:
        self._stream = stream
        self._recorder = recorder

    def readline(self, size: int | None = -1) -> str:
        line: str = self._stream.readline(size)
        if line:
            self._recorder.answered(line)
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
