"""Drive a TUI in a detached tmux session of a fixed size (for the e2e tier).

Each ``TmuxSession`` runs its own tmux server on a private socket, so sessions never
see each other (or the developer's tmux), and ``kill()`` removes everything it started.
The pane is kept after the command exits (``remain-on-exit``), so the last screen (an
exit message, a crash) can still be captured; ``exit_status()`` reports how it ended.

    with TmuxSession(width=120, height=40) as tm:
        tm.start(["claude"], env=env, cwd=project)
        tm.wait_for(r"\\? for shortcuts", timeout=30)
        tm.type_line("hello")
        tm.wait_for(r"FAKE-REPLY 1")

Every wait is a bounded poll; on timeout ``TmuxTimeout`` carries the last screen.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

TMUX = shutil.which("tmux") or "/usr/bin/tmux"

_CONF = """\
set -g remain-on-exit on
set -g history-limit 20000
set -g status off
set -g escape-time 0
"""


CREATED_SOCKETS: list[str] = []  # every socket this process made (for leak checks)


class TmuxTimeout(AssertionError):
    """A bounded wait ran out. ``screen`` holds the last capture."""

    def __init__(self, message: str, screen: str):
        super().__init__(f"{message}\n----- last screen -----\n{screen}\n-----------------------")
        self.screen = screen


class TmuxSession:
    def __init__(self, width: int = 120, height: int = 40, name: str = "main"):
        self.width, self.height, self.name = width, height, name
        self._dir = Path(tempfile.mkdtemp(prefix="tmx-", dir="/tmp"))
        self.socket = str(self._dir / "s")
        CREATED_SOCKETS.append(self.socket)
        (self._dir / "tmux.conf").write_text(_CONF)
        self.started = False

    # ------------------------------------------------------------ low level
    def tmux(self, *args: str, check: bool = True, timeout: float = 10) -> str:
        cmd = [TMUX, "-S", self.socket, "-f", str(self._dir / "tmux.conf"), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed: {proc.stderr.strip()}")
        return proc.stdout

    @property
    def target(self) -> str:
        return f"{self.name}:0.0"

    # ------------------------------------------------------------ lifecycle
    def start(
        self,
        command: Sequence[str] | str,
        env: Mapping[str, str],
        cwd: str | os.PathLike[str] | None = None,
    ) -> TmuxSession:
        """Run ``command`` with exactly ``env`` (nothing inherited) in ``cwd``.

        A tiny ``/bin/sh`` stays as the pane's process and records the command's exit
        status (tmux 3.3a leaves ``pane_dead_status`` empty); ``agent_pid()`` is the
        command's own PID."""
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        rc = shlex.quote(str(self._dir / "rc"))
        inner = f"{shlex.join(argv)}; echo $? > {rc}"
        if cwd is not None:
            inner = f"cd {shlex.quote(str(cwd))} && {inner}"
        shell = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c", inner]
        self.tmux(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            shlex.join(shell),
        )
        self.started = True
        return self

    def record(self, path: str | os.PathLike[str]) -> None:
        """Append the pane's raw output bytes (escape sequences included) to ``path``."""
        self.tmux("pipe-pane", "-o", "-t", self.target, f"cat >> {shlex.quote(str(path))}")

    def kill(self) -> None:
        """Kill the tmux server of this session (and so the pane's process). Idempotent."""
        if self.started:
            pids = [p for p in (self.pane_pid(), self._child_pid()) if p]
            self.tmux("kill-server", check=False)
            for pid in pids:  # they normally die of SIGHUP; make sure they are gone
                _wait_pid_gone(pid, 3.0)
            self.started = False
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> TmuxSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    # ------------------------------------------------------------ input
    def send_text(self, text: str) -> None:
        """Type ``text`` literally (no key-name interpretation)."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def send_keys(self, *keys: str) -> None:
        """Send tmux key names: ``Enter``, ``Up``, ``C-c``, ``C-o``, ``Escape`` ..."""
        self.tmux("send-keys", "-t", self.target, *keys)

    def type_line(self, text: str, enter_delay: float = 0.5, echo_timeout: float = 20.0) -> None:
        """Type ``text``, wait until the screen shows it, pause, then press Enter as its own key.

        The wait is for the agent to have taken the keys (on a busy machine it may not have
        within any fixed delay, and Enter would then join the paste-burst of the text, as a
        newline); the pause after it is the agent's own paste debounce, which starts again at
        its last key. Text the screen does not show back (a password prompt) is typed after
        ``echo_timeout``, as before.
        """
        probe = " ".join(text.split())[-24:]
        before = self.capture(join=True).count(probe) if probe else 0
        self.send_text(text)
        deadline = time.monotonic() + echo_timeout
        while probe and time.monotonic() < deadline:
            if self.capture(join=True).count(probe) > before:
                break
            time.sleep(0.05)
        time.sleep(enter_delay)
        self.send_keys("Enter")

    # ------------------------------------------------------------ output
    def capture(self, ansi: bool = False, history: bool = False, join: bool = False) -> str:
        """The pane as text (``capture-pane -p``); ``history`` adds the scrollback,
        ``join`` joins wrapped lines, ``ansi`` keeps colours (``-e``)."""
        args = ["capture-pane", "-p", "-t", self.target]
        if ansi:
            args.append("-e")
        if join:
            args.append("-J")
        if history:
            args += ["-S", "-"]
        return self.tmux(*args, check=False)

    def wait_for(
        self,
        pattern: str | re.Pattern[str],
        timeout: float = 20.0,
        interval: float = 0.2,
        history: bool = False,
        join: bool = True,
        flags: int = 0,
    ) -> re.Match[str]:
        """Poll the pane until ``pattern`` matches; return the match or raise ``TmuxTimeout``."""
        rx = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            screen = self.capture(history=history, join=join)
            m = rx.search(screen)
            if m:
                return m
            if time.monotonic() >= deadline:
                raise TmuxTimeout(f"{rx.pattern!r} not on screen after {timeout}s", screen)
            time.sleep(interval)

    def wait_gone(self, pattern: str, timeout: float = 20.0, interval: float = 0.2) -> None:
        """Poll until ``pattern`` no longer matches the visible pane."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.capture(join=True)
            if not rx.search(screen):
                return
            if time.monotonic() >= deadline:
                raise TmuxTimeout(f"{pattern!r} still on screen after {timeout}s", screen)
            time.sleep(interval)

    # ------------------------------------------------------------ process
    def _fmt(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", self.target, fmt, check=False).strip()

    def pane_pid(self) -> int | None:
        """PID of the pane's process (the ``/bin/sh`` wrapper)."""
        out = self._fmt("#{pane_pid}")
        return int(out) if out.isdigit() else None

    def agent_pid(self, timeout: float = 5.0) -> int:
        """PID of the command itself (the wrapper's child)."""
        deadline = time.monotonic() + timeout
        while True:
            pid = self.pane_pid()
            if pid:
                try:
                    kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                except OSError:
                    kids = []
                if kids:
                    return int(kids[0])
            if time.monotonic() >= deadline:
                raise TmuxTimeout("no command process under the pane", self.capture())
            time.sleep(0.05)

    def _child_pid(self) -> int | None:
        try:
            return self.agent_pid(timeout=0)
        except TmuxTimeout:
            return None

    def exit_status(self) -> int | None:
        """The command's exit status once it has exited (128+N for signal N), else None."""
        try:
            return int((self._dir / "rc").read_text().strip())
        except (OSError, ValueError):
            return None

    def wait_exit(self, timeout: float = 15.0, interval: float = 0.2) -> int:
        """Poll until the command has exited; return its exit status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.exit_status()
            if status is not None:
                return status
            if time.monotonic() >= deadline:
                raise TmuxTimeout(f"command still running after {timeout}s", self.capture())
            time.sleep(interval)


def _wait_pid_gone(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state in ("Z", "X"):
                return
        except (OSError, IndexError):
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:
            return
        time.sleep(0.05)
    try:
        os.kill(pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


def wait_until(predicate: Callable[[], T], timeout: float = 15.0, what: str = "") -> T:
    """Poll ``predicate`` until it returns something truthy (bounded); return that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(0.1)
