"""Idle CPU: a real ``tether run -- sleep 100`` in a detached tmux pane, doing nothing.

After a warm-up (the app has painted and settled), the tether process's CPU
time (utime + stime of all its threads, ``/proc/<pid>/stat``) is read at the
start and the end of a window (60 s by default) and divided by the wall time:
the share of one core tether takes while the agent is idle. Target: ≤ 1%.

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

from bench.startup import TETHER

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


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
            env={**os.environ, "TERM": "xterm-256color"},
        )
        pid = int(
            subprocess.run(
                [*base, "display", "-p", "#{pane_pid}"], capture_output=True, text=True
            ).stdout
        )
        time.sleep(warmup)
        cpu0, wall0 = _cpu_seconds(pid), time.perf_counter()
        time.sleep(seconds)
        cpu1, wall1 = _cpu_seconds(pid), time.perf_counter()
        return {
            "percent": 100 * (cpu1 - cpu0) / (wall1 - wall0),
            "cpu_seconds": cpu1 - cpu0,
            "wall_seconds": wall1 - wall0,
            "startup_cpu_seconds": cpu0,
        }
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    result = idle_cpu(parser.parse_args().seconds)
    print(f"idle CPU {result['percent']:.3f}% of a core over {result['wall_seconds']:.0f} s")
