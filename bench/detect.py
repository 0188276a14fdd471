"""Detection latency: marker bytes written by the agent → incident opened by fusion.

A child in a real PTY writes, every 150 ms, a Claude-Code-like reply followed
by the compaction notice (``✻ Conversation compacted ...``), each under a new
reply so each is a new compaction, and stamps the moment of each write with
the system's monotonic clock. The headless pipeline (:mod:`bench.pipeline`,
claude profile, stream + screen detectors + fusion) timestamps each new
incident with the same clock. Needs ``supervisor.recognize.screen_detector`` and
``supervisor.recognize.fusion``; without them the row says so.

    .venv/bin/python -m bench.detect
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from bench.pipeline import HeadlessRun, detectors_available

CHILD = r"""
import os, sys, time, tty
tty.setraw(0)
stamps = []
for i in range(int(sys.argv[2])):
    time.sleep(0.15)
    data = (f"\r\n\x1b[1m●\x1b[22m Reply {i}: done with step {i}.\r\n\r\n"
            f"\x1b[38;2;215;119;87m✻\x1b[39m Conversation compacted (ctrl+o for history)\r\n")
    stamps.append(time.perf_counter())
    os.write(1, data.encode())
open(sys.argv[1], "w").write("\n".join(map(str, stamps)))
time.sleep(0.5)
"""


async def _latencies(markers: int) -> list[float]:
    stamps = Path(tempfile.mkstemp(prefix="tether-bench-detect-")[1])
    stamps.unlink()
    run = HeadlessRun([sys.executable, "-c", CHILD, str(stamps), str(markers)], 120, 40)
    try:
        run.start()
        deadline = time.monotonic() + 30
        while not stamps.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        written = [float(x) for x in stamps.read_text().split()]
        seen = [at for at, _incident in run.detection.incidents]
    finally:
        run.close()
        stamps.unlink(missing_ok=True)
    # Each incident belongs to the last marker written before it.
    return [at - max(w for w in written if w <= at) for at in seen if any(w <= at for w in written)]


def detection_latencies(markers: int = 12) -> dict:
    have = detectors_available()
    if not (have["screen_detector"] and have["fusion"]):
        return {"available": False, "latencies": [], "markers": markers}
    latencies = asyncio.run(_latencies(markers))
    return {"available": True, "latencies": latencies, "markers": markers}


if __name__ == "__main__":
    import statistics

    result = detection_latencies()
    if not result["available"]:
        print("detectors not present")
    else:
        ms = [x * 1000 for x in result["latencies"]]
        print(f"{len(ms)}/{result['markers']} incidents, median {statistics.median(ms):.2f} ms")
