"""The agent's first screens on the real terminal while the UI is still loading.

`tether run` spawns the agent before it imports Textual (see
``supervisor/run/launch.py``), but importing and laying out the UI takes a few
hundred milliseconds more, and until then nothing shows the agent's output. This
painter reads that output on a thread of its own, draws it with an emulator of
its own where the agent's view is going to be (the alternate screen, below the
banner row), and hands every byte it read back to the session
(:meth:`AgentSession.hand_back`), which then processes them as if it had read
them itself: the recorder, the detectors and the real emulator miss nothing.
It only paints: its emulator's replies to terminal queries are dropped (the
session answers them when it processes the bytes), and it reads no keys.
"""

from __future__ import annotations

import os
import select
import threading

from supervisor.terminal.emulator import Row
from supervisor.terminal.session import AgentSession
from supervisor.terminal.style_sgr import style_sgr

# Output read before the UI takes over is held in memory: past this, the painter
# stops reading and the PTY makes the agent wait, as it did before there was one.
HOLD_LIMIT = 1 << 20
ENTER = b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
LEAVE = b"\x1b[0m\x1b[?25h\x1b[?1049l"


class EarlyPainter:
    """Paints ``session``'s screen at row ``top`` of the terminal on ``out_fd`` until
    :meth:`finish`."""

    def __init__(self, session: AgentSession, *, top: int = 1, out_fd: int = 1) -> None:
        if session.host is None:
            raise ValueError("the agent has not been spawned")
        self.session = session
        self.top = top
        self.out_fd = out_fd
        self.painted = False  # the terminal is on the alternate screen, with our frame
        self.frames = 0
        self._chunks: list[bytes] = []
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="tether-early-paint", daemon=True)

    def start(self) -> EarlyPainter:
        self._thread.start()
        return self

    def finish(self) -> bytes:
        """Stop painting; every byte read from the agent so far, for the session."""
        if self._thread.is_alive():
            os.write(self._wake_w, b"x")
            self._thread.join()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        data, self._chunks = b"".join(self._chunks), []
        return data

    def release(self) -> None:
        """Give the terminal back as it was, when no UI took it over after all."""
        if self.painted:
            _write_all(self.out_fd, LEAVE)
            self.painted = False

    def _run(self) -> None:
        host = self.session.host
        shown = self.session.emulator
        emulator = type(shown)(shown.cols, shown.rows)
        emulator.follow(shown.outer)  # the user's terminal's widths, as the session's
        held = 0
        while held < HOLD_LIMIT:
            try:
                ready, _, _ = select.select([host.fd, self._wake_r], [], [])
            except (OSError, ValueError):
                return
            if self._wake_r in ready:
                return
            try:
                data = host.read_chunk(HOLD_LIMIT - held)
            except OSError:
                return
            if data is None:  # the agent closed its terminal: the session sees that too
                return
            if not data:
                continue
            self._chunks.append(data)
            held += len(data)
            emulator.feed(data)  # replies dropped: the session answers when it processes these
            rows = emulator.take_dirty()
            if rows:
                self._paint(emulator, rows)

    def _paint(self, emulator, rows: set[int]) -> None:
        out = [] if self.painted else [ENTER.decode()]
        for y in sorted(rows):
            out.append(f"\x1b[{self.top + y + 1};1H")
            out.append(row_sgr(emulator.row(y)))
        out.append("\x1b[0m")
        try:
            _write_all(self.out_fd, "".join(out).encode("utf-8", "replace"))
        except OSError:
            return
        self.painted = True
        self.frames += 1


def row_sgr(row: Row) -> str:
    """A row's spans as text with the SGR sequences that draw their styles."""
    return "".join(f"{style_sgr(span.style)}{span.text}" for span in row)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
