"""Texts the runtime writes as catalog keys with parameters, as ``src/lib/i18n/said.ts`` has them.

PyTabs' own words (a spreadsheet it cannot read, a turtle feature it lacks) are not written
here: each is a key of ``messages/<locale>.json`` (prefix ``rt_py_``) with its parameters. An
exception made by :func:`error` carries that said text as ``said``, which the page tells in
whoever reads it's language; its ``str()`` (what a program that catches it prints) is put in
words from the templates the page sent for the language shown when the session started.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict, TypeVar

SaidValue = str | int | float


class Said(TypedDict):
    key: str
    params: NotRequired[dict[str, SaidValue | Said]]


# None until used or set: then the English ones beside this file (python-files.ts writes them).
_templates: dict[str, str] | None = None
_PLACEHOLDER = re.compile(r'\{(\w+)\}')
E = TypeVar('E', bound=BaseException)


def set_messages(templates: Mapping[str, str]) -> None:
    """Takes the page's templates ('rt_py_…' key to text with ``{name}`` placeholders) for str()."""
    global _templates
    _templates = dict(templates)


def _words_in_use() -> dict[str, str]:
    global _templates
    if _templates is None:
        english = Path(__file__).with_name('messages.json')
        _templates = json.loads(english.read_text('utf-8')) if english.exists() else {}
    return _templates


def said(key: str, **params: SaidValue | Said) -> Said:
    """``said('rt_py_no_sheet', file="'a.xlsx'", sheet='2', sheets="['S']")``: a key and its parameters, plain data."""
    return {'key': key, 'params': params} if params else {'key': key}


def words(text: Said) -> str:
    """The text in the words of the templates set; a key the page sent no template for stays a key."""
    params = {name: words(value) if isinstance(value, dict) else str(value) for name, value in text.get('params', {}).items()}
    template = _words_in_use().get(text['key'])
    if template is None:
        return ' '.join([text['key'], *(f'{name}={value}' for name, value in params.items())])
    return _PLACEHOLDER.sub(lambda match: params.get(match[1], match[0]), template)


def error(kind: type[E], text: Said) -> E:
    """An exception of ``kind`` whose message is ``text``: in words for str(), as said for the page."""
    exc = kind(words(text))
    exc.said = text  # type: ignore[attr-defined]
    return exc


def said_of(exc: BaseException) -> Said | None:
    """The said text an exception was made with by :func:`error`, if it was."""
    text = getattr(exc, 'said', None)
    return text if isinstance(text, dict) and isinstance(text.get('key'), str) else None
