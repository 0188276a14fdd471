"""``TETHER_SCREEN_DUMP=<path>``: the agent's screen as text in a file, for the e2e tests.

The fidelity tests compare what tether's emulator shows with tmux; the dump is
written atomically, only when the text changed, and never on the event loop.
"""

from __future__ import annotations

import threading
from pathlib import Path

from supervisor import environment
from supervisor.errors import TetherError
from supervisor.store import fsio

ENV = environment.SCREEN_DUMP


class ScreenDump:
    """Writes the screen text to ``$TETHER_SCREEN_DUMP`` when it changed, off the loop.

    The loop hands the text over (:meth:`take`, in the tick's apply half); the tick's
    read half, on a worker thread, writes it (:meth:`write_taken`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken: str | None = None  # the last text handed over; "" after a failed write
        self._due: tuple[str, str] | None = None  # (path, text) not written yet
        self._failed = False  # a failure was said: say the next one only after a success

    @staticmethod
    def asked() -> bool:
        """Whether a dump is asked for: the screen's text need not be made otherwise."""
        return bool(environment.current().screen_dump)

    def take(self, display: list[str]) -> None:
        """On the loop: ``display`` is to be written, if the dump is asked for and changed."""
        path = environment.current().screen_dump
        if not path:
            return
        text = "\n".join(display) + "\n"
        with self._lock:
            if text == self._taken:
                return
            self._taken = text
            self._due = (path, text)

    def write_taken(self) -> str | None:
        """Off the loop: write what was taken; a problem to report, once."""
        with self._lock:
            due, self._due = self._due, None
        if due is None:
            return None
        path, text = due
        try:
            fsio.atomic_write_text(Path(path), text)
        except TetherError as error:
            with self._lock:
                if self._taken == text:
                    self._taken = ""  # the same screen is tried again at the next tick
                first, self._failed = not self._failed, True
            return f"{ENV} not written: {error}" if first else None
        self._failed = False
        return None
