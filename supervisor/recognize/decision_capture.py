"""Lines that may hold `DECISION:`, typed by the user or printed by the agent, for pinning.

The user's keys are followed as far as a line editor would (backspace, ctrl+c,
ctrl+u, a bracketed paste), so a submitted line is known; the line still being
typed is kept too, because the injector must not paste into it. The agent's
output is only turned into row text in the second after the bytes `DECISION:`
went by, so the hot path does not pay for it. Which lines are decisions, and
pinning them, is the store's (``notes.decision_lines``, ``TetherDir.add_decisions``).
"""

from __future__ import annotations

from typing import Protocol

MARK = b"DECISION:"
LOOK_FOR = 1.0  # seconds after MARK went by: the line may be finished in the next reads


class _Cursor(Protocol):
    @property
    def y(self) -> int: ...


class Screen(Protocol):
    """What the capture reads of the emulator."""

    rows: int

    @property
    def cursor(self) -> _Cursor: ...

    def row_text(self, y: int) -> str: ...


class DecisionCapture:
    """Candidate lines from the user's keys and from the agent's screen."""

    def __init__(self) -> None:
        self.typed = ""  # the line the user is typing, not yet submitted
        self._tail = b""
        self._until = 0.0
        self._unfinished_rows: set[int] = set()

    def keys(self, data: bytes) -> list[str]:
        """The lines these keys submitted."""
        text = data.decode("utf-8", "ignore")
        if text.startswith("\x1b[200~"):
            text = text[6:].removesuffix("\x1b[201~")
        elif text.startswith("\x1b"):
            return []
        submitted: list[str] = []
        for char in text:
            if char in "\r\n":
                submitted.append(self.typed)
                self.typed = ""
            elif char in "\x7f\x08":
                self.typed = self.typed[:-1]
            elif char in "\x03\x15":
                self.typed = ""
            elif char >= " ":
                self.typed += char
        return submitted

    def output(self, data: bytes, now: float, dirty: set[int], screen: Screen) -> list[str]:
        """Rows showing `DECISION:` that the cursor has left, in the second after it went by.

        A row still under the cursor is looked at again once the cursor has left
        it (the line feed may come in a later read that changes no cell of it).
        """
        # Only the seam is joined: copying the whole read would cost every read.
        if MARK in data or MARK in self._tail + data[:8]:
            self._until = now + LOOK_FOR
        self._tail = data[-8:]
        if now >= self._until or not (dirty or self._unfinished_rows):
            return []
        cursor_row = screen.cursor.y
        rows = {y for y in dirty | self._unfinished_rows if 0 <= y < screen.rows}
        self._unfinished_rows = set()
        lines = []
        for y in rows:
            text = screen.row_text(y)
            if "DECISION:" not in text:
                continue
            if y == cursor_row:
                self._unfinished_rows.add(y)
            else:
                lines.append(text.strip())
        return lines
