"""What a turtle screen shows: its items, the changes sent to the page as they happen, and its SVG.

Coordinates are the canvas's, as Tk's are in CPython: x right, y down, in pixels, the origin at
the window's centre. The picture is bounded: lines are split every LINE_POINTS points, and past
MAX_POINTS the oldest items go (the page is told, and the final picture says so), so a program
that draws forever keeps a bounded picture in the worker and in the page.
"""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Callable
from html import escape
from typing import Any

# CPython's turtle starts a new line item after 42 points; the same rule gives the same stacking.
LINE_POINTS = 42
MAX_POINTS = 100_000
# Changes waiting for the page beyond this many are dropped and the page gets the whole picture
# instead (tracer(0) with no update() for a long time).
MAX_PENDING = 4_000
# At speed 0 the first batch of a drawing waits this many seconds longer than the next ones (20 ms
# apart): a drawing done sooner goes straight to its picture in the reply, with no live view to
# build and retire in between.
FIRST_BATCH_WAIT = 0.1
MIME = 'application/vnd.pytabs.turtle+json'

Item = dict[str, Any]
Sink = Callable[[str], object]

# Set by the Runtime: where a screen's changes go (the run's 'turtle' events). None outside a session.
_sink: Sink | None = None


# Every picture still in use, oldest first: the Runtime shows the ones that changed after each run.
_pictures: list[weakref.ref[Picture]] = []


def set_sink(sink: Sink | None) -> None:
    """Where the pictures' changes go from now on (the session's Runtime sets it once)."""
    global _sink
    _sink = sink


class Picture:
    """One screen's items in drawing order, and the changes the page has not seen yet."""

    def __init__(self, screen_id: str, width: int, height: int) -> None:
        self.id = screen_id
        self.items: dict[int, Item] = {}
        self.bg = 'white'
        self.view = (-width / 2, -height / 2, float(width), float(height))
        self.title = 'Python Turtle Graphics'  # CPython's words: its window's title until title() names it
        # bgpic(): an image centred under the drawing ({'href', 'width', 'height'}), or None.
        self.bgpic: Item | None = None
        self.sprites: dict[int, Item] = {}
        self.dropped = 0
        # Whether a run's event loop waits for clicks and keys on this screen (mainloop() with handlers).
        self.listening = False
        self._points = 0
        self._next_id = 1
        self._pending: list[Item] = []
        self._resync = False
        self._last_flush = 0.0
        # Whether anything changed since the picture was last shown in a reply.
        self.dirty = False
        # Called before changes go out, and before the picture is shown: the screen sets it.
        self.before_flush: Callable[[], None] = lambda: None
        _pictures[:] = [ref for ref in _pictures if ref() is not None]
        _pictures.append(weakref.ref(self))

    # -- changes -----------------------------------------------------------------------------

    def add(self, item: Item) -> int:
        """Puts item on top of the others; returns its id."""
        item_id = self._next_id
        self._next_id += 1
        item['id'] = item_id
        self.items[item_id] = item
        self._points += _point_count(item)
        self._send({'o': 'add', 'item': _copy_lists(item)})
        self._bound()
        return item_id

    def extend(self, item_id: int, x: float, y: float) -> None:
        """Adds a point to a line."""
        item = self.items.get(item_id)
        if item is None:
            return
        item['pts'].extend((x, y))
        self._points += 1
        self._send({'o': 'pts', 'id': item_id, 'add': [x, y]})
        self._bound()

    def update(self, item_id: int, **fields: Any) -> None:
        """Changes an item in place (a fill's outline once it is closed)."""
        item = self.items.get(item_id)
        if item is None:
            return
        self._points -= _point_count(item)
        item.update(fields)
        self._points += _point_count(item)
        self._send({'o': 'set', 'id': item_id, 'fields': _copy_lists(fields)})
        self._bound()

    def remove(self, ids: list[int]) -> None:
        gone = [i for i in ids if i in self.items]
        for item_id in gone:
            self._points -= _point_count(self.items.pop(item_id))
        if gone:
            self._send({'o': 'del', 'ids': gone})

    def clear(self) -> None:
        self.items.clear()
        self.sprites.clear()
        self._points = 0
        self.dropped = 0
        self._send({'o': 'clear'})

    def set_background(self, color: str) -> None:
        self.bg = color
        self._send({'o': 'bg', 'color': color})

    def set_bgpic(self, image: Item | None) -> None:
        self.bgpic = image
        self._send({'o': 'bgpic', 'image': image})

    def set_view(self, x: float, y: float, width: float, height: float) -> None:
        self.view = (x, y, width, height)
        self._send({'o': 'view', 'view': list(self.view)})

    def set_listening(self, listening: bool) -> None:
        """Says that the run's event loop waits for clicks and keys on this screen, or no longer does.

        It travels with the screen's changes, in the run's own events, so the page knows which
        reply's drawing takes the keys before the loop's first request for one reaches it.
        """
        if self.listening != listening:
            self.listening = listening
            self._send({'o': 'listen', 'on': listening})

    def set_sprite(self, turtle_id: int, sprite: Item | None) -> None:
        """A turtle's own shape (not part of the drawing); None hides it."""
        if sprite is None:
            if self.sprites.pop(turtle_id, None) is None:
                return
        else:
            self.sprites[turtle_id] = sprite
        self._send({'o': 'sprite', 'turtle': turtle_id, 'sprite': sprite})

    def _bound(self) -> None:
        """Drops the oldest items while the picture holds more than MAX_POINTS points."""
        if self._points <= MAX_POINTS:
            return
        gone: list[int] = []
        for item_id, item in self.items.items():
            if self._points <= MAX_POINTS * 0.9 or len(gone) >= len(self.items) - 1:
                break
            gone.append(item_id)
            self._points -= _point_count(item)
            self.dropped += 1
        for item_id in gone:
            del self.items[item_id]
        self._send({'o': 'del', 'ids': gone, 'dropped': self.dropped})

    def _send(self, op: Item) -> None:
        if not self.dirty:
            # The first change since the picture was shown: speed 0's batches (flush with at_most_every) wait.
            self._last_flush = time.monotonic() + FIRST_BATCH_WAIT
            self.dirty = True
        if _sink is None or self._resync:
            return
        pending = self._pending
        # A line's points since the last batch go as one change.
        if op['o'] == 'pts' and pending and pending[-1]['o'] == 'pts' and pending[-1]['id'] == op['id']:
            pending[-1]['add'].extend(op['add'])
            return
        pending.append(op)
        if len(self._pending) > MAX_PENDING:
            self._pending.clear()
            self._resync = True

    # -- to the page ---------------------------------------------------------------------------

    def flush(self, at_most_every: float = 0.0) -> None:
        """Sends the changes the page has not seen; with at_most_every, only that many seconds after the last time."""
        if _sink is None:
            return
        now = time.monotonic()
        if at_most_every and now - self._last_flush < at_most_every:
            return
        # The turtles' shapes are worked out once per batch, not at each step (the screen's hook).
        self.before_flush()
        if not (self._pending or self._resync):
            return
        self._last_flush = now
        if self._resync:
            ops: list[Item] = [{'o': 'all', 'picture': self.state()}]
            self._resync = False
        else:
            ops = self._pending
        self._pending = []
        _sink(json.dumps({'screen': self.id, 'ops': ops}, separators=(',', ':')))

    def state(self) -> Item:
        """The whole picture as the page's live view holds it."""
        return {
            'bg': self.bg,
            'bgpic': self.bgpic,
            'view': list(self.view),
            'title': self.title,
            'items': list(self.items.values()),
            'sprites': {str(k): v for k, v in self.sprites.items()},
            'dropped': self.dropped,
            'listening': self.listening,
        }

    def show(self, display: Callable[[object], None]) -> None:
        """Puts the picture in the reply (the page then retires its live view), if it changed since it last was."""
        self.before_flush()
        if not self.dirty:
            return
        # The picture takes the live view's place: the changes the page has not seen need not go.
        self._pending = []
        self._resync = False
        self.dirty = False
        display(PictureView(self.bundle()))

    def bundle(self) -> dict[str, str]:
        """The picture as a reply keeps it: SVG, and a line of text for where images cannot show."""
        lines = sum(1 for item in self.items.values() if item['kind'] == 'line')
        note = f', the first {self.dropped:,} items left out' if self.dropped else ''
        text = f'<turtle drawing "{self.title}": {len(self.items)} items, {lines} lines{note}>'
        return {
            'image/svg+xml': self.svg(),
            'text/plain': text,
            MIME: json.dumps({'screen': self.id, 'title': self.title, 'dropped': self.dropped}),
        }

    def svg(self) -> str:
        x, y, width, height = self.view
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
            f'viewBox="{_num(x)} {_num(y)} {_num(width)} {_num(height)}">',
            f'<title>{escape(self.title)}</title>',
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(width)}" height="{_num(height)}" fill="{escape(self.bg)}"/>',
        ]
        if self.bgpic is not None:
            w, h = self.bgpic['width'], self.bgpic['height']
            parts.append(f'<image href="{escape(self.bgpic["href"])}" x="{_num(-w / 2)}" y="{_num(-h / 2)}" width="{w}" height="{h}"/>')
        parts.extend(svg_item(item) for item in self.items.values())
        parts.extend(svg_item(sprite) for sprite in self.sprites.values())
        parts.append('</svg>')
        return '\n'.join(part for part in parts if part)


def svg_item(item: Item) -> str:
    """One item as SVG (the page's live view draws the same shapes from the same fields)."""
    kind = item['kind']
    if kind == 'line':
        if len(item['pts']) < 4:
            return ''
        return (
            f'<polyline points="{_points(item["pts"])}" fill="none" stroke="{escape(item["color"])}" '
            f'stroke-width="{_num(item["width"])}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    if kind == 'poly':
        if 'parts' in item:
            return '\n'.join(svg_item(dict(part, kind='poly')) for part in item['parts'])
        if len(item['pts']) < 6:
            return ''
        outline = item.get('outline') or 'none'
        return (
            f'<polygon points="{_points(item["pts"])}" fill="{escape(item["fill"] or "none")}" '
            f'stroke="{escape(outline)}" stroke-width="{_num(item.get("width", 0))}" fill-rule="evenodd"/>'
        )
    if kind == 'dot':
        return f'<circle cx="{_num(item["x"])}" cy="{_num(item["y"])}" r="{_num(item["size"] / 2)}" fill="{escape(item["color"])}"/>'
    if kind == 'text':
        family, size, style = item['font']
        anchor = {'left': 'start', 'center': 'middle', 'right': 'end'}[item['align']]
        weight = ' font-weight="bold"' if 'bold' in style else ''
        slant = ' font-style="italic"' if 'italic' in style else ''
        underline = ' text-decoration="underline"' if 'underline' in style else ''
        return (
            f'<text x="{_num(item["x"])}" y="{_num(item["y"])}" fill="{escape(item["color"])}" '
            f'font-family="{escape(family)}" font-size="{_num(size * 4 / 3)}"{weight}{slant}{underline} '
            f'text-anchor="{anchor}" xml:space="preserve">{escape(item["text"])}</text>'
        )
    return ''


def _copy_lists(fields: Item) -> Item:
    """A change as it is now: the item's point list goes on growing, and its later points go in their own changes."""
    return {key: list(value) if isinstance(value, list) else value for key, value in fields.items()}


def _point_count(item: Item) -> int:
    pts = item.get('pts')
    return 1 if pts is None else len(pts) // 2


def _num(value: float) -> str:
    text = f'{value:.2f}'.rstrip('0').rstrip('.')
    return '0' if text in ('', '-0') else text


def _points(pts: list[float]) -> str:
    return ' '.join(f'{_num(pts[i])},{_num(pts[i + 1])}' for i in range(0, len(pts), 2))


class PictureView:
    """What display() is given for a picture: its bundle."""

    def __init__(self, bundle: dict[str, str]) -> None:
        self._bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return self._bundle

    def __repr__(self) -> str:
        return self._bundle['text/plain']


def show_changed(display: Callable[[object], None]) -> None:
    """Shows every picture that changed since it was last shown (the Runtime, after each run)."""
    for ref in list(_pictures):
        picture = ref()
        if picture is not None:
            picture.show(display)


def flush_all() -> None:
    """Sends every picture's pending changes to the page (before the run waits for the person)."""
    for ref in list(_pictures):
        picture = ref()
        if picture is not None:
            picture.flush()
