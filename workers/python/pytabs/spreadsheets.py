"""Spreadsheets in every session: ``read_excel`` and ``write_excel`` backed by SheetJS.

SheetJS runs in the worker's JavaScript (module ``pytabs_sheetjs``, registered by
``workers/runtime/spreadsheets.ts``); this module turns its JSON into plain Python
values. When pandas is imported and has no engine of its own for a format (openpyxl
is not in Pyodide's package index), ``pd.read_excel`` and ``DataFrame.to_excel``
go through the same bridge, so ``pd.read_excel('data.xlsx')`` works as is.
"""

from __future__ import annotations

import builtins
import csv
import datetime
import decimal
import functools
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import sys
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from pyodide.ffi import JsException, to_js

from .said import Said, error, said



class ExcelError:
    """An error cell (``#DIV/0!``, ``#N/A``, ...): a value a program can test for, never a number or text.

    ``str()`` gives Excel's code; two errors are equal when their codes are.
    """

    __slots__ = ('code',)

    def __init__(self, code: str) -> None:
        self.code = code

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExcelError) and other.code == self.code

    def __hash__(self) -> int:
        return hash(('ExcelError', self.code))

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f'ExcelError({self.code!r})'


Cell = None | bool | int | float | str | datetime.datetime | datetime.time | datetime.timedelta | ExcelError
Rows = list[list[Cell]]


class SpreadsheetError(ValueError):
    """A workbook could not be read or written; the message names the file and the cause."""


def _bridge_cause(e: JsException) -> Said:
    """Why the SheetJS bridge refused: its said text (workers/runtime/spreadsheets.ts), else its message."""
    told = getattr(e, 'said', None)
    if told is not None and hasattr(told, 'to_py'):
        return told.to_py()
    return said('rt_py_text', text=e.message)


class SheetRows(list):
    """A sheet's rows as ``read_excel`` returns them, with ``columns``: the column names,
    kept also when the sheet has a header and no rows."""

    def __init__(self, rows: Iterable[dict[Any, Cell]] = (), columns: Sequence[Any] = ()) -> None:
        super().__init__(rows)
        self.columns = list(columns)


def _sheetjs() -> Any:
    """The worker's SheetJS bridge, imported when first used: this module is in the start
    snapshot, which may hold no JS object, and the bridge is registered after the restore."""
    import pytabs_sheetjs

    return pytabs_sheetjs


_MIDNIGHT = datetime.datetime(2000, 1, 1)


def _cell_hook(obj: dict[str, Any]) -> Any:
    """A tagged cell from the bridge (see Cell in workers/runtime/spreadsheets.ts) as its Python value."""
    if len(obj) == 1:
        if 'date' in obj:
            return datetime.datetime.fromisoformat(obj['date'])
        if 'time' in obj:
            return (_MIDNIGHT + datetime.timedelta(milliseconds=obj['time'])).time()
        if 'duration' in obj:
            return datetime.timedelta(milliseconds=obj['duration'])
        if 'error' in obj:
            return ExcelError(obj['error'])
    return obj


class _Sheet:
    __slots__ = ('rows', 'left')

    def __init__(self, rows: Rows, left: int) -> None:
        self.rows = rows
        self.left = left


def _load_sheets(data: bytes, name: str) -> dict[str, _Sheet]:
    try:
        text = _sheetjs().read_workbook(to_js(data), name)
    except JsException as e:
        if e.name == 'ReadStopped':  # the person pressed Stop during the read
            raise KeyboardInterrupt from None
        raise error(SpreadsheetError, said('rt_py_cannot_read', file=repr(name), cause=_bridge_cause(e))) from None
    return {sheet['name']: _Sheet(sheet['rows'], sheet.get('left', 0)) for sheet in json.loads(text, object_hook=_cell_hook)}


def _header(row: Sequence[Cell], positions: Sequence[int]) -> list[Any]:
    """Column names from a header row, as pandas names them: values as they are, an empty
    cell as "Unnamed: <position>", a repeated name with ".1", ".2", ..."""
    names: list[Any] = []
    repeats: dict[Any, int] = {}
    for i, value in zip(positions, row):
        base: Any = f'Unnamed: {i}' if value is None or value == '' else str(value) if isinstance(value, ExcelError) else value
        name = base
        while name in names:
            repeats[base] = repeats.get(base, 0) + 1
            name = f'{base}.{repeats[base]}'
        names.append(name)
    return names


def _column_index(letters: str) -> int:
    n = 0
    for ch in letters.strip().upper():
        if not 'A' <= ch <= 'Z':
            raise error(ValueError, said('rt_py_not_column_letter', letters=repr(letters)))
        n = n * 26 + ord(ch) - ord('A') + 1
    return n - 1


def _column_positions(usecols: str, left: int = 0) -> list[int]:
    """Excel column letters such as "A:C,E" as positions in a sheet read from column ``left``."""
    positions: list[int] = []
    for part in usecols.split(','):
        first, _, last = part.partition(':')
        positions.extend(range(_column_index(first) - left, _column_index(last or first) - left + 1))
    return positions


def _skipped(skiprows: Any, count: int) -> set[int]:
    if skiprows is None:
        return set()
    if callable(skiprows):
        return {i for i in range(count) if skiprows(i)}
    if isinstance(skiprows, int) and not isinstance(skiprows, bool):
        return set(range(skiprows))
    return set(skiprows)


def _shape(
    rows: Rows,
    left: int,
    header: int | None,
    names: Sequence[Any] | None,
    skiprows: Any,
    nrows: int | None,
    usecols: Any,
) -> SheetRows:
    """One sheet's rows as records, with pandas' meaning of each argument."""
    if header is not None and (isinstance(header, bool) or not isinstance(header, int) or header < 0):
        raise error(ValueError, said('rt_py_bad_header', header=repr(header)))
    skipped = _skipped(skiprows, len(rows))
    rows = [row for i, row in enumerate(rows) if i not in skipped]
    width = max((len(row) for row in rows), default=0)
    head: Sequence[Cell] = []
    if header is not None:
        head = rows[header] if header < len(rows) else []
        rows = rows[header + 1 :]
    if nrows is not None:
        rows = rows[:nrows]
    positions = list(range(width))
    labels = _header(list(head) + [None] * (width - len(head)), positions) if header is not None else positions
    if usecols is not None:
        if isinstance(usecols, str):
            wanted = set(_column_positions(usecols, left))
            positions = [p for p in positions if p in wanted]
        elif callable(usecols):
            positions = [p for p in positions if usecols(labels[p])]
        else:
            wanted_list = list(usecols)
            by_name = {label: p for p, label in enumerate(labels)}
            if all(isinstance(u, int) and not isinstance(u, bool) for u in wanted_list):
                missing = [u for u in wanted_list if not 0 <= u < width]
                chosen = set(wanted_list)
            else:
                missing = [u for u in wanted_list if u not in by_name]
                chosen = {by_name[u] for u in wanted_list if u in by_name}
            if missing:
                raise error(ValueError, said('rt_py_usecols_missing', missing=repr(missing), columns=repr(labels)))
            positions = [p for p in positions if p in chosen]
    columns = [labels[p] for p in positions]
    if names is not None:
        names = list(names)
        if len(names) != len(columns):
            raise error(ValueError, said('rt_py_names_count', names=len(names), count=len(columns), columns=repr(columns)))
        columns = names
    if positions == list(range(width)):
        # Every row is as wide as the sheet (the bridge pads them): zip them as they are.
        records = [dict(zip(columns, row)) for row in rows]
    else:
        records = [dict(zip(columns, [row[p] if p < len(row) else None for p in positions])) for row in rows]
    return SheetRows(records, columns)


def read_excel(
    path: str | os.PathLike[str],
    sheet_name: str | int | list[str | int] | None = None,
    *,
    header: int | None = 0,
    names: Sequence[Any] | None = None,
    usecols: Any = None,
    skiprows: Any = None,
    nrows: int | None = None,
) -> Any:
    """Reads a workbook (.xlsx, .xlsm, .xls, .ods, .csv) as lists of dicts.

    The arguments mean what they mean in ``pandas.read_excel``: ``header`` is the row
    number of the column names (None: no header, the columns are numbered), ``skiprows``
    a count, row numbers or a function of the row number, ``nrows`` how many rows to read
    after the header, ``usecols`` column letters ("A:C,E"), positions, names or a function
    of the name, ``names`` the column names to use. Rows count from the sheet's first row
    that holds a value. Each sheet's list has ``columns``, also when it has no rows.

    Dates come back as ``datetime.datetime``, times of day as ``datetime.time``, durations
    (``[h]:mm`` formats) as ``datetime.timedelta``, error cells as ``ExcelError``, empty
    cells as ``None``; formulas are not evaluated, their saved values are used. With
    ``sheet_name=None`` (the default) the result is a dict of every sheet, hidden ones
    too; with a name or a 0-based index, that sheet's rows; with a list, a dict of those.
    """
    name = os.fspath(path)
    with open(name, 'rb') as f:
        sheets = _load_sheets(f.read(), name)

    def one(key: str | int) -> SheetRows:
        sheet = sheets[_sheet_title(sheets, key, name)]
        return _shape(sheet.rows, sheet.left, header, names, skiprows, nrows, usecols)

    if sheet_name is None:
        return {title: one(title) for title in sheets}
    if isinstance(sheet_name, list):
        return {key: one(key) for key in sheet_name}
    return one(sheet_name)


def _sheet_title(sheets: Mapping[str, Any], wanted: str | int, file_name: str) -> str:
    titles = list(sheets)
    if isinstance(wanted, int) and not isinstance(wanted, bool):
        if -len(titles) <= wanted < len(titles):
            return titles[wanted]
    elif wanted in sheets:
        return wanted
    raise error(SpreadsheetError, said('rt_py_no_sheet', file=repr(file_name), sheet=repr(wanted), sheets=repr(titles)))


class _Unwritable(Exception):
    """A value no cell can hold; save_workbook names the cell."""


def _ms(delta: datetime.timedelta) -> int:
    return round(delta / datetime.timedelta(milliseconds=1))


def _json_default(value: Any) -> Any:
    """A cell value json cannot write by itself, as it crosses to the bridge (see Cell in
    workers/runtime/spreadsheets.ts). Times are kept to the millisecond, Excel's precision."""
    if isinstance(value, decimal.Decimal):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(number)  # never shown: _to_json_cell makes it an empty cell
        return number
    if isinstance(value, datetime.datetime):
        # Excel has no time zones: an aware datetime is written as its wall-clock time.
        day = datetime.datetime(value.year, value.month, value.day)
        when = day + datetime.timedelta(milliseconds=_ms(value.replace(tzinfo=None) - day))
        return {'date': when.isoformat(timespec='milliseconds' if when.microsecond else 'seconds')}
    if isinstance(value, datetime.date):
        return {'date': datetime.datetime(value.year, value.month, value.day).isoformat()}
    if isinstance(value, datetime.time):
        since_midnight = datetime.timedelta(hours=value.hour, minutes=value.minute, seconds=value.second, microseconds=value.microsecond)
        return {'time': min(_ms(since_midnight), 86_399_999)}
    if isinstance(value, datetime.timedelta):
        return {'duration': _ms(value)}
    if isinstance(value, ExcelError):
        return {'error': value.code}
    raise error(_Unwritable, said('rt_py_unwritable', type=type(value).__name__))


def _to_json_cell(value: Any) -> Any:
    """One cell as _json_default makes it, also a plain value (or a nested one, refused)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, (float, decimal.Decimal)):
        # NaN and infinities have no cell value: write an empty cell, as pandas does for NaN.
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, (list, tuple, dict, set)):
        raise error(_Unwritable, said('rt_py_unwritable', type=type(value).__name__))
    return _json_default(value)


def _sheets_json(path: str, sheets: Mapping[str, list[list[Any]]]) -> str:
    """The sheets as JSON for the bridge. json writes plain values in C; only when a value
    is NaN or cannot be written does the cell-by-cell pass run, to blank or name it."""
    payload = [{'name': str(title), 'rows': rows} for title, rows in sheets.items()]
    try:
        return json.dumps(payload, default=_json_default, allow_nan=False, check_circular=False)
    except (ValueError, _Unwritable, RecursionError):
        pass
    for sheet in payload:
        cells: list[list[Any]] = []
        for r, row in enumerate(sheet['rows']):
            out = []
            for c, value in enumerate(row):
                try:
                    out.append(_to_json_cell(value))
                except _Unwritable as e:
                    cause = said('rt_py_in_cell', sheet=repr(sheet['name']), cell=_cell_name(r, c), cause=e.said)  # type: ignore[attr-defined]
                    raise error(SpreadsheetError, said('rt_py_cannot_write', file=repr(path), cause=cause)) from None
            cells.append(out)
        sheet['rows'] = cells
    return json.dumps(payload, allow_nan=False)


def _cell_name(row: int, column: int) -> str:
    letters = ''
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord('A') + rest) + letters
    return f'{letters}{row + 1}'


def _rows(records: Iterable[Any]) -> list[list[Any]]:
    """A sheet's rows: a list of dicts gets a header row of every key, in first-seen order."""
    records = list(records)
    if records and all(isinstance(r, Mapping) for r in records):
        columns = list(dict.fromkeys(key for record in records for key in record))
        return [columns] + [[record.get(c) for c in columns] for record in records]
    if any(isinstance(r, (str, bytes, Mapping)) or not isinstance(r, Iterable) for r in records):
        raise error(TypeError, said('rt_py_sheet_shape'))
    return [list(record) for record in records]


def save_workbook(path: str, sheets: Mapping[str, list[list[Any]]]) -> None:
    """Writes sheets of rows to ``path``; the format follows its extension."""
    ext = os.path.splitext(path)[1].lower()
    if ext == '.csv':
        if len(sheets) != 1:
            raise error(SpreadsheetError, said('rt_py_cannot_write', file=repr(path), cause=said('rt_py_csv_one_sheet', count=len(sheets))))
        with open(path, 'w', newline='', encoding='utf-8') as f:
            writer = csv.writer(f)
            for row in next(iter(sheets.values())):
                writer.writerow(['' if v is None else v.isoformat(sep=' ') if isinstance(v, datetime.date) else v for v in row])
        return
    if ext not in ('.xlsx', '.ods'):
        raise error(SpreadsheetError, said('rt_py_cannot_write', file=repr(path), cause=said('rt_py_write_extension')))
    try:
        written = _sheetjs().write_workbook(_sheets_json(path, sheets), ext[1:])
    except JsException as e:
        raise error(SpreadsheetError, said('rt_py_cannot_write', file=repr(path), cause=_bridge_cause(e))) from None
    data = written.to_bytes() if ext == '.ods' else _zip(written)
    with open(path, 'wb') as f:
        f.write(data)


def _zip(parts: Any) -> bytes:
    """An xlsx package from its parts ([name, Uint8Array] pairs from the bridge). zlib at
    level 1 here deflates a sheet several times faster than level 6 (zipfile's default),
    for a file about a fifth larger."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, part in parts:
            z.writestr(name, part.to_bytes())
    return buffer.getvalue()


def write_excel(path: str | os.PathLike[str], data: Any) -> None:
    """Writes a workbook: ``data`` is a list of dicts (one sheet, "Sheet1") or a dict of
    sheet name to a list of dicts or of rows. The format follows the extension:
    .xlsx, .ods or .csv (one sheet)."""
    sheets = data if isinstance(data, Mapping) else {'Sheet1': data}
    save_workbook(os.fspath(path), {title: _rows(records) for title, records in sheets.items()})


# pandas: the engine pandas would use for each extension, and whether to step in.
_PANDAS_ENGINES = {'.xlsx': 'openpyxl', '.xlsm': 'openpyxl', '.xls': 'xlrd', '.ods': 'odf'}


def _needs_sheetjs(ext: str | None) -> bool:
    """True when pandas would fail for want of its engine for this extension."""
    engine = _PANDAS_ENGINES.get(ext or '.xlsx')
    return engine is not None and importlib.util.find_spec(engine) is None


def _path_extension(target: Any) -> str | None:
    if isinstance(target, (str, os.PathLike)):
        return os.path.splitext(os.fspath(target))[1].lower()
    return None


def _pandas_read_excel(pd: ModuleType, io: Any, sheet_name: Any, kwargs: dict[str, Any]) -> Any:
    from pandas.io.parsers import TextParser

    if isinstance(io, (str, os.PathLike)):
        name = os.fspath(io)
        with open(name, 'rb') as f:
            data = f.read()
    else:
        name = getattr(io, 'name', '<buffer>')
        data = io if isinstance(io, (bytes, bytearray)) else io.read()
    sheets = _load_sheets(bytes(data), str(name))
    letters = kwargs.pop('usecols') if isinstance(kwargs.get('usecols'), str) else None
    kwargs.setdefault('header', 0)
    nrows = kwargs.pop('nrows', None)
    # Options of read_excel itself, not of the parser.
    for option in ('engine', 'engine_kwargs', 'storage_options'):
        kwargs.pop(option, None)
    wanted = list(sheets) if sheet_name is None else sheet_name if isinstance(sheet_name, list) else [sheet_name]
    frames = {}
    for key in wanted:
        sheet = sheets[_sheet_title(sheets, key, str(name))]
        # Empty cells as "" so pandas' own NA handling applies, and error cells as NaN, as
        # with its openpyxl reader.
        rows = [['' if v is None else math.nan if isinstance(v, ExcelError) else v for v in row] for row in sheet.rows]
        options = {**kwargs, 'usecols': _column_positions(letters, sheet.left)} if letters is not None else kwargs
        frames[key] = TextParser(rows, skip_blank_lines=False, **options).read(nrows=nrows) if rows else pd.DataFrame()
    if sheet_name is None or isinstance(sheet_name, list):
        return frames
    return frames[sheet_name]


def _pandas_cell(pd: ModuleType, value: Any) -> Any:
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if not isinstance(value, datetime.datetime) and hasattr(value, 'item'):
        return value.item()  # a numpy scalar
    return value


def _pandas_to_excel(pd: ModuleType, frame: Any, path: str, sheet_name: str, index: bool, header: bool | list[str]) -> None:
    """Writes a DataFrame as pandas lays it out: index columns first, headed by their names.

    ``header`` is True, False, or a list of names to write instead of the columns'.
    """
    levels = frame.index.nlevels if index else 0
    rows: list[list[Any]] = []
    if header is not False:
        index_names = ['' if n is None else str(n) for n in frame.index.names] if index else []
        columns = header if isinstance(header, list) else frame.columns
        rows.append(index_names + [str(c) for c in columns])
    for row in frame.itertuples(index=index, name=None):
        cells = (list(row[0]) if levels > 1 else [row[0]]) + list(row[1:]) if index else list(row)
        rows.append([_pandas_cell(pd, v) for v in cells])
    save_workbook(path, {sheet_name: rows})


_TO_EXCEL_OPTIONS = {'sheet_name', 'index', 'header'}


def _patch_pandas(pd: ModuleType) -> None:
    """Routes pd.read_excel and DataFrame.to_excel through SheetJS where pandas lacks an engine.

    Untested against real pandas here (its package index is unreachable from the
    build machine); anything beyond the handled options goes to pandas itself.
    """
    if getattr(pd.read_excel, '_pytabs', False):
        return
    original_read = pd.read_excel
    original_to_excel = pd.DataFrame.to_excel

    @functools.wraps(original_read)
    def read_excel(io: Any, sheet_name: Any = 0, **kwargs: Any) -> Any:
        if kwargs.get('engine') is not None or not _needs_sheetjs(_path_extension(io)):
            return original_read(io, sheet_name, **kwargs)
        return _pandas_read_excel(pd, io, sheet_name, kwargs)

    @functools.wraps(original_to_excel)
    def to_excel(self: Any, excel_writer: Any, *args: Any, **kwargs: Any) -> Any:
        ext = _path_extension(excel_writer)
        if args or not set(kwargs) <= _TO_EXCEL_OPTIONS or ext not in ('.xlsx', '.ods') or not _needs_sheetjs(ext):
            return original_to_excel(self, excel_writer, *args, **kwargs)
        return _pandas_to_excel(
            pd,
            self,
            os.fspath(excel_writer),
            kwargs.get('sheet_name', 'Sheet1'),
            kwargs.get('index', True),
            kwargs.get('header', True),
        )

    read_excel._pytabs = True  # type: ignore[attr-defined]
    pd.read_excel = read_excel
    pd.DataFrame.to_excel = to_excel


class _PandasImportHook:
    """A meta path finder that patches pandas as soon as it has been imported."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != 'pandas':
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        exec_module = loader.exec_module

        # The loader is this import's own instance, so wrapping its method touches nothing else.
        def exec_and_patch(module: ModuleType) -> None:
            exec_module(module)
            _patch_pandas(module)

        loader.exec_module = exec_and_patch  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Makes read_excel, write_excel and SpreadsheetError builtins and hooks pandas."""
    builtins.read_excel = read_excel  # type: ignore[attr-defined]
    builtins.write_excel = write_excel  # type: ignore[attr-defined]
    builtins.SpreadsheetError = SpreadsheetError  # type: ignore[attr-defined]
    builtins.ExcelError = ExcelError  # type: ignore[attr-defined]
    if 'pandas' in sys.modules:
        _patch_pandas(sys.modules['pandas'])
    elif not any(isinstance(finder, _PandasImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PandasImportHook())
