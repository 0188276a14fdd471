"""The escape text that moves avt's screens when a child ends or a new one starts.

A child that dies on the alternate screen leaves its last frame there, but the next
child must start on the main screen, as in a new terminal: the frame is redrawn on
the main screen (:func:`frame_text`) after the main screen's own lines went into the
scrollback (:func:`page_text`), so the user still sees the last frame and no line is
lost. When the next child starts, the screen scrolls into the scrollback the same
way, and the child draws on a blank page.
"""

from __future__ import annotations

from supervisor.terminal.avt_pens import pen_sgr

# What DECSTR resets, and the margins: the pen, G0 charset, insert and linefeed modes,
# reverse video, origin mode, autowrap, the scroll region (which homes the cursor).
SOFT_RESET = "\x1b[0m\x1b(B\x1b[4l\x1b[20l\x1b[?5l\x1b[?6l\x1b[?7h\x1b[r"


def last_text_row(lines) -> int:
    """The last row with any text on it, -1 when the screen is blank."""
    for y in range(len(lines) - 1, -1, -1):
        if lines[y].text.strip():
            return y
    return -1


def page_text(lines, rows: int) -> str:
    """Scroll every row down to the last with text off the top (into the scrollback),
    then clear and home: the text for a blank page with nothing lost."""
    used = last_text_row(lines) + 1
    scroll = f"\x1b[{rows};1H" + "\n" * used if used else ""
    return f"\x1b[0m{scroll}\x1b[2J\x1b[H"


def frame_text(lines) -> str:
    """Redraw ``lines`` (avt's rows of one screen, with their pens) from the top left,
    leaving the cursor at the start of the row under the last text."""
    out = ["\x1b[0m\x1b[2J"]
    last = last_text_row(lines)
    for y in range(last + 1):
        line = lines[y]
        if not line.text.strip():
            continue
        out.append(f"\x1b[{y + 1};1H")
        pen = None
        for cell in line.cells:
            if cell.width == 0:
                continue  # the second column of a wide character
            if pen is None or cell.pen != pen:
                pen = cell.pen
                out.append(pen_sgr(pen))
            out.append(cell.char)
        out.append("\x1b[0m")
    out.append(f"\x1b[{min(last + 2, len(lines))};1H")
    return "".join(out)
