"""The child every throughput benchmark runs in a terminal: it writes a workload, times itself.

    python bench/pty_child.py WORKLOAD GO_FIFO RESULT_FILE [--hold] [--repeat N]

It puts its terminal in raw mode (so the bytes arrive unchanged: no LF -> CRLF),
waits for one byte on ``GO_FIFO`` (start-up is not timed), writes the workload
as fast as the terminal takes it, then the end marker and a cursor position
query (``CSI 6n``). The terminal answers that query only after it has parsed
everything before it, so the time from "go" to the answer is the time the
terminal needed to consume the whole workload; tether, tmux and the raw PTY
copy are all timed the same way. The seconds go to ``RESULT_FILE``.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty

CHUNK = 64 * 1024
QUERY = b"\x1b[6n"


def main() -> int:
    workload, go_fifo, result_file = sys.argv[1:4]
    hold = "--hold" in sys.argv[4:]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    with open(workload, "rb") as f:
        data = f.read()
    # The terminal answers every cursor query in the workload too: wait for one answer more.
    answers = (data.count(b"\x1b[6n") + data.count(b"\x1b[?6n")) * repeat + 1
    out = sys.stdout.fileno()
    tty.setraw(sys.stdin.fileno(), termios.TCSANOW)
    with open(go_fifo, "rb") as go:
        go.read(1)
    start = time.perf_counter()
    for _ in range(repeat):
        view = memoryview(data)
        while view:
            written = os.write(out, view[:CHUNK])
            view = view[written:]
    os.write(out, QUERY)
    reply = b""
    while reply.count(b"R") < answers:
        ready, _, _ = select.select([0], [], [], 120)
        if not ready:
            break
        reply += os.read(0, 4096)
    elapsed = time.perf_counter() - start
    with open(result_file + ".tmp", "w") as f:
        f.write(f"{elapsed:.6f}\n")
    os.replace(result_file + ".tmp", result_file)
    if hold:
        time.sleep(600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
