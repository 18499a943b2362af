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

import base64
import builtins
import copy
import heapq
import json
import math
import numbers
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pytabs.turtle_colors import lookup as _resolve_color
from pytabs.turtle_picture import LINE_POINTS, Picture
from pytabs.said import error, said, words

__all__ = [
    'Screen', 'Turtle', 'RawTurtle', 'Pen', 'RawPen', 'TurtleScreen', 'Vec2D', 'Shape',
    'TurtleGraphicsError', 'Terminator', 'done',
]  # the generated module functions are added at the end

# The window a Tk turtle opens is a fraction of the screen; a browser has no such screen, so
# fractions are taken of this one.
_SCREEN_SIZE = (1280, 800)
_DEFAULT_FONT = ('Arial', 8, 'normal')
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


class Shape:
    """A turtle shape, as CPython has it: a polygon in the turtle's own frame (x to its right, y
    along its heading), an image (not supported in PyTabs), or a compound of coloured polygons."""

    def __init__(self, type_: str, data: Any = None) -> None:
        if type_ not in ('polygon', 'compound', 'image'):
            raise TurtleGraphicsError(f'There is no shape type {type_}')  # CPython's words
        if type_ == 'image':
            raise error(TurtleGraphicsError, said('rt_py_turtle_no_images'))
        self._type = type_
        if type_ == 'polygon':
            data = tuple(tuple(p) for p in (data or ()))
        elif data is None:
            data = []
        self._data: Any = data

    def addcomponent(self, poly: Any, fill: Any, outline: Any = None) -> None:
        """Adds a polygon filled with fill and outlined with outline (default: fill) to a compound shape."""
        if self._type != 'compound':
            raise TurtleGraphicsError(f'Cannot add component to {self._type} Shape')  # CPython's words
        if outline is None:
            outline = fill
        self._data.append([tuple(tuple(p) for p in poly), fill, outline])


# CPython's own outlines (x to the turtle's right, y along its heading), so get_shapepoly() and
# the turtles look as they do there.
_BUILTIN_SHAPES: dict[str, tuple[tuple[float, float], ...]] = {
    'arrow': ((-10, 0), (10, 0), (0, 10)),
    'turtle': ((0, 16), (-2, 14), (-1, 10), (-4, 7), (-7, 9), (-9, 8), (-6, 5), (-7, 1), (-5, -3), (-8, -6),
               (-6, -8), (-4, -5), (0, -7), (4, -5), (6, -8), (8, -6), (5, -3), (7, 1), (6, 5), (9, 8), (7, 9),
               (4, 7), (1, 10), (2, 14)),
    'circle': ((10, 0), (9.51, 3.09), (8.09, 5.88), (5.88, 8.09), (3.09, 9.51), (0, 10), (-3.09, 9.51),
               (-5.88, 8.09), (-8.09, 5.88), (-9.51, 3.09), (-10, 0), (-9.51, -3.09), (-8.09, -5.88),
               (-5.88, -8.09), (-3.09, -9.51), (-0.00, -10.00), (3.09, -9.51), (5.88, -8.09), (8.09, -5.88),
               (9.51, -3.09)),
    'square': ((10, -10), (10, 10), (-10, 10), (-10, -10)),
    'triangle': ((10, -5.77), (0, 11.55), (-10, -5.77)),
    'classic': ((0, 0), (-5, -9), (0, -7), (5, -9)),
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
        self._bgpic_name = 'nopic'

    # -- colours -----------------------------------------------------------------------------

    def _colorstr(self, args: Any) -> str:
        """A colour argument as the string the canvas keeps (a name stays a name, a tuple becomes #rrggbb)."""
        color = args[0] if isinstance(args, tuple) and len(args) == 1 else args
        if isinstance(color, str):
            if color == '' or _resolve_color(color) is not None:
                return color
            raise TurtleGraphicsError(f'bad color string: {color}')  # CPython's words
        try:
            r, g, b = color
        except (TypeError, ValueError):
            raise TurtleGraphicsError(f'bad color arguments: {color}') from None  # CPython's words
        if self._colormode == 1.0:
            r, g, b = (round(255.0 * c) for c in (r, g, b))
        if not (0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255):
            raise TurtleGraphicsError(f'bad color sequence: {color}')  # CPython's words
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
            raise TurtleGraphicsError(f'bad colorstring: {cstr}')  # CPython's words
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
            raise TurtleGraphicsError(f'No turtle-graphics-mode {mode}')  # CPython's words
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
            raise error(TurtleGraphicsError, said('rt_py_turtle_no_images'))
        if isinstance(shape, tuple):
            shape = Shape('polygon', shape)
        elif not isinstance(shape, Shape):
            raise TurtleGraphicsError(f'bad shape for register_shape: {shape!r}')  # CPython's words
        self._shapes[name] = shape

    addshape = register_shape

    def getshapes(self) -> list[str]:
        return sorted(self._shapes)

    def getcanvas(self) -> Any:
        """CPython's Tk canvas: PyTabs has none (it draws in the reply)."""
        raise _no_tk('getcanvas()')

    @property
    def cv(self) -> Any:
        """CPython's Tk canvas: PyTabs has none (it draws in the reply)."""
        raise _no_tk('Screen().cv')

    def bgpic(self, picname: str | None = None) -> str | None:
        """Returns the background picture's name ('nopic' for none), or sets it: a GIF or PNG file of
        the workspace, shown at the centre under the drawing; 'nopic' takes it away."""
        if picname is None:
            return self._bgpic_name
        if picname == 'nopic':
            self._picture.set_bgpic(None)
        else:
            self._picture.set_bgpic(_read_image(picname))
        self._bgpic_name = picname
        self._refresh()
        return None

    @contextmanager
    def no_animation(self) -> Iterator[None]:
        """Draws what the with-block draws at once, shown when it ends (Python 3.14's tracer(0) ... update())."""
        tracing = self.tracer()
        try:
            self.tracer(0)
            yield
        finally:
            self.tracer(tracing)

    def save(self, filename: str, *, overwrite: bool = False) -> None:
        """Saves the drawing to a workspace file, as SVG: CPython (3.14) writes PostScript from its Tk
        canvas, which PyTabs does not have, so the name must end in .svg."""
        path = os.fspath(filename)
        if not path.lower().endswith('.svg'):
            raise error(TurtleGraphicsError, said('rt_py_turtle_no_tk', what=said('rt_py_turtle_postscript', call=f'save({path!r})')))
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise error(FileNotFoundError, said('rt_py_turtle_no_folder', folder=repr(folder)))
        if not overwrite and os.path.exists(path):
            raise error(FileExistsError, said('rt_py_turtle_exists', path=repr(path)))
        self.update()
        with open(path, 'w', encoding='utf-8') as file:
            file.write(self._picture.svg())

    def clear(self) -> None:
        """Deletes all drawings and all turtles, as CPython does: a white background, no background
        picture, no click or key handlers, tracing on; the mode and coordinates stay. The module's
        functions then draw with a new turtle."""
        global _default_turtle
        self._picture.clear()
        self._turtles = []
        self._moved.clear()
        self._colormode = 1.0
        self._tracing = 1
        self._update_count = 0
        self._delay_ms = 10
        self._bgpic_name = 'nopic'
        self._picture.set_bgpic(None)
        self.bgcolor('white')
        self._click_handlers.clear()
        self._key_press.clear()
        self._key_release.clear()
        _default_turtle = None

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
                print(words(said('rt_py_turtle_give_number')))
                continue
            if minval is not None and value < minval:
                print(words(said('rt_py_turtle_at_least', min=minval)))
            elif maxval is not None and value > maxval:
                print(words(said('rt_py_turtle_at_most', max=maxval)))
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
        self._picture.set_listening(True)
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
                    print(words(said('rt_py_turtle_no_events')), file=sys.stderr)
                    return
                self._dispatch(line)
        finally:
            self._looping = False
            self._picture.set_listening(False)

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
        # Pickling one would copy its whole drawing: a session keeps no turtle or screen across a reload.
        raise error(TypeError, said('rt_py_turtle_not_kept'))


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


_measuring: Any = None
# Whole-pixel advances by font and character: measuring is a call into the browser.
_advances: dict[str, dict[str, int]] = {}


def _text_width(text: str, family: str, size: float, style: str) -> int:
    """The text's width in whole pixels as Tk measures it, with the browser's canvas.

    Tk sets a font of size points at a whole number of pixels (a negative size is pixels), here
    at 96 per inch as the page's CSS pixels; the browser resolves the family as Tk does through
    the system's fonts. Tk's fonts advance by whole pixels, glyph by glyph, without kerning, so
    each character is measured alone and rounded. Outside a browser (Node, no OffscreenCanvas) an
    average glyph is taken as half the size's pixels.
    """
    global _measuring
    pixels = -size if size < 0 else int(size * 96 / 72 + 0.5)
    if _measuring is None:
        try:
            from js import OffscreenCanvas  # type: ignore[import-not-found]

            _measuring = OffscreenCanvas.new(1, 1).getContext('2d')
        except (ImportError, AttributeError):
            _measuring = False
    if not _measuring:
        return round(len(text) * pixels * 0.5)
    slant = 'italic ' if 'italic' in style else ''
    weight = 'bold ' if 'bold' in style else ''
    font = f'{slant}{weight}{pixels}px {json.dumps(family)}'
    advances = _advances.setdefault(font, {})
    missing = set(text) - advances.keys()
    if missing:
        _measuring.font = font
        for char in missing:
            advances[char] = round(_measuring.measureText(char).width)
    return sum(advances[char] for char in text)


def _no_tk(what: str) -> TurtleGraphicsError:
    return error(TurtleGraphicsError, said('rt_py_turtle_no_tk', what=what))


def _read_image(name: str) -> dict[str, Any]:
    """A GIF or PNG file as the picture shows it: its size (from its header) and its bytes as a data URL."""
    with open(name, 'rb') as file:
        data = file.read()
    if data[:8] == b'\x89PNG\r\n\x1a\n':
        kind, width, height = 'png', int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')
    elif data[:6] in (b'GIF87a', b'GIF89a'):
        kind, width, height = 'gif', int.from_bytes(data[6:8], 'little'), int.from_bytes(data[8:10], 'little')
    else:
        raise error(TurtleGraphicsError, said('rt_py_turtle_image_data', name=name))
    return {'href': f'data:image/{kind};base64,' + base64.b64encode(data).decode('ascii'), 'width': width, 'height': height}


def _stamp_items(stamp: Any) -> list[int]:
    """The picture's items of a stamp (a compound shape's stamp is a tuple of them)."""
    return list(stamp) if isinstance(stamp, tuple) else [stamp]


class _UndoBuffer:
    """CPython's undo buffer: the last `size` actions of a turtle, newest last. An entry is a
    tuple (action, data...), or a list ['seq', entries...] that one call (a circle, a write)
    undoes at once: between begin_sequence() and end_sequence(), pushes join that list."""

    def __init__(self, size: int) -> None:
        self.entries: deque[Any] = deque(maxlen=size)
        # Pushed at every step of every turtle: a C method, not a Python one.
        self.push: Callable[[Any], None] = self.entries.append

    def begin_sequence(self) -> None:
        sequence: list[Any] = ['seq']
        self.entries.append(sequence)
        self.push = sequence.append

    def end_sequence(self) -> None:
        self.push = self.entries.append

    def copy(self) -> _UndoBuffer:
        """A copy with copies of the entries, as a clone gets (CPython deep-copies the turtle)."""
        twin = _UndoBuffer(self.entries.maxlen or 0)
        twin.entries.extend(copy.deepcopy(list(self.entries)))
        return twin

    def pop(self) -> Any:
        return self.entries.pop() if self.entries else None

    def forget(self, entry: Any) -> None:
        """Drops an entry that no longer stands for anything (a stamp cleared directly)."""
        if entry in self.entries:
            self.entries.remove(entry)


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
            raise TurtleGraphicsError(f'bad canvas argument {canvas}')  # CPython's words
        self._id = RawTurtle._next_id
        RawTurtle._next_id += 1
        self.screen._turtles.append(self)
        self._undobuffersize = undobuffersize
        self._undo: _UndoBuffer | None = None
        self.setundobuffer(undobuffersize)
        # Angles: units per full turn, and how headings map to the screen (standard/world vs logo).
        self._fullcircle = 360.0
        self._degrees_per_unit = 1.0
        self._set_mode(self.screen._mode)
        self._shape = shape if shape in self.screen._shapes else 'classic'
        self._items: list[int] = []
        self._stamps: list[Any] = []
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
        self._stretch: tuple[float, float] = (1.0, 1.0)
        self._shear = 0.0
        self._outline: float = 1
        # As CPython keeps it: radians, clockwise; the shape's matrix follows stretch, shear and tilt.
        self._tilt = 0.0
        self._shapetrafo: tuple[float, float, float, float] = (1.0, 0.0, -0.0, 1.0)
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
        self.screen._picture.remove(self._items + [i for stamp in self._stamps for i in _stamp_items(stamp)])
        self._items, self._stamps = [], []
        self.setundobuffer(self._undobuffersize)
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
        raise TurtleGraphicsError(f'bad position: {x}')  # CPython's words

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
        # CPython's teleport lifts the pen and puts it back through pen(): those are its undo entries.
        undo, self._undo = self._undo, None
        try:
            self._move_to(target)
        finally:
            self._undo = undo
            self._drawing = drawing
            self._fillpath = filling
            self._new_line()
        if undo is not None:
            if drawing:
                undo.push(('pen', {'pendown': True}))
            undo.push(('pen', {'pendown': False}))

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
        self._begin_undo_sequence()
        try:
            # CPython animates the sides and not the turns between them.
            self._turn(turn / 2, animated=False)
            for _ in range(steps):
                self._move_to(self._position + self._orient * side, speed=speed)
                self._turn(turn, animated=False)
            self._turn(-turn / 2, animated=False)
        finally:
            self._end_undo_sequence()

    def _turn(self, angle: float, animated: bool = True) -> None:
        if self._undo is not None:
            self._undo.push(('rot', angle, self._degrees_per_unit, animated))
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
        if self._undo is not None:
            # CPython keeps copies of the line's points and of the turtle's items. Here both only
            # grow at their ends until this move is undone (undo goes newest first), so their
            # lengths are enough, and a step's cost stays flat.
            line = screen._picture.items.get(self._line) if self._line is not None else None
            line_state = None if line is None else (len(line['pts']), line['color'], line.get('tkcolor'), line['width'])
            self._undo.push(('go', start, end, (self._drawing, self._fillpath is not None),
                             (self._line, self._line_points, line_state, len(self._items))))
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
            raise TurtleGraphicsError(f'bad color arguments: {args}')  # CPython's words
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
            'resizemode': self._resizemode, 'stretchfactor': self._stretch, 'shearfactor': self._shear,
            'outline': self._outline, 'tilt': self._tilt,
        }
        if not (pen or pendict):
            return state
        changes = dict(pen) if isinstance(pen, dict) else {}
        changes.update(pendict)
        if self._undo is not None:
            self._undo.push(('pen', {key: state[key] for key in changes}))
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
        if 'shearfactor' in changes:
            self._shear = changes['shearfactor']
        if 'outline' in changes:
            self._outline = changes['outline']
        if 'shown' in changes:
            self._shown = bool(changes['shown'])
        if 'tilt' in changes:
            self._tilt = changes['tilt']
        if 'stretchfactor' in changes or 'tilt' in changes or 'shearfactor' in changes:
            scx, scy = self._stretch
            sa, ca = math.sin(self._tilt), math.cos(self._tilt)
            self._shapetrafo = (scx * ca, scy * (self._shear * ca + sa), -scx * sa, scy * (ca - self._shear * sa))
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
        if self._undo is not None:
            self._undo.push(('beginfill', self._fill_item))
        self.screen._frame(False)

    def end_fill(self) -> None:
        """Fills the shape drawn since begin_fill() with the fill colour (if it has three points or more)."""
        if self._fillpath is None:
            return
        if len(self._fillpath) > 2 and self._fill_item is not None:
            pts = [v for point in self._fillpath for v in self._canvas(point)]
            self.screen._picture.update(self._fill_item, pts=pts, fill=_paint(self._fillcolor), tkfill=self._fillcolor)
            if self._undo is not None:
                self._undo.push(('dofill', self._fill_item))
        self._fillpath = None
        self._fill_item = None
        self.screen._frame(False)

    @contextmanager
    def fill(self) -> Iterator[None]:
        """Fills what the with-block draws (Python 3.14's begin_fill() ... end_fill())."""
        self.begin_fill()
        try:
            yield
        finally:
            self.end_fill()

    @contextmanager
    def poly(self) -> Iterator[None]:
        """Records the polygon the with-block walks, for get_poly() (Python 3.14's begin_poly() ... end_poly())."""
        self.begin_poly()
        try:
            yield
        finally:
            self.end_poly()

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
        if self._undo is not None:
            self._undo.push(('dot', item))
        # CPython draws a dot as a step of length 0, which a fill in progress counts as a point.
        if self._fillpath is not None:
            self._fillpath.append(self._position)
        self._new_line()
        self.screen._frame(False)

    def write(self, arg: object, move: bool = False, align: str = 'left', font: Any = _DEFAULT_FONT) -> None:
        """Writes str(arg) at the turtle's position, aligned 'left', 'center' or 'right' on it."""
        align = align.lower()
        if align not in ('left', 'center', 'right'):
            raise TurtleGraphicsError(f'bad align: {align}')  # CPython's words
        family, size, style = (tuple(font) + _DEFAULT_FONT[len(font) :])[:3]
        text = str(arg)
        x, y = self._canvas(self._position)
        self._begin_undo_sequence()
        try:
            item = self.screen._picture.add(
                {'kind': 'text', 'owner': self._id, 'x': x - 1, 'y': y, 'text': text, 'align': align,
                 'font': [str(family), abs(size), str(style)], 'color': _paint(self._pencolor), 'tkcolor': self._pencolor}
            )
            self._items.append(item)
            if self._undo is not None:
                self._undo.push(('wri', item))
            if move:
                # Where Tk's canvas ends the text (its bounding box's right edge, less 1): the anchor
                # point on a whole pixel, the text's whole-pixel width left of it, centred or right of
                # it. CPython moves to that canvas x as if it were a turtle x (the same unless in world mode).
                width = _text_width(text, str(family), size, str(style))
                anchor = math.floor(x - 1 + 0.5)
                end = {'left': anchor + width, 'center': anchor - width // 2 + width, 'right': anchor}[align]
                self.goto(end, self._position[1])
        finally:
            self._end_undo_sequence()
        self.screen._frame(False)

    def _begin_undo_sequence(self) -> None:
        """The actions from here to _end_undo_sequence() go in one entry: one undo() takes them all back."""
        if self._undo is not None:
            self._undo.begin_sequence()

    def _end_undo_sequence(self) -> None:
        if self._undo is not None:
            self._undo.end_sequence()

    def stamp(self) -> Any:
        """Leaves a copy of the turtle's shape here; returns its id for clearstamp() (a tuple for a compound shape)."""
        sprite = self._sprite() or {'kind': 'poly', 'pts': [], 'fill': 'none'}
        picture = self.screen._picture
        parts = sprite.pop('parts', None)
        if parts is None:
            stamp: Any = picture.add(dict(sprite, owner=self._id, stamp=True))
        else:
            stamp = tuple(picture.add(dict(part, kind='poly', owner=self._id, stamp=True)) for part in parts)
        self._stamps.append(stamp)
        if self._undo is not None:
            self._undo.push(('stamp', stamp))
        self.screen._frame(False)
        return stamp

    def clearstamp(self, stampid: Any) -> None:
        """Deletes the stamp stampid (and its entry in the undo buffer)."""
        if stampid in self._stamps:
            self._stamps.remove(stampid)
            self.screen._picture.remove(_stamp_items(stampid))
        if self._undo is not None:
            self._undo.forget(('stamp', stampid))
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
            raise TurtleGraphicsError(f'There is no shape named {name}')  # CPython's words
        self._shape = name
        self._draw_sprite()
        return None

    def shapesize(self, stretch_wid: float | None = None, stretch_len: float | None = None, outline: float | None = None) -> Any:
        """Returns or sets the stretch across and along the heading, and the outline width."""
        if stretch_wid is None and stretch_len is None and outline is None:
            return self._stretch[0], self._stretch[1], self._outline
        if stretch_wid == 0 or stretch_len == 0:
            raise TurtleGraphicsError('stretch_wid/stretch_len must not be zero')  # CPython's words
        if stretch_wid is not None:
            stretch = (stretch_wid, stretch_wid if stretch_len is None else stretch_len)
        elif stretch_len is not None:
            stretch = (self._stretch[0], stretch_len)
        else:
            stretch = self._stretch
        self.pen(resizemode='user', stretchfactor=stretch, outline=self._outline if outline is None else outline)
        return None

    turtlesize = shapesize

    def shearfactor(self, shear: float | None = None) -> float | None:
        """Returns or sets the shear of the turtle's shape (the tangent of the shear angle)."""
        if shear is None:
            return self._shear
        self.pen(resizemode='user', shearfactor=shear)
        return None

    def shapetransform(self, t11: float | None = None, t12: float | None = None, t21: float | None = None, t22: float | None = None) -> Any:
        """Returns or sets the shape's transformation matrix; setting it sets stretch, shear and tilt to match."""
        if t11 is None and t12 is None and t21 is None and t22 is None:
            return self._shapetrafo
        m11, m12, m21, m22 = self._shapetrafo
        m11 = m11 if t11 is None else t11
        m12 = m12 if t12 is None else t12
        m21 = m21 if t21 is None else t21
        m22 = m22 if t22 is None else t22
        # CPython checks the elements given (all four in practice), not the matrix it then keeps.
        if t11 * t22 - t12 * t21 == 0:  # type: ignore[operator]
            raise TurtleGraphicsError('Bad shape transform matrix: must not be singular')  # CPython's words
        self._shapetrafo = (m11, m12, m21, m22)
        # The matrix as a tilt times stretch and shear (upper triangular).
        alfa = math.atan2(-m21, m11) % math.tau
        sa, ca = math.sin(alfa), math.cos(alfa)
        a11, a12, a22 = ca * m11 - sa * m21, ca * m12 - sa * m22, sa * m12 + ca * m22
        self._stretch = (a11, a22)
        self._shear = a12 / a22
        self._tilt = alfa
        self.pen(resizemode='user')
        return None

    def get_shapepoly(self) -> tuple[tuple[float, float], ...] | None:
        """The current shape's polygon as the turtle shows it (stretched, sheared, tilted), in its own frame."""
        shape = self.screen._shapes[self._shape]
        if shape._type != 'polygon':
            return None
        return self._shape_polygon(shape._data)

    def _shape_polygon(self, polygon: Any, compound: bool = False) -> Any:
        if self._resizemode == 'user' or compound:
            t11, t12, t21, t22 = self._shapetrafo
        elif self._resizemode == 'auto':
            scale = max(1, self._pensize / 5.0)
            t11, t12, t21, t22 = scale, 0, 0, scale
        else:
            return polygon
        return tuple((t11 * x + t12 * y, t21 * x + t22 * y) for x, y in polygon)

    def resizemode(self, rmode: str | None = None) -> str | None:
        if rmode is None:
            return self._resizemode
        if rmode.lower() in ('auto', 'user', 'noresize'):
            self.pen(resizemode=rmode.lower())
        return None

    def tilt(self, angle: float) -> None:
        """Turns the turtle's shape by angle from its current tilt (the heading stays)."""
        self.tiltangle(angle + self.tiltangle())  # type: ignore[operator]

    def settiltangle(self, angle: float) -> None:
        """Turns the turtle's shape to angle, whatever its heading (Python 3.11's name for tiltangle(angle))."""
        self.tiltangle(angle)

    def tiltangle(self, angle: float | None = None) -> float | None:
        """Returns or sets the angle of the turtle's shape to its heading."""
        if angle is None:
            tilt = -math.degrees(self._tilt) * self._angle_orient
            return (tilt / self._degrees_per_unit) % self._fullcircle
        tilt = math.radians(-angle * self._degrees_per_unit * self._angle_orient) % math.tau
        self.pen(resizemode='user', tilt=tilt)
        return None

    def _on_canvas(self, polygon: Any) -> list[float]:
        """A polygon of the turtle's frame where the turtle stands, in canvas coordinates."""
        xscale, yscale = self.screen.xscale, self.screen.yscale
        px, py = self._position
        e0, e1 = self._orient[0], self._orient[1] * yscale / xscale
        norm = math.hypot(e0, e1)
        e0, e1 = e0 / norm, e1 / norm
        pts: list[float] = []
        for x, y in polygon:
            pts.extend(self._canvas((px + (e1 * x + e0 * y) / xscale, py + (-e0 * x + e1 * y) / yscale)))
        return pts

    def _sprite(self) -> dict[str, Any] | None:
        """The turtle's shape where it stands, as CPython draws it: a polygon, or a compound's parts."""
        shape = self.screen._shapes[self._shape]
        if shape._type == 'compound':
            parts = [{'pts': self._on_canvas(self._shape_polygon(poly, True)), 'fill': _paint(self._color_of(fill)),
                      'outline': _paint(self._color_of(outline)), 'width': self._outline} for poly, fill, outline in shape._data]
            return {'kind': 'poly', 'pts': [], 'fill': 'none', 'outline': 'none', 'width': 0, 'parts': parts} if parts else None
        if not shape._data:
            return None
        width = {'noresize': 1, 'auto': self._pensize}.get(self._resizemode, self._outline)
        return {'kind': 'poly', 'pts': self._on_canvas(self._shape_polygon(shape._data)), 'fill': _paint(self._fillcolor),
                'outline': _paint(self._pencolor), 'width': width}

    def _color_of(self, color: Any) -> str:
        """A compound part's colour as the canvas keeps it (a tuple in the screen's colormode becomes #rrggbb)."""
        return self.screen._colorstr((color,)) if isinstance(color, tuple) else color

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
        # Pickling one would copy its whole drawing: a session keeps no turtle or screen across a reload.
        raise error(TypeError, said('rt_py_turtle_not_kept'))

    def getscreen(self) -> TurtleScreen:
        return self.screen

    def getturtle(self) -> RawTurtle:
        return self

    getpen = getturtle

    def clone(self) -> RawTurtle:
        """A new turtle with this one's position, heading and pen."""
        self._new_line()
        twin = type(self).__new__(type(self))
        RawTurtle.__init__(twin, self.screen, self._shape, visible=self._shown)
        twin._position, twin._orient = self._position, self._orient
        twin._fullcircle, twin._degrees_per_unit = self._fullcircle, self._degrees_per_unit
        twin._set_mode(self._mode)
        twin._angle_offset = self._angle_offset
        twin.pen(self.pen())
        twin._shapetrafo = self._shapetrafo
        # CPython's clone is a deep copy: it holds the same drawings (its clear() deletes them too)
        # and stamps, and a copy of the undo buffer; its own first line is not among its items.
        twin._items, twin._stamps = self._items[:], self._stamps[:]
        twin._undo, twin._undobuffersize = None if self._undo is None else self._undo.copy(), self._undobuffersize
        twin._fillpath = None if self._fillpath is None else self._fillpath[:]
        twin._fill_item = self._fill_item
        twin._poly = None if self._poly is None else self._poly[:]
        twin._draw_sprite()
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
        """Takes back the turtle's last action (a move, turn, pen change, fill, dot, stamp or text; a
        whole circle), as often as the undo buffer holds actions."""
        if self._undo is None:
            return
        entry = self._undo.pop()
        if entry is None:
            return
        if entry[0] == 'seq':
            for part in reversed(entry[1:]):
                self._undo_one(part)
        else:
            self._undo_one(entry)

    def setundobuffer(self, size: int | None) -> None:
        """A new, empty undo buffer for the last size actions; None (or size <= 0) turns undo off."""
        self._undo = None if size is None or size <= 0 else _UndoBuffer(size)

    def undobufferentries(self) -> int:
        """How many actions undo() can take back."""
        return 0 if self._undo is None else len(self._undo.entries)

    def _undo_one(self, entry: Any) -> None:
        action, *data = entry
        picture = self.screen._picture
        if action == 'rot':
            angle, degrees_per_unit, animated = data
            self._turn(-angle * degrees_per_unit / self._degrees_per_unit, animated)
            # Turning back is not an action of its own.
            self._undo.pop()  # type: ignore[union-attr]
        elif action == 'go':
            self._undo_move(*data)
        elif action == 'stamp':
            self.clearstamp(data[0])
        elif action in ('wri', 'dot'):
            picture.remove([data[0]])
            if data[0] in self._items:
                self._items.remove(data[0])
        elif action == 'dofill':
            # As CPython does: the fill stays an item, with no points and no colour.
            picture.update(data[0], pts=[0.0] * 6, fill='none', tkfill='')
        elif action == 'beginfill':
            self._fillpath = None
            self._fill_item = None
            if data[0] in self._items:
                picture.remove([data[0]])
                self._items.remove(data[0])
        elif action == 'pen':
            self.pen(data[0])
            self._undo.pop()  # type: ignore[union-attr]

    def _undo_move(self, start: Vec2D, end: Vec2D, modes: tuple[bool, bool], line_then: tuple[Any, ...]) -> None:
        """Takes back a move: its line as it was before (newer lines go), the turtle back at start."""
        drawing, filling = modes
        line, line_points, line_state, item_count = line_then
        screen = self.screen
        picture = screen._picture
        self._line, self._line_points = line, line_points
        drawn = picture.items.get(line)
        if line_state is not None and drawn is not None:
            points, color, tkcolor, width = line_state
            picture.update(line, pts=drawn['pts'][:points], color=color, tkcolor=tkcolor, width=width)
        newer = [i for i in self._items[item_count:] if picture.items.get(i, {}).get('kind') == 'line']
        picture.remove(newer)
        self._items = self._items[:item_count] + [i for i in self._items[item_count:] if i not in newer]
        if self._speed and screen._tracing == 1:
            span = math.hypot((start[0] - end[0]) * screen.xscale, (start[1] - end[1]) * screen.yscale)
            hops = 1 + int(span / (3 * (1.1**self._speed) * self._speed))
            for hop in range(1, hops):
                self._position = end + (start - end) * (hop / hops)
                self._draw_sprite(trail_from=start if drawing else None)
                screen._frame(True)
        self._position = start
        if self._poly is not None:
            if self._poly:
                self._poly.pop()
            if not self._poly:
                self._poly = None
        if filling and self._fillpath is not None:
            if self._fillpath:
                self._fillpath.pop()
            else:
                self._fillpath = None
        self._draw_sprite()
        screen._frame(False)

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

# CPython's module functions: Python 3.11's (Debian's) and 3.14's (Pyodide's) together.
_TURTLE_FUNCTIONS = (
    'back backward begin_fill begin_poly bk circle clear clearstamp clearstamps clone color degrees distance dot '
    'down end_fill end_poly fd fill fillcolor filling forward get_poly get_shapepoly getscreen goto heading '
    'hideturtle home ht isdown isvisible left lt onclick ondrag onrelease pd pen pencolor pendown pensize penup '
    'poly pos position pu radians reset resizemode right rt seth setheading setpos setposition settiltangle '
    'setundobuffer setx sety shape shapesize shapetransform shearfactor showturtle speed st stamp teleport tilt '
    'tiltangle towards turtlesize undo undobufferentries up width write xcor ycor'
).split()
_SCREEN_FUNCTIONS = (
    'addshape bgcolor bgpic bye clearscreen colormode delay exitonclick getcanvas getshapes listen mainloop mode '
    'no_animation numinput onkey onkeypress onkeyrelease onscreenclick ontimer register_shape resetscreen save '
    'screensize setup setworldcoordinates textinput title tracer turtles update window_height window_width'
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
__all__ += _TURTLE_FUNCTIONS + _SCREEN_FUNCTIONS + ['getturtle', 'getpen', 'write_docstringdict', 'ScrolledCanvas']


def write_docstringdict(filename: str = 'turtle_docstringdict') -> None:
    """Writes the docstrings of the screen's and turtles' methods to <filename>.py, as a template for translations."""
    docs = {f'_Screen.{name}': getattr(_Screen, name).__doc__ for name in _SCREEN_FUNCTIONS}
    docs.update({f'Turtle.{name}': getattr(Turtle, name).__doc__ for name in _TURTLE_FUNCTIONS})
    with open(f'{filename}.py', 'w', encoding='utf-8') as file:
        file.write('docsdict = {\n\n')
        for key in sorted(docs):
            file.write(f'{key!r} :\n        """{docs[key]}\n""",\n\n')
        file.write('}\n')


class ScrolledCanvas:
    """CPython's Tk canvas with scrollbars: PyTabs has no Tk window to put one in."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise _no_tk('ScrolledCanvas')


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
        elif kind == 'poly' and len(points) >= 3 and item.get('tkfill'):
            out['fills'].append((points, item['tkfill']))
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
