"""The spreadsheet tests' referee, run by Debian's CPython with its openpyxl.

    python3 xlsx_corpus.py make DIR     writes the corpus into DIR and prints what openpyxl reads
    python3 xlsx_corpus.py read FILE... prints what openpyxl reads from these files

What openpyxl reads is printed as JSON in the encoding `typed` defines, the same one the
tests use for PyTabs' values. openpyxl 3.0 writes every string inline and cannot write rich text,
shared strings, CDATA or a formula's cached value, so those are patched into the saved XML.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import sys
import zipfile
from decimal import Decimal

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904


def typed(value):
    """A cell value as JSON that keeps its Python type."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime.datetime):
        return {'datetime': value.isoformat()}
    if isinstance(value, datetime.date):
        return {'date': value.isoformat()}
    if isinstance(value, datetime.time):
        return {'time': value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {'timedelta': [value.days, value.seconds, value.microseconds]}
    raise TypeError(f'no typed form for {value!r}')


def read(path):
    """Every sheet as openpyxl's readers see it: name, state, and its cells from A1."""
    book = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for ws in book.worksheets:
        rows = []
        for row in ws.iter_rows():
            rows.append([{'error': c.value} if c.data_type == 'e' else typed(c.value) for c in row])
        # An empty sheet reads as one empty cell; the tests call that no rows.
        if rows == [[None]]:
            rows = []
        sheets.append({'name': ws.title, 'state': ws.sheet_state, 'rows': rows})
    return {'epoch': 1904 if book.epoch == CALENDAR_MAC_1904 else 1900, 'sheets': sheets}


def edit(path, part, edits):
    """Rewrites one part of a saved workbook: each (pattern, replacement) must match."""
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    xml = files[part].decode('utf-8')
    for pattern, replacement in edits:
        xml, n = re.subn(pattern, lambda m: replacement, xml)
        if n == 0:
            raise AssertionError(f'{pattern!r} not found in {part}')
    files[part] = xml.encode('utf-8')
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)


def add_part(path, part, xml, content_type, relationship):
    """Adds a workbook-level part (openpyxl 3.0 writes no shared strings: it writes every string inline)."""
    with zipfile.ZipFile(path, 'a', zipfile.ZIP_DEFLATED) as z:
        z.writestr(part, xml)
    edit(path, '[Content_Types].xml', [('</Types>', f'<Override PartName="/{part}" ContentType="{content_type}"/></Types>')])
    target = part.removeprefix('xl/')
    edit(path, 'xl/_rels/workbook.xml.rels', [
        ('</Relationships>', f'<Relationship Id="rIdPatched" Type="{relationship}" Target="{target}"/></Relationships>'),
    ])


def shared_strings(path, sheet_part, items):
    """Makes the inline cells holding SHARED0, SHARED1, ... shared strings, each the raw <si> XML given."""
    with zipfile.ZipFile(path) as z:
        xml = z.read(sheet_part).decode()
    edits = []
    for i in range(len(items)):
        cell = re.search(rf'<c r="([A-Z]+\d+)"[^>]*?t="inlineStr"><is><t>SHARED{i}</t></is></c>', xml)
        edits.append((re.escape(cell.group(0)), f'<c r="{cell.group(1)}" t="s"><v>{i}</v></c>'))
    edit(path, sheet_part, edits)
    sst = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="{len(items)}" uniqueCount="{len(items)}">'
           + ''.join(items) + '</sst>')
    add_part(path, 'xl/sharedStrings.xml', sst,
             'application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml',
             'http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings')


def inline(placeholder, inline_xml):
    """Replaces the inline string `placeholder` with the raw XML `inline_xml` inside <is>."""
    return (rf'<is><t>{placeholder}</t></is>', f'<is>{inline_xml}</is>')


# Cells whose value and number format decide the type (1900 and 1904 workbooks alike).
def typed_rows(epoch_1904):
    dt = datetime.datetime
    rows = [
        ('int', 42, 'General'),
        ('float', 3.25, 'General'),
        ('negative', -0.5, '0.00'),
        ('big', 1e15, '#,##0'),
        ('percent', 0.125, '0.00%'),
        ('currency', 1234.5, '#,##0.00 "€"'),
        ('quoted letters', 7, '"days: "0'),
        ('colour', 8, '[Red]0.00'),
        ('true', True, 'General'),
        ('false', False, 'General'),
        ('text', 'Zürich 東京 😀', 'General'),
        ('date', dt(2024, 3, 1), 'yyyy-mm-dd'),
        ('datetime', dt(2023, 12, 31, 18, 30, 5), 'yyyy-mm-dd hh:mm:ss'),
        ('datetime ms', dt(2023, 12, 31, 18, 30, 5, 250000), 'yyyy-mm-dd hh:mm:ss.000'),
        ('builtin 14', dt(2020, 2, 29), 14),
        ('builtin 22', dt(2021, 7, 4, 9, 45), 22),
        ('locale date', dt(2022, 1, 15), '[$-409]d-mmm-yy'),
        ('time', datetime.time(10, 10, 10), 'hh:mm:ss'),
        ('time ms', datetime.time(8, 30, 0, 250000), 'hh:mm:ss.000'),
        ('time am/pm', datetime.time(15, 5), 'h:mm AM/PM'),
        ('builtin time 21', datetime.time(23, 59, 59), 21),
        ('duration hh', datetime.timedelta(days=10, hours=15, minutes=10, seconds=10), '[hh]:mm:ss'),
        ('duration h', datetime.timedelta(hours=30, minutes=1), '[h]:mm'),
        ('duration mm', datetime.timedelta(minutes=90, seconds=30), '[mm]:ss'),
        ('duration ss', datetime.timedelta(seconds=4000), '[ss]'),
        ('duration ms', datetime.timedelta(hours=1, milliseconds=250), '[h]:mm:ss.000'),
        ('builtin duration 46', datetime.timedelta(hours=49, seconds=1), 46),
        ('error div0', '#DIV/0!', 'General'),
        ('error na', '#N/A', 'General'),
        ('error value', '#VALUE!', 'General'),
    ]
    if not epoch_1904:
        # Serials around the 1900 system's phantom 29 February, as numbers with a date format.
        rows += [
            ('serial 1', 1, 'yyyy-mm-dd'),
            ('serial 59', 59, 'yyyy-mm-dd'),
            ('serial 59.5', 59.5, 'yyyy-mm-dd hh:mm'),
            ('serial 60', 60, 'yyyy-mm-dd'),
            ('serial 61', 61, 'yyyy-mm-dd'),
            ('date 1900-01-01', dt(1900, 1, 1), 'yyyy-mm-dd'),
            ('date 1900-03-01', dt(1900, 3, 1), 'yyyy-mm-dd'),
        ]
    else:
        rows += [
            ('serial 0', 0, 'yyyy-mm-dd'),
            ('serial 1', 1, 'yyyy-mm-dd'),
            ('date 1904-01-02', dt(1904, 1, 2), 'yyyy-mm-dd'),
        ]
    return rows


def make_types(path, epoch_1904):
    wb = openpyxl.Workbook()
    if epoch_1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = 'Types'
    ws.append(['kind', 'value'])
    for kind, value, fmt in typed_rows(epoch_1904):
        ws.append([kind, value])
        cell = ws.cell(row=ws.max_row, column=2)
        cell.number_format = fmt if isinstance(fmt, str) else openpyxl.styles.numbers.BUILTIN_FORMATS[fmt]
    ws.append(['formula', 'FORMULA'])
    wb.save(path)
    # openpyxl cannot save a formula's cached value: write one, with a formula that must not be evaluated.
    row = ws.max_row
    with zipfile.ZipFile(path) as z:
        cell = re.search(rf'<c r="B{row}"[^>]*>.*?</c>', z.read('xl/worksheets/sheet1.xml').decode()).group(0)
    edit(path, 'xl/worksheets/sheet1.xml', [(re.escape(cell), f'<c r="B{row}"><f>2+2</f><v>5</v></c>')])


def make_strings(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = 'Strings'
    cases = [
        ('plain then rich', '<si><t>tval</t><r><rPr><b/></rPr><t>rval1</t></r><r><rPr><i/></rPr><t>rval2</t></r></si>'),
        ('rich only', '<si><r><t>ARREST BOOKINGS for </t></r><r><rPr><b/></rPr><t>MARCH</t></r></si>'),
        ('phonetic', '<si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/></si>'),
        ('preserved spaces', '<si><t xml:space="preserve">  padded  </t></si>'),
        ('cdata', '<si><t><![CDATA[a < b & c]]></t></si>'),
        ('entities', '<si><t>fish &amp; chips &lt;3</t></si>'),
        ('newline', '<si><t>one\ntwo</t></si>'),
    ]
    ws.append(['kind', 'value'])
    for i, (kind, _) in enumerate(cases):
        ws.append([kind, f'SHARED{i}'])
    inline_cases = [
        ('inline', '<t>inline text</t>'),
        ('inline rich', '<r><t>in</t></r><r><rPr><b/></rPr><t>line</t></r>'),
        ('inline plain then rich', '<t>head </t><r><t>tail</t></r>'),
    ]
    for i, (kind, _) in enumerate(inline_cases):
        ws.append([kind, f'INLINE{i}'])
    wb.save(path)
    shared_strings(path, 'xl/worksheets/sheet1.xml', [si for _, si in cases])
    edit(path, 'xl/worksheets/sheet1.xml', [inline(f'INLINE{i}', xml) for i, (_, xml) in enumerate(inline_cases)])


def make_escapes(path):
    """`_xHHHH_` escapes, which Excel shows as the character and openpyxl 3.0 keeps as text."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = 'Escapes'
    for text in ['SHARED0', 'SHARED1', 'INLINE0', 'SHARED2', 'SHARED3', 'INLINE1']:
        ws.append([text])
    wb.save(path)
    # The XML's own line breaks may be CRLF or a lone CR (as Windows tools write them), which
    # XML reads as one line feed before any escape is decoded.
    shared_strings(path, 'xl/worksheets/sheet1.xml', [
        '<si><t>line1_x000D_\nline2</t></si>',
        '<si><t>literal _x005F_x000D_ stays</t></si>',
        '<si><t>ABC_x000D_\r\nDEF</t></si>',
        '<si><t>lone\rCR</t></si>',
    ])
    edit(path, 'xl/worksheets/sheet1.xml', [
        inline('INLINE0', '<t>tab_x0009_here</t>'),
        inline('INLINE1', '<t>GHI_x000D_\r\nJKL</t>'),
    ])


def make_shapes(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = 'Data'
    ws.append(['id', 'name', 'score', 'when'])
    for i in range(1, 8):
        ws.append([i, f'n{i}', i * 1.5, datetime.datetime(2024, 1, i)])
        ws.cell(row=ws.max_row, column=4).number_format = 'yyyy-mm-dd'
    only = wb.create_sheet('HeaderOnly')
    only.append(['a', 'b', 'c'])
    bare = wb.create_sheet('NoHeader')
    bare.append([1, 2, 3])
    bare.append([4, 5, 6])
    merged = wb.create_sheet('Merged')
    merged.append(['Title over two', None, 'x'])
    merged.append(['a', 'b', 'c'])
    merged.append([1, 2, 3])
    merged.append(['tall', 4, 5])
    merged.append([None, 6, 7])
    merged.merge_cells('A1:B1')
    merged.merge_cells('A4:A5')
    hidden = wb.create_sheet('Hidden')
    hidden.sheet_state = 'hidden'
    hidden.append(['h'])
    hidden.append([1])
    very = wb.create_sheet('VeryHidden')
    very.sheet_state = 'veryHidden'
    very.append(['v'])
    very.append([2])
    wb.create_sheet('Empty')
    wb.save(path)


def main(argv):
    if argv[1] == 'make':
        out = argv[2]
        os.makedirs(out, exist_ok=True)
        files = {
            'types1900.xlsx': lambda p: make_types(p, False),
            'types1904.xlsx': lambda p: make_types(p, True),
            'strings.xlsx': make_strings,
            'escapes.xlsx': make_escapes,
            'shapes.xlsx': make_shapes,
        }
        for name, make in files.items():
            make(os.path.join(out, name))
        paths = {name: os.path.join(out, name) for name in files}
    else:
        paths = {os.path.basename(p): p for p in argv[2:]}
    json.dump({name: read(p) for name, p in paths.items()}, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv)
