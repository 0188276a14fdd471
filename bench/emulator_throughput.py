"""How fast prefilter + AvtEmulator eat output, and what one redraw costs.

Measures (a) ~5 MB of plain text lines, (b) the concatenated real captures, and
(c) per recorded read of the captures: feed + take_dirty + row() of every dirty
row, which is what the terminal view pays per batch. Also times the prefilter
alone, so it is visible which of the two costs more. Times are
CPU time of this process (``time.process_time``), best of three, so that other
work on a shared machine does not distort them.

Run: ``.venv/bin/python bench/emulator_throughput.py``
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from supervisor.terminal.avt_emulator import AvtEmulator
from supervisor.terminal.prefilter import Prefilter

CAPTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "captures"
READ = 65536  # the PTY host reads up to 64 KiB at a time


def plain_text(size: int = 5_000_000) -> bytes:
    line = b"%06d the quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet\r\n"
    out, i = [], 0
    total = 0
    while total < size:
        chunk = line % i
        out.append(chunk)
        total += len(chunk)
        i += 1
    return b"".join(out)


def throughput(data: bytes, make, label: str) -> None:
    best = float("inf")
    for _ in range(3):
        target = make()
        start = time.process_time()
        for i in range(0, len(data), READ):
            target.feed(data[i : i + READ])
        best = min(best, time.process_time() - start)
    mb = len(data) / 1e6
    print(f"{label:<48} {mb:7.2f} MB  {best:7.3f} s  {mb / best:8.2f} MB/s")


def redraw_cost(names: list[Path]) -> None:
    per_read: list[float] = []
    rows_per_read: list[int] = []
    for raw in names:
        data = raw.read_bytes()
        reads = json.loads(raw.with_suffix(".events.json").read_text())["read_chunks"]["list"]
        emu = AvtEmulator(120, 40)
        for _t, offset, length in reads:
            start = time.process_time()
            emu.feed(data[offset : offset + length])
            dirty = emu.take_dirty()
            for y in dirty:
                emu.row(y)
            per_read.append(time.process_time() - start)
            rows_per_read.append(len(dirty))
    ms = [t * 1000 for t in per_read]
    print(
        f"per recorded read ({len(ms)} reads, feed + take_dirty + row() of dirty rows): "
        f"mean {statistics.mean(ms):.3f} ms, median {statistics.median(ms):.3f} ms, "
        f"p95 {statistics.quantiles(ms, n=20)[-1]:.3f} ms, max {max(ms):.3f} ms; "
        f"mean {statistics.mean(rows_per_read):.1f} dirty rows"
    )


def main() -> None:
    text = plain_text()
    throughput(text, Prefilter, "(a) plain text, prefilter alone")
    throughput(text, lambda: AvtEmulator(120, 40), "(a) plain text, prefilter + AvtEmulator")
    raws = sorted(CAPTURES.glob("*.raw"))
    captures = b"".join(r.read_bytes() for r in raws) * 10
    throughput(captures, Prefilter, "(b) captures x10, prefilter alone")
    throughput(captures, lambda: AvtEmulator(120, 40), "(b) captures x10, prefilter + AvtEmulator")
    redraw_cost(raws)


if __name__ == "__main__":
    main()
