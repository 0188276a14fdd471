"""tether's whole headless pipeline on a flood: PTY read → filter → emulator → detectors → recorder.

A real child (:mod:`bench.pty_child`) writes the workload into a real PTY; an
:class:`AgentSession` reads it on an asyncio loop exactly as the app does
(``add_reader``, bounded reads), the :class:`Supervision` records it to a
``.tether/sessions/*.cast``, and the stream and screen detectors with fusion
(when those modules exist) look at every read, as the app will. No Textual.

Besides throughput it measures the longest stall of the event loop with a
probe timer: every other thing on the loop (painting, keys) waits that long.

    .venv/bin/python -m bench.pipeline      # each flood workload once
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.anchors import ChildRun
from bench.workloads import Workload, flood_workloads
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.terminal.session import AgentSession

PROBE_INTERVAL = 0.005


class LoopProbe:
    """A timer that should fire every 5 ms; how late it fires is how long the loop was held.

    ``max_stall`` is wall time, so on a loaded machine it includes time the
    process was not scheduled at all; ``max_busy`` is the CPU time the loop's
    own thread spent in the worst interval, which is what tether controls.
    """

    def __init__(self, interval: float = PROBE_INTERVAL) -> None:
        self.interval = interval
        self.max_stall = 0.0
        self.max_busy = 0.0
        self.stalls: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        clock, cpu = time.perf_counter, time.thread_time
        while True:
            before, cpu_before = clock(), cpu()
            await asyncio.sleep(self.interval)
            late = clock() - before - self.interval
            busy = cpu() - cpu_before
            self.stalls.append(late)
            if late > self.max_stall:
                self.max_stall = late
            if busy > self.max_busy:
                self.max_busy = busy

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def detectors_available() -> dict[str, bool]:
    found = {}
    for name in ("agent_state", "screen_detector", "fusion"):
        try:
            __import__(f"supervisor.recognize.{name}")
            found[name] = True
        except ImportError:
            found[name] = False
    return found


class Detection:
    """The detectors and fusion wired to a session's output, if the modules exist."""

    def __init__(self, session: AgentSession, workdir: Path, profile: str = "claude") -> None:
        self.session = session
        self.incidents: list[tuple[float, object]] = []
        self.observations = 0
        self.stream = self.screen = self.fusion = None
        have = detectors_available()
        if have["agent_state"]:  # Codex's OSC 7501 reports, as Supervision reads them
            from supervisor.recognize.agent_state import StatusReports

            self.stream = StatusReports()
        if have["screen_detector"]:
            from supervisor.config.profiles import load_profile
            from supervisor.recognize.screen_detector import ScreenDetector

            self.screen = ScreenDetector(load_profile(profile).markers)
        if have["fusion"]:
            from supervisor.recognize.fusion import Fusion
            from supervisor.store.tether_dir import TetherDir

            self.fusion = Fusion(TetherDir.at(workdir))
        session.listeners.append(self._on_output)

    @property
    def parts(self) -> str:
        parts = (("stream", self.stream), ("screen", self.screen), ("fusion", self.fusion))
        names = [name for name, part in parts if part is not None]
        return "+".join(names) or "none"

    def _on_output(self, data: bytes, result) -> None:
        now = time.time()
        found = []
        if self.stream is not None:
            found += self.stream.read(self.session.emulator.agent_status, now)
        if self.screen is not None:
            found += self.screen.scan(
                self.session.emulator, now, result.dirty, scrolled=len(result.scrolled_off)
            )
        self.observations += len(found)
        if self.fusion is not None:
            for observation in found:
                change = self.fusion.observe(observation)
                if change is not None and change.new:
                    self.incidents.append((time.perf_counter(), change.incident))


class SupervisionDetection:
    """The detectors Supervision wires itself (once it does): incidents from its listener."""

    def __init__(self, supervision: Supervision) -> None:
        self.incidents: list[tuple[float, object]] = []
        parts = [n for n in ("status_reports", "screen", "fusion") if getattr(supervision, n, None)]
        self.parts = "+".join(parts) + " (Supervision's own)"
        supervision.on_incident.append(self._changed)

    def _changed(self, change) -> None:
        if change.new:
            self.incidents.append((time.perf_counter(), change.incident))


class HeadlessRun:
    """One supervised session without a UI, in a throwaway folder, with the claude profile."""

    def __init__(self, argv: list[str], cols: int, rows: int, *, detect: bool = True) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="tether-bench-run-"))
        self.session = AgentSession(argv, cols=cols, rows=rows, cwd=str(self.workdir))
        config = RunConfig(argv=argv, workdir=self.workdir, profile_name="claude")
        self.supervision = Supervision(config, self.session)
        self.supervision.open()
        self.detection: Detection | SupervisionDetection | None = None
        if hasattr(self.supervision, "on_incident"):
            # Supervision runs the detectors and fusion on every read itself.
            self.detection = SupervisionDetection(self.supervision)
        elif detect:
            self.detection = Detection(self.session, self.workdir)

    def start(self) -> None:
        self.session.start(asyncio.get_running_loop())
        self.supervision.start_recording()

    def close(self) -> None:
        self.session.stop()
        self.supervision.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


async def _flood(workload: Workload, detect: bool) -> dict:
    child = ChildRun()
    run = HeadlessRun(child.argv(workload), workload.cols, workload.rows, detect=detect)
    probe = LoopProbe()
    try:
        run.start()
        probe.start()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, child.go)
        while not child.done():
            await asyncio.sleep(0.01)
        seconds = child.seconds()
    finally:
        probe.stop()
        run.close()
        child.cleanup()
    return {
        "seconds": seconds,
        "mb_s": workload.size / 1e6 / seconds,
        "max_stall_ms": probe.max_stall * 1000,
        "max_busy_ms": probe.max_busy * 1000,
        "detectors": run.detection.parts if run.detection else "off",
    }


def pipeline_flood(workload: Workload, detect: bool = True) -> dict:
    """Throughput (MB/s) and longest loop stall of the headless pipeline on one workload."""
    return asyncio.run(_flood(workload, detect))


if __name__ == "__main__":
    for w in flood_workloads():
        r = pipeline_flood(w)
        print(
            f"{w.name:12} {w.size / 1e6:6.1f} MB  {r['mb_s']:6.2f} MB/s  "
            f"max stall {r['max_stall_ms']:.1f} ms  detectors {r['detectors']}"
        )
