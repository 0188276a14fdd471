"""Everything tether does around one agent run, without a UI.

The app composes this with its widgets; tests and benchmarks drive it
headless. It owns the `.tether/` lock, the session recording, the checkpoint
taken when the agent exits, and (as they land) the detectors and fusion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from supervisor import checkpoints
from supervisor import lock as supervisor_lock
from supervisor.emulator import FeedResult
from supervisor.errors import TetherError
from supervisor.keymap import Keymap
from supervisor.pty_host import ExitStatus
from supervisor.recorder import SessionRecorder
from supervisor.session import AgentSession
from supervisor.store import TetherDir, init


@dataclass
class RunConfig:
    """What `tether run` decided: the command, the folder, the profile."""

    argv: list[str]
    workdir: Path
    profile_name: str = "shell"
    title: str = "tether"
    env: dict[str, str] | None = None
    shift_enter: str = "\x1b\r"
    keymap: Keymap = field(default_factory=Keymap)
    side_pane: bool = True
    record: bool = True
    checkpoint_every: float = 300.0  # seconds between timer checkpoints when state changed


class Supervision:
    """The engine side of one `tether run`: lock, recording, exit checkpoint."""

    def __init__(self, config: RunConfig, session: AgentSession) -> None:
        self.config = config
        self.session = session
        self.tether = TetherDir.at(config.workdir)
        self.lock: supervisor_lock.SupervisorLock | None = None
        self.recorder: SessionRecorder | None = None
        self.problems: list[str] = []
        self.notices: list[Callable[[str], None]] = []
        self._last_timer_checkpoint = time.monotonic()

    def open(self) -> None:
        """Create `.tether/` if needed and take the folder's lock (refuses a second tether)."""
        if not self.tether.exists():
            init(self.config.workdir)
        self.lock = supervisor_lock.acquire(self.tether)
        previous = self.lock.previous
        if previous is not None:
            self.tether.record_incident(
                "unclean-exit",
                "lock",
                previous_pid=previous.pid,
                previous_started_at=previous.started_at,
                summary=f"the previous tether ({previous.describe()}) died without a clean exit",
            )
        self.session.listeners.append(self._on_output)
        self.session.exit_listeners.append(self._on_exit)

    def start_recording(self) -> None:
        """Begin `sessions/<stamp>-<profile>.cast` and `.txt` at the agent's screen size."""
        if not self.config.record or self.recorder is not None:
            return
        emulator = self.session.emulator
        try:
            self.recorder = SessionRecorder(
                self.tether.sessions, self.config.profile_name, emulator.cols, emulator.rows
            )
        except (OSError, TetherError) as error:
            self._problem(f"recording is off: {error}")

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        for notify in self.notices:
            notify(message)

    def _on_output(self, data: bytes, result: FeedResult) -> None:
        recorder = self.recorder
        if recorder is not None:
            recorder.record(data)
            if result.scrolled_off:
                recorder.scrolled_off(result.scrolled_off)

    def tick(self, now: float | None = None) -> None:
        """Called about once a second: flush the recording; checkpoint if the state changed."""
        now = time.monotonic() if now is None else now
        if self.recorder is not None:
            self.recorder.flush()
        if now - self._last_timer_checkpoint >= self.config.checkpoint_every:
            self._last_timer_checkpoint = now
            try:
                if checkpoints.changed_since_last(self.tether):
                    checkpoints.take(self.tether, "timer: state changed")
            except TetherError as error:
                self._problem(str(error))

    def resized(self, cols: int, rows: int) -> None:
        if self.recorder is not None:
            self.recorder.resize(cols, rows)

    def _on_exit(self, status: ExitStatus) -> None:
        try:
            self.tether.record_event(
                "agent_exit",
                "process",
                code=status.code,
                signal=status.signal,
                description=status.describe(),
            )
            checkpoints.take(self.tether, f"agent {status.describe()}")
        except TetherError as error:
            self._problem(str(error))

    def close(self) -> None:
        """Flush the recording with the final screen and release the lock (a clean exit)."""
        if self.recorder is not None:
            try:
                self.recorder.close(self.session.emulator.display())
            except OSError as error:
                self._problem(f"recording not closed cleanly: {error}")
            self.recorder = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None
