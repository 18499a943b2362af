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
import functools
import importlib.machinery
import importlib.util
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from pyodide.ffi import JsException, to_js

Cell = None | bool | int | float | str | datetime.datetime
Rows = list[list[Cell]]


class SpreadsheetError(ValueError):
    """A workbook could not be read or written; the message names the file and the cause."""


def _sheetjs() -> Any:
    """The worker's SheetJS bridge, imported when first used: this module is in the start
    snapshot, which may hold no JS object, and the bridge is registered after the restore."""
    import pytabs_sheetjs

    return pytabs_sheetjs


def _date_hook(obj: dict[str, Any]) -> Any:
    if obj.keys() == {'date'}:
        return datetime.datetime.fromisoformat(obj['date'])
    return obj


def load_workbook(data: bytes, name: str) -> dict[str, Rows]:
    """Every sheet of a workbook, in order: its used range as rows of cell values."""
    try:
        text = _sheetjs().read_workbook(to_js(data), name)
    except JsException as e:
        raise SpreadsheetError(f'Cannot read {name!r}: {e.message}') from None
    return {sheet['name']: sheet['rows'] for sheet in json.loads(text, object_hook=_date_hook)}


def _header(row: Sequence[Cell]) -> list[str]:
    """Column names from a header row, named and de-duplicated the way pandas does."""
    names: list[str] = []
    repeats: dict[str, int] = {}
    for i, value in enumerate(row):
        if value is None or value == '':
            base = f'Unnamed: {i}'
        elif isinstance(value, datetime.datetime):
            base = value.isoformat()
        else:
            base = str(value)
        name = base
        while name in names:
            repeats[base] = repeats.get(base, 0) + 1
            name = f'{base}.{repeats[base]}'
        names.append(name)
    return names


def _records(rows: Rows) -> list[dict[str, Cell]]:
    if not rows:
        return []
    names = _header(rows[0])
    return [dict(zip(names, row)) for row in rows[1:]]


def read_excel(path: str | os.PathLike[str], sheet_name: str | int | None = None) -> Any:
    """Reads a workbook (.xlsx, .xlsm, .xls, .ods, .csv) as lists of dicts.

    The first row of each sheet is its header. Dates come back as
    ``datetime.datetime``, empty cells as ``None``; formulas are not evaluated,
    their saved values are used. With ``sheet_name=None`` the result is a dict
    of every sheet; with a name or a 0-based index, that sheet's rows.
    """
    name = os.fspath(path)
    with open(name, 'rb') as f:
        sheets = load_workbook(f.read(), name)
    if sheet_name is None:
        return {title: _records(rows) for title, rows in sheets.items()}
    return _records(sheets[_sheet_title(sheets, sheet_name, name)])


def _sheet_title(sheets: Mapping[str, Rows], wanted: str | int, file_name: str) -> str:
    titles = list(sheets)
    if isinstance(wanted, int) and not isinstance(wanted, bool):
        if -len(titles) <= wanted < len(titles):
            return titles[wanted]
    elif wanted in sheets:
        return wanted
    raise SpreadsheetError(f'{file_name!r} has no sheet {wanted!r}; its sheets are {titles}')


def _to_json_cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        # NaN and infinities have no cell value: write an empty cell, as pandas does for NaN.
        return value if math.isfinite(value) else None
    if isinstance(value, datetime.datetime):
        # Excel has no time zones: an aware datetime is written as its wall-clock time.
        spec = 'seconds' if value.microsecond == 0 else 'milliseconds'
        return {'date': value.replace(tzinfo=None).isoformat(timespec=spec)}
    if isinstance(value, datetime.date):
        return {'date': datetime.datetime(value.year, value.month, value.day).isoformat()}
    return str(value)


def _rows(records: Iterable[Any]) -> list[list[Any]]:
    """A sheet's rows: a list of dicts gets a header row of every key, in first-seen order."""
    records = list(records)
    if records and all(isinstance(r, Mapping) for r in records):
        columns = list(dict.fromkeys(key for record in records for key in record))
        return [columns] + [[record.get(c) for c in columns] for record in records]
    if any(isinstance(r, (str, bytes, Mapping)) or not isinstance(r, Iterable) for r in records):
        raise TypeError('a sheet is a list of dicts or a list of rows (lists or tuples)')
    return [list(record) for record in records]


def save_workbook(path: str, sheets: Mapping[str, list[list[Any]]]) -> None:
    """Writes sheets of rows to ``path``; the format follows its extension."""
    ext = os.path.splitext(path)[1].lower()
    if ext == '.csv':
        if len(sheets) != 1:
            raise SpreadsheetError(f'Cannot write {path!r}: a .csv file holds one sheet, got {len(sheets)}')
        with open(path, 'w', newline='', encoding='utf-8') as f:
            writer = csv.writer(f)
            for row in next(iter(sheets.values())):
                writer.writerow(['' if v is None else v.isoformat(sep=' ') if isinstance(v, datetime.date) else v for v in row])
        return
    if ext not in ('.xlsx', '.ods'):
        raise SpreadsheetError(f'Cannot write {path!r}: use a .xlsx, .ods or .csv file name')
    payload = [{'name': str(title), 'rows': [[_to_json_cell(v) for v in row] for row in rows]} for title, rows in sheets.items()]
    try:
        data = _sheetjs().write_workbook(json.dumps(payload, allow_nan=False), ext[1:]).to_bytes()
    except JsException as e:
        raise SpreadsheetError(f'Cannot write {path!r}: {e.message}') from None
    with open(path, 'wb') as f:
        f.write(data)


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


def _column_positions(usecols: str) -> list[int]:
    """Excel column letters such as "A:C,E" as 0-based positions."""

    def index(letters: str) -> int:
        n = 0
        for ch in letters.strip().upper():
            n = n * 26 + ord(ch) - ord('A') + 1
        return n - 1

    positions: list[int] = []
    for part in usecols.split(','):
        first, _, last = part.partition(':')
        positions.extend(range(index(first), index(last or first) + 1))
    return positions


def _pandas_read_excel(pd: ModuleType, io: Any, sheet_name: Any, kwargs: dict[str, Any]) -> Any:
    from pandas.io.parsers import TextParser

    if isinstance(io, (str, os.PathLike)):
        name = os.fspath(io)
        with open(name, 'rb') as f:
            data = f.read()
    else:
        name = getattr(io, 'name', '<buffer>')
        data = io if isinstance(io, (bytes, bytearray)) else io.read()
    sheets = load_workbook(bytes(data), str(name))
    if isinstance(kwargs.get('usecols'), str):
        kwargs['usecols'] = _column_positions(kwargs['usecols'])
    kwargs.setdefault('header', 0)
    nrows = kwargs.pop('nrows', None)
    # Options of read_excel itself, not of the parser.
    for option in ('engine', 'engine_kwargs', 'storage_options'):
        kwargs.pop(option, None)
    wanted = list(sheets) if sheet_name is None else sheet_name if isinstance(sheet_name, list) else [sheet_name]
    frames = {}
    for key in wanted:
        rows = sheets[_sheet_title(sheets, key, str(name))]
        # Empty cells as "" so pandas' own NA handling applies, as with its openpyxl reader.
        rows = [['' if v is None else v for v in row] for row in rows]
        frames[key] = TextParser(rows, skip_blank_lines=False, **kwargs).read(nrows=nrows) if rows else pd.DataFrame()
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
    if 'pandas' in sys.modules:
        _patch_pandas(sys.modules['pandas'])
    elif not any(isinstance(finder, _PandasImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PandasImportHook())
