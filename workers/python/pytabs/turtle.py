"""turtle for PyTabs: CPython's turtle API and geometry, drawn in the reply instead of a Tk window.

The session imports this file as ``turtle`` (the Runtime's finder: Pyodide has no tkinter, so it
has no turtle of its own). Positions, headings, pen states, circles and fills follow CPython's
turtle step for step, so the same program gives the same picture; tests/turtle checks it against
CPython's own turtle. What differs, because there is no window and no Tk event loop:

- Without click, key or timer handlers, ``done()``, ``mainloop()``, ``exitonclick()`` and ``bye()``
  return at once; either way they end the drawing: the next one starts on a fresh screen.
- ``textinput()`` and ``numinput()`` ask in the reply, as ``input()`` does.
- ``mainloop()`` with click, key or timer handlers reacts to clicks and keys on the drawing in the
  reply (through the channel ``input()`` uses) until ``bye()`` or Stop; dragging is not delivered.
"""

from __future__ import annotations

import builtins
import heapq
import json
import math
import numbers
import sys
import time
from collections.abc import Callable
from typing import Any

from pytabs.turtle_colors import lookup as _resolve_color
from pytabs.turtle_picture import LINE_POINTS, Picture

__all__ = [
    'Screen', 'Turtle', 'RawTurtle', 'Pen', 'RawPen', 'TurtleScreen', 'Vec2D', 'Shape',
    'TurtleGraphicsError', 'Terminator', 'done',
]  # the generated module functions are added at the end

# The window a Tk turtle opens is a fraction of the screen; a browser has no such screen, so
# fractions are taken of this one.
_SCREEN_SIZE = (1280, 800)
_DEFAULT_FONT = ('Arial', 8, 'normal')
# Why a session does not keep turtles and screens across a reload (pickling one would copy its whole drawing).
_NOT_KEPT = 'a turtle and its screen are not kept across a reload; the picture stays in the reply'
_SPEEDS = {'fastest': 0, 'fast': 10, 'normal': 6, 'slow': 3, 'slowest': 1}


class TurtleGraphicsError(Exception):
    """A turtle was asked for something it cannot do (a bad colour, shape or speed)."""


class Terminator(Exception):
    """Raised in CPython when a closed window is drawn on; kept so that programs catching it still run."""


class Vec2D(tuple):
    """A 2D vector, as turtle positions are: a tuple that adds, subtracts, scales and rotates."""

    def __new__(cls, x: float, y: float) -> Vec2D:
        return tuple.__new__(cls, (x, y))

    def __add__(self, other: Any) -> Vec2D:  # type: ignore[override]
        return Vec2D(self[0] + other[0], self[1] + other[1])

    def __sub__(self, other: Any) -> Vec2D:
        return Vec2D(self[0] - other[0], self[1] - other[1])

    def __mul__(self, other: Any) -> Any:  # type: ignore[override]
        # Two vectors give their dot product; a number scales.
        if isinstance(other, Vec2D):
            return self[0] * other[0] + self[1] * other[1]
        return Vec2D(self[0] * other, self[1] * other)

    def __rmul__(self, other: Any) -> Any:  # type: ignore[override]
        if isinstance(other, (int, float)):
            return Vec2D(self[0] * other, self[1] * other)
        return NotImplemented

    def __neg__(self) -> Vec2D:
        return Vec2D(-self[0], -self[1])

    def __abs__(self) -> float:
        return math.hypot(self[0], self[1])

    def rotate(self, angle: float) -> Vec2D:
        """This vector turned counterclockwise by angle degrees."""
        radians = math.radians(angle)
        cos, sin = math.cos(radians), math.sin(radians)
        return Vec2D(self[0] * cos - self[1] * sin, self[1] * cos + self[0] * sin)

    def __getnewargs__(self) -> tuple[float, float]:
        return (self[0], self[1])

    def __repr__(self) -> str:
        return f'({self[0]:.2f},{self[1]:.2f})'


def _polygon_around(radius_at: Callable[[float], float], step: int = 10) -> tuple[tuple[float, float], ...]:
    """A closed outline traced at each step degrees, along the heading at 0°."""
    points = []
    for degrees in range(0, 360, step):
        r = radius_at(degrees)
        a = math.radians(degrees)
        points.append((round(r * math.cos(a), 2), round(r * math.sin(a), 2)))
    return tuple(points)


def _turtle_radius(degrees: float) -> float:
    """A turtle seen from above: an oval shell, its head ahead, four legs and a short tail."""
    a = math.radians(degrees)
    shell = 1 / math.sqrt((math.cos(a) / 9) ** 2 + (math.sin(a) / 7) ** 2)
    # (direction, length, spread in degrees) of the head, the legs and the tail.
    parts = ((0, 7.0, 14), (50, 4.0, 9), (-50, 4.0, 9), (130, 4.0, 9), (-130, 4.0, 9), (180, 4.0, 6))
    bumps = 0.0
    for direction, length, spread in parts:
        off = (degrees - direction + 180) % 360 - 180
        bumps += length * math.exp(-((off / spread) ** 2))
    return shell + bumps


class Shape:
    """A turtle shape: a polygon in the turtle's own frame (heading along +x), or a compound of them."""

    def __init__(self, type_: str, data: Any = None) -> None:
        if type_ not in ('polygon', 'compound', 'image'):
            raise TurtleGraphicsError(f'There is no shape type {type_}')
        self._type = type_
        self._data: Any = tuple(tuple(map(float, p)) for p in data) if type_ == 'polygon' else (data or [])

    def addcomponent(self, poly: Any, fill: Any, outline: Any = None) -> None:
        if self._type != 'compound':
            raise TurtleGraphicsError(f'Cannot add component to {self._type} Shape')
        self._data.append((tuple(tuple(map(float, p)) for p in poly), fill, outline))


# The shapes' outlines are PyTabs' own, about the size of CPython's (20 pixels across).
_BUILTIN_SHAPES: dict[str, tuple[tuple[float, float], ...]] = {
    'arrow': ((10.0, 0.0), (-10.0, 10.0), (-10.0, -10.0)),
    'classic': ((0.0, 0.0), (-9.0, 5.0), (-7.0, 0.0), (-9.0, -5.0)),
    'triangle': ((10.0, 0.0), (-5.0, 8.66), (-5.0, -8.66)),
    'square': ((10.0, 10.0), (-10.0, 10.0), (-10.0, -10.0), (10.0, -10.0)),
    'circle': _polygon_around(lambda _: 10.0),
    'turtle': _polygon_around(_turtle_radius, step=5),
    'blank': (),
}


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class TurtleScreen:
    """The drawing area all turtles share: colours, modes, animation and the picture in the reply."""

    _count = 0

    def __init__(self, cv: object = None) -> None:
        TurtleScreen._count += 1
        self._width, self._height = _SCREEN_SIZE[0] // 2, _SCREEN_SIZE[1] * 3 // 4
        self._picture = Picture(f'screen-{TurtleScreen._count}', self._width, self._height)
        self._turtles: list[RawTurtle] = []
        self._shapes: dict[str, Shape] = {name: Shape('polygon', poly) for name, poly in _BUILTIN_SHAPES.items()}
        self._bgcolor = 'white'
        self._colormode: float = 1.0
        self._mode = 'standard'
        self._tracing = 1
        self._update_count = 0
        self._unclocked_steps = 0
        self._delay_ms = 10
        self._canvas_size = (400, 300)
        self._world: tuple[float, float, float, float] | None = None
        self.xscale = self.yscale = 1.0
        self._click_handlers: dict[Any, list[Callable[..., Any]]] = {}
        self._key_press: dict[Any, list[Callable[..., Any]]] = {}
        self._key_release: dict[Any, list[Callable[..., Any]]] = {}
        self._timers: list[tuple[float, int, Callable[[], Any]]] = []
        # Turtles whose shape moved since the page last heard: sent once per batch of changes.
        self._moved: set[RawTurtle] = set()
        self._picture.before_flush = self._send_sprites
        self._timer_count = 0
        self._looping = False

    # -- colours -----------------------------------------------------------------------------

    def _colorstr(self, args: Any) -> str:
        """A colour argument as the string the canvas keeps (a name stays a name, a tuple becomes #rrggbb)."""
        color = args[0] if isinstance(args, tuple) and len(args) == 1 else args
        if isinstance(color, str):
            if color == '' or _resolve_color(color) is not None:
                return color
            raise TurtleGraphicsError(f'bad color string: {color}')
        try:
            r, g, b = color
        except (TypeError, ValueError):
            raise TurtleGraphicsError(f'bad color arguments: {color}') from None
        if self._colormode == 1.0:
            r, g, b = (round(255.0 * c) for c in (r, g, b))
        if not (0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255):
            raise TurtleGraphicsError(f'bad color sequence: {color}')
        return '#%02x%02x%02x' % (r, g, b)

    def _color(self, cstr: str) -> Any:
        """What pencolor() and friends return: a name as given, a hex colour as a tuple in the colormode."""
        if not cstr.startswith('#'):
            return cstr
        digits = cstr[1:]
        if len(digits) == 6:
            channels = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
        elif len(digits) == 3:
            channels = [16 * int(d, 16) for d in digits]
        else:
            raise TurtleGraphicsError(f'bad colorstring: {cstr}')
        return tuple(c * self._colormode / 255 for c in channels)

    def colormode(self, cmode: float | None = None) -> float | None:
        """Returns the colormode, or sets it to 1.0 or 255 (the range of r, g, b in colour tuples)."""
        if cmode is None:
            return self._colormode
        if cmode == 1.0:
            self._colormode = float(cmode)
        elif cmode == 255:
            self._colormode = int(cmode)
        return None

    def bgcolor(self, *args: Any) -> Any:
        """Returns or sets the background colour."""
        if not args:
            return self._color(self._bgcolor)
        self._bgcolor = self._colorstr(args)
        self._picture.set_background(_paint(self._bgcolor))
        self._refresh()
        return None

    # -- modes and window --------------------------------------------------------------------

    def mode(self, mode: str | None = None) -> str | None:
        """Returns or sets 'standard' (0° east, counterclockwise), 'logo' (0° north, clockwise) or 'world'; setting resets."""
        if mode is None:
            return self._mode
        mode = mode.lower()
        if mode not in ('standard', 'logo', 'world'):
            raise TurtleGraphicsError(f'No turtle-graphics-mode {mode}')
        self._mode = mode
        if mode in ('standard', 'logo'):
            self._world = None
            self.xscale = self.yscale = 1.0
            self._apply_view()
        self.reset()
        return None

    def setworldcoordinates(self, llx: float, lly: float, urx: float, ury: float) -> None:
        """Makes (llx, lly) the lower left and (urx, ury) the upper right corner; switches to 'world' mode."""
        if self._mode != 'world':
            self.mode('world')
        old_x, old_y = self.xscale, self.yscale
        self._world = (llx, lly, urx, ury)
        self.xscale = self._width / (urx - llx)
        self.yscale = self._height / (ury - lly)
        fx, fy = self.xscale / old_x, self.yscale / old_y
        for item in self._picture.items.values():
            _scale_item(item, fx, fy)
        self._apply_view()
        self._redraw_sprites()
        self._refresh()

    def setup(self, width: float = 0.5, height: float = 0.75, startx: Any = None, starty: Any = None) -> None:
        """Sets the window's size in pixels, or as a fraction of the screen (floats up to 1)."""
        if isinstance(width, float) and 0 <= width <= 1:
            width = _SCREEN_SIZE[0] * width
        if isinstance(height, float) and 0 <= height <= 1:
            height = _SCREEN_SIZE[1] * height
        self._width, self._height = int(width), int(height)
        if self._world is not None:
            self.xscale = self._width / (self._world[2] - self._world[0])
            self.yscale = self._height / (self._world[3] - self._world[1])
        self._apply_view()
        self._refresh()

    def screensize(self, canvwidth: Any = None, canvheight: Any = None, bg: Any = None) -> tuple[int, int] | None:
        """Returns or sets the canvas size (the window shows the same region here: there are no scrollbars)."""
        if canvwidth is None and canvheight is None and bg is None:
            return self._canvas_size
        self._canvas_size = (canvwidth or self._canvas_size[0], canvheight or self._canvas_size[1])
        if bg is not None:
            self.bgcolor(bg)
        return None

    def window_width(self) -> int:
        return self._width

    def window_height(self) -> int:
        return self._height

    def title(self, titlestring: str) -> None:
        """Names the drawing (its picture's title in the reply)."""
        self._picture.title = str(titlestring)

    def _apply_view(self) -> None:
        if self._world is None:
            self._picture.set_view(-self._width / 2, -self._height / 2, self._width, self._height)
        else:
            llx, _, _, ury = self._world
            self._picture.set_view(llx * self.xscale, -ury * self.yscale, self._width, self._height)

    # -- animation ---------------------------------------------------------------------------

    def tracer(self, n: int | None = None, delay: int | None = None) -> int | None:
        """Returns or sets how often the picture is shown: every n-th update; 0 only on update()."""
        if n is None:
            return self._tracing
        self._tracing = int(n)
        self._update_count = 0
        if delay is not None:
            self._delay_ms = int(delay)
        if self._tracing:
            self.update()
        return None

    def delay(self, delay: int | None = None) -> int | None:
        """Returns or sets the pause after each shown update, in milliseconds."""
        if delay is None:
            return self._delay_ms
        self._delay_ms = int(delay)
        return None

    def update(self) -> None:
        """Shows the picture now (what tracer(0) programs call when a frame is ready)."""
        tracing = self._tracing
        self._tracing = 1
        for turtle in self._turtles:
            turtle._draw_sprite()
        self._tracing = tracing
        self._picture.flush()

    def _frame(self, animated: bool) -> None:
        """One of CPython's update points: shows the picture when the tracer says so, paced by delay().

        An animated step (speed 1-10) is shown and followed by the delay; at speed 0 the
        changes go to the page at most every 20 ms and nothing waits.
        """
        if not self._tracing:
            return
        self._update_count = (self._update_count + 1) % self._tracing
        if self._update_count:
            return
        if animated:
            self._picture.flush()
            if self._delay_ms:
                _pause(self._delay_ms / 1000)
            return
        # The clock is read every 32nd step only, so that a step stays a few list appends.
        self._unclocked_steps += 1
        if self._unclocked_steps >= 32:
            self._unclocked_steps = 0
            self._picture.flush(at_most_every=0.02)

    def _refresh(self) -> None:
        if self._tracing:
            self._picture.flush(at_most_every=0.02)

    # -- turtles and shapes ------------------------------------------------------------------

    def turtles(self) -> list[RawTurtle]:
        return list(self._turtles)

    def register_shape(self, name: str, shape: Any = None) -> None:
        """Adds a shape: a polygon (a tuple of points, drawn with the heading up as in CPython) or a Shape."""
        if shape is None:
            raise TurtleGraphicsError('Images as turtle shapes are not supported in PyTabs')
        if isinstance(shape, tuple):
            # A CPython polygon has the heading along +y and its right along +x: (x, y) is (y, -x) here.
            shape = Shape('polygon', tuple((y, -x) for x, y in shape))
        self._shapes[name] = shape

    addshape = register_shape

    def getshapes(self) -> list[str]:
        return sorted(self._shapes)

    def getcanvas(self) -> Picture:
        """The picture turtles draw on (a Tk canvas in CPython)."""
        return self._picture

    def clear(self) -> None:
        """Deletes all drawings and all turtles; the screen is white and in 'standard' mode again."""
        self._picture.clear()
        self._turtles.clear()
        self._bgcolor = 'white'
        self._picture.set_background('white')
        self._mode = 'standard'
        self._world = None
        self.xscale = self.yscale = 1.0
        self._colormode = 1.0
        self._tracing = 1
        self._delay_ms = 10
        self._apply_view()
        self._refresh()

    clearscreen = clear

    def reset(self) -> None:
        """Resets every turtle to its start."""
        for turtle in self._turtles:
            turtle._set_mode(self._mode)
            turtle.reset()

    resetscreen = reset

    # -- the end of a Tk program -------------------------------------------------------------

    def mainloop(self) -> None:
        """Shows the picture; with click, key or timer handlers, reacts to them until bye() or Stop.

        Without handlers it returns at once (there is no window to wait on). Either way the next
        drawing starts on a fresh screen.
        """
        try:
            if self._has_handlers():
                self._event_loop()
        finally:
            _finish_screen(self)

    done = mainloop

    def exitonclick(self) -> None:
        """Waits for a click on the drawing, then ends it (as bye())."""
        self.onclick(lambda x, y: self.bye())
        self.mainloop()

    def bye(self) -> None:
        """Ends the event loop, if one runs, and the drawing."""
        if self._looping:
            self._looping = False
            return
        _finish_screen(self)

    # -- input -------------------------------------------------------------------------------

    def textinput(self, title: str, prompt: str) -> str | None:
        """Asks in the reply, as input() does (CPython opens a dialog)."""
        self.update()
        try:
            return input(f'{title}: {prompt} ' if title else f'{prompt} ')
        except EOFError:
            return None

    def numinput(
        self, title: str, prompt: str, default: float | None = None, minval: float | None = None, maxval: float | None = None
    ) -> float | None:
        """Asks for a number in the reply until one within the bounds is given; an empty answer gives default."""
        while True:
            answer = self.textinput(title, prompt)
            if answer is None:
                return None
            if answer.strip() == '' and default is not None:
                return float(default)
            try:
                value = float(answer)
            except ValueError:
                print('Please give a number.')
                continue
            if minval is not None and value < minval:
                print(f'The number must be at least {minval}.')
            elif maxval is not None and value > maxval:
                print(f'The number must be at most {maxval}.')
            else:
                return value

    # -- events ------------------------------------------------------------------------------

    def onclick(self, fun: Callable[[float, float], Any] | None, btn: int = 1, add: Any = None) -> None:
        """Calls fun(x, y) for each click (button btn) on the drawing while mainloop() runs; None removes it."""
        _bind(self._click_handlers, btn, fun, add)

    onscreenclick = onclick

    def onkeyrelease(self, fun: Callable[[], Any] | None, key: str) -> None:
        """Calls fun() when key (a Tk key name: 'Up', 'space', 'a', ...) is released on the drawing."""
        _bind(self._key_release, key, fun, None)

    onkey = onkeyrelease

    def onkeypress(self, fun: Callable[[], Any] | None, key: str | None = None) -> None:
        """Calls fun() when key is pressed on the drawing (any key without one)."""
        _bind(self._key_press, key, fun, None)

    def ontimer(self, fun: Callable[[], Any], t: float = 0) -> None:
        """Calls fun() once, t milliseconds from now, while mainloop() runs."""
        self._timer_count += 1
        heapq.heappush(self._timers, (time.monotonic() + max(0.0, t) / 1000, self._timer_count, fun))

    def listen(self, xdummy: Any = None, ydummy: Any = None) -> None:
        """Keys reach the drawing once it has the keyboard (a click on it gives it)."""
        return None

    def _has_handlers(self) -> bool:
        turtles = any(t._click_handlers or t._release_handlers for t in self._turtles)
        return bool(self._click_handlers or self._key_press or self._key_release or self._timers or turtles)

    def _event_loop(self) -> None:
        """Runs timers when due and handlers for what the page sends, until bye() or Stop."""
        from pytabs.stdin import wait_for_event

        self._looping = True
        try:
            while self._looping:
                now = time.monotonic()
                if self._timers and self._timers[0][0] <= now:
                    _, _, fun = heapq.heappop(self._timers)
                    fun()
                    continue
                if not self._has_handlers():
                    return
                self.update()
                wait = None if not self._timers else (self._timers[0][0] - now) * 1000
                line = wait_for_event(None if wait is None else math.ceil(wait))
                if line is None:
                    print('turtle: clicks and keys cannot reach this run (nobody is at the keyboard here).', file=sys.stderr)
                    return
                self._dispatch(line)
        finally:
            self._looping = False

    def _dispatch(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        kind = event.get('kind')
        if kind == 'click':
            x, y = float(event['x']), float(event['y'])
            button = int(event.get('button', 1))
            where = (x / self.xscale, -y / self.yscale)
            handlers = [t for t in self._turtles if t._shown and t._hit(x, y)]
            for turtle in handlers:
                for fun in (turtle._click_handlers if event.get('up') is not True else turtle._release_handlers).get(button, []):
                    fun(*where)
            if event.get('up') is not True:
                for fun in self._click_handlers.get(button, []):
                    fun(*where)
        elif kind == 'key':
            key = str(event.get('key', ''))
            table = self._key_release if event.get('up') else self._key_press
            for fun in table.get(key, []) + ([] if event.get('up') else table.get(None, [])):
                fun()

    def _redraw_sprites(self) -> None:
        for turtle in self._turtles:
            turtle._draw_sprite()

    def _send_sprites(self) -> None:
        moved, self._moved = self._moved, set()
        for turtle in moved:
            turtle._send_sprite()

    def __reduce_ex__(self, protocol: object) -> Any:
        raise TypeError(_NOT_KEPT)


class _Screen(TurtleScreen):
    """The one screen of a session, as Screen() returns it."""


_screen: _Screen | None = None
# The screen drawn on last, also after done() ended it: what record() reads.
_last_screen: _Screen | None = None


def Screen() -> _Screen:
    """The session's screen (the same one every time until done() ends the drawing)."""
    global _screen, _last_screen
    if _screen is None:
        _screen = _last_screen = _Screen()
    return _screen


def _finish_screen(screen: TurtleScreen) -> None:
    """Shows the picture in the reply now; the next turtle drawing starts on a fresh screen."""
    global _screen, _default_turtle
    screen.update()
    screen._picture.show(_display)
    if screen is _screen:
        _screen = None
        _default_turtle = None


def _display(obj: object) -> None:
    display = getattr(builtins, 'display', None)
    if display is not None:
        display(obj)


def _bind(table: dict[Any, list[Callable[..., Any]]], key: Any, fun: Callable[..., Any] | None, add: Any) -> None:
    """CPython's binding rules: fun replaces the handlers (adds to them with add), None removes them."""
    if fun is None:
        table.pop(key, None)
    elif add:
        table.setdefault(key, []).append(fun)
    else:
        table[key] = [fun]


def _pause(seconds: float) -> None:
    """Waits in short slices, so Stop (an interrupt between bytecodes) lands within one."""
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.01))


_painted: dict[str, str] = {}


def _paint(color: str) -> str:
    """A canvas colour as the browser draws it (Tk's names are not all CSS's): '#rrggbb', or 'none'."""
    painted = _painted.get(color)
    if painted is None:
        painted = _painted[color] = (_resolve_color(color) or 'none') if color else 'none'
    return painted


def _scale_item(item: dict[str, Any], fx: float, fy: float) -> None:
    pts = item.get('pts')
    if pts is not None:
        item['pts'] = [v * (fx if i % 2 == 0 else fy) for i, v in enumerate(pts)]
    if 'x' in item:
        item['x'] *= fx
        item['y'] *= fy


class RawTurtle:
    """A turtle on a screen: where it is, where it heads, its pen, and what it draws."""

    _next_id = 1

    def __init__(self, canvas: Any = None, shape: str = 'classic', undobuffersize: int = 1000, visible: bool = True) -> None:
        if isinstance(canvas, TurtleScreen):
            self.screen = canvas
        elif canvas is None or isinstance(canvas, Picture):
            self.screen = Screen()
        else:
            raise TurtleGraphicsError(f'bad canvas argument {canvas}')
        self._id = RawTurtle._next_id
        RawTurtle._next_id += 1
        self.screen._turtles.append(self)
        # Angles: units per full turn, and how headings map to the screen (standard/world vs logo).
        self._fullcircle = 360.0
        self._degrees_per_unit = 1.0
        self._set_mode(self.screen._mode)
        self._shape = shape if shape in self.screen._shapes else 'classic'
        self._items: list[int] = []
        self._stamps: list[int] = []
        self._trail_from: Vec2D | None = None
        self._click_handlers: dict[Any, list[Callable[..., Any]]] = {}
        self._release_handlers: dict[Any, list[Callable[..., Any]]] = {}
        self._line: int | None = None
        self._line_points = 0
        self._new_line()
        self._reset_state(visible)

    # -- state -------------------------------------------------------------------------------

    def _set_mode(self, mode: str) -> None:
        self._mode = mode
        self._angle_offset = self._fullcircle / 4 if mode == 'logo' else 0.0
        self._angle_orient = -1 if mode == 'logo' else 1

    def _reset_state(self, visible: bool = True) -> None:
        self._position = Vec2D(0.0, 0.0)
        self._orient = Vec2D(0.0, 1.0) if self._mode == 'logo' else Vec2D(1.0, 0.0)
        self._drawing = True
        self._pencolor = 'black'
        self._fillcolor = 'black'
        self._pensize: float = 1
        self._speed = 3
        self._shown = visible
        self._resizemode = 'noresize'
        self._stretch = (1.0, 1.0)
        self._outline: float = 1
        self._tilt = 0.0
        self._fillpath: list[Vec2D] | None = None
        self._fill_item: int | None = None
        self._poly: list[Vec2D] | None = None
        self._poly_done: tuple[Vec2D, ...] | None = None
        self._draw_sprite()

    def reset(self) -> None:
        """Back to the centre, heading east (north in logo mode), default pen; its drawings are deleted."""
        self._forget_drawings()
        self._reset_state()
        self.screen._refresh()

    def clear(self) -> None:
        """Deletes this turtle's drawings; where it is and its pen stay."""
        self._forget_drawings()
        self._draw_sprite()
        self.screen._refresh()

    def _forget_drawings(self) -> None:
        self.screen._picture.remove(self._items + self._stamps)
        self._items, self._stamps = [], []
        self._fillpath = None
        self._fill_item = None
        self._line = None
        self._new_line()

    # -- angles ------------------------------------------------------------------------------

    def degrees(self, fullcircle: float = 360.0) -> None:
        """Measures angles in degrees, or in units of which fullcircle make a turn."""
        self._set_units(fullcircle)

    def radians(self) -> None:
        self._set_units(math.tau)

    def _set_units(self, fullcircle: float) -> None:
        self._fullcircle = fullcircle
        self._degrees_per_unit = 360 / fullcircle
        self._angle_offset = 0 if self._mode == 'standard' else fullcircle / 4

    def _heading_of(self, vector: tuple[float, float]) -> float:
        x, y = vector
        angle = round(math.degrees(math.atan2(y, x)), 10) % 360.0
        angle /= self._degrees_per_unit
        return (self._angle_offset + self._angle_orient * angle) % self._fullcircle

    def heading(self) -> float:
        """The heading in the current units (0 is east in standard mode, north in logo mode)."""
        return self._heading_of(self._orient)

    def towards(self, x: Any, y: float | None = None) -> float:
        """The heading that would point at (x, y), a position, or another turtle."""
        target = self._point(x, y)
        return self._heading_of(target - self._position)

    def distance(self, x: Any, y: float | None = None) -> float:
        return abs(self._point(x, y) - self._position)

    def _point(self, x: Any, y: float | None) -> Vec2D:
        if y is not None:
            return Vec2D(x, y)
        if isinstance(x, RawTurtle):
            return x._position
        if isinstance(x, tuple):
            return Vec2D(*x)
        raise TurtleGraphicsError(f'bad position: {x}')

    # -- moving ------------------------------------------------------------------------------

    def position(self) -> Vec2D:
        return self._position

    pos = position

    def xcor(self) -> float:
        return self._position[0]

    def ycor(self) -> float:
        return self._position[1]

    def forward(self, distance: float) -> None:
        self._move_to(self._position + self._orient * distance)

    def back(self, distance: float) -> None:
        self._move_to(self._position - self._orient * distance)

    def left(self, angle: float) -> None:
        self._turn(angle)

    def right(self, angle: float) -> None:
        self._turn(-angle)

    def goto(self, x: Any, y: float | None = None) -> None:
        """Moves to (x, y) or to a position, drawing if the pen is down; the heading stays."""
        self._move_to(Vec2D(*x) if y is None else Vec2D(x, y))

    def teleport(self, x: float | None = None, y: float | None = None, *, fill_gap: bool = False) -> None:
        """Moves without drawing; a fill in progress gets the point only with fill_gap (Python 3.12's addition)."""
        target = Vec2D(self._position[0] if x is None else x, self._position[1] if y is None else y)
        drawing, self._drawing = self._drawing, False
        filling = self._fillpath
        if not fill_gap:
            self._fillpath = None
        try:
            self._move_to(target)
        finally:
            self._drawing = drawing
            self._fillpath = filling
            self._new_line()

    def setx(self, x: float) -> None:
        self._move_to(Vec2D(x, self._position[1]))

    def sety(self, y: float) -> None:
        self._move_to(Vec2D(self._position[0], y))

    def setheading(self, to_angle: float) -> None:
        """Turns to to_angle the short way round."""
        turn = (to_angle - self.heading()) * self._angle_orient
        full = self._fullcircle
        self._turn((turn + full / 2) % full - full / 2)

    def home(self) -> None:
        self.goto(0, 0)
        self.setheading(0)

    def circle(self, radius: float, extent: float | None = None, steps: int | None = None) -> None:
        """An arc of extent (a full turn by default) around a centre radius units to the left (right if negative).

        Drawn as CPython draws it: a regular polygon of steps sides, half a step's turn before
        the first side and after the last.
        """
        if extent is None:
            extent = self._fullcircle
        if steps is None:
            share = abs(extent) / self._fullcircle
            steps = 1 + int(min(11 + abs(radius) / 6.0, 59.0) * share)
        turn = extent / steps
        side = 2.0 * radius * math.sin(math.radians(turn / 2) * self._degrees_per_unit)
        if radius < 0:
            side, turn = -side, -turn
        speed = self._speed
        # CPython animates the sides and not the turns between them.
        self._turn(turn / 2, animated=False)
        for _ in range(steps):
            self._move_to(self._position + self._orient * side, speed=speed)
            self._turn(turn, animated=False)
        self._turn(-turn / 2, animated=False)

    def _turn(self, angle: float, animated: bool = True) -> None:
        degrees = angle * self._degrees_per_unit
        target = self._orient.rotate(degrees)
        screen = self.screen
        if animated and self._speed and screen._tracing == 1 and self._shown:
            step_limit = 3.0 * self._speed
            steps = 1 + int(abs(degrees) / step_limit)
            for _ in range(steps):
                self._orient = self._orient.rotate(degrees / steps)
                self._draw_sprite()
                screen._frame(True)
        self._orient = target
        self._draw_sprite()
        screen._frame(False)

    def _move_to(self, end: Vec2D, speed: int | None = None) -> None:
        """Every movement ends here: the line drawn, the fill and polygon points, the animation."""
        start = self._position
        speed = self._speed if speed is None else speed
        screen = self.screen
        if speed and screen._tracing == 1 and (self._drawing or self._shown):
            span = math.hypot((end[0] - start[0]) * screen.xscale, (end[1] - start[1]) * screen.yscale)
            hops = 1 + int(span / (3 * (1.1**speed) * speed))
            for hop in range(1, hops):
                # The line so far goes with the turtle's shape; the drawing gets it whole at the end.
                self._position = start + (end - start) * (hop / hops)
                self._draw_sprite(trail_from=start if self._drawing else None)
                screen._frame(True)
            self._position = start
        if self._drawing:
            self._draw_line_to(end)
        if self._fillpath is not None:
            self._fillpath.append(end)
        if self._poly is not None:
            self._poly.append(end)
        self._position = end
        self._draw_sprite()
        screen._frame(False)

    def _draw_line_to(self, end: Vec2D) -> None:
        """Extends the turtle's current line to end."""
        picture = self.screen._picture
        x, y = self._canvas(end)
        if self._line_points == 0:
            sx, sy = self._canvas(self._position)
            picture.update(self._line, pts=[sx, sy, x, y], color=_paint(self._pencolor), tkcolor=self._pencolor,
                           width=self._pensize)
            self._line_points = 2
        else:
            picture.extend(self._line, x, y)
            self._line_points += 1
        if self._line_points > LINE_POINTS:
            self._new_line()

    def _new_line(self) -> None:
        """Ends the current line: as in CPython, one with a segment stays and a new empty line goes on top,
        an empty one stays where it is (so a fill begun on a fresh line lies above what it outlines)."""
        picture = self.screen._picture
        if self._line is None or self._line not in picture.items or self._line_points > 1:
            self._line = picture.add({'kind': 'line', 'owner': self._id, 'pts': [], 'color': 'none', 'width': 1})
            self._items.append(self._line)
        self._line_points = 0

    def _canvas(self, point: tuple[float, float]) -> tuple[float, float]:
        return (point[0] * self.screen.xscale, -point[1] * self.screen.yscale)

    # -- the pen -----------------------------------------------------------------------------

    def pendown(self) -> None:
        if not self._drawing:
            self.pen(pendown=True)

    def penup(self) -> None:
        if self._drawing:
            self.pen(pendown=False)

    def isdown(self) -> bool:
        return self._drawing

    def pensize(self, width: float | None = None) -> float | None:
        if width is None:
            return self._pensize
        self.pen(pensize=width)
        return None

    def speed(self, speed: Any = None) -> int | None:
        """Returns or sets the speed: 1 (slowest) to 10 (fast), 0 draws at once; or a name ('fastest', 'normal', ...)."""
        if speed is None:
            return self._speed
        if speed in _SPEEDS:
            speed = _SPEEDS[speed]
        elif _is_number(speed) and 0.5 < speed < 10.5:
            speed = int(round(speed))
        else:
            speed = 0
        self.pen(speed=speed)
        return None

    def pencolor(self, *args: Any) -> Any:
        if not args:
            return self.screen._color(self._pencolor)
        self.pen(pencolor=self.screen._colorstr(args))
        return None

    def fillcolor(self, *args: Any) -> Any:
        if not args:
            return self.screen._color(self._fillcolor)
        self.pen(fillcolor=self.screen._colorstr(args))
        return None

    def color(self, *args: Any) -> Any:
        """Returns (pencolor, fillcolor); with one colour sets both, with two sets each."""
        if not args:
            return self.screen._color(self._pencolor), self.screen._color(self._fillcolor)
        if len(args) == 1:
            pen = fill = args[0]
        elif len(args) == 2:
            pen, fill = args
        elif len(args) == 3:
            pen = fill = args
        else:
            raise TurtleGraphicsError(f'bad color arguments: {args}')
        self.pen(pencolor=self.screen._colorstr((pen,)), fillcolor=self.screen._colorstr((fill,)))
        return None

    def showturtle(self) -> None:
        self.pen(shown=True)

    def hideturtle(self) -> None:
        self.pen(shown=False)

    def isvisible(self) -> bool:
        return self._shown

    def pen(self, pen: dict[str, Any] | None = None, **pendict: Any) -> dict[str, Any] | None:
        """Returns the pen's state as a dict, or sets any of it (shown, pendown, pencolor, fillcolor, pensize, speed, ...)."""
        state = {
            'shown': self._shown, 'pendown': self._drawing, 'pencolor': self._pencolor,
            'fillcolor': self._fillcolor, 'pensize': self._pensize, 'speed': self._speed,
            'resizemode': self._resizemode, 'stretchfactor': self._stretch, 'shearfactor': 0.0,
            'outline': self._outline, 'tilt': self._tilt,
        }
        if not (pen or pendict):
            return state
        changes = dict(pen) if isinstance(pen, dict) else {}
        changes.update(pendict)
        new_line = False
        if 'pendown' in changes and self._drawing != changes['pendown']:
            new_line = True
            self._drawing = bool(changes['pendown'])
        for key in ('pencolor', 'fillcolor'):
            if key in changes:
                value = changes[key]
                value = self.screen._colorstr((value,)) if isinstance(value, tuple) else value
                if key == 'pencolor' and self._pencolor != value:
                    new_line = True
                setattr(self, '_' + key, value)
        if 'pensize' in changes:
            if self._pensize != changes['pensize']:
                new_line = True
            self._pensize = changes['pensize']
        if 'speed' in changes:
            self._speed = changes['speed']
        if 'resizemode' in changes:
            self._resizemode = changes['resizemode']
        if 'stretchfactor' in changes:
            factor = changes['stretchfactor']
            self._stretch = (factor, factor) if _is_number(factor) else tuple(factor)
        if 'outline' in changes:
            self._outline = changes['outline']
        if 'shown' in changes:
            self._shown = bool(changes['shown'])
        if 'tilt' in changes:
            self._tilt = changes['tilt']
        if new_line:
            self._new_line()
        self._draw_sprite()
        self.screen._frame(False)
        return None

    # -- fills, polygons, dots, stamps, text -------------------------------------------------

    def filling(self) -> bool:
        return self._fillpath is not None

    def begin_fill(self) -> None:
        """Starts a shape to fill: it is painted, below what is drawn from here, at end_fill()."""
        if self._fillpath is None:
            self._fill_item = self.screen._picture.add(
                {'kind': 'poly', 'owner': self._id, 'pts': [], 'fill': 'none', 'tkfill': '', 'outline': '', 'width': 0}
            )
            self._items.append(self._fill_item)
        self._fillpath = [self._position]
        self._new_line()
        self.screen._frame(False)

    def end_fill(self) -> None:
        """Fills the shape drawn since begin_fill() with the fill colour (if it has three points or more)."""
        if self._fillpath is None:
            return
        if len(self._fillpath) > 2 and self._fill_item is not None:
            pts = [v for point in self._fillpath for v in self._canvas(point)]
            self.screen._picture.update(self._fill_item, pts=pts, fill=_paint(self._fillcolor), tkfill=self._fillcolor)
        self._fillpath = None
        self._fill_item = None
        self.screen._frame(False)

    def begin_poly(self) -> None:
        self._poly = [self._position]

    def end_poly(self) -> None:
        self._poly_done = tuple(self._poly or ())
        self._poly = None

    def get_poly(self) -> tuple[Vec2D, ...] | None:
        return self._poly_done

    def dot(self, size: Any = None, *color: Any) -> None:
        """A round dot of diameter size (default: the larger of pensize + 4 and 2 × pensize) in color or the pen colour."""
        if not color:
            if isinstance(size, (str, tuple)):
                paint = self.screen._colorstr((size,))
                size = self._pensize + max(self._pensize, 4)
            else:
                paint = self._pencolor
                if not size:
                    size = self._pensize + max(self._pensize, 4)
        else:
            if size is None:
                size = self._pensize + max(self._pensize, 4)
            paint = self.screen._colorstr(color)
        x, y = self._canvas(self._position)
        item = self.screen._picture.add(
            {'kind': 'dot', 'owner': self._id, 'x': x, 'y': y, 'size': size, 'color': _paint(paint), 'tkcolor': paint}
        )
        self._items.append(item)
        # CPython draws a dot as a step of length 0, which a fill in progress counts as a point.
        if self._fillpath is not None:
            self._fillpath.append(self._position)
        self._new_line()
        self.screen._frame(False)

    def write(self, arg: object, move: bool = False, align: str = 'left', font: Any = _DEFAULT_FONT) -> None:
        """Writes str(arg) at the turtle's position, aligned 'left', 'center' or 'right' on it."""
        align = align.lower()
        if align not in ('left', 'center', 'right'):
            raise TurtleGraphicsError(f'bad align: {align}')
        family, size, style = (tuple(font) + _DEFAULT_FONT[len(font) :])[:3]
        text = str(arg)
        x, y = self._canvas(self._position)
        item = self.screen._picture.add(
            {'kind': 'text', 'owner': self._id, 'x': x - 1, 'y': y, 'text': text, 'align': align,
             'font': [str(family), abs(size), str(style)], 'color': _paint(self._pencolor), 'tkcolor': self._pencolor}
        )
        self._items.append(item)
        if move:
            # Without the font's metrics at hand, an average glyph is 0.6 of the size.
            width = len(text) * abs(size) * 0.6 * 4 / 3
            start = {'left': 0.0, 'center': -width / 2, 'right': -width}[align]
            self._move_to(Vec2D(self._position[0] + (start + width) / self.screen.xscale, self._position[1]))
        self.screen._frame(False)

    def stamp(self) -> int:
        """Leaves a copy of the turtle's shape here; returns its id for clearstamp()."""
        sprite = self._sprite()
        item = self.screen._picture.add(dict(sprite or {'kind': 'poly', 'pts': [], 'fill': 'none'}, owner=self._id, stamp=True))
        self._stamps.append(item)
        self.screen._frame(False)
        return item

    def clearstamp(self, stampid: int) -> None:
        if stampid in self._stamps:
            self._stamps.remove(stampid)
            self.screen._picture.remove([stampid])
            self.screen._frame(False)

    def clearstamps(self, n: int | None = None) -> None:
        """Deletes all stamps, the first n, or (n < 0) the last -n."""
        if n is None:
            chosen = self._stamps[:]
        elif n >= 0:
            chosen = self._stamps[:n]
        else:
            chosen = self._stamps[n:]
        for stamp in chosen:
            self.clearstamp(stamp)

    # -- the turtle's look -------------------------------------------------------------------

    def shape(self, name: str | None = None) -> str | None:
        if name is None:
            return self._shape
        if name not in self.screen._shapes:
            raise TurtleGraphicsError(f'There is no shape named {name}')
        self._shape = name
        self._draw_sprite()
        return None

    def shapesize(self, stretch_wid: float | None = None, stretch_len: float | None = None, outline: float | None = None) -> Any:
        """Returns or sets the stretch across and along the heading, and the outline width."""
        if stretch_wid is None and stretch_len is None and outline is None:
            return self._stretch[0], self._stretch[1], self._outline
        if stretch_wid == 0 or stretch_len == 0:
            raise TurtleGraphicsError('stretch_wid/stretch_len must not be zero')
        wid = self._stretch[0] if stretch_wid is None else stretch_wid
        length = (wid if stretch_wid is not None else self._stretch[1]) if stretch_len is None else stretch_len
        self.pen(resizemode='user', stretchfactor=(wid, length), outline=self._outline if outline is None else outline)
        return None

    turtlesize = shapesize

    def resizemode(self, rmode: str | None = None) -> str | None:
        if rmode is None:
            return self._resizemode
        if rmode.lower() in ('auto', 'user', 'noresize'):
            self.pen(resizemode=rmode.lower())
        return None

    def tilt(self, angle: float) -> None:
        self.pen(tilt=self._tilt + angle * self._degrees_per_unit)

    def settiltangle(self, angle: float) -> None:
        self.pen(tilt=(angle * self._degrees_per_unit * self._angle_orient) % 360)

    def tiltangle(self, angle: float | None = None) -> float | None:
        if angle is None:
            return (self._tilt / self._degrees_per_unit * self._angle_orient) % self._fullcircle
        self.settiltangle(angle)
        return None

    def _sprite(self) -> dict[str, Any] | None:
        """The turtle's shape where it stands: its outline turned to the heading (and tilt), stretched."""
        shape = self.screen._shapes[self._shape]
        if shape._type != 'polygon' or not shape._data:
            return None
        wid, length = self._stretch if self._resizemode == 'user' else (1.0, 1.0)
        outline = self._outline if self._resizemode == 'user' else 1
        angle = math.atan2(self._orient[1], self._orient[0]) + math.radians(self._tilt) * self._angle_orient
        cos, sin = math.cos(angle), math.sin(angle)
        px, py = self._position
        pts: list[float] = []
        for along, across in shape._data:
            a, b = along * length, across * wid
            x = px + (a * cos - b * sin) / self.screen.xscale
            y = py + (a * sin + b * cos) / self.screen.yscale
            pts.extend(self._canvas((x, y)))
        return {'kind': 'poly', 'pts': pts, 'fill': _paint(self._fillcolor), 'outline': _paint(self._pencolor), 'width': outline}

    def _draw_sprite(self, trail_from: Vec2D | None = None) -> None:
        """Shows the turtle where it is (worked out when the screen next sends its changes); during
        an animated step, with the line it is drawing."""
        screen = self.screen
        if screen._tracing == 0:
            return
        self._trail_from = trail_from
        screen._moved.add(self)

    def _send_sprite(self) -> None:
        sprite = self._sprite() if self._shown else None
        if self._trail_from is not None:
            sprite = dict(sprite or {'kind': 'poly', 'pts': []})
            sprite['trail'] = {'pts': [*self._canvas(self._trail_from), *self._canvas(self._position)],
                               'color': _paint(self._pencolor), 'width': self._pensize}
        self.screen._picture.set_sprite(self._id, sprite)

    # -- the rest of the API -----------------------------------------------------------------

    def __reduce_ex__(self, protocol: object) -> Any:
        raise TypeError(_NOT_KEPT)

    def getscreen(self) -> TurtleScreen:
        return self.screen

    def getturtle(self) -> RawTurtle:
        return self

    getpen = getturtle

    def clone(self) -> RawTurtle:
        """A new turtle with this one's position, heading and pen."""
        twin = type(self).__new__(type(self))
        RawTurtle.__init__(twin, self.screen, self._shape, visible=self._shown)
        twin._position, twin._orient = self._position, self._orient
        twin._fullcircle, twin._degrees_per_unit = self._fullcircle, self._degrees_per_unit
        twin._set_mode(self._mode)
        twin._angle_offset = self._angle_offset
        twin.pen(self.pen())
        return twin

    def onclick(self, fun: Callable[[float, float], Any] | None, btn: int = 1, add: Any = None) -> None:
        """Calls fun(x, y) when this turtle is clicked while mainloop() runs; None removes it."""
        _bind(self._click_handlers, btn, fun, add)

    def onrelease(self, fun: Callable[[float, float], Any] | None, btn: int = 1, add: Any = None) -> None:
        """Calls fun(x, y) when a click on this turtle is let go."""
        _bind(self._release_handlers, btn, fun, add)

    def ondrag(self, fun: Callable[[float, float], Any] | None, btn: int = 1, add: Any = None) -> None:
        """Accepted; dragging is not delivered in PyTabs (clicks are)."""
        return None

    def _hit(self, x: float, y: float) -> bool:
        """Whether the canvas point (x, y) is on the turtle's shape (or within 10 pixels of a shapeless one)."""
        sprite = self._sprite()
        if sprite is None or len(sprite['pts']) < 6:
            tx, ty = self._canvas(self._position)
            return math.hypot(x - tx, y - ty) <= 10
        pts = sprite['pts']
        inside = False
        j = len(pts) - 2
        for i in range(0, len(pts), 2):
            xi, yi, xj, yj = pts[i], pts[i + 1], pts[j], pts[j + 1]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside

    def undo(self) -> None:
        raise TurtleGraphicsError('undo() is not supported in PyTabs')

    def setundobuffer(self, size: int | None) -> None:
        return None

    def undobufferentries(self) -> int:
        return 0

    fd = forward
    bk = backward = back
    lt = left
    rt = right
    setpos = setposition = goto
    seth = setheading
    width = pensize
    up = pu = penup
    down = pd = pendown
    st = showturtle
    ht = hideturtle


class Turtle(RawTurtle):
    """A turtle on the session's screen."""

    def __init__(self, shape: str = 'classic', undobuffersize: int = 1000, visible: bool = True) -> None:
        super().__init__(Screen(), shape, undobuffersize, visible)


Pen = Turtle
RawPen = RawTurtle

_default_turtle: Turtle | None = None


def _anonymous() -> Turtle:
    """The turtle the module's functions move, made on first use."""
    global _default_turtle
    if _default_turtle is None or _default_turtle.screen is not _screen or _screen is None:
        _default_turtle = Turtle()
    return _default_turtle


def getturtle() -> Turtle:
    return _anonymous()


getpen = getturtle

_TURTLE_FUNCTIONS = (
    'back backward begin_fill begin_poly bk circle clear clearstamp clearstamps clone color degrees distance dot '
    'down end_fill end_poly fd fillcolor filling forward get_poly getscreen goto heading hideturtle home ht '
    'isdown isvisible left lt onclick ondrag onrelease pd pen pencolor pendown pensize penup pos position pu '
    'radians reset resizemode right rt seth setheading setpos setposition settiltangle setundobuffer setx sety '
    'shape shapesize showturtle speed st stamp teleport tilt tiltangle towards turtlesize undo undobufferentries '
    'up width write xcor ycor'
).split()
_SCREEN_FUNCTIONS = (
    'addshape bgcolor bye clearscreen colormode delay exitonclick getcanvas getshapes listen mainloop mode '
    'numinput onkey onkeypress onkeyrelease onscreenclick ontimer register_shape resetscreen screensize setup '
    'setworldcoordinates textinput title tracer turtles update window_height window_width'
).split()


def _turtle_function(name: str) -> Callable[..., Any]:
    method = getattr(RawTurtle, name)

    def function(*args: Any, **kwargs: Any) -> Any:
        return getattr(_anonymous(), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


def _screen_function(name: str) -> Callable[..., Any]:
    method = getattr(TurtleScreen, name)

    def function(*args: Any, **kwargs: Any) -> Any:
        return getattr(Screen(), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


for _name in _TURTLE_FUNCTIONS:
    globals()[_name] = _turtle_function(_name)
for _name in _SCREEN_FUNCTIONS:
    globals()[_name] = _screen_function(_name)
done = globals()['mainloop']
__all__ += _TURTLE_FUNCTIONS + _SCREEN_FUNCTIONS + ['getturtle', 'getpen']


def record() -> dict[str, list[Any]]:
    """What the last turtle screen shows, for an assignment's checks (PyTabs only; not in CPython).

    In turtle coordinates, in drawing order: ``lines`` as ``((x1, y1), (x2, y2), color, width)``
    segments, ``fills`` as ``(points, color)``, ``dots`` as ``((x, y), size, color)``, ``texts`` as
    ``((x, y), text, align, font, color)``, and ``turtles``, each one's ``position``, ``heading``,
    ``pendown``, ``pencolor``, ``fillcolor``, ``pensize`` and ``visible``. Colours are as the program
    gave them ('red'), or '#rrggbb' for colour tuples. The record stays after done().
    """
    screen = _screen or _last_screen
    out: dict[str, list[Any]] = {'lines': [], 'fills': [], 'dots': [], 'texts': [], 'turtles': []}
    if screen is None:
        return out

    def world(x: float, y: float) -> tuple[float, float]:
        return (x / screen.xscale, -y / screen.yscale)

    for item in screen._picture.items.values():
        if item.get('stamp'):
            continue
        kind = item['kind']
        pts = item.get('pts', [])
        points = [world(pts[i], pts[i + 1]) for i in range(0, len(pts) - 1, 2)]
        if kind == 'line':
            out['lines'].extend((a, b, item.get('tkcolor', ''), item['width']) for a, b in zip(points, points[1:]))
        elif kind == 'poly' and len(points) >= 3:
            out['fills'].append((points, item.get('tkfill', '')))
        elif kind == 'dot':
            out['dots'].append((world(item['x'], item['y']), item['size'], item.get('tkcolor', '')))
        elif kind == 'text':
            out['texts'].append((world(item['x'] + 1, item['y']), item['text'], item['align'], tuple(item['font']), item.get('tkcolor', '')))
    for turtle in screen._turtles:
        out['turtles'].append({
            'position': turtle.position(), 'heading': turtle.heading(), 'pendown': turtle.isdown(),
            'pencolor': turtle.pencolor(), 'fillcolor': turtle.fillcolor(), 'pensize': turtle.pensize(),
            'visible': turtle.isvisible(),
        })
    return out
del _name
