"""Candidate emulator backends against tether's AvtEmulator: fidelity on real captures, and speed.

Not part of ``make bench``: the candidates are not dependencies of tether.
Install them somewhere and put that on ``PYTHONPATH``::

    .venv/bin/pip download --no-deps -d /tmp/backends pyavt pyghostty
    .venv/bin/pip install --no-deps --target /tmp/backends/site /tmp/backends/*.whl cffi pycparser
    PYTHONPATH=/tmp/backends/site .venv/bin/python -m bench.backends

* **pyavt** (asciinema's avt, Rust, through PyO3) and **pyghostty**
  (libghostty-vt through cffi) are fed each capture's raw bytes (they answer or
  ignore queries themselves); tether's AvtEmulator is fed through its pre-filter.
* Fidelity: the final screen of each capture, row by row, against the tmux
  reference in ``tests/fixtures/captures/screens/`` (text), and cell by cell against
  tether's AvtEmulator (text and style: colours, bold, dim, italic, underline, reverse,
  strike), at 120x40.
* Throughput: parse only (feed in 16 KiB pieces, no rows read back) on the
  flood workloads, beside tether's AvtEmulator with its pre-filter.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.workloads import capture, capture_names, flood_workloads
from supervisor.terminal.avt_emulator import AvtEmulator

REPO = Path(__file__).resolve().parent.parent
SCREENS = REPO / "tests" / "fixtures" / "captures" / "screens"
COLS, ROWS = 120, 40

Cell = tuple[str, tuple]  # (text, style key)


def _style_key(fg, bg, bold, dim, italic, underline, reverse, strike) -> tuple:
    return (
        fg,
        bg,
        bool(bold),
        bool(dim),
        bool(italic),
        bool(underline),
        bool(reverse),
        bool(strike),
    )


# -- tether --------------------------------------------------------------------------


def tether_cells(data: bytes) -> list[list[Cell]]:
    emu = AvtEmulator(COLS, ROWS)
    emu.feed(data)
    screen = []
    for y in range(ROWS):
        row: list[Cell] = []
        for span in emu.row(y):
            s = span.style
            key = _style_key(s.fg, s.bg, s.bold, s.dim, s.italic, s.underline, s.reverse, s.strike)
            row += [(ch, key) for ch in span.text]
        screen.append(row)
    return screen


# -- avt ----------------------------------------------------------------------------


def _avt_colour(c) -> str | None:
    import avt

    if c is None:
        return None
    if isinstance(c, avt.Color.RGB):
        return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"
    return f"color{c[0]}"


def avt_cells(data: bytes) -> list[list[Cell]]:
    import avt

    vt = avt.Vt(COLS, ROWS, scrollback_limit=5000)
    vt.feed_str(data.decode("utf-8", "replace"))
    screen = []
    for line in vt.view():
        row: list[Cell] = []
        for cell in line.cells:
            if cell.width == 0:
                continue  # the second half of a wide character
            p = cell.pen
            key = _style_key(
                _avt_colour(p.foreground),
                _avt_colour(p.background),
                p.bold,
                p.faint,
                p.italic,
                p.underline,
                p.inverse,
                p.strikethrough,
            )
            row.append((cell.char, key))
        screen.append(row)
    return screen


# -- ghostty ------------------------------------------------------------------------


def _ghostty_colour(c) -> str | None:
    if c is None:
        return None
    kind, value = c
    if kind == "palette":
        return f"color{value}"
    return "#{:02x}{:02x}{:02x}".format(*value)


def ghostty_cells(data: bytes) -> list[list[Cell]]:
    import pyghostty

    term = pyghostty.Terminal(COLS, ROWS, scrollback=5000)
    term.feed(data)
    lines = term.text().split("\n")
    lines += [""] * (ROWS - len(lines))
    screen = []
    for y in range(ROWS):
        row: list[Cell] = []
        for x, ch in enumerate(lines[y].ljust(COLS)[:COLS]):
            st = term.style(x, y)
            key = _style_key(
                _ghostty_colour(st["fg"]),
                _ghostty_colour(st["bg"]),
                st["bold"],
                st["faint"],
                st["italic"],
                st["underline"],
                st["inverse"],
                st["strikethrough"],
            )
            row.append((ch, key))
        screen.append(row)
    return screen


def ghostty_text_cells(data: bytes) -> list[list[Cell]]:
    """Text only (styles read cell by cell through cffi are too slow for every checkpoint)."""
    import pyghostty

    term = pyghostty.Terminal(COLS, ROWS, scrollback=5000)
    term.feed(data)
    lines = term.text().split("\n")
    lines += [""] * (ROWS - len(lines))
    return [[(ch, ()) for ch in line] for line in lines[:ROWS]]


# -- comparison ---------------------------------------------------------------------


def _text(screen: list[list[Cell]]) -> list[str]:
    return ["".join(ch for ch, _ in row).rstrip() for row in screen]


def _checkpoints(name: str) -> list[tuple[int, list[str]]]:
    import re

    text = (SCREENS / f"{name}.checkpoints.txt").read_text()
    blocks = re.findall(rf"@@ offset (\d+)\n((?:.*\n){{{ROWS}}})", text)
    return [(int(offset), [r.rstrip() for r in b.split("\n")[:ROWS]]) for offset, b in blocks]


def checkpoint_rows(name: str, data: bytes, cells) -> tuple[int, int]:
    """Rows differing from tmux summed over every input point of the capture, and points."""
    wrong = 0
    points = _checkpoints(name)
    for offset, reference in points:
        text = _text(cells(data[:offset]))
        wrong += sum(a != b for a, b in zip(text, reference, strict=True))
    return wrong, len(points)


def compare(name: str, ours: list[list[Cell]], theirs: list[list[Cell]]) -> dict:
    reference = (SCREENS / f"{name}.txt").read_text().split("\n")[:ROWS]
    reference = [line.rstrip() for line in reference] + [""] * (ROWS - len(reference))
    text = _text(theirs)
    rows_vs_tmux = sum(a != b for a, b in zip(text, reference, strict=True))
    cells = style = 0
    for row_a, row_b in zip(ours, theirs, strict=True):
        for (ca, sa), (cb, sb) in zip(row_a, row_b, strict=False):
            if ca != cb:
                cells += 1
            elif ca.strip() and sa != sb:
                style += 1
        cells += abs(len(row_a) - len(row_b))
    return {
        "rows_differing_from_tmux": rows_vs_tmux,
        "cells_vs_tether": cells,
        "styles_vs_tether": style,
    }


BACKENDS = {"tether": tether_cells, "avt": avt_cells, "ghostty": ghostty_cells}


def fidelity() -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {}
    for name in capture_names():
        if not (SCREENS / f"{name}.txt").exists():
            continue
        data = capture(name).data()
        ours = tether_cells(data)
        out[name] = {}
        for backend, cells in BACKENDS.items():
            try:
                result = compare(name, ours, cells(data))
                result["checkpoint_rows_vs_tmux"], result["checkpoints"] = checkpoint_rows(
                    name, data, cells if backend != "ghostty" else ghostty_text_cells
                )
                out[name][backend] = result
            except ImportError:
                out[name][backend] = {"missing": True}
    return out


def _tether_feed(cols: int, rows: int, data: bytes) -> None:
    emu = AvtEmulator(cols, rows)
    for i in range(0, len(data), 16384):
        emu.feed(data[i : i + 16384])
        emu.take_dirty()


def _avt_feed(cols: int, rows: int, data: bytes) -> None:
    import avt

    vt = avt.Vt(cols, rows, scrollback_limit=5000)
    text = data.decode("utf-8", "replace")
    for i in range(0, len(text), 16384):
        vt.feed_str(text[i : i + 16384])


def _ghostty_feed(cols: int, rows: int, data: bytes) -> None:
    import pyghostty

    term = pyghostty.Terminal(cols, rows, scrollback=5000)
    for i in range(0, len(data), 16384):
        term.feed(data[i : i + 16384])


FEEDS = {"tether": _tether_feed, "avt": _avt_feed, "ghostty": _ghostty_feed}


def throughput() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for w in flood_workloads():
        data = w.data()
        out[w.name] = {}
        for backend, feed in FEEDS.items():
            try:
                start = time.perf_counter()
                feed(w.cols, w.rows, data)
                out[w.name][backend] = len(data) / 1e6 / (time.perf_counter() - start)
            except ImportError:
                out[w.name][backend] = float("nan")
    return out


if __name__ == "__main__":
    results = fidelity()
    print(
        "120x40: rows differing from tmux over every input point / final screen rows differing"
        " from tmux / cells / styles differing from tether"
    )
    for name, per in results.items():
        cells = []
        for backend, r in per.items():
            if r.get("missing"):
                cells.append(f"{backend}: not installed")
            else:
                cells.append(
                    f"{backend}: {r['checkpoint_rows_vs_tmux']} in {r['checkpoints']} pts, "
                    f"{r['rows_differing_from_tmux']}/{r['cells_vs_tether']}/{r['styles_vs_tether']}"
                )
        print(f"  {name:24} " + "   ".join(cells))
    print("parse-only throughput, MB/s")
    for name, per in throughput().items():
        print(f"  {name:12} " + "  ".join(f"{b} {v:6.1f}" for b, v in per.items()))
