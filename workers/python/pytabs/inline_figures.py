"""The matplotlib backend of every session: Agg rendering, figures shown inline as PNG.

The Runtime names this module in MPLBACKEND, so matplotlib imports it only when the
user imports pyplot; nothing here costs a session that never plots. The worker has
no DOM, so Pyodide's own canvas backends cannot draw there.
"""

from __future__ import annotations

import builtins

from matplotlib.backends.backend_agg import FigureCanvasAgg

from .display import show_figures

FigureCanvas = FigureCanvasAgg


def show(*args: object, **kwargs: object) -> None:
    """``plt.show()``: every open figure goes to the chat now, in order with the prints, then closes."""
    show_figures(builtins.display)  # type: ignore[attr-defined]
