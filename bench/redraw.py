"""Cost of one redraw on real agent traffic: parse + dirty rows to strips + composite.

Every real capture is replayed by its asciicast ``o`` events (each one is what
the agent wrote in one go, mostly one Ink frame). Per event we time what the
app pays: the emulator's ``feed`` and ``take_dirty``, the terminal view's
``row_strip`` for the rows it repaints, and compositing those strips into the
bytes a terminal receives (``Strip.render``), at 120x40, with tether's emulator (AvtEmulator).

* cache on: only dirty rows are rebuilt and rendered (what TerminalView does);
* cache off: every row is rebuilt and rendered on every frame.

    .venv/bin/python -m bench.redraw
"""

from __future__ import annotations

import io
import time

from rich.console import Console

from bench.workloads import capture_names, cast_frames
from supervisor.terminal.session import default_emulator
from widgets.terminal_view import row_strip


def _console(cols: int) -> Console:
    return Console(
        file=io.StringIO(),
        width=cols,
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
    )


def redraw_costs(cache: bool, names: list[str] | None = None) -> list[float]:
    """Seconds per ``o`` event over every capture."""
    costs: list[float] = []
    clock = time.perf_counter
    for name in names or capture_names():
        emulator = default_emulator(120, 40)
        console = _console(120)
        cols, rows = emulator.cols, emulator.rows
        for _at, data in cast_frames(name):
            start = clock()
            emulator.feed(data)
            dirty = emulator.take_dirty()
            repaint = dirty if cache else range(rows)
            out = []
            for y in repaint:
                strip = row_strip(emulator.row(y), cols)
                out.append("".join(strip.render(console)))
            costs.append(clock() - start)
    return costs


if __name__ == "__main__":
    import statistics

    for cache in (True, False):
        ms = [c * 1000 for c in redraw_costs(cache)]
        print(
            f"cache {'on ' if cache else 'off'}: {len(ms)} redraws, median "
            f"{statistics.median(ms):.3f} ms, p95 {statistics.quantiles(ms, n=20)[-1]:.3f} ms, "
            f"max {max(ms):.2f} ms"
        )
