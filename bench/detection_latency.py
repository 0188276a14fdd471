"""Detection latency and `tether hook` cost. Run: python -m bench.detection_latency

1. Marker bytes in -> incident posted: the bytes of the real captures are fed
   in their real reads through AvtEmulator + ScreenDetector + Fusion, and the
   time from the feed of the read that completes the marker to the incident
   coming out of Fusion is measured (CPU time of the pipeline; no PTY, no UI).
2. `tether hook Stop` as a whole process (interpreter start included), vs
   `python -c pass`, with a real hook payload on stdin.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from supervisor.config.profiles import load_profile
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.terminal.avt_emulator import AvtEmulator

CAPTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "captures"


def marker_latency(name: str, profile: str) -> list[float]:
    raw = (CAPTURES / f"{name}.raw").read_bytes()
    meta = json.loads((CAPTURES / f"{name}.events.json").read_text())
    emulator = AvtEmulator(120, 40, 1000)
    detector = ScreenDetector(load_profile(profile).markers)
    fusion = Fusion()
    inputs = sorted(e["raw_offset"] for e in meta["events"] if e["kind"] == "input")
    latencies = []
    position = 0
    for _, offset, length in meta["read_chunks"]["list"]:
        while inputs and inputs[0] <= position:
            inputs.pop(0)
            detector.note_input()
        start = time.perf_counter()
        emulator.feed(raw[offset : offset + length])
        for observation in detector.scan(emulator, 0.0, emulator.take_dirty()):
            change = fusion.observe(observation)
            if change and change.new:
                latencies.append(time.perf_counter() - start)
        position = offset + length
    return latencies


def process_ms(argv: list[str], stdin: bytes, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    print("marker bytes in -> incident posted (real reads, AvtEmulator + detector + fusion):")
    for name, profile in (
        ("cc-compact-manual", "claude"),
        ("cc-compact-auto", "claude"),
        ("cx-compact-manual", "codex"),
        ("cx-compact-auto", "codex"),
    ):
        runs = [marker_latency(name, profile) for _ in range(5)]
        flat = [value * 1000 for run in runs for value in run]
        print(
            f"  {name:<20} {len(runs[0])} incident(s)  median {statistics.median(flat):.2f} ms"
            f"  max {max(flat):.2f} ms"
        )
    payload = (CAPTURES / "cc-hooks.hooks.jsonl").read_text().splitlines()[0]
    stdin = json.dumps(json.loads(payload)["payload"]).encode()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / ".tether").mkdir()
        hook = [sys.executable, "-m", "supervisor.cli", "hook", "Stop", "--dir", folder]
        base = process_ms([sys.executable, "-c", "pass"], b"", 20)
        whole = process_ms(hook, stdin, 20)
    print("whole-process wall time (20 runs, median / max):")
    print(f"  python -c pass        {statistics.median(base):6.1f} ms / {max(base):6.1f} ms")
    print(f"  tether hook Stop      {statistics.median(whole):6.1f} ms / {max(whole):6.1f} ms")


if __name__ == "__main__":
    main()
