"""pyghostty as a tether backend would use it, beside tmux in the same run (issue 19).

Feed 16 KiB slices; after each, the text of the lines that scrolled off, in one
formatter call over the history rows, then ``ESC[3J`` so the history holds only
new lines (a backend would keep its own capped, styled scrollback, as the avt
adapter does); the screen's text 25 times a second. No pre-filter: libghostty-vt
parses modes, synchronized output, colon SGR and grapheme clusters itself. Not in
``make bench`` (the backend it led to, GhosttyEmulator, is what ``make bench`` measures
where pyghostty installs)::

    .venv/bin/python -m bench.ghostty_probe
"""

from __future__ import annotations

import json
import os
import statistics
import time

import pyghostty
from pyghostty.core import init_sized

from bench import anchors
from bench.workloads import flood_workloads


def history_text(term, start, end):
    """Plain text of history rows [start, end)."""
    cols = term.size[0]
    sel = init_sized("GhosttySelection")
    sel.start = term.ref(0, start, tag="history")[0]
    sel.end = term.ref(cols - 1, end - 1, tag="history")[0]
    return term._format_sel(sel)


def run(w, data):
    term = pyghostty.Terminal(w.cols, w.rows, scrollback=100_000)
    lines = 0
    frame_at = 0.0
    t = time.perf_counter()
    for i in range(0, len(data), 16384):
        term.feed(data[i : i + 16384])
        n = term.get("scrollback_rows", "size_t")
        if n > 0:  # the lines scrolled off since the last slice, then forget them (ED 3)
            text = history_text(term, 0, n)
            lines += len(text.split("\n"))
            term.feed(b"\x1b[3J")
        now = time.perf_counter()
        if now - frame_at >= 0.04:
            term.text()
            frame_at = now
    return len(data) / 1e6 / (time.perf_counter() - t), lines


def main() -> None:
    print("load", os.getloadavg(), flush=True)
    out = {}
    for w in flood_workloads():
        data = w.data()
        g, tm = [], []
        for _ in range(3):
            mbs, lines = run(w, data)
            g.append(mbs)
            tm.append(w.size / 1e6 / anchors.tmux_seconds(w))
        out[w.name] = {"ghostty_bulk": g, "tmux": tm, "history_lines": lines}
        g_med, t_med = statistics.median(g), statistics.median(tm)
        print(
            f"{w.name:10} ghostty+bulk text {g_med:6.1f} ({min(g):.1f}-{max(g):.1f})"
            f"  tmux {t_med:5.1f}  = {g_med / t_med:.2f}x  lines {lines}",
            flush=True,
        )
    print("load", os.getloadavg())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
