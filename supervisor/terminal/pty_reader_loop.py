"""The reader process's own program (see pty_reader.py): run as a script, by path, with
``python -I -S``, so that it loads nothing of tether's, nor any site package.

``pty_reader_loop.py PTY_FD PIPE_FD PARENT_PID``: copy the PTY's output to the pipe until
the PTY closes. A write blocks while the pipe is full, which leaves the PTY's buffer full,
which pushes back on the agent.
"""

import ctypes
import os
import select
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


def main(pty: int, out: int, parent: int) -> None:
    for name in ("SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGHUP", "SIGTERM"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)  # it ends with the PTY or tether
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) != 0 or os.getppid() != parent:
        os._exit(3)  # it could outlive tether, holding the PTY open
    libc.prctl(PR_SET_NAME, b"tether-reader")
    ready = select.poll()
    ready.register(pty, select.POLLIN)
    while True:
        try:
            data = os.read(pty, 65536)
        except BlockingIOError:
            ready.poll()
            continue
        except OSError:  # EIO: the agent's side of the PTY closed
            os._exit(0)
        if not data:
            os._exit(0)
        try:
            os.write(out, data)
        except OSError:  # the session closed the pipe
            os._exit(0)


if __name__ == "__main__":
    main(*map(int, sys.argv[1:4]))
