"""What of a session's namespace is kept across reloads, how, and why not.

Plain values are kept as pickles; modules, functions and classes come back by
replaying the top-level statements that made them. The per-run changes report only
what changed since the last one, so a run that touches nothing costs little.
"""

from __future__ import annotations

import ast
import hashlib
import io
import pickle
import re
import sys
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict

from .display import preview, type_name
from .executor import remember_source
from .replay import How, Statement, bindings, bound_names, replay_statements
from .said import said, said_of, words

Kind = Literal['pickle', 'replay', 'none']


class Entry(TypedDict):
    name: str
    type: str
    sizeBytes: int
    preview: str
    persisted: bool
    kind: Kind
    reason: str | None
    hash: str | None
    pickle: bytes | None


class VariableChanges(TypedDict):
    put: list[Entry]
    delete: list[str]


class Failure(TypedDict):
    name: str
    reason: str


class RestoreReport(TypedDict):
    restored: list[str]
    failed: list[Failure]


# Marks a record that holds no object (None is a value a variable can have).
_NOTHING: Any = object()

_ATOMIC_TYPES = frozenset({bytes, str, int, float, complex, bool, type(None)})
# Checking a tuple deeper than this costs more than re-pickling it saves.
_IMMUTABLE_CHECK_BUDGET = 10_000
# Pickles from this size on are kept with their record: comparing a new pickle with the kept
# one is exact and runs at memory speed, where hashing 50 MB takes ~70 ms in wasm. The heap
# already grew to hold each run's fresh pickle (wasm memory never shrinks), so keeping the
# last one costs little more than the peak every run already reaches.
_KEEP_PICKLE_BYTES = 64 * 1024

_REPLAY_REASONS: dict[How, str] = {
    'import': 'rt_py_keep_by_import',
    'definition': 'rt_py_keep_by_definition',
}

# Why a pickle failed, recognised from what pickle reports; checked in order.
# (Catalog keys: a reason is put in the words of the language the session started in.)
_LAMBDA = 'rt_py_keep_lambda'
_LOCAL = 'rt_py_keep_local'
_GENERATOR = 'rt_py_keep_generator'
_FILE = 'rt_py_keep_file'
_MODULE = 'rt_py_keep_module'
_PICKLE_ERRORS = (
    (re.compile(r"<function <lambda>"), _LAMBDA),
    (re.compile(r'local object'), _LOCAL),
    (re.compile(r"cannot pickle '(generator|coroutine|async_generator)'"), _GENERATOR),
    (re.compile(r"cannot pickle '(TextIOWrapper|BufferedReader|BufferedWriter|BufferedRandom|FileIO)'"), _FILE),
    (re.compile(r"cannot pickle 'module'"), _MODULE),
)


@dataclass
class _Record:
    """What the last changes (or the restore) told storage about one variable."""

    kind: Kind
    type: str
    size: int
    persisted: bool = False
    reason: str | None = None
    # Set when the value was pickled; survives an over-limit verdict, so an
    # unchanged over-limit value is not reported again.
    hash: str | None = None
    # The object itself where identity is the change test: unpicklable values,
    # and deeply immutable ones, which cannot change without being rebound.
    anchor: Any = _NOTHING
    # Functions and classes of __main__ the pickle refers to by name.
    main_refs: frozenset[str] = field(default_factory=frozenset)
    # The pickle itself, for large ones (_KEEP_PICKLE_BYTES): the next change test compares bytes.
    pickled: bytes | None = field(default=None, repr=False)

    def same_as(self, other: _Record) -> bool:
        """Whether storage already holds what this record says."""
        identity_matters = self.hash is None and self.kind == 'none'
        return (
            (self.kind, self.type, self.size, self.persisted, self.reason, self.hash)
            == (other.kind, other.type, other.size, other.persisted, other.reason, other.hash)
        ) and (not identity_matters or self.anchor is other.anchor)


class _RefRecordingPickler(pickle.Pickler):
    """A protocol-5 pickler that notes which functions and classes of __main__ it stores by name."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=5)
        self.main_refs: set[str] = set()

    def reducer_override(self, obj: Any) -> Any:
        # pickle skips this hook for exact built-in containers and scalars, so bulk data costs nothing here.
        if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == '__main__':
            self.main_refs.add(obj.__qualname__.partition('.')[0])
        return NotImplemented


class VariableState:
    """The bookkeeping between one namespace and its stored copy."""

    def __init__(self, namespace: dict[str, Any], reserved: Iterable[str], hidden: Iterable[object]) -> None:
        self._namespace = namespace
        self._reserved = frozenset(reserved)
        self._hidden = tuple(hidden)
        self._records: dict[str, _Record] = {}
        # The last changes' records, adopted by confirm() once storage has committed them.
        self._pending: dict[str, _Record] | None = None
        # Names whose current value a replayed statement binds, with that value.
        self._replayed: dict[str, tuple[object, How]] = {}
        # Names of top-level defs and classes that a restore re-creates; a pickle may refer to these.
        self._definitions: set[str] = set()

    def user_names(self) -> list[str]:
        """The user's variables, sorted: what the namespace holds beyond its starting names."""
        return sorted(
            name
            for name, value in self._namespace.items()
            if name not in self._reserved
            and name != '_'
            and not name.startswith('__')
            and not any(value is hidden for hidden in self._hidden)
        )

    def note_replayed(self, statements: Iterable[Statement]) -> None:
        """Records the bindings of statements that ran and will be replayed on restore."""
        for node in statements:
            for name, value, how in bindings(node, self._namespace):
                self._replayed[name] = (value, how)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._definitions.add(node.name)

    def changes(self, variable_limit: int, session_limit: int) -> VariableChanges:
        """What changed since the last confirmed changes or restore, with pickles for what is kept.

        Until confirm() is called the change is only proposed: if storage fails to
        commit it, the next changes report it again.
        """
        names = self.user_names()
        present = set(names)
        records = dict(self._records)
        deleted = sorted(name for name in records if name not in present)
        for name in deleted:
            del records[name]
        for name in [name for name in self._replayed if name not in present]:
            del self._replayed[name]
        puts: list[Entry] = []
        kept_bytes = 0
        # Sorted names make the limits pick the same variables every time.
        for name in names:
            value = self._namespace[name]
            previous = records.get(name)
            record, data = self._assess(name, value, previous)
            if record.hash is not None:
                kept_bytes = _apply_limits(record, kept_bytes, variable_limit, session_limit)
            records[name] = record
            if previous is not None and record.same_as(previous):
                continue
            if record.persisted and record.kind == 'pickle' and data is None:
                # Skipped as unchanged, but storage lacks it (it was over a limit before).
                data, _ = _pickle(value)
            puts.append(_entry(name, value, record, data))
        self._pending = records
        return {'put': puts, 'delete': deleted}

    def confirm(self) -> None:
        """Storage committed the last changes: later changes compare against them."""
        if self._pending is not None:
            self._records = self._pending
            self._pending = None

    def _assess(self, name: str, value: object, previous: _Record | None) -> tuple[_Record, bytes | None]:
        """How value would be kept, before limits; with its pickle when it had to be made."""
        replayed = self._replayed.get(name)
        if replayed is not None and replayed[0] is value:
            reason = words(said(_REPLAY_REASONS[replayed[1]]))
            return _Record('replay', type_name(value), _sizeof(value), persisted=True, reason=reason), None
        if previous is not None and previous.hash is not None and previous.anchor is value:
            return replace(previous, kind='pickle', persisted=False, reason=None), None
        try:
            data, main_refs = _pickle(value)
        except Exception as exc:
            reason = _unpicklable_reason(value, exc)
            return _Record('none', type_name(value), _sizeof(value), reason=reason, anchor=value), None
        lost = sorted(main_refs - self._definitions)
        if lost:
            reason = words(said('rt_py_keep_needs', names=', '.join(f"'{ref}'" for ref in lost)))
            return _Record('none', type_name(value), len(data), reason=reason, anchor=value), None
        if previous is not None and previous.pickled is not None and previous.pickled == data:
            # Byte for byte the pickle storage holds: its digest still names it.
            digest = previous.hash
        else:
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        record = _Record(
            'pickle',
            type_name(value),
            len(data),
            hash=digest,
            anchor=value if _is_deeply_immutable(value) else _NOTHING,
            main_refs=main_refs,
            pickled=data if len(data) >= _KEEP_PICKLE_BYTES else None,
        )
        return record, data

    def restore(
        self, replay: Iterable[str], variables: Iterable[Mapping[str, Any]], pickles: Mapping[str, Any]
    ) -> RestoreReport:
        """Re-creates stored state in a fresh namespace: replays first, then pickles.

        A failure of one statement or variable is reported and the rest still
        come back. Afterwards the bookkeeping matches storage.
        """
        sources = [str(source) for source in replay]
        metas = {str(meta['name']): meta for meta in variables}
        wanted = sorted(name for name, meta in metas.items() if meta.get('kind') == 'pickle')
        replay_failures = self._replay(sources, 0)
        loaded: dict[str, bytes] = {}
        load_failures = self._load(wanted, pickles, loaded)
        if replay_failures:
            # A definition may need a restored variable (a default value, a base
            # class): try the failed statements and those after them once more.
            start = replay_failures[0][0]
            rebound = {name for source in sources[start:] for name in _static_names(source)}
            replay_failures = self._replay(sources, start)
            load_failures = self._load(sorted(set(load_failures) | (rebound & set(wanted))), pickles, loaded)

        failed: list[Failure] = [{'name': names, 'reason': reason} for _, names, reason in replay_failures]
        unreplayed = {name.strip() for _, names, _ in replay_failures for name in names.split(',')}
        restored: list[str] = []
        self._records = {}
        for name, meta in sorted(metas.items()):
            record, back = self._restored_record(name, meta, load_failures, unreplayed, failed, loaded.get(name))
            if record is not None:
                self._records[name] = record
            if back:
                restored.append(name)
        # Whatever replay re-created that is not restored was deleted or rebound later.
        kept = set(restored)
        for name in self.user_names():
            if name not in kept:
                del self._namespace[name]
        self._replayed = {name: entry for name, entry in self._replayed.items() if name in kept}
        return {'restored': restored, 'failed': failed}

    def _restored_record(
        self,
        name: str,
        meta: Mapping[str, Any],
        load_failures: Mapping[str, str],
        unreplayed: set[str],
        failed: list[Failure],
        data: bytes | None,
    ) -> tuple[_Record | None, bool]:
        """The record for one stored variable after a restore (None: storage keeps it as it is), and whether it is back."""
        kind = meta.get('kind')
        if kind == 'pickle':
            if name in load_failures:
                failed.append({'name': name, 'reason': load_failures[name]})
                return None, False
            value = self._namespace[name]
            stored_hash = meta.get('hash')
            if stored_hash:
                # The value is what that pickle made, so storage's digest and size describe it:
                # pickling it again here would cost a big session's start as much as its commit.
                # Were a pickle not byte-stable, the next changes would only store it once more.
                anchor = value if _is_deeply_immutable(value) else _NOTHING
                size = int(meta.get('sizeBytes') or 0)
                kept = data if data is not None and len(data) >= _KEEP_PICKLE_BYTES else None
                record = _Record('pickle', type_name(value), size, persisted=True, hash=str(stored_hash), anchor=anchor, pickled=kept)
                return record, True
            record, _ = self._assess(name, value, None)
            return replace(record, persisted=record.kind == 'pickle'), True
        if kind == 'replay':
            replayed = self._replayed.get(name)
            if replayed is not None and self._namespace.get(name, _NOTHING) is replayed[0]:
                return self._assess(name, replayed[0], None)[0], True
            if name not in unreplayed:
                failed.append({'name': name, 'reason': words(said('rt_py_keep_not_rerun'))})
            return None, False
        # Storage describes it but has no data: the next changes find it gone and delete it.
        record = _Record('none', str(meta.get('type', '')), int(meta.get('sizeBytes') or 0), reason=meta.get('reason'))
        return record, False

    def _replay(self, sources: list[str], start: int) -> list[tuple[int, str, str]]:
        """Runs sources[start:] in the namespace; returns (index, names, reason) of each that failed."""
        failures: list[tuple[int, str, str]] = []
        for index in range(start, len(sources)):
            filename = f'<restored-{index + 1}>'
            source = sources[index]
            names = ', '.join(_static_names(source)) or '<replay>'
            try:
                remember_source(filename, source)
                tree = ast.parse(source, filename)
                exec(compile(tree, filename, 'exec', dont_inherit=True), self._namespace)
            except Exception as exc:
                failures.append((index, names, f'{type(exc).__name__}: {exc}'))
            else:
                self.note_replayed(replay_statements(tree))
        return failures

    def _load(self, names: list[str], pickles: Mapping[str, Any], loaded: dict[str, bytes]) -> dict[str, str]:
        """Unpickles each named variable into the namespace; returns name → reason for each that failed.

        The bytes of each pickle that loaded go into ``loaded``, as storage holds them.
        """
        failures: dict[str, str] = {}
        for name in names:
            data = pickles.get(name)
            if data is None:
                failures[name] = words(said('rt_py_keep_pickle_missing'))
                continue
            buffer = _as_buffer(data)
            try:
                self._namespace[name] = pickle.loads(buffer)
            except Exception as exc:
                failures[name] = words(said('rt_py_keep_pickle_unloadable', error=f'{type(exc).__name__}: {exc}'))
            else:
                if len(buffer) >= _KEEP_PICKLE_BYTES:
                    # A copy out of the JS array: a memcpy, cheaper than hashing it on the next run.
                    loaded[name] = buffer if isinstance(buffer, bytes) else bytes(buffer)
        return failures

    def clear(self) -> None:
        """Removes every user variable and forgets what storage was told."""
        for name in [name for name in self._namespace if name not in self._reserved]:
            del self._namespace[name]
        self._records.clear()
        self._pending = None
        self._replayed.clear()
        self._definitions.clear()


def _pickle(value: object) -> tuple[bytes, frozenset[str]]:
    buffer = io.BytesIO()
    pickler = _RefRecordingPickler(buffer)
    pickler.dump(value)
    return buffer.getvalue(), frozenset(pickler.main_refs)


def _as_buffer(data: Any) -> Any:
    """Stored bytes as pickle.loads takes them; a JS Uint8Array proxy is copied out."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return data
    to_bytes = getattr(data, 'to_bytes', None)
    if callable(to_bytes):
        return to_bytes()
    return memoryview(data)


def _static_names(source: str) -> list[str]:
    """The names a replayed source binds, for reports and re-runs; empty when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [name for node in replay_statements(tree) for name in bound_names(node)]


def _apply_limits(record: _Record, kept_bytes: int, variable_limit: int, session_limit: int) -> int:
    """Decides whether a pickled value is kept; returns the session's kept bytes after it."""
    if record.size > variable_limit:
        record.kind, record.persisted = 'none', False
        record.reason = words(said('rt_py_keep_over_variable', size=format_size(record.size), limit=format_size(variable_limit)))
        return kept_bytes
    if kept_bytes + record.size > session_limit:
        record.kind, record.persisted = 'none', False
        record.reason = words(
            said('rt_py_keep_over_session', size=format_size(record.size), limit=format_size(session_limit), kept=format_size(kept_bytes))
        )
        return kept_bytes
    record.kind, record.persisted, record.reason = 'pickle', True, None
    return kept_bytes + record.size


def _entry(name: str, value: object, record: _Record, data: bytes | None) -> Entry:
    stored = record.persisted and record.kind == 'pickle'
    return {
        'name': name,
        'type': record.type,
        'sizeBytes': record.size,
        'preview': preview(value),
        'persisted': record.persisted,
        'kind': record.kind,
        'reason': record.reason,
        'hash': record.hash if stored else None,
        'pickle': data if stored else None,
    }


def _unpicklable_reason(value: object, exc: Exception) -> str:
    """A sentence saying why value cannot be pickled, and where in it the culprit sits."""
    if isinstance(value, types.FunctionType) and value.__name__ == '<lambda>':
        return words(said(_LAMBDA))
    if isinstance(value, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
        return words(said(_GENERATOR))
    if isinstance(value, io.IOBase):
        return words(said(_FILE))
    if isinstance(value, types.ModuleType):
        return words(said(_MODULE))
    message = str(exc)
    key = next((key for pattern, key in _PICKLE_ERRORS if pattern.search(message)), None)
    # An object of PyTabs' own that refuses pickling (a turtle) says why in a said text.
    reason = said(key) if key else said('rt_py_keep_cannot_pickle', error=said_of(exc) or message)
    # pickle notes each container it was inside, innermost first.
    path = [note.removeprefix('when serializing ') for note in reversed(getattr(exc, '__notes__', []))]
    return words(said('rt_py_keep_found_in', reason=reason, path=', '.join(path)) if path else reason)


def _is_deeply_immutable(value: object) -> bool:
    """Whether value is built only of immutable atoms (so it cannot change while bound)."""
    pending = [value]
    budget = _IMMUTABLE_CHECK_BUDGET
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind in _ATOMIC_TYPES:
            continue
        if kind not in (tuple, frozenset):
            return False
        budget -= len(item)  # type: ignore[arg-type]
        if budget < 0:
            return False
        pending.extend(item)  # type: ignore[arg-type]
    return True


def _sizeof(value: object) -> int:
    try:
        return sys.getsizeof(value)
    except Exception:
        return 0


def format_size(size: int) -> str:
    """A byte count for people: '512 bytes', '12.3 MB' (1 MB = 1024 KB)."""
    if size < 1024:
        return f'{size} bytes'
    amount = float(size)
    for unit in ('KB', 'MB', 'GB'):
        amount /= 1024
        if amount < 1024 or unit == 'GB':
            break
    return f'{amount:.1f} {unit}'
