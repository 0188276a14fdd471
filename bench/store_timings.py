"""Wall time of the store commands as whole processes, on a small and a large `.tether/`.

Not a test: it prints figures for people. The large folder holds 100,000
artifact lines, 100,000 events (the only incident at the very start, the worst
case for counting incidents from the tail) and 10,000 checkpoints.

    .venv/bin/python bench/store_timings.py [--runs N]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.large_store import make_large  # noqa: E402
from supervisor.store.tether_dir import init  # noqa: E402

TETHER = Path(sys.executable).parent / "tether"  # the running interpreter's


def _time(command: list[str], runs: int) -> tuple[float, float, float]:
    """Median and worst wall time, and median CPU time (user + sys), in milliseconds.

    CPU time is printed too because wall time on a shared machine measures the load.
    """
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu.append(used * 1000)
    return statistics.median(times), max(times), statistics.median(cpu)


def _make_large(work: Path, artifacts: int, events: int, checkpoint_count: int) -> None:
    make_large(work, artifacts, events, checkpoint_count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        small, large = Path(folder, "small"), Path(folder, "large")
        small.mkdir()
        large.mkdir()
        init(small, "a small store")
        start = time.perf_counter()
        _make_large(large, 100_000, 100_000, 10_000)
        print(f"built the large store in {time.perf_counter() - start:.1f} s")
        rows = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"], small),
            ("tether note done X", [str(TETHER), "note", "done", "bench item"], small),
            ("tether checkpoint", [str(TETHER), "checkpoint", "-m", "bench"], small),
            ("tether status", [str(TETHER), "status"], small),
            ("tether check", [str(TETHER), "check"], small),
            (
                "tether status (100k artifacts, 100k events, 10k checkpoints)",
                [str(TETHER), "status"],
                large,
            ),
            ("tether check (100k artifacts)", [str(TETHER), "check"], large),
            ("tether note done X (large store)", [str(TETHER), "note", "done", "x"], large),
            ("tether checkpoint (10k checkpoints)", [str(TETHER), "checkpoint"], large),
        ]
        print(f"{'command':<64} {'median ms':>10} {'max ms':>8} {'cpu ms':>7}  ({args.runs} runs)")
        for label, command, work in rows:
            full = [*command, "--dir", str(work)] if command[0] == str(TETHER) else command
            median, worst, cpu = _time(full, args.runs)
            print(f"{label:<64} {median:>10.1f} {worst:>8.1f} {cpu:>7.1f}")


if __name__ == "__main__":
    main()
