"""A recording (`.cast`) rendered back into the plain text a person or an agent reads.

The `.txt` beside a recording holds only the lines that scrolled off the top and,
after a clean exit, the last screen: whatever an agent drew in place and then
erased, and everything on screen when tether was killed, is not in it. This
replays the `.cast` through the emulator instead and writes out every line that
scrolled off, each screen as it was just before it was cleared (``ESC[2J``,
``ESC c``, leaving the alternate screen), the recording's markers, and the last
screen, so the brute-force recovery ("read the transcript and catch up") has the
whole conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from supervisor.errors import TetherError
from supervisor.terminal.emulator import Emulator

# Sequences after which what was on screen is gone: erase display (all / with the
# scrollback), a reset, home then erase below or erase the first line (how Claude Code
# clears: home, then erase line and down, row by row), leaving the alternate screen.
CLEARS = re.compile(r"\x1b\[[23]J|\x1bc|\x1b\[(?:1;1)?H\x1b\[(?:0?J|2K)|\x1b\[\?(?:1049|1047|47)l")
# A sequence cut at the end of an event: held back to the next one, so a clear split
# across two reads is still seen.
PARTIAL = re.compile(r"\x1b(?:\[[0-9;?]*(?:H\x1b?\[?[0-9]*)?)?$")
MAX_LINE = 64 * 1024 * 1024  # a cast line longer than the recorder's own cap is not ours


# A recording's screen is drawn at most this big: a header or a resize asking for more
# (65535x65535 is 4 billion cells) is drawn at this size instead, and the transcript says so.
MAX_COLS = 500
MAX_ROWS = 200


# The clears after which the whole screen is blank, so none of its rows needs reading.
_BLANKING = re.compile(r"\x1b\[2J|\x1bc")


class _Rows:
    """The screen's rows as text, kept up to date from the rows the emulator says changed.

    Reading the whole screen at every clear made a recording of many full-screen clears
    take minutes (and far longer on a big screen); this reads only the rows drawn since,
    so the work stays in step with the recording's length, not with the screen's size.
    """

    def __init__(self, emulator: Emulator) -> None:
        self._emulator = emulator
        if hasattr(emulator, "sync_timeout"):
            emulator.sync_timeout = 0.0  # a transcript sees each row as drawn, never held
        self._rows = list(emulator.display())
        emulator.take_dirty()

    def refresh(self) -> None:
        emulator = self._emulator
        dirty = emulator.take_dirty()
        if len(self._rows) != emulator.rows:  # resized: read it all, once
            self._rows = list(emulator.display())
            return
        for y in dirty:
            if 0 <= y < len(self._rows):
                self._rows[y] = emulator.row_text(y).rstrip()

    def blank(self) -> None:
        """After a clear of the whole screen every row is empty: none needs reading."""
        self._emulator.take_dirty()
        self._rows = [""] * len(self._rows)

    def screen(self) -> list[str]:
        """The rows with text, from the first to the last; a run of empty rows between
        them is shown as one (a huge screen with two lines is two lines and a gap)."""
        rows = self._rows
        used = [y for y, row in enumerate(rows) if row.strip()]
        if not used:
            return []
        out: list[str] = []
        for y in range(used[0], used[-1] + 1):
            if rows[y].strip() or (out and out[-1].strip()):
                out.append(rows[y])
        return out


def _bounded(cols: int, rows: int) -> tuple[int, int]:
    return min(cols, MAX_COLS), min(rows, MAX_ROWS)


def cast_events(handle: BinaryIO, name: str) -> Iterator[tuple[int, list]]:
    """``(line number, event)`` of each event line of the recording open as ``handle``
    (``name`` names it in messages), after its header.

    A torn last line (a recording cut by SIGKILL) is skipped; any other line that is not an
    asciicast event, or is longer than any the recorder writes, raises :class:`TetherError`
    naming the file and the line."""
    pending: tuple[int, bytes] | None = None
    number = 1
    while True:
        raw = handle.readline(MAX_LINE + 1)
        if not raw:
            break
        number += 1
        if len(raw) > MAX_LINE:
            raise TetherError(f"{name}:{number}: a line longer than {MAX_LINE} bytes")
        if pending is not None:
            yield _event(name, *pending)
        pending = (number, raw)
    if pending is not None:
        number, raw = pending
        if raw.endswith(b"\n"):
            yield _event(name, number, raw)
        else:
            try:  # torn: keep it only if it happens to be whole
                yield _event(name, number, raw)
            except TetherError:
                return


def _event(name: str, number: int, raw: bytes) -> tuple[int, list]:
    try:
        event = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        event = None
    if not (isinstance(event, list) and len(event) == 3 and isinstance(event[2], str)):
        raise TetherError(f"{name}:{number}: not an asciicast event: {raw[:60]!r}")
    if not isinstance(event[0], int | float) or not isinstance(event[1], str):
        raise TetherError(f"{name}:{number}: not an asciicast event: {raw[:60]!r}")
    return number, event


def header_size(handle: BinaryIO, name: str) -> tuple[int, int]:
    """The recording's first screen size, from its header line (read from ``handle``)."""
    try:
        header = json.loads(handle.readline(MAX_LINE))
        if header.get("version") != 2:
            raise ValueError
        cols, rows = int(header["width"]), int(header["height"])
        if not (0 < cols <= 65_535 and 0 < rows <= 65_535):  # more is drawn at MAX_COLS...
            raise ValueError
        return cols, rows
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise TetherError(f"{name}:1: not an asciicast v2 header with a width and height") from None


def render(
    handle: BinaryIO, name: str, make_emulator: Callable[[int, int], Emulator]
) -> Iterator[str]:
    """The transcript of the recording open as ``handle``, line by line (without newlines)."""
    asked = header_size(handle, name)
    cols, rows = _bounded(*asked)
    if (cols, rows) != asked:
        yield f"--- the recording is {asked[0]}x{asked[1]}: shown at {cols}x{rows} ---"
    emulator = make_emulator(cols, rows)
    shown = _Rows(emulator)
    carry = ""
    last_shown: list[str] | None = None

    def feed(text: str) -> Iterable[str]:
        if text:
            yield from emulator.feed(text.encode("utf-8", "replace")).scrolled_off

    def cleared(at: float) -> Iterable[str]:
        nonlocal last_shown
        shown.refresh()
        screen = shown.screen()
        if screen and screen != last_shown:
            last_shown = screen
            yield f"--- the screen at {at:.1f} s, before it was cleared ---"
            yield from screen
            yield "---"

    at = 0.0
    for _number, (at, code, data) in cast_events(handle, name):
        if code == "o":
            text, carry = carry + data, ""
            cut = PARTIAL.search(text)
            if cut is not None:
                text, carry = text[: cut.start()], text[cut.start() :]
            start = 0
            for match in CLEARS.finditer(text):
                yield from feed(text[start : match.start()])
                yield from cleared(float(at))
                start = match.start()
                yield from feed(text[start : match.end()])
                if _BLANKING.fullmatch(match.group()):
                    shown.blank()
                start = match.end()
            yield from feed(text[start:])
        elif code == "r":
            size = re.fullmatch(r"(\d{1,5})x(\d{1,5})", data)
            if size and int(size.group(1)) > 0 and int(size.group(2)) > 0:
                wanted = (int(size.group(1)), int(size.group(2)))
                bounded = _bounded(*wanted)
                if bounded != wanted:
                    yield (
                        f"--- resized to {wanted[0]}x{wanted[1]} at {float(at):.1f} s: "
                        f"shown at {bounded[0]}x{bounded[1]} ---"
                    )
                emulator.resize(*bounded)
        elif code == "m":
            label = "".join(c for c in data if c.isprintable())
            yield f"--- marker at {float(at):.1f} s: {label} ---"
    yield from feed(carry)
    shown.refresh()
    screen = shown.screen()
    if screen:
        yield f"--- the last screen, at {float(at):.1f} s ---"
        yield from screen


def sessions(sessions_dir: Path) -> list[Path]:
    """The recordings in ``sessions_dir``, oldest first by when they were last written on
    this machine (their inode's change time, which no archive or checkout can set back
    or forward), then by name."""
    try:
        found = [p for p in sessions_dir.glob("*.cast") if p.is_file() and not p.is_symlink()]
        return sorted(found, key=lambda p: (p.stat().st_ctime_ns, p.name))
    except OSError:
        return []


def find_session(sessions_dir: Path, wanted: str | None, current: str | None = None) -> Path:
    """The recording named ``wanted`` (a file name, its stem, or a unique part of it), or
    else the one the running tether is writing (``current``, from its lock), or else the
    one written last.

    Not the newest by name: a clone can ship ``sessions/9999-….cast``, and the recovery
    payload tells the agent to read the transcript."""
    found = sessions(sessions_dir)
    if not found:
        raise TetherError(f"no recordings in {sessions_dir}; `tether run` records each session")
    if wanted is None:
        live = [p for p in found if current is not None and p.name == current]
        return live[0] if live else found[-1]
    exact = [p for p in found if wanted in (p.name, p.stem)]
    matches = exact or [p for p in found if wanted in p.name]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(p.stem for p in (matches or found)[-5:])
    if not matches:
        raise TetherError(f"no recording matches {wanted!r} in {sessions_dir}; the last: {names}")
    raise TetherError(f"{wanted!r} matches {len(matches)} recordings ({names}); say which")
