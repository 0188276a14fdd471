"""Run one agent in a real PTY of a fixed size and keep every byte it writes, with times.

The replay fixtures need the exact bytes of each ``read()`` of the PTY master, the time
of each, and every byte string typed into the child, on one clock (seconds since spawn).
tmux (which the e2e scenarios drive) re-renders what it reads, so it cannot give them;
this is ``pty.fork`` and ``select``. A bare avt screen (pyavt, without tether's pre-filter
or wrapper), fed the same bytes, is what the waits look at: a stand-in for the user's eyes,
not the emulator under test. Terminal queries are left unanswered, as in the first
captures: both agents run without replies.
"""

from __future__ import annotations

import codecs
import errno
import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path

import avt


class Screen:
    """A plain avt terminal fed bytes: what a user would see, as text rows."""

    def __init__(self, cols: int, rows: int) -> None:
        self._vt = avt.Vt(cols, rows, scrollback_limit=0)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode

    def feed(self, data: bytes) -> None:
        text = self._decode(data)
        if text:
            self._vt.feed_str(text)

    @property
    def display(self) -> list[str]:
        return [line.text for line in self._vt.view()]


class RecordingTimeout(AssertionError):
    """A wait ran out; the message carries the screen so the failure says what was there."""


@dataclass
class Recording:
    """What one run produced: reads, inputs and process events on the spawn clock."""

    argv: list[str]
    cols: int
    rows: int
    spawn_epoch: float = 0.0
    reads: list[tuple[float, bytes]] = field(default_factory=list)  # (t, bytes) per read()
    inputs: list[tuple[float, int, bytes, str]] = field(
        default_factory=list
    )  # t, offset, data, note
    process: list[dict] = field(default_factory=list)  # spawn / kill / eof / exit events
    exit: dict = field(default_factory=dict)

    @property
    def raw(self) -> bytes:
        return b"".join(data for _, data in self.reads)


class PtyRecorder:
    """Spawn ``argv`` in a ``cols`` x ``rows`` PTY; type into it; wait on what it shows."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, cols=120, rows=40):
        self.recording = Recording(list(argv), cols, rows)
        self._screen = Screen(cols, rows)
        self._size = 0
        self._eof = False
        self._start = time.monotonic()
        self.recording.spawn_epoch = time.time()
        pid, fd = pty.fork()
        if pid == 0:  # the child: size the terminal before the agent looks at it
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self._event("process_spawn", " ".join(argv))

    # ------------------------------------------------------------------ clock and events

    def now(self) -> float:
        return round(time.monotonic() - self._start, 6)

    def _event(self, kind: str, detail=None) -> None:
        event = {"kind": kind, "t": self.now(), "raw_offset": self._size}
        if detail is not None:
            event["detail"] = detail
        self.recording.process.append(event)

    # ------------------------------------------------------------------ output

    def pump(self, seconds: float) -> bool:
        """Read for up to ``seconds``; True if anything arrived. Stops early at EOF."""
        deadline = time.monotonic() + seconds
        got = False
        while not self._eof:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                break
            try:
                data = os.read(self.fd, 65536)
            except OSError as error:  # EIO: the child side is closed
                if error.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                self._eof = True
                self._event("process_eof")
                break
            self.recording.reads.append((self.now(), data))
            self._size += len(data)
            self._screen.feed(data)
            got = True
        return got

    def screen_text(self) -> str:
        return "\n".join(line.rstrip() for line in self._screen.display)

    def wait_screen(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """Read until ``pattern`` (a regex) is on the screen; the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            hit = regex.search(self.screen_text())
            if hit:
                return hit
            if self._eof or time.monotonic() >= deadline:
                raise RecordingTimeout(
                    f"{pattern!r} not on screen after {timeout}s:\n{self.screen_text()}"
                )
            self.pump(min(0.2, max(0.0, deadline - time.monotonic())))

    def wait_quiet(self, seconds: float = 1.0, timeout: float = 30.0) -> None:
        """Read until the agent has written nothing for ``seconds`` (a redraw has settled)."""
        deadline = time.monotonic() + timeout
        while self.pump(seconds):
            if time.monotonic() >= deadline:
                raise RecordingTimeout(f"still writing after {timeout}s:\n{self.screen_text()}")

    # ------------------------------------------------------------------ input

    def send(self, data: bytes, note: str) -> None:
        self.recording.inputs.append((self.now(), self._size, data, note))
        os.write(self.fd, data)

    def type_line(self, text: str, enter_delay: float = 0.5) -> None:
        """Type ``text`` in one write, read for ``enter_delay`` seconds, then press Enter."""
        self.send(text.encode(), "text")
        self.pump(enter_delay)
        self.send(b"\r", "Enter")

    # ------------------------------------------------------------------ end

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the agent's whole process group: a crash of the agent and its helpers
        (the Codex launcher is node running the real binary as its child)."""
        self._event("process_kill", f"signal {int(sig)} to process group {self.pid}")
        os.killpg(self.pid, sig)

    def wait_exit(self, timeout: float = 20.0) -> dict:
        """Read to EOF, reap the child and return how it ended."""
        deadline = time.monotonic() + timeout
        while not self._eof:
            if time.monotonic() >= deadline:
                raise RecordingTimeout(f"no exit after {timeout}s:\n{self.screen_text()}")
            self.pump(0.5)
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() >= deadline:
                os.killpg(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        os.close(self.fd)
        if os.WIFSIGNALED(status):
            signo = os.WTERMSIG(status)
            detail = {"signaled": True, "signal": signo, "shell_status": 128 + signo}
        else:
            detail = {"signaled": False, "exit_code": os.WEXITSTATUS(status)}
        self._event("process_exit", detail)
        self.recording.exit = detail
        return detail

    def close(self) -> None:
        """Make sure nothing of this run is left (after a failure half way)."""
        if self.recording.exit:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass
