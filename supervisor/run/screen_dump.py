"""``TETHER_SCREEN_DUMP=<path>``: the agent's screen as text in a file, for the e2e tests.

The fidelity tests compare what tether's emulator shows with tmux; the dump is
written atomically and only when the text changed.
"""

from __future__ import annotations

from pathlib import Path

from supervisor import environment
from supervisor.errors import TetherError
from supervisor.store import fsio

ENV = environment.SCREEN_DUMP


class ScreenDump:
    """Writes the screen text to ``$TETHER_SCREEN_DUMP`` when it changed."""

    def __init__(self) -> None:
        self._written: str | None = None  # "" after a failed write: say it once

    @staticmethod
    def asked() -> bool:
        """Whether a dump is asked for: the screen's text need not be made otherwise."""
        return bool(environment.current().screen_dump)

    def write(self, display: list[str]) -> str | None:
        """Write ``display`` if the dump is asked for and changed; a problem to report, once."""
        path = environment.current().screen_dump
        if not path:
            return None
        text = "\n".join(display) + "\n"
        if text == self._written:
            return None
        try:
            fsio.atomic_write_text(Path(path), text)
        except TetherError as error:
            first = self._written != ""
            self._written = ""
            return f"{ENV} not written: {error}" if first else None
        self._written = text
        return None
