"""Peak RSS of a session after a lot of output, with the scrollback capped.

A fresh Python process runs the headless pipeline (:mod:`bench.pipeline`: PTY,
pre-filter, the emulator with its 5000-row scrollback, detectors, recorder capped at
64 MiB) while a child writes a mix of the plain and Ink-style workloads over and
over, then reports its ``ru_maxrss``. Its RSS after start-up is reported too.

``make bench`` sends 1 GB (about 80 s at the pipeline's present speed) and
reports the peak at a quarter, half and all of it, to show whether it still
grows; ``--quick`` sends 8 MB.

    .venv/bin/python -m bench.memory [--bytes MEGABYTES]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.workloads import plain_flood, redraw_flood

REPO = Path(__file__).resolve().parent.parent


def _mix() -> Path:
    """4 MiB of plain lines + 1 MiB of redraws, one file, repeated by the child."""
    path = Path(tempfile.gettempdir()) / "tether-bench-workloads" / "memory-mix.bin"
    if not path.exists():
        data = plain_flood().data()[: 4 << 20] + redraw_flood().data()[: 1 << 20]
        path.write_bytes(data)
    return path


def _peak_mb() -> float:
    """This process's peak RSS: VmHWM, not ``ru_maxrss``.

    Linux keeps ``ru_maxrss`` across ``execve``, so a child spawned by a big parent
    (``make bench`` after generating the workloads: ~160 MB) reported the parent's
    peak. VmHWM belongs to the process's own address space.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _child_main(megabytes: int) -> dict:
    from bench.anchors import ChildRun
    from bench.pipeline import HeadlessRun
    from bench.workloads import Workload

    mix = _mix()
    workload = Workload("mix", mix, 120, 40, "memory mix")
    repeat = max(1, round(megabytes * 1e6 / workload.size))
    child = ChildRun()
    run = HeadlessRun(child.argv(workload, repeat=repeat), 120, 40)
    baseline = _rss_mb()
    marks: dict[str, float] = {}
    try:
        run.start()
        await asyncio.get_running_loop().run_in_executor(None, child.go)
        total = workload.size * repeat
        checkpoints = [total // 4, total // 2, total]
        while not child.done():
            await asyncio.sleep(0.05)
            while checkpoints and run.session.bytes_read >= checkpoints[0]:
                marks[f"{checkpoints.pop(0) / 1e6:.0f} MB"] = _peak_mb()
        seconds = child.seconds()
    finally:
        run.close()
        child.cleanup()
    return {
        "megabytes": total / 1e6,
        "seconds": seconds,
        "baseline_rss_mb": baseline,
        "peak_rss_mb": _peak_mb(),
        "peak_at": marks,
        "history_rows": run.session.emulator.history_size,
    }


def peak_rss(megabytes: int = 1000) -> dict:
    """Run the session in a fresh process; its peak RSS after ``megabytes`` of output."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.memory", "--child", str(megabytes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bytes", type=int, default=1000, help="megabytes of output")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(_child_main(args.child))))
        return
    print(json.dumps(peak_rss(args.bytes), indent=2))


if __name__ == "__main__":
    main()
