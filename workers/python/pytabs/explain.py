"""Plain explanations of the errors beginners meet most, with the names and values of their own code.

``explain_error`` is called when a run ends in an exception. It writes no words: it
returns said texts, ``{'key': 'explain_…', 'params': {...}}`` (src/lib/i18n/said.ts),
which the page tells in the reader's language, and the line of the cell where the
error happened, which the page marks in the code it shows. What it reads of the
program's values it reads without running the program's code: names are looked up in
the failing frame, and only plain values (text, numbers, lists, tuples, dicts) are
indexed, measured or shown; anything else is left out of the explanation.

This module imports nothing of the browser: CPython runs it too.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import linecache
import re
import reprlib
from collections import Counter
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, TypedDict

from .said import Said


class Explanation(TypedDict, total=False):
    # What the error means, then (for a traceback through several functions) the path it took.
    explanation: list[Said]
    # The cell's line where it happened (1-based), for the page's mark.
    line: int


class _Unknown(Exception):
    """A value the explanation will not compute: it would run the program's own code."""


# Values shown in an explanation stay short, whatever the program holds.
_SHORT = reprlib.Repr()
_SHORT.maxstring = 40
_SHORT.maxother = 40
_SHORT.maxlist = 5
_SHORT.maxdict = 5
_PLAIN = (str, int, float, bool, type(None))
_CONTAINERS = (list, tuple, str, dict)
_KEYS_SHOWN = 6
_ARITHMETIC: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
}
_OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/', ast.FloorDiv: '//', ast.Mod: '%', ast.Pow: '**',
    ast.Lt: '<', ast.LtE: '<=', ast.Gt: '>', ast.GtE: '>=',
}
# TypeError messages that name an operator and two types (CPython 3.11 to 3.14 word them alike).
_TYPE_MESSAGES = (  # CPython's words
    re.compile(r'can only concatenate (?P<left>\w+) \(not "(?P<right>\w+)"\) to \w+'),
    re.compile(r"unsupported operand type\(s\) for (?P<op>\S+?)=?: '(?P<left>\w+)' and '(?P<right>\w+)'"),
    re.compile(r"'(?P<op>\S+)' not supported between instances of '(?P<left>\w+)' and '(?P<right>\w+)'"),
)
_KINDS = {'str': 'text', 'int': 'int', 'float': 'float'}


def explain_error(exc: BaseException, cell_file: str, is_user_file: Callable[[str], bool]) -> Explanation:
    """What the error means in plain words, and its line in the cell ``cell_file``; {} when nothing is known.

    Never raises: an explanation is a help beside the traceback, never in its way.
    """
    try:
        return _explain(exc, cell_file, is_user_file)
    except Exception:
        return {}


def _explain(exc: BaseException, cell_file: str, is_user_file: Callable[[str], bool]) -> Explanation:
    out: Explanation = {}
    if isinstance(exc, SyntaxError):
        if exc.filename == cell_file and exc.lineno:
            out['line'] = exc.lineno
        out['explanation'] = [_syntax(exc)]
        return out
    frames = _user_frames(exc.__traceback__, is_user_file)
    in_cell = [(frame, line) for frame, line in frames if frame.f_code.co_filename == cell_file]
    if in_cell:
        out['line'] = in_cell[-1][1]
    last = _last_frame(exc.__traceback__)
    node = _failing_node(last) if last is not None and is_user_file(last[0].f_code.co_filename) else None
    frame = last[0] if last is not None else None
    said = _meaning(exc, node, frame, frames)
    path = _path(frames) if not isinstance(exc, RecursionError) else None
    explanation = [s for s in (said, path) if s is not None]
    if explanation:
        out['explanation'] = explanation
    return out


def _said(key: str, /, **params: Any) -> Said:
    return {'key': key, 'params': params} if params else {'key': key}


def _meaning(exc: BaseException, node: ast.AST | None, frame: FrameType | None, frames: list[tuple[FrameType, int]]) -> Said | None:
    if isinstance(exc, UnboundLocalError):
        return _said('explain_unbound', name=getattr(exc, 'name', None) or _quoted_name(str(exc)))
    if isinstance(exc, NameError):
        return _name_error(exc, frame)
    if isinstance(exc, ZeroDivisionError):
        return _zero_division(node)
    if isinstance(exc, IndexError):
        return _index_error(node, frame)
    if isinstance(exc, KeyError):
        return _key_error(exc, node, frame)
    if isinstance(exc, TypeError):
        return _type_error(str(exc), node, frame)
    if isinstance(exc, ValueError):
        return _value_error(str(exc))
    if isinstance(exc, AttributeError):
        return _attribute_error(exc)
    if isinstance(exc, EOFError):
        return _said('explain_eof')
    if isinstance(exc, RecursionError):
        names = Counter(frame.f_code.co_name for frame, _ in frames if frame.f_code.co_name != '<module>')
        return _said('explain_recursion', function=names.most_common(1)[0][0]) if names else None
    return None


def _quoted_name(message: str) -> str:
    found = re.search(r"'(\w+)'", message)
    return found.group(1) if found else '?'


# --- where it happened ---


def _user_frames(tb: TracebackType | None, is_user_file: Callable[[str], bool]) -> list[tuple[FrameType, int]]:
    """The traceback's frames of the user's own code, outermost first, with the line each was at."""
    frames = []
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _last_frame(tb: TracebackType | None) -> tuple[FrameType, int] | None:
    """The innermost frame and the instruction it stopped at."""
    last = None
    while tb is not None:
        last = (tb.tb_frame, tb.tb_lasti)
        tb = tb.tb_next
    return last


def _failing_node(last: tuple[FrameType, int]) -> ast.AST | None:
    """The expression the frame's last instruction was evaluating, parsed from its source."""
    frame, lasti = last
    positions = list(frame.f_code.co_positions())
    index = lasti // 2
    if index >= len(positions):
        return None
    start, end, col, end_col = positions[index]
    if start is None or end is None or col is None or end_col is None:
        return None
    lines = [linecache.getline(frame.f_code.co_filename, n).encode('utf-8') for n in range(start, end + 1)]
    # Column offsets count UTF-8 bytes.
    lines[-1] = lines[-1][:end_col]
    lines[0] = lines[0][col:]
    segment = b''.join(lines).decode('utf-8', 'replace')
    try:
        return ast.parse(segment.strip(), mode='eval').body
    except SyntaxError:
        pass
    try:
        body = ast.parse(segment.strip()).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def _path(frames: list[tuple[FrameType, int]]) -> Said | None:
    """For an error raised through several of the user's functions: where it started and where it stopped."""
    if len(frames) < 2:
        return None
    (_, start), (inner, stop) = frames[0], frames[-1]
    return _said('explain_traceback', start=start, function=inner.f_code.co_name, stop=stop)


# --- reading the program's values without running its code ---


def _lookup(name: str, frame: FrameType) -> object:
    for scope in (frame.f_locals, frame.f_globals, vars(builtins)):
        if name in scope:
            return scope[name]
    raise _Unknown(name)


def _value(node: ast.AST, frame: FrameType) -> object:
    """The value of a plain expression (names, constants, small integer sums, len, indexing of plain containers)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return _lookup(node.id, frame)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _value(node.operand, frame)
        if type(value) in (int, float):
            return -value  # type: ignore[operator]
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left, frame), _value(node.right, frame)
        if type(left) is int and type(right) is int:
            return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        if _lookup(node.func.id, frame) is len:
            container = _value(node.args[0], frame)
            if type(container) in _CONTAINERS:
                return len(container)  # type: ignore[arg-type]
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        container, key = _value(node.value, frame), _value(node.slice, frame)
        if type(container) in _CONTAINERS and type(key) in _PLAIN:
            return container[key]  # type: ignore[index]
    raise _Unknown(ast.dump(node))


def _text(node: ast.AST) -> str:
    return ast.unparse(node)


def _short(value: object) -> str:
    return _SHORT.repr(value)


# --- each kind of error ---


def _name_error(exc: NameError, frame: FrameType | None) -> Said:
    name = getattr(exc, 'name', None) or _quoted_name(str(exc))
    if frame is not None:
        # The program's own names first: a close builtin is suggested only when none of theirs is.
        own = [n for n in {**frame.f_globals, **frame.f_locals} if not n.startswith('_')]
        for candidates in (own, [n for n in dir(builtins) if not n.startswith('_')]):
            close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.7) or [
                n for n in candidates if n.lower() == name.lower()
            ]
            if close:
                return _said('explain_name_suggest', name=name, suggestion=close[0])
    return _said('explain_name', name=name)


def _zero_division(node: ast.AST | None) -> Said:
    if isinstance(node, ast.AugAssign):
        return _said('explain_zero', divisor=_text(node.value))
    if isinstance(node, ast.BinOp):
        return _said('explain_zero', divisor=_text(node.right))
    return _said('explain_zero_plain')


def _index_error(node: ast.AST | None, frame: FrameType | None) -> Said:
    if isinstance(node, ast.Subscript) and frame is not None:
        try:
            container, index = _value(node.value, frame), _value(node.slice, frame)
        except _Unknown:
            container = index = None
        if type(container) in (list, tuple, str) and type(index) is int:
            name = _text(node.value)
            length = len(container)  # type: ignore[arg-type]
            if length == 0:
                return _said('explain_index_empty', name=name, index=index)
            return _said('explain_index', name=name, length=length, index=index, last=length - 1)
    return _said('explain_index_plain')


def _key_error(exc: KeyError, node: ast.AST | None, frame: FrameType | None) -> Said:
    key = _short(exc.args[0]) if exc.args else '?'
    if isinstance(node, ast.Subscript) and frame is not None:
        try:
            container = _value(node.value, frame)
        except _Unknown:
            container = None
        if type(container) is dict:
            name = _text(node.value)
            if not container:
                return _said('explain_key_empty', key=key, name=name)
            keys = [_short(k) for k in list(container)[:_KEYS_SHOWN]]
            if len(container) > _KEYS_SHOWN:
                keys.append('…')
            return _said('explain_key', key=key, name=name, keys=', '.join(keys))
    return _said('explain_key_plain', key=key)


def _type_error(message: str, node: ast.AST | None, frame: FrameType | None) -> Said | None:
    for pattern in _TYPE_MESSAGES:
        found = pattern.fullmatch(message)
        if found:
            break
    else:
        return None
    left_type, right_type = found.group('left'), found.group('right')
    if {left_type, right_type} - set(_KINDS) or 'str' not in (left_type, right_type) or left_type == right_type:
        return None
    op = found.groupdict().get('op') or '+'
    operands = _operands(node)
    left, right = (
        _described(operand, kind, frame) for operand, kind in zip(operands or (None, None), (left_type, right_type))
    )
    key = 'explain_type_join' if op == '+' else 'explain_type_mixed'
    return _said(key, op=op, left=left, right=right)


def _operands(node: ast.AST | None) -> tuple[ast.AST, ast.AST] | None:
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    if isinstance(node, ast.AugAssign):
        return node.target, node.value
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        return node.left, node.comparators[0]
    return None


def _described(node: ast.AST | None, kind: str, frame: FrameType | None) -> Said:
    """A value with its kind ("5" (text)) when it can be read, else its kind alone (a text)."""
    if node is not None and frame is not None:
        try:
            value = _value(node, frame)
        except _Unknown:
            value = None
        if type(value).__name__ == kind:
            return _said(f'explain_value_{_KINDS[kind]}', value=_short(value))
    return _said(f'explain_kind_{_KINDS[kind]}')


def _value_error(message: str) -> Said | None:
    found = re.fullmatch(r"invalid literal for int\(\) with base 10: (?P<text>.*)", message, re.S)  # CPython's words
    if found:
        text = found.group('text')
        if text.strip('\'"').strip() == '':
            return _said('explain_int_empty')
        if re.fullmatch(r"""['"]\s*[-+]?\d*[.,]\d+\s*['"]""", text):
            return _said('explain_int_decimal', text=text)
        return _said('explain_int', text=text)
    found = re.fullmatch(r'could not convert string to float: (?P<text>.*)', message, re.S)  # CPython's words
    if found:
        return _said('explain_float', text=found.group('text'))
    return None


def _attribute_error(exc: AttributeError) -> Said | None:
    name = getattr(exc, 'name', None)
    if not name or not hasattr(exc, 'obj'):
        return None
    obj = exc.obj
    if obj is None:
        return _said('explain_attribute_none', name=name)
    if type(obj).__name__ == 'module':
        owner = _said('explain_owner_module', module=getattr(obj, '__name__', '?'))
    else:
        owner = _said('explain_owner_type', type=type(obj).__name__)
    # dir() of a plain value or a module asks nothing of the program's code; of an instance it may.
    names = [n for n in dir(type(obj)) + list(getattr(obj, '__dict__', {})) if not n.startswith('_')]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        return _said('explain_attribute_suggest', owner=owner, name=name, suggestion=close[0])
    return _said('explain_attribute', owner=owner, name=name)


def _syntax(exc: SyntaxError) -> Said:
    message = exc.msg or ''
    line = exc.lineno or 1
    column = exc.offset or 1
    if isinstance(exc, TabError):
        return _said('explain_syntax_tabs', line=line)
    if isinstance(exc, IndentationError):
        if message.startswith('unexpected indent'):
            return _said('explain_syntax_unexpected_indent', line=line)
        if message.startswith('expected an indented block'):  # CPython's words
            return _said('explain_syntax_expected_indent', line=line)
        if message.startswith('unindent does not match'):  # CPython's words
            return _said('explain_syntax_unindent', line=line)
    if message == "expected ':'":
        return _said('explain_syntax_colon', line=line, column=column)
    found = re.fullmatch(r"'(.)' was never closed", message)
    if found:
        return _said('explain_syntax_unclosed', bracket=found.group(1), line=line, column=column)
    found = re.fullmatch(r"unmatched '(.)'", message)
    if found:
        return _said('explain_syntax_unmatched', bracket=found.group(1), line=line, column=column)
    found = re.fullmatch(r"closing parenthesis '(.)' does not match opening parenthesis '(.)'.*", message)  # CPython's words
    if found:
        return _said('explain_syntax_mismatch', closing=found.group(1), opening=found.group(2), line=line, column=column)
    if message.startswith(('unterminated string literal', 'unterminated triple-quoted string literal')):
        return _said('explain_syntax_string', line=line)
    if message.startswith('Missing parentheses in call to'):  # CPython's words
        return _said('explain_syntax_print', line=line)
    if "Maybe you meant '==' or ':=' instead of '='" in message or "cannot assign to" in message and "'=='" in message:  # CPython's words
        return _said('explain_syntax_equals', line=line, column=column)
    if message.startswith('invalid syntax. Perhaps you forgot a comma'):
        return _said('explain_syntax_comma', line=line, column=column)
    return _said('explain_syntax_other', line=line, column=column)
