"""How long this machine pauses a process that tether has nothing to do with.

A loop runs one fixed CPU step over and over for a few seconds and records how
long each took. On a quiet machine every step takes the same time; on a shared
virtual machine some take ten or twenty times longer because the process was not
running, or ran slowly. Two steps: ~1 ms of Python arithmetic (pauses), and ~9 ms
of building small objects, the size and kind of work of one read turn or one
whole repaint (slow spells: memory-bound work suffers most when the host is busy).
The longest step is the floor under any "longest loop stall" figure measured
here: tether's stalls include these pauses.

    .venv/bin/python -m bench.jitter [--seconds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time


def _step() -> int:
    total = 0
    for i in range(20000):
        total += i
    return total


def _allocating_step() -> int:
    made = [(str(i), {"x": i}, [i, i + 1]) for i in range(12000)]
    return len(made)


STEPS = {"arithmetic": _step, "allocating": _allocating_step}


def pauses(seconds: float = 5.0, step: str = "arithmetic") -> dict:
    """Median and longest duration of a fixed CPU step, in ms, over ``seconds``."""
    work = STEPS[step]
    durations: list[float] = []
    clock = time.perf_counter
    end = clock() + seconds
    while clock() < end:
        before = clock()
        work()
        durations.append((clock() - before) * 1000)
    median = statistics.median(durations)
    return {
        "steps": len(durations),
        "median_ms": median,
        "max_ms": max(durations),
        "over_10x": sum(1 for d in durations if d > 10 * median),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--step", choices=sorted(STEPS), default="arithmetic")
    args = parser.parse_args()
    print(pauses(args.seconds, args.step))
