"""The agent's PTY read by a small process of its own, into a pipe that the session reads.

A PTY hands over at most 4 KiB a read (the line discipline's buffer, copied 64 bytes at
a time), so a 20 MB flood is 5,000 reads, a fifth of tether's CPU on the loop's thread.
The reader does them on the other core and the session reads the pipe up to a whole
pipe at a time (bench/README.md has the figures). It runs ``python -I -S`` on
pty_reader_loop.py, nothing else of tether's, with the PTY's master and the pipe's write
end only.

It dies with tether (``PR_SET_PDEATHSIG``), so the master is never held open after
tether is gone: the agent still gets its hangup when tether is killed. Linux only; where
it cannot start, the session reads the PTY itself.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from supervisor import environment

LOOP = Path(__file__).with_name("pty_reader_loop.py")  # the reader's program
F_SETPIPE_SZ = 1031
PIPE_SIZE = 1024 * 1024  # the most an unprivileged process may ask for (pipe-max-size)


def reader_available() -> bool:
    """The reader process runs where ``PR_SET_PDEATHSIG`` exists; TETHER_PTY_READER=direct
    makes the session read the PTY itself (the A/B in bench/flood_ab.py)."""
    return sys.platform == "linux" and environment.current().pty_reader != "direct"


class PtyReader:
    """The reader process and the read end of its pipe (non-blocking)."""

    def __init__(self, pty_fd: int) -> None:
        read_end, write_end = os.pipe()
        try:
            try:
                fcntl.fcntl(read_end, F_SETPIPE_SZ, PIPE_SIZE)
            except OSError:
                pass  # a smaller pipe only means more reads
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    str(LOOP),
                    str(pty_fd),
                    str(write_end),
                    str(os.getpid()),
                ],
                pass_fds=(pty_fd, write_end),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        os.set_blocking(read_end, False)
        self.fd = read_end

    @property
    def pid(self) -> int:
        return self._process.pid

    def stopped(self) -> bool:
        """Whether the reader is stopped (SIGSTOP, a debugger): it delivers nothing then,
        and the agent blocks once the PTY's buffer is full. From ``/proc/PID/stat``."""
        try:
            with open(f"/proc/{self._process.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[-1].split()
        except OSError:
            return False
        return bool(fields) and fields[0] in (b"T", b"t")

    def ended_cleanly(self, timeout: float = 1.0) -> bool:
        """After the pipe's end: whether the reader saw the PTY close (else it was killed,
        and the session reads the PTY itself from now on). Reaps it if it ended;
        :meth:`close` stops one that did not."""
        try:
            return self._process.wait(timeout) == 0
        except subprocess.TimeoutExpired:
            return False

    def close(self) -> None:
        """Stop the reader (it may be blocked on a full pipe) and reap it."""
        try:
            os.close(self.fd)
        except OSError:
            pass
        self.fd = -1
        if self._process.poll() is None:
            self._process.kill()
            try:
                self._process.wait(2)
            except subprocess.TimeoutExpired:
                pass
