"""How values look to the user: MIME bundles, bounded reprs, previews and type names."""

from __future__ import annotations

import base64
import io
import itertools
import json
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from .said import said, words

# A repr longer than this is cut: the page cannot show more usefully, and
# building the full repr of a 50 MB value would stall the session.
TEXT_LIMIT = 100_000
PREVIEW_LIMIT = 120
# A table's preview names its columns and dtypes (the assistant's context shows it), so it gets more room.
TABLE_PREVIEW_LIMIT = 400
TABLE_PREVIEW_COLUMNS = 40

# Tried in this order after _repr_mimebundle_; the first one of a MIME type wins.
_RICH_METHODS = (
    ('text/html', '_repr_html_'),
    ('text/markdown', '_repr_markdown_'),
    ('image/svg+xml', '_repr_svg_'),
    ('image/png', '_repr_png_'),
    ('image/jpeg', '_repr_jpeg_'),
    ('application/json', '_repr_json_'),
)
_BINARY_TYPES = frozenset({'image/png', 'image/jpeg', 'image/gif', 'image/webp'})

MimeBundle = dict[str, str]


def mime_bundle(obj: object) -> MimeBundle:
    """The Jupyter-style bundle of obj; 'text/plain' is always present.

    A rich repr method that raises or returns nothing is left out: a broken
    ``_repr_html_`` must not cost the user their output, let alone the run.
    """
    bundle: MimeBundle = {}
    # Rich repr methods looked up on a class are unbound functions of its instances.
    if not isinstance(obj, type):
        bundle.update(_from_mimebundle(obj))
        for mime, method in _RICH_METHODS:
            if mime not in bundle:
                data = _call_repr_method(obj, method)
                encoded = None if data is None else _encode(mime, data)
                if encoded is not None:
                    bundle[mime] = encoded
        if 'image/png' not in bundle:
            png = _figure_png(obj)
            if png is not None:
                bundle['image/png'] = png
    if 'text/plain' not in bundle:
        bundle['text/plain'] = plain_text(obj)
    return bundle


def _from_mimebundle(obj: object) -> MimeBundle:
    data = _call_repr_method(obj, '_repr_mimebundle_', include=None, exclude=None)
    if not isinstance(data, dict):
        return {}
    bundle: MimeBundle = {}
    for mime, value in data.items():
        encoded = _encode(str(mime), value)
        if encoded is not None:
            bundle[str(mime)] = encoded
    return bundle


def _figure_png(obj: object) -> str | None:
    """A matplotlib Figure drawn as base64 PNG, as Jupyter shows one; None for anything else.

    Looked up in sys.modules so that a session without matplotlib never imports it.
    """
    figure_module = sys.modules.get('matplotlib.figure')
    if figure_module is None or not isinstance(obj, figure_module.Figure):
        return None
    buffer = io.BytesIO()
    try:
        obj.savefig(buffer, format='png', bbox_inches='tight')
    except Exception as exc:
        # The figure's text form still shows; the reason it could not be drawn goes with it.
        print(words(said('rt_py_figure_failed', error=f'{type(exc).__name__}: {exc}')), file=sys.stderr)
        return None
    return base64.b64encode(buffer.getvalue()).decode('ascii')


def show_figures(display: Callable[[object], None]) -> None:
    """Shows every open matplotlib figure through display, then closes them all.

    What ``plt.show()`` does in a session, and what the Runtime does after each
    run for figures left open, as a notebook's inline backend does. Free when
    pyplot was never imported.
    """
    pyplot = sys.modules.get('matplotlib.pyplot')
    if pyplot is None:
        return
    numbers = pyplot.get_fignums()
    # close('all') runs the garbage collector: not worth it after a run that drew nothing.
    if not numbers:
        return
    try:
        for number in numbers:
            display(pyplot.figure(number))
    finally:
        pyplot.close('all')


def _call_repr_method(obj: object, name: str, **kwargs: Any) -> object:
    try:
        method = getattr(obj, name, None)
        if not callable(method):
            return None
        data = method(**kwargs)
    except Exception:
        return None
    # IPython lets these methods return (data, metadata); metadata has no use here.
    if isinstance(data, tuple) and len(data) == 2:
        data = data[0]
    return data


def _encode(mime: str, data: object) -> str | None:
    """data as the str a bundle carries for mime, or None when it cannot be."""
    try:
        if mime in _BINARY_TYPES:
            if isinstance(data, (bytes, bytearray, memoryview)):
                return base64.b64encode(data).decode('ascii')
            return data if isinstance(data, str) else None
        if mime == 'application/json' or mime.endswith('+json'):
            return data if isinstance(data, str) else json.dumps(data)
        if isinstance(data, (bytes, bytearray)):
            return bytes(data).decode('utf-8', errors='replace')
        return data if isinstance(data, str) else str(data)
    except Exception:
        return None


def plain_text(obj: object, limit: int = TEXT_LIMIT) -> str:
    """repr(obj), cut after limit characters without building the rest of it."""
    text, cut = _bounded_repr(obj, limit)
    if cut:
        return f'{text}…\n' + words(said('rt_py_repr_cut', limit=f'{limit:,}'))
    return text


def preview(obj: object, limit: int = PREVIEW_LIMIT) -> str:
    """A one-line repr of at most limit characters, for the variables panel; for a table, its shape, columns and dtypes."""
    table = _table_preview(obj)
    if table is not None:
        return table
    text, cut = _bounded_repr(obj, limit)
    text = re.sub(r'\s*\n\s*', ' ', text).strip()
    if cut or len(text) > limit:
        return text[: limit - 1] + '…'
    return text


def _table_preview(obj: object) -> str | None:
    """'3 rows × 2 columns: tag (object), n (int64)' for a DataFrame, else None.

    Recognised by its two-dimensional shape, columns and dtypes (pandas, and tables
    that follow it), so nothing is imported; a table whose attributes fail is
    previewed as any other value.
    """
    if isinstance(obj, (type, str, bytes, bytearray, list, tuple, dict, set, frozenset)):
        return None
    try:
        shape = getattr(obj, 'shape', None)
        if not (isinstance(shape, tuple) and len(shape) == 2):
            return None
        columns, dtypes = getattr(obj, 'columns', None), getattr(obj, 'dtypes', None)
        if columns is None or dtypes is None:
            return None
        named = zip(itertools.islice(columns, TABLE_PREVIEW_COLUMNS), itertools.islice(dtypes, TABLE_PREVIEW_COLUMNS))
        pairs = [f'{name} ({dtype})' for name, dtype in named]
        rows, cols = int(shape[0]), int(shape[1])
    except Exception:
        return None
    head = f'{rows} rows × {cols} columns: '
    # Room is kept for the note on the columns left out.
    room = TABLE_PREVIEW_LIMIT - len(head) - 24
    shown: list[str] = []
    for pair in pairs:
        if sum(len(p) + 2 for p in shown) + len(pair) > room:
            break
        shown.append(pair)
    more = f', … {cols - len(shown)} more' if cols > len(shown) else ''
    return head + ', '.join(shown) + more


def _bounded_repr(obj: object, limit: int) -> tuple[str, bool]:
    """The first limit characters of repr(obj), and whether there was more."""
    parts: list[str] = []
    size = 0
    try:
        for chunk in _repr_chunks(obj, limit, set()):
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                return ''.join(parts)[:limit], True
    except RecursionError:
        return _safe_repr(obj)[:limit], False
    return ''.join(parts), False


def _repr_chunks(obj: object, limit: int, active: set[int]) -> Iterator[str]:
    """repr(obj) in pieces, so a consumer can stop early.

    Only the exact built-in containers and strings are taken apart (their repr
    is fixed by the language); anything else is repr'd whole.
    """
    kind = type(obj)
    if kind in (str, bytes, bytearray):
        # A slice one longer than the limit still overflows it, so the cut shows.
        yield _safe_repr(obj[: limit + 1]) if len(obj) > limit else _safe_repr(obj)  # type: ignore[index]
        return
    if kind not in (list, tuple, dict, set, frozenset):
        yield _safe_repr(obj)
        return
    if id(obj) in active:
        yield {list: '[...]', dict: '{...}'}.get(kind, '...')
        return
    active.add(id(obj))
    try:
        yield from _container_chunks(obj, kind, limit, active)
    finally:
        active.discard(id(obj))


def _container_chunks(obj: Any, kind: type, limit: int, active: set[int]) -> Iterator[str]:
    if kind in (set, frozenset) and not obj:
        yield f'{kind.__name__}()'
        return
    opening, closing = {
        list: ('[', ']'),
        tuple: ('(', ')'),
        dict: ('{', '}'),
        set: ('{', '}'),
        frozenset: ('frozenset({', '})'),
    }[kind]
    yield opening
    items = obj.items() if kind is dict else obj
    for index, item in enumerate(items):
        if index:
            yield ', '
        if kind is dict:
            yield from _repr_chunks(item[0], limit, active)
            yield ': '
            yield from _repr_chunks(item[1], limit, active)
        else:
            yield from _repr_chunks(item, limit, active)
    if kind is tuple and len(obj) == 1:
        yield ','
    yield closing


def _safe_repr(obj: object) -> str:
    try:
        return repr(obj)
    except Exception as exc:
        return f'<{type_name(obj)} object (its repr failed: {type(exc).__name__}: {exc})>'


def type_name(obj: object) -> str:
    """The type as a user would write it: 'int', 'Point', 'pandas.DataFrame'."""
    cls = type(obj)
    module = getattr(cls, '__module__', None) or 'builtins'
    qualname = getattr(cls, '__qualname__', cls.__name__)
    if module in ('builtins', '__main__'):
        return qualname
    package = module.partition('.')[0]
    if package != module and _exported_by(sys.modules.get(package), cls):
        return f'{package}.{qualname}'
    return f'{module}.{qualname}'


def _exported_by(package: object, cls: type) -> bool:
    """Whether the package re-exports cls under its own name (pandas.DataFrame)."""
    if package is None:
        return False
    # Some packages warn about deprecated names on attribute access; asking is not using.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            return getattr(package, cls.__name__, None) is cls
        except Exception:
            return False


def flush_streams() -> None:
    """Pushes buffered print output out, so it lands before what comes next."""
    for stream in (sys.stdout, sys.stderr):
        flush: Callable[[], None] | None = getattr(stream, 'flush', None)
        if flush is not None:
            # A user may have closed or replaced the stream; output order is not worth a failed run.
            try:
                flush()
            except Exception:
                continue
