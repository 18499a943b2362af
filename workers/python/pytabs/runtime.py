"""The entry point the session worker drives: one Runtime per session, in its own interpreter."""

from __future__ import annotations

import ast
import builtins
import json
import importlib.abc
import importlib.machinery
import importlib.util
import os
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, TypedDict

from .checks import CheckOutcome, run_check
from .programs import CompareVerdict, ProgramRun, compare_outputs, run_program
from .display import MimeBundle, flush_streams, mime_bundle, show_figures
from .executor import Cell, ErrorInfo, describe_error, execute, parse_cell
from .explain import explain_error
from .replay import replay_statements, statement_source
from .state import RestoreReport, VariableChanges, VariableState
from .trace import Recorder, TraceOptions
from .turtle_picture import set_sink as set_turtle_sink
from .turtle_picture import show_changed as show_turtle_pictures


class RunResult(TypedDict):
    status: Literal['ok', 'error']
    result: MimeBundle | None
    error: ErrorInfo | None
    replay: list[str]
    # A step-through's recording (pytabs.trace), as JSON in UTF-8, when the run was asked to record.
    trace: bytes | None


Emit = Callable[[str, Any], object]


class Runtime:
    """A session's Python: runs its cells in ``__main__`` and keeps track of what to persist.

    Everything about the session lives on this instance; the interpreter is the
    session's alone, so the process-wide pieces it sets up (cwd, sys.path,
    the ``display`` and ``get_session_var`` builtins) belong to it too.
    """

    def __init__(self, session_id: str, workspace: str, emit: Emit) -> None:
        self.session_id = session_id
        self.workspace = os.path.abspath(workspace)
        self._emit = emit
        self._runs = 0
        self._session_vars: dict[str, str] = {}
        os.makedirs(self.workspace, exist_ok=True)
        os.chdir(self.workspace)
        # User modules saved in the workspace import like in a project folder.
        if self.workspace not in sys.path:
            sys.path.insert(0, self.workspace)
        # matplotlib reads this when pyplot is first imported: figures render with Agg and show inline.
        os.environ['MPLBACKEND'] = 'module://pytabs.inline_figures'
        # __pycache__ folders would show up as files the user's run wrote.
        sys.dont_write_bytecode = True
        self._namespace: dict[str, Any] = sys.modules['__main__'].__dict__
        # The namespace's own names (and the builtins set below) are PyTabs', not the student's variables.
        self._starting_names = frozenset(self._namespace)
        builtins.display = self.display  # type: ignore[attr-defined]
        # Last on the path: a student's own turtle.py in the workspace comes first, as in CPython.
        if not any(isinstance(finder, _TurtleFinder) for finder in sys.meta_path):
            sys.meta_path.append(_TurtleFinder())
        set_turtle_sink(lambda changes: emit('turtle', changes))
        builtins.get_session_var = self.get_session_var  # type: ignore[attr-defined]
        self._state = VariableState(
            self._namespace,
            reserved=self._starting_names,
            hidden=(builtins.display, builtins.get_session_var),  # type: ignore[attr-defined]
        )

    async def run(self, code: str, session_vars: Mapping[str, str], trace: str | None = None) -> RunResult:
        """Runs one cell. Never raises: every failure, an interrupt included, is an error result.

        With ``trace`` (TraceOptions as JSON) the cell's steps are recorded (pytabs.trace) and
        the result carries them, a stopped run's too: what ran until the stop.

        An interrupt can arrive at any bytecode, this runtime's own included; one
        escaping into the worker while it awaits this coroutine can leave the
        session hanging, so this outermost frame catches it around all the work.
        Only the few instructions of this frame outside the try remain exposed.
        """
        recorder = None
        try:
            if trace is not None:
                options: TraceOptions = json.loads(trace)
                recorder = Recorder(options, self._is_user_file, self._starting_names)
            result = await self._run(code, session_vars, recorder)
        except KeyboardInterrupt:
            error: ErrorInfo = {'ename': 'KeyboardInterrupt', 'evalue': '', 'traceback': 'KeyboardInterrupt'}
            result = {'status': 'error', 'result': None, 'error': error, 'replay': [], 'trace': None}
        finally:
            flush_streams()
        if recorder is not None:
            result['trace'] = json.dumps(recorder.record(), ensure_ascii=False, separators=(',', ':')).encode()
        return result

    def run_now(self, code: str, session_vars: Mapping[str, str], trace: str | None = None) -> RunResult:
        """Runs a cell that has no top-level await, without a trip through the event loop.

        Such a cell never suspends run(), so one step of the coroutine finishes it;
        each hop through Pyodide's event loop would cost the worker about a millisecond.
        """
        coroutine = self.run(code, session_vars, trace)
        try:
            coroutine.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        coroutine.close()
        raise RuntimeError('run_now() was given a cell that awaits; use run()')  # never shown: the worker's own mistake, for its developers

    async def _run(self, code: str, session_vars: Mapping[str, str], recorder: Recorder | None) -> RunResult:
        self._session_vars = dict(session_vars)
        self._runs += 1
        filename = f'<cell-{self._runs}>'
        cell = None
        try:
            self._forget_workspace_listings()
            cell = parse_cell(code, filename)
            try:
                if recorder is None:
                    value = await execute(cell, self._namespace)
                else:
                    with recorder.recording():
                        value = await execute(cell, self._namespace)
            finally:
                show_figures(self.display)
                show_turtle_pictures(self.display)
            result = None
            if value is not None:
                self._namespace['_'] = value
                result = mime_bundle(value)
            statements = replay_statements(cell.tree)
            self._state.note_replayed(statements)
            replay = [statement_source(code, node) for node in statements]
            return {'status': 'ok', 'result': result, 'error': None, 'replay': replay, 'trace': None}
        except BaseException as exc:
            error = describe_error(exc, self._is_user_file)
            error.update(explain_error(exc, filename, self._is_user_file))
            replay = [] if cell is None else self._completed_replay(cell, code, exc)
            return {'status': 'error', 'result': None, 'error': error, 'replay': replay, 'trace': None}

    def _completed_replay(self, cell: Cell, code: str, exc: BaseException) -> list[str]:
        """The top-level imports, defs and classes that ran before the statement that failed.

        A cell that defines a function and then fails calling it keeps the
        function, as a notebook would: those statements did run.
        """
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != cell.filename:
            tb = tb.tb_next
        if tb is None:
            return []
        # The cell's own (module-level) frame comes first: its line is the failing statement's.
        failed_line = tb.tb_lineno
        done = [node for node in replay_statements(cell.tree) if (node.end_lineno or node.lineno) < failed_line]
        self._state.note_replayed(done)
        return [statement_source(code, node) for node in done]

    def display(self, *objs: object) -> None:
        """Shows each object below the output so far (the ``display`` builtin)."""
        flush_streams()
        for obj in objs:
            self._emit('display', mime_bundle(obj))

    def get_session_var(self, name: str, default: str | None = None) -> str | None:
        """The session variable's value as of the current run (the ``get_session_var`` builtin)."""
        return self._session_vars.get(name, default)

    def changes(self, variable_limit: int, session_limit: int) -> VariableChanges:
        """What changed among the user's variables since the last confirmed changes or restore."""
        return self._state.changes(variable_limit, session_limit)

    def run_check(self, source: str, name: str, output_limit: int) -> CheckOutcome:
        """Runs one check of an assignment against a copy of the session's variables; commits nothing."""
        try:
            return run_check(self._namespace, source, name, output_limit)
        finally:
            flush_streams()

    def run_program(self, source: str, filename: str, input_text: str, output_limit: int) -> ProgramRun:
        """Runs a program on a case's input lines in a namespace of its own: the session's is untouched. It is never told what it should print."""
        try:
            return run_program(source, filename, input_text, output_limit)
        finally:
            flush_streams()

    def compare_outputs(self, source: str, name: str, expected: str, actual: str) -> CompareVerdict:
        """The teacher's compare function ``name`` of the check ``source`` on one case's outputs."""
        try:
            return compare_outputs(source, name, expected, actual)
        finally:
            flush_streams()

    def bound_names(self, code: str) -> list[str]:
        """The names a cell binds at module level, as far as its source tells.

        Used after a run was cut short by restarting the worker: these are the
        values the user may have expected and that were never committed.
        """
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return []
        return sorted(_module_level_targets(tree))

    def confirm_changes(self) -> None:
        """Storage committed the last changes; until then a failed commit is retried in full."""
        self._state.confirm()

    def restore(
        self, replay: Iterable[str], variables: Iterable[Mapping[str, Any]], pickles: Mapping[str, Any]
    ) -> RestoreReport:
        """Brings a stored session back into this fresh interpreter."""
        return self._state.restore(replay, variables, pickles)

    def clear(self) -> None:
        """Forgets every user variable; files and session variables stay."""
        self._state.clear()

    def scan_workspace(self) -> dict[str, list[int]]:
        """Every regular file under the workspace: relative posix path → [size, mtime_ns]."""
        files: dict[str, list[int]] = {}
        for folder, _, names in os.walk(self.workspace):
            for name in names:
                path = os.path.join(folder, name)
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode):
                    relative = os.path.relpath(path, self.workspace).replace(os.sep, '/')
                    files[relative] = [info.st_size, info.st_mtime_ns]
        return files

    def _forget_workspace_listings(self) -> None:
        """Makes a module saved in the workspace since the last run importable now.

        Import finders cache directory listings, and a file written within the
        same clock tick as the listing goes unseen. Only the workspace's finders
        are reset: importlib.invalidate_caches() would also re-read the stdlib
        zip on the next import, several milliseconds per run.
        """
        for path, finder in list(sys.path_importer_cache.items()):
            if finder is not None and (path == self.workspace or path.startswith(self.workspace + os.sep)):
                finder.invalidate_caches()

    def _is_user_file(self, filename: str) -> bool:
        """Frames of cells, of replayed statements and of modules in the workspace are the user's."""
        if filename.startswith(('<cell-', '<restored-')):
            return True
        return os.path.abspath(filename).startswith(self.workspace + os.sep)


def _module_level_targets(tree: ast.Module) -> set[str]:
    """Names stored at module level: assignments, loop and with targets, imports, defs, classes."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # Their bodies bind names of their own scope.
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition('.')[0] for a in node.names if a.name != '*')
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return names


class _TurtleFinder(importlib.abc.MetaPathFinder):
    """Makes ``import turtle`` load PyTabs' turtle (Pyodide has no tkinter, so no turtle of its own)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name != 'turtle':
            return None
        return importlib.util.spec_from_file_location('turtle', os.path.join(os.path.dirname(__file__), 'turtle.py'))
