"""Keystroke latency and the app under a flood, driven by Pilot on the real TetherApp.

* key → PTY: from ``pilot.press`` to the encoded bytes written to the agent's PTY;
* key → echo painted: on to the first ``render_line`` of the terminal view
  after the echo came back (``cat`` under the kernel's line discipline echoes
  at once, so this is tether's own round trip);
* app flood: the app (side pane, status bar, recorder, view) running the
  Ink-style redraw workload: throughput as the child measures it, the longest
  stall of the app's event loop (probe timer), and key → PTY latency while the
  flood runs (a key every 50 ms).

    .venv/bin/python -m bench.keys
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual import events

from bench.anchors import ChildRun
from bench.pipeline import LoopProbe
from bench.workloads import Workload, plain_flood, redraw_flood
from supervisor.app import RunConfig, TetherApp
from widgets.terminal_view import TerminalView

APP_SIZE = (160, 48)


class _Instrumented:
    """Timestamps of writes to the PTY and of repaints of the terminal view."""

    def __init__(self, app: TetherApp) -> None:
        self.app = app
        self.writes: list[float] = []
        self.paints: list[float] = []
        session = app.session
        original_write = session.write

        def write(data: bytes) -> None:
            self.writes.append(time.perf_counter())
            original_write(data)

        session.write = write  # type: ignore[method-assign]
        view = app.query_one(TerminalView)
        original_render = view.render_line

        def render_line(y: int):
            self.paints.append(time.perf_counter())
            return original_render(y)

        view.render_line = render_line  # type: ignore[method-assign]


def _app(argv: list[str], workdir: Path, side_pane: bool = True) -> TetherApp:
    return TetherApp(RunConfig(argv=argv, workdir=workdir, side_pane=side_pane))


async def _wait(predicate, timeout: float = 10.0, step: float = 0.001) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(step)
    return True


async def _key_latencies(presses: int) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="tether-bench-keys-"))
    to_pty: list[float] = []
    to_paint: list[float] = []
    try:
        app = _app(["cat"], workdir)
        async with app.run_test(size=APP_SIZE) as pilot:
            await _wait(lambda: app.session.running)
            await pilot.pause(0.3)
            probe = _Instrumented(app)
            session = app.session
            for i in range(presses):
                before_bytes = session.bytes_read
                writes, paints = len(probe.writes), len(probe.paints)
                start = time.perf_counter()
                await pilot.press("abcdefghij"[i % 10])
                await _wait(lambda w=writes: len(probe.writes) > w)
                to_pty.append(probe.writes[writes] - start)
                await _wait(lambda b=before_bytes: session.bytes_read > b)
                echoed = session.bytes_read
                await _wait(
                    lambda p=paints, e=echoed: len(probe.paints) > p and session.bytes_read >= e
                )
                later = [t for t in probe.paints[paints:] if t >= probe.writes[writes]]
                if later:
                    to_paint.append(later[-1] - start)
                await pilot.pause(0.02)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"to_pty": to_pty, "to_paint": to_paint}


def key_latencies(presses: int = 40) -> dict:
    """Seconds per key press: to the PTY and to the echo painted (``cat``, idle)."""
    return asyncio.run(_key_latencies(presses))


async def _app_flood(workload: Workload) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="tether-bench-appflood-"))
    child = ChildRun()
    key_lat: list[float] = []
    try:
        app = _app(child.argv(workload), workdir)
        async with app.run_test(size=APP_SIZE) as pilot:
            await _wait(lambda: app.session.running)
            await pilot.pause(1.5)  # let the side pane mount and settle first
            probe = _Instrumented(app)
            stall = LoopProbe()
            stall.start()
            await asyncio.get_running_loop().run_in_executor(None, child.go)
            started = time.perf_counter()
            while not child.done() and time.perf_counter() - started < 300:
                writes = len(probe.writes)
                start = time.perf_counter()
                # Posted as the driver would: Pilot.press waits for an idle screen, never idle here.
                app.post_message(events.Key("x", "x"))
                if await _wait(lambda w=writes: len(probe.writes) > w, timeout=5):
                    key_lat.append(probe.writes[writes] - start)
                await asyncio.sleep(0.05)
            seconds = child.seconds()
            stall.stop()
            view = app.query_one(TerminalView)
            repaints = view.repaints
            paints = len(probe.paints)
            view_rows = view.size.height
    finally:
        child.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    return {
        "seconds": seconds,
        "mb_s": workload.size / 1e6 / seconds,
        "max_stall_ms": stall.max_stall * 1000,
        "max_busy_ms": stall.max_busy * 1000,
        "key_to_pty": key_lat,
        "rows_repainted": repaints,
        "lines_rendered": paints,
        # Lines the view rendered during the flood, in whole screens a second.
        "frames_per_second": paints / max(view_rows, 1) / seconds,
    }


def app_flood(workload: Workload | None = None) -> dict:
    """The whole app on a flood: throughput, longest loop stall, key latency meanwhile."""
    return asyncio.run(_app_flood(workload or redraw_flood()))


def app_flood_alone(kind: str, size: int) -> dict:
    """:func:`app_flood` in a process of its own, as `tether run` is: one app per process.

    Several apps in one process leave each other's heap behind (the garbage of the
    last one is collected during the next), which no user's session has.
    ``kind`` is "redraw" or "plain", ``size`` the workload's bytes.
    """
    out = subprocess.run(
        [sys.executable, "-m", "bench.keys", "--app-flood", kind, str(size)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__" and sys.argv[1:2] == ["--app-flood"]:
    kind, size = sys.argv[2], int(sys.argv[3])
    workload = redraw_flood(size) if kind == "redraw" else plain_flood(size)
    print(json.dumps(app_flood(workload)))
elif __name__ == "__main__":
    import statistics

    lat = key_latencies(20)
    print(
        f"key -> pty median {statistics.median(lat['to_pty']) * 1000:.2f} ms; "
        f"key -> echo painted median {statistics.median(lat['to_paint']) * 1000:.2f} ms"
    )
    flood = app_flood()
    print(
        f"app flood {flood['mb_s']:.2f} MB/s, max stall {flood['max_stall_ms']:.1f} ms, "
        f"key -> pty under flood median {statistics.median(flood['key_to_pty']) * 1000:.2f} ms "
        f"max {max(flood['key_to_pty']) * 1000:.1f} ms ({len(flood['key_to_pty'])} keys)"
    )
