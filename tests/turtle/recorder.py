"""A record of what a turtle program did, the same for CPython's turtle and PyTabs' own.

``run(turtle_module, source)`` runs a program with a recorder attached to the module's classes
and returns the record as plain data (JSON):

- ``output``: what the program printed;
- ``steps``: after each call a program makes on a turtle or the screen (calls made inside
  other calls are not counted), which turtle, the call, what it returned, and the turtle's
  position, heading, pen (down, colours, size), visibility and fill state;
- ``drawn``: for each turtle in order of creation, what it left on the canvas in stacking order:
  line segments (a dot is a segment of length 0 as wide as the dot, which is how CPython 3.11
  draws one), filled polygons and text, in turtle coordinates with colours as #rrggbb.

CPython's side reads its Tk canvas (the real drawing); PyTabs' side reads its picture. Stamps
and the turtles' own shapes are left out: their outlines are each implementation's own.

The recorder sets the screen's delay to 0: only timing depends on it.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any

TURTLE_CALLS = (
    'forward fd back bk backward left lt right rt goto setpos setposition setx sety setheading seth home '
    'circle dot stamp penup pu up pendown pd down pensize width pencolor fillcolor color begin_fill end_fill '
    'write hideturtle ht showturtle st speed reset clear degrees radians shape shapesize pen position pos '
    'heading distance towards xcor ycor isdown isvisible filling clearstamp clearstamps teleport undo undobufferentries '
    'setundobuffer tilt tiltangle shearfactor shapetransform get_shapepoly clone'
).split()
SCREEN_CALLS = ('bgcolor colormode mode tracer update setup title screensize clear clearscreen reset mainloop done '
                'exitonclick bye').split()
STOPS_HERE = {'mainloop', 'done', 'exitonclick', 'bye'}


def plain(value: Any) -> Any:
    """A value as JSON holds it: tuples (Vec2D) as lists; turtles and screens by kind."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return type(value).__name__


class Recorder:
    def __init__(self, module: Any) -> None:
        self.module = module
        self.turtles: list[Any] = []
        self.steps: list[list[Any]] = []
        self.depth = 0
        self.screen: Any = None
        for name in TURTLE_CALLS:
            if hasattr(module.RawTurtle, name):
                setattr(module.RawTurtle, name, self._wrap(getattr(module.RawTurtle, name), name, True))
        for name in SCREEN_CALLS:
            if hasattr(module.TurtleScreen, name):
                setattr(module.TurtleScreen, name, self._wrap(getattr(module.TurtleScreen, name), name, False))
        # What a constructor calls is its own business, not a step of the program.
        for cls in (module.RawTurtle, module.Turtle, module.TurtleScreen):
            cls.__init__ = self._inside(cls.__init__)

    def _inside(self, method: Any) -> Any:
        recorder = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            recorder.depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                recorder.depth -= 1

        return wrapper

    def _wrap(self, method: Any, name: str, on_turtle: bool) -> Any:
        recorder = self

        def wrapper(target: Any, *args: Any, **kwargs: Any) -> Any:
            if not on_turtle and name in STOPS_HERE and recorder.depth == 0:
                # CPython's mainloop waits for the window to close: a record ends here instead.
                recorder.steps.append([None, name, None])
                recorder.screen = target
                return None
            recorder.depth += 1
            try:
                result = method(target, *args, **kwargs)
            finally:
                recorder.depth -= 1
            if recorder.depth == 0:
                # The recorder's own questions to the turtle are not steps either.
                recorder.depth += 1
                try:
                    recorder._note(target, name, result, on_turtle)
                finally:
                    recorder.depth -= 1
            return result

        wrapper.__name__ = name
        return wrapper

    def _index(self, turtle: Any) -> int:
        for i, known in enumerate(self.turtles):
            if known is turtle:
                return i
        self.turtles.append(turtle)
        return len(self.turtles) - 1

    def _note(self, target: Any, name: str, result: Any, on_turtle: bool) -> None:
        if not on_turtle:
            self.screen = target
            self.steps.append([None, name, plain(result)])
            return
        t = target
        self.screen = t.getscreen()
        if name == 'stamp':
            # A stamp's id is its canvas item's number, which each implementation counts its own way.
            result = 'stamp id'
        self.steps.append([
            self._index(t), name, plain(result),
            plain(t.position()), t.heading(), t.isdown(), plain(t.pencolor()), plain(t.fillcolor()),
            t.pensize(), t.isvisible(), t.filling(),
        ])

    def drawn(self) -> list[list[list[Any]]]:
        if self.screen is None:
            return []
        # PyTabs' screen keeps its picture (it has no Tk canvas); CPython's has a Tk canvas.
        picture = getattr(self.screen, '_picture', None)
        if picture is not None:
            return [_read_pytabs(self.screen, picture, t) for t in self.turtles]
        return [_read_tk(self.screen, self.screen.getcanvas(), t) for t in self.turtles]


def _hex_tk(canvas: Any, color: str) -> str:
    if not color:
        return 'none'
    r, g, b = canvas.winfo_rgb(color)
    return '#%02x%02x%02x' % (r >> 8, g >> 8, b >> 8)


def _world(screen: Any, pts: list[float]) -> list[list[float]]:
    return [[pts[i] / screen.xscale, -pts[i + 1] / screen.yscale] for i in range(0, len(pts), 2)]


def _segments(points: list[list[float]], color: str, width: float) -> list[list[Any]]:
    return [['seg', *points[i], *points[i + 1], color, width] for i in range(len(points) - 1)]


def _read_tk(screen: Any, canvas: Any, turtle: Any) -> list[list[Any]]:
    out: list[list[Any]] = []
    for item in turtle.items:
        kind = canvas.type(item)
        if kind == 'line' and not canvas.itemcget(item, 'fill'):
            # A line item not drawn yet: Tk makes each one as an invisible line from (0, 0) to (0, 0).
            continue
        pts = [float(v) for v in canvas.coords(item)]
        if kind == 'line':
            out += _segments(_world(screen, pts), _hex_tk(canvas, canvas.itemcget(item, 'fill')),
                             float(canvas.itemcget(item, 'width')))
        elif kind == 'polygon' and len(pts) >= 6:
            out.append(['fill', _world(screen, pts), _hex_tk(canvas, canvas.itemcget(item, 'fill'))])
        elif kind == 'text':
            family, size, style = canvas.tk.splitlist(canvas.itemcget(item, 'font'))
            align = {'sw': 'left', 's': 'center', 'se': 'right'}[canvas.itemcget(item, 'anchor')]
            x, y = _world(screen, [pts[0] + 1, pts[1]])[0]
            out.append(['text', x, y, canvas.itemcget(item, 'text'), align, [family, abs(int(size)), style],
                        _hex_tk(canvas, canvas.itemcget(item, 'fill'))])
    return out


def _read_pytabs(screen: Any, picture: Any, turtle: Any) -> list[list[Any]]:
    out: list[list[Any]] = []
    # As CPython's side reads a turtle's items (a clone's start with its original's).
    for item_id in turtle._items:
        item = picture.items.get(item_id)
        if item is None:
            continue
        if item['kind'] == 'line':
            out += _segments(_world(screen, item['pts']), item['color'], float(item['width']))
        elif item['kind'] == 'poly' and len(item['pts']) >= 6:
            out.append(['fill', _world(screen, item['pts']), item['fill']])
        elif item['kind'] == 'dot':
            (x, y), = _world(screen, [item['x'], item['y']])
            out.append(['seg', x, y, x, y, item['color'], float(item['size'])])
        elif item['kind'] == 'text':
            x, y = _world(screen, [item['x'] + 1, item['y']])[0]
            out.append(['text', x, y, item['text'], item['align'], list(item['font']), item['color']])
    return out


def run(module: Any, source: str) -> dict[str, Any]:
    """Runs source as __main__ with the recorder attached; returns its record."""
    recorder = Recorder(module)
    module.Screen().delay(0)
    recorder.steps.clear()
    namespace = {'__name__': '__main__'}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(source, '<program>', 'exec'), namespace)
    return {'output': output.getvalue(), 'steps': recorder.steps, 'drawn': recorder.drawn()}


if __name__ == '__main__':
    import turtle

    print(json.dumps(run(turtle, open(sys.argv[1]).read())))
