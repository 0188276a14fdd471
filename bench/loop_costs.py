"""CPU two items of the pipeline cost the loop thread on each flood, offline (no PTY, no child).

* the recorder: every 16 KiB piece through ``SessionRecorder.record`` (caps out of reach),
  then a flush, so every byte's JSON for the ``.cast`` is in;
* the ghostty backend's scrolled-off text: the flood fed to ``GhosttyEmulator(120, 40)``
  in 4 KiB pieces (as the PTY hands them), and ``format_history``'s share of it.

CPU time of this thread (``time.thread_time``), median of the runs, per workload.

    .venv/bin/python -m bench.loop_costs [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.workloads import captures_concatenated, plain_flood, redraw_flood
from supervisor.terminal.recorder import SessionRecorder


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def recorder_ms(data: bytes) -> float:
    pieces = _pieces(data, 16 * 1024)
    with tempfile.TemporaryDirectory() as folder:
        recorder = SessionRecorder(
            Path(folder), "bench", 120, 40, cap_bytes=1 << 40, text_cap_bytes=1 << 40
        )
        start = time.thread_time()
        for piece in pieces:
            recorder.record(piece)
        recorder.flush()
        spent = time.thread_time() - start
        recorder.close()
    return spent * 1000


def ghostty_ms(data: bytes) -> tuple[float, float] | None:
    """The whole feed's CPU and ``format_history``'s, or None without pyghostty."""
    from supervisor.terminal.backends import ghostty_class

    if ghostty_class() is None:
        return None
    from supervisor.terminal import ghostty_emulator

    real = ghostty_emulator.format_history
    spent = [0.0]

    def timed(*args):
        start = time.thread_time()
        try:
            return real(*args)
        finally:
            spent[0] += time.thread_time() - start

    pieces = _pieces(data, 4096)
    emulator = ghostty_emulator.GhosttyEmulator(120, 40)
    ghostty_emulator.format_history = timed
    try:
        start = time.thread_time()
        for piece in pieces:
            emulator.feed(piece)
        total = time.thread_time() - start
    finally:
        ghostty_emulator.format_history = real
    return total * 1000, spent[0] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print("| workload | MB | recorder ms | ghostty feed ms | of which format_history ms |")
    print("|---|---|---|---|---|")
    for workload in (plain_flood(), redraw_flood(), captures_concatenated()):
        data = workload.data()
        rec = statistics.median(recorder_ms(data) for _ in range(args.runs))
        feeds = [ghostty_ms(data) for _ in range(args.runs)]
        if feeds[0] is None:
            feed = history = "n/a"
        else:
            feed = f"{statistics.median(f[0] for f in feeds):.0f}"
            history = f"{statistics.median(f[1] for f in feeds):.0f}"
        print(f"| {workload.name} | {len(data) / 1e6:.1f} | {rec:.1f} | {feed} | {history} |")


if __name__ == "__main__":
    main()
