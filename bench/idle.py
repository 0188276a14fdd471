"""Idle CPU: a real ``tether run -- sleep 100`` in a detached tmux pane, doing nothing.

After a warm-up (the app has painted and settled: at least 5 s, then until two
seconds in a row cost under 5% of a core), the tether process's CPU
time (utime + stime of all its threads, ``/proc/<pid>/stat``) is read at the
start and the end of a window (60 s by default) and divided by the wall time:
the share of one core tether takes while the agent is idle. Target: ≤ 1%.
Beside it, the wake-ups a second: voluntary context switches of all its threads
over the same window (each is a thread woken from a wait: a timer, a poll, a
hand-over between threads), and the threads that woke most.

The warm-up waits for the CPU to settle, not for a fixed time: start-up goes on after
the first frame (the side pane, the tokenizer and the judge's libraries loaded on a
worker), and where Python's bytecode cache is cold (the first run of a new checkout,
or of files changed since the last run) compiling tether and its libraries took 1.5-2
s of CPU after the 5 s mark: an idle tether measured 3.5-5.6% instead of ~1%.

    .venv/bin/python -m bench.idle [--seconds N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.startup import TETHER, as_installed

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def _wakeups(pid: int) -> dict[str, int]:
    """Voluntary context switches per thread (``tid name`` -> count)."""
    counts = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            task = Path(f"/proc/{pid}/task/{tid}")
            name = (task / "comm").read_text().strip()
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    counts[f"{tid} {name}"] = int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):  # a thread that just ended
            pass
    return counts


def _settle(pid: int, least: float, most: float = 60.0, share: float = 0.05) -> float:
    """Seconds waited until ``pid`` is idle: at least ``least``, then until the last two
    seconds cost under ``share`` of a core (at most ``most``)."""
    start = time.perf_counter()
    seen: list[tuple[float, float]] = []  # (wall, cpu) every 0.25 s
    while True:
        wall = time.perf_counter()
        seen.append((wall, _cpu_seconds(pid)))
        old = [(w, c) for w, c in seen if wall - w >= 2.0]
        if wall - start >= most or (
            wall - start >= least and old and seen[-1][1] - old[-1][1] < share * (wall - old[-1][0])
        ):
            return wall - start
        time.sleep(0.25)


def idle_cpu(seconds: float = 60.0, warmup: float = 5.0) -> dict:
    """Percent of one core used by an idle tether over ``seconds``."""
    sock = f"tether-bench-idle-{os.getpid()}"
    base = ["tmux", "-L", sock, "-f", "/dev/null"]
    work = Path(tempfile.mkdtemp(prefix="tether-bench-idle-"))
    try:
        subprocess.run(
            [
                *base,
                "new-session",
                "-d",
                "-x",
                "160",
                "-y",
                "48",
                "-c",
                str(work),
                f"'{TETHER}' run -- sleep 1000",
            ],
            check=True,
            env={**as_installed(), "TERM": "xterm-256color"},  # bytecode cached, as installed
        )
        pid = int(
            subprocess.run(
                [*base, "display", "-p", "#{pane_pid}"], capture_output=True, text=True
            ).stdout
        )
        settled = _settle(pid, warmup)
        woken0, cpu0, wall0 = _wakeups(pid), _cpu_seconds(pid), time.perf_counter()
        time.sleep(seconds)
        cpu1, wall1, woken1 = _cpu_seconds(pid), time.perf_counter(), _wakeups(pid)
        per_thread = {
            name: (count - woken0[name]) / (wall1 - wall0)
            for name, count in woken1.items()
            if name in woken0
        }
        return {
            "wakeups_per_second": sum(per_thread.values()),
            "wakeups_by_thread": dict(sorted(per_thread.items(), key=lambda kv: -kv[1])),
            "percent": 100 * (cpu1 - cpu0) / (wall1 - wall0),
            "cpu_seconds": cpu1 - cpu0,
            "wall_seconds": wall1 - wall0,
            "startup_cpu_seconds": cpu0,
            "settled_after_seconds": settled,
        }
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    result = idle_cpu(parser.parse_args().seconds)
    print(f"idle CPU {result['percent']:.3f}% of a core over {result['wall_seconds']:.0f} s")
    print(
        f"start-up: {result['startup_cpu_seconds']:.2f} s CPU, settled after "
        f"{result['settled_after_seconds']:.1f} s"
    )
    print(f"wake-ups {result['wakeups_per_second']:.1f} a second, the most:")
    for name, rate in list(result["wakeups_by_thread"].items())[:4]:
        print(f"  {rate:6.1f}/s  thread {name}")
