"""The agent's pseudo-terminal: spawn, read without blocking, write, resize, reap.

Reading is driven by the caller's event loop (``loop.add_reader`` on
:attr:`PtyHost.read_fd`); :meth:`read_chunk` never blocks and returns at most a
bounded chunk, so a flood from the child cannot hold the loop for long: the
kernel's PTY buffer pushes back on the child while we catch up. Once
:meth:`read_through_process` has started it, a reader process of its own does the
PTY's reads (pty_reader.py) and ``read_fd`` is its pipe.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import signal
import sys
import termios
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ptyprocess

from supervisor.errors import TetherError
from supervisor.terminal.pty_reader import PtyReader, reader_available

READ_CHUNK = 64 * 1024
NO_BYTES = bytes(4)  # FIONREAD's int, as ioctl's buffer


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How the child ended: an exit code, or the signal that killed it."""

    code: int | None
    signal: int | None

    @property
    def clean(self) -> bool:
        return self.code == 0

    def describe(self) -> str:
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return f"killed by {name}"
        return f"exited with code {self.code}"


def terminal_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment an agent expects from a modern terminal emulator."""
    env = dict(os.environ if base is None else base)
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env.setdefault("LANG", "C.UTF-8")
    env.pop("TMUX", None)  # we are the terminal now, not tmux
    env.pop("TMUX_PANE", None)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return env


def resolve_command(argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """``argv`` with its program found on PATH, or a TetherError saying it is missing."""
    if not argv:
        raise TetherError("no command to run; give one after `--`, e.g. `tether run -- bash`")
    program = argv[0]
    path = (env or os.environ).get("PATH", os.defpath)
    found = shutil.which(program, path=path)
    if found is None:
        raise TetherError(
            f"command not found: {program!r}; install it or check PATH", exit_code=127
        )
    return [found, *argv[1:]]


# What a shell started by a terminal expects to find at its defaults. An ignored SIGINT
# is inherited through exec (a tether started as a background job of a script has it),
# and the agent's ctrl+c would then interrupt nothing.
_RESET_SIGNALS = ("SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGPIPE", "SIGHUP")


def _as_a_terminal_starts_it() -> None:
    """In the forked child, before exec: default signal dispositions, nothing blocked."""
    for name in _RESET_SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class PtyHost:
    """One child process in one pseudo-terminal."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cols: int = 80,
        rows: int = 24,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.env = terminal_environment(env)
        self.argv = resolve_command(argv, self.env)
        self.cols, self.rows = max(cols, 1), max(rows, 1)
        try:
            self._process = ptyprocess.PtyProcess.spawn(
                self.argv,
                cwd=cwd,
                env=self.env,
                dimensions=(self.rows, self.cols),
                preexec_fn=_as_a_terminal_starts_it,
            )
        except (OSError, ptyprocess.PtyProcessError) as error:
            raise TetherError(f"cannot start {self.argv[0]}: {error}", exit_code=127) from error
        self.fd: int = self._process.fd
        os.set_blocking(self.fd, False)
        self._exit: ExitStatus | None = None
        self._eof = False
        self._reader: PtyReader | None = None

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def read_fd(self) -> int:
        """What to watch for output: the reader's pipe, or the PTY itself."""
        return self._reader.fd if self._reader is not None else self.fd

    def read_through_process(self) -> None:
        """Have a reader process do the PTY's reads from now on (where one can start)."""
        if self._reader is None and not self._eof and reader_available():
            try:
                self._reader = PtyReader(self.fd)
            except OSError:
                self._reader = None

    def read_chunk(self, size: int = READ_CHUNK) -> bytes | None:
        """Whatever the child wrote, up to ``size`` bytes; ``b""`` if nothing yet, None at EOF."""
        if self._eof:
            return None
        if self._reader is not None:
            return self._read_pipe(size)
        try:
            data = os.read(self.fd, size)
        except BlockingIOError:
            return b""
        except OSError as error:
            if error.errno in (errno.EIO, errno.EBADF):  # Linux: slave side closed
                self._eof = True
                return None
            raise
        if not data:
            self._eof = True
            return None
        return data

    def _read_pipe(self, size: int) -> bytes | None:
        reader = self._reader
        try:
            data = os.read(reader.fd, size)
        except BlockingIOError:
            return b""
        if data:
            return data
        # The pipe's end: the reader saw the PTY close, or it was killed (then the PTY,
        # still open, is read here: what the reader had read but not written is lost).
        self._reader = None
        clean = reader.ended_cleanly()
        reader.close()
        if clean:
            self._eof = True
            return None
        return b""

    @property
    def reader(self) -> PtyReader | None:
        """The reader process doing the PTY's reads, if one is."""
        return self._reader

    def pty_pending(self) -> int:
        """Bytes the agent wrote that wait in the PTY itself (not yet in the reader's pipe)."""
        try:
            return int.from_bytes(fcntl.ioctl(self.fd, termios.FIONREAD, NO_BYTES), sys.byteorder)
        except OSError:
            return 0

    def waiting(self) -> int:
        """How many bytes a read would return now, without waiting for the kernel (a PTY
        read that finds its line discipline empty waits on the kernel's flush worker)."""
        if self._eof:
            return 0
        try:
            fd = self.read_fd
            return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, NO_BYTES), sys.byteorder)
        except OSError:
            return 1  # a read will say what happened

    def write(self, data: bytes) -> None:
        """Send bytes to the child at once; a full PTY buffer is waited out briefly."""
        view = memoryview(data)
        while view and not self._eof:
            try:
                written = os.write(self.fd, view)
            except BlockingIOError:
                import select

                select.select([], [self.fd], [], 0.05)
                continue
            except OSError:
                return
            view = view[written:]

    def resize(self, cols: int, rows: int) -> None:
        """Tell the child its window changed (the kernel sends SIGWINCH)."""
        cols, rows = max(cols, 1), max(rows, 1)
        if (cols, rows) == (self.cols, self.rows):
            return
        self.cols, self.rows = cols, rows
        try:
            self._process.setwinsize(rows, cols)
        except OSError:
            pass

    def poll_exit(self) -> ExitStatus | None:
        """The exit status if the child has ended (reaps it), else None."""
        if self._exit is not None:
            return self._exit
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            self._exit = ExitStatus(self._process.exitstatus, self._process.signalstatus)
            return self._exit
        if pid == 0:
            return None
        if os.WIFSIGNALED(status):
            self._exit = ExitStatus(None, os.WTERMSIG(status))
        else:
            self._exit = ExitStatus(os.WEXITSTATUS(status), None)
        return self._exit

    def wait_exit(self, timeout: float = 5.0) -> ExitStatus | None:
        """Reap the child, waiting up to ``timeout`` seconds."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            status = self.poll_exit()
            if status is not None or time.monotonic() >= deadline:
                return status
            time.sleep(0.01)

    def terminate(self, timeout: float = 2.0) -> ExitStatus | None:
        """Hang up on the child and reap it: SIGHUP to its process group, as a terminal
        that closes does (the child leads a session of its own), then SIGTERM and SIGKILL
        to the child, each after a third of ``timeout``."""
        if self.poll_exit() is not None:
            self.close()
            return self._exit
        for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
            try:
                if sig == signal.SIGHUP and os.getpgid(self.pid) == self.pid:
                    os.killpg(self.pid, sig)
                else:
                    os.kill(self.pid, sig)
            except ProcessLookupError:
                break
            status = self.wait_exit(timeout / 3)
            if status is not None:
                break
        self.close()
        return self._exit

    def close(self) -> None:
        """Close our end of the PTY (ptyprocess would otherwise sleep and kill on GC)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        try:
            self._process.fileobj.close()
        except OSError:
            pass
        self._process.closed = True
        self._eof = True
