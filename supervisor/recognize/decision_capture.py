"""Which `DECISION:` lines to pin, from what was visibly on the agent's screen.

A decision is pinned once, whole, and only if a person could have read it:

* **Typed** (source ``typed``): the user's keys give the whole text, but only
  once the screen shows it. A line typed at a prompt that does not echo
  (``read -s``, a password prompt) never appears, so it is never pinned: the
  keys alone prove nothing about what the user meant to be seen.
* **Printed** (source ``screen``): the agent's logical line, that is the row
  holding ``DECISION:`` joined with the rows it continues on: soft wraps the
  terminal made (the emulator's ``continued_rows``) and the agents' own hard
  wraps, continuation rows indented to where ``DECISION:`` starts. A line is
  taken only once it is finished (the cursor has left it), and a line that is
  the start of a decision already taken (the first row of a wrapped echo) is a
  fragment, never a decision of its own.

It is only looked for in the second after the bytes ``DECISION:`` went by, or
after the user typed one, so the hot path does not turn rows into text for it.
The user's keys are followed as far as a line editor would (backspace, ctrl+c,
ctrl+u, a bracketed paste); the line still being typed is kept too, because the
injector must not paste into it. Pinning is the store's (``TetherDir.add_decisions``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

TYPED = "typed"
SCREEN = "screen"
MARKER = "DECISION:"
WINDOW = 1.0  # seconds after `DECISION:` went by in which rows are looked at
ECHO_WAIT = 2.0  # seconds a typed decision waits for the screen to show it
# A line starting DECISION:, allowing a list bullet, the agents' message bullets or their
# prompt glyphs; the decision itself starts with a word or a quote (not "DECISION:, /x").
_DECISION_LINE = re.compile(r"^\s*(?:[-*>•●⏺❯›]\s*)?DECISION:\s*([\w\"'`(\[].*)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BOX = re.compile(r"[│┃║╭╮╰╯─━═┌┐└┘|]")
_BULLETS = tuple("-*>•●⏺❯›")
# GitHub Copilot CLI echoes a prompt with the time right-aligned at the end of its first row
# ("❯ DECISION: ...      20:47"): not part of what was typed.
_ROW_CLOCK = re.compile(r"\s{3,}\d{1,2}:\d{2}\s*$")
# The same clock inside a logical line (its first row joined with the next in a redraw).
_CLOCK = re.compile(r"\s{3,}\d{1,2}:\d{2}(?=\s|$)")


def _row(emulator: Screen, y: int) -> str:
    """Row ``y`` as text, without a clock an agent printed at its right end."""
    return _ROW_CLOCK.sub("", emulator.row_text(y))


def decision_lines(lines: list[str] | tuple[str, ...]) -> list[str]:
    """The texts of ``DECISION: ...`` lines among screen or typed lines, in order, deduplicated."""
    found: list[str] = []
    for line in lines:
        match = _DECISION_LINE.match(_CONTROL.sub("", line))
        text = match.group(1).rstrip() if match else ""
        if text and text not in found:
            found.append(text)
    return found


class _Cursor(Protocol):
    @property
    def y(self) -> int: ...


class Screen(Protocol):
    """What the capture reads of the emulator (``continued_rows`` too, where it has it)."""

    rows: int

    @property
    def cursor(self) -> _Cursor: ...

    def row_text(self, y: int) -> str: ...


def _bare(text: str) -> str:
    """Text without box edges or any whitespace: what survives any wrapping."""
    return "".join(_BOX.sub("", text).split())


@dataclass(slots=True)
class _Pending:
    text: str
    deadline: float


class DecisionCapture:
    """Feed it the user's keys and the agent's output; it says which decisions to pin."""

    def __init__(self) -> None:
        self._typed = ""
        self._submitted: list[str] = []  # lines finished with Enter since the last take
        self._pending: list[_Pending] = []
        self._taken: list[str] = []  # decisions taken this session, bare, for fragments
        self._until = 0.0
        self._tail = b""
        self._unfinished: set[int] = set()

    # -- the user's keys -----------------------------------------------------------

    @property
    def typed(self) -> str:
        """The line the user is typing now (since the last Enter), as far as keys tell."""
        return self._typed

    def keys(self, data: bytes, now: float) -> None:
        """Keys sent to the agent: a finished line starting ``DECISION:`` waits for its echo."""
        text = data.decode("utf-8", "ignore")
        if text.startswith("\x1b[200~"):
            text = text[6:].removesuffix("\x1b[201~")
        elif text == "\x1b\x7f":  # alt+backspace: the last word goes
            self._typed = _without_last_word(self._typed)
            return
        elif text.startswith("\x1b"):
            return
        for char in text:
            if char in "\r\n":
                self._submitted.append(self._typed)
                del self._submitted[:-8]
                for found in decision_lines([self._typed]):
                    self._pending.append(_Pending(found, now + ECHO_WAIT))
                    self._until = max(self._until, now + ECHO_WAIT)
                self._typed = ""
            elif char in "\x7f\x08":
                self._typed = self._typed[:-1]
            elif char in "\x03\x15":
                self._typed = ""
            elif char == "\x17":  # ctrl+w
                self._typed = _without_last_word(self._typed)
            elif char >= " ":
                self._typed += char

    def take_submitted(self) -> list[str]:
        """The lines the user finished with Enter since the last call (a slash command's
        words, for :mod:`supervisor.recognize.typed_commands`)."""
        lines, self._submitted = self._submitted, []
        return lines

    # -- the agent's output --------------------------------------------------------

    def output(
        self, data: bytes, now: float, dirty: Iterable[int], emulator: Screen
    ) -> list[tuple[str, str]]:
        """Decisions to pin after this output, as ``(text, source)``, each once."""
        # Only the seam is joined: copying the whole read would cost every read.
        if MARKER.encode() in data or MARKER.encode() in self._tail + data[:8]:
            self._until = now + WINDOW  # the line may be finished in the next reads
        self._tail = data[-8:]
        self._pending = [p for p in self._pending if now < p.deadline]  # never shown: dropped
        dirty = set(dirty)
        if now >= self._until or not (dirty or self._unfinished or self._pending):
            return []
        return self.look(emulator, now, dirty)

    def look(self, emulator: Screen, now: float, dirty: set[int]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        if self._pending:
            # Without any whitespace: however the agent wrapped or indented the echo
            # (even inside a word), the typed text is on the screen or it is not.
            screen = _bare(_screen_text(emulator))
            for pending in list(self._pending):
                if _bare(f"{MARKER}{pending.text}") in screen:
                    self._pending.remove(pending)
                    found += self._take(pending.text, TYPED)
        rows = {y for y in dirty | self._unfinished if 0 <= y < emulator.rows}
        self._unfinished = set()
        if rows:
            for text in self._printed_lines(emulator, rows):
                for decision in decision_lines([text]):
                    if not self._is_fragment(decision):
                        found += self._take(decision, SCREEN)
        return found

    def _printed_lines(self, emulator: Screen, rows: set[int]) -> list[str]:
        """The finished logical lines holding ``DECISION:`` that touch ``rows``."""
        texts = [_row(emulator, y) for y in range(emulator.rows)]
        continued = _continued(emulator)
        cursor_row = emulator.cursor.y
        lines: list[str] = []
        starts: set[int] = set()
        for y in sorted(rows):
            if MARKER not in texts[y]:
                continue
            first = y
            while first in continued and first > 0:
                first -= 1
            if first in starts:
                continue
            starts.add(first)
            last = first
            while last + 1 in continued:
                last += 1
            text = "".join(texts[first : last + 1])
            column = text.find(MARKER)
            while last + 1 < len(texts) and _continues(texts[last + 1], column):
                last += 1
                text = text.rstrip() + " " + texts[last].strip()
                while last + 1 in continued:
                    last += 1
                    text += texts[last]
            if first <= cursor_row <= last:
                self._unfinished.add(y)  # still being written: look again when the cursor leaves
                continue
            lines.append(_CLOCK.sub("", text).strip())
        return lines

    def _is_fragment(self, decision: str) -> bool:
        """The start of (or the same as) a decision taken or typed: compared without
        whitespace, so the agent's own wrapping of an echo does not make it new."""
        bare = _bare(decision)
        candidates = self._taken + [_bare(p.text) for p in self._pending]
        return any(taken.startswith(bare) for taken in candidates)

    def _take(self, decision: str, source: str) -> list[tuple[str, str]]:
        bare = _bare(decision)
        if bare in self._taken:
            return []
        self._taken.append(bare)
        del self._taken[:-200]  # a session's worth; older ones are in notes.md anyway
        return [(decision, source)]


def _continued(emulator: Screen) -> set[int]:
    """Rows the terminal soft-wrapped onto from the row above (an emulator may not know)."""
    continued_rows = getattr(emulator, "continued_rows", None)
    return continued_rows() if continued_rows is not None else set()


def _screen_text(emulator: Screen) -> str:
    """The whole screen as text, soft-wrapped rows joined without a break."""
    continued = _continued(emulator)
    parts: list[str] = []
    for y in range(emulator.rows):
        if y and y not in continued:
            parts.append("\n")
        parts.append(_row(emulator, y))
    return "".join(parts)


def _continues(row: str, column: int) -> bool:
    """Whether ``row`` is an agent's hard-wrapped continuation of a ``DECISION:`` line
    that starts at ``column``: indented to that column, and not a new item or decision."""
    if column <= 0 or not row.strip():
        return False
    indent = len(row) - len(row.lstrip(" "))
    body = row.strip()
    return indent == column and not body.startswith(_BULLETS) and MARKER not in body


def _without_last_word(text: str) -> str:
    kept = text.rstrip()
    return kept[: len(kept) - len(kept.split(" ")[-1])]
