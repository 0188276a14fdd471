"""The anchors tether is measured against, in the same run: tmux, and a raw PTY copy.

* **tmux**: a detached server on a private socket, one pane of the workload's
  size, running :mod:`bench.pty_child`. tmux parses every byte into its grid
  (no client is attached, so nothing is drawn anywhere) and answers the child's
  final cursor query when it has consumed the whole workload.
* **raw PTY**: the same child in a PTY whose master we read to the end as fast
  as possible, answering the query when it arrives. This is the ceiling: the
  kernel's PTY and one Python reader, no parsing.

    .venv/bin/python -m bench.anchors       # both anchors on every flood workload, once
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from bench.workloads import Workload, flood_workloads

CHILD = Path(__file__).resolve().parent / "pty_child.py"
TIMEOUT = 300.0


class ChildRun:
    """Files the child needs: the go FIFO and its result file, in a private temp folder."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tether-bench-"))
        self.fifo = self.dir / "go"
        os.mkfifo(self.fifo)
        self.result = self.dir / "result"

    def argv(self, workload: Workload, hold: bool = False, repeat: int = 1) -> list[str]:
        cmd = [sys.executable, str(CHILD), str(workload.path), str(self.fifo), str(self.result)]
        if repeat != 1:
            cmd += ["--repeat", str(repeat)]
        return [*cmd, "--hold"] if hold else cmd

    def go(self) -> float:
        """Release the child (blocks until it opened the FIFO); returns the local start time."""
        fd = os.open(self.fifo, os.O_WRONLY)
        start = time.perf_counter()
        os.write(fd, b"g")
        os.close(fd)
        return start

    def seconds(self, timeout: float = TIMEOUT) -> float:
        """The child's own measure: go to the terminal's answer to its final query."""
        deadline = time.monotonic() + timeout
        while not self.result.exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the benchmark child never got its answer")
            time.sleep(0.005)
        return float(self.result.read_text())

    def done(self) -> bool:
        return self.result.exists()

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def _queries(data: bytes) -> int:
    """Cursor position queries (CPR, DECXCPR) in ``data``."""
    return data.count(b"\x1b[6n") + data.count(b"\x1b[?6n")


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


@contextmanager
def _tmux_server(cols: int, rows: int):
    sock = f"tether-bench-{os.getpid()}-{time.monotonic_ns()}"
    conf = Path(tempfile.mkstemp(prefix="tether-bench-tmux-", suffix=".conf")[1])
    conf.write_text("set -g status off\nset -g history-limit 5000\n")
    base = ["tmux", "-L", sock, "-f", str(conf)]
    try:
        yield base
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
        conf.unlink(missing_ok=True)


def tmux_seconds(workload: Workload) -> float:
    """Seconds tmux (detached, same size) takes to consume the workload."""
    run = ChildRun()
    try:
        with _tmux_server(workload.cols, workload.rows) as base:
            cmd = " ".join(f"'{a}'" for a in run.argv(workload, hold=True))
            subprocess.run(
                [
                    *base,
                    "new-session",
                    "-d",
                    "-x",
                    str(workload.cols),
                    "-y",
                    str(workload.rows),
                    "-s",
                    "bench",
                    cmd,
                ],
                check=True,
                env={**os.environ, "TERM": "xterm-256color"},
            )
            run.go()
            return run.seconds()
    finally:
        run.cleanup()


def raw_pty_seconds(workload: Workload) -> float:
    """Seconds a plain reader of the PTY master takes to drain the workload (no parsing)."""
    import ptyprocess

    run = ChildRun()
    size = (workload.rows, workload.cols)
    proc = ptyprocess.PtyProcess.spawn(run.argv(workload), dimensions=size)
    fd = proc.fd
    try:
        run.go()
        data = workload.data()
        queries = _queries(data) + 1
        tail = b""
        while queries and not run.done():
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError:
                break
            if not chunk:
                break
            # Answer cursor queries as they come (a query cut by a read is seen in the tail).
            seen = _queries(tail + chunk) - _queries(tail)
            if seen:
                os.write(fd, b"\x1b[1;1R" * seen)
                queries -= seen
            tail = chunk[-4:]
        return run.seconds()
    finally:
        proc.close(force=True)
        run.cleanup()


if __name__ == "__main__":
    for w in flood_workloads():
        mb = w.size / 1e6
        line = f"{w.name:12} {mb:7.1f} MB"
        raw = raw_pty_seconds(w)
        line += f"  raw PTY {mb / raw:7.1f} MB/s"
        if tmux_available():
            t = tmux_seconds(w)
            line += f"  tmux {mb / t:6.1f} MB/s"
        print(line)
