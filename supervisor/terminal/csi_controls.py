"""A control sequence with C0 controls inside it, taken apart as xterm does."""

from __future__ import annotations

__all__ = ["controls_inside"]


def controls_inside(text: str, i: int) -> tuple[str, str, int] | None:
    """The CSI at ``text[i]`` holds C0 controls: as in xterm (vttest 1.4), each control acts
    where it stands and the sequence goes on without it.

    Returns (the controls a screen draws: BS, HT, LF, CR..., the sequence without them or
    "" when it was aborted, where the next text starts); None when the text ends inside
    it. CAN and SUB abort the sequence, an ESC starts another, a non-ASCII character
    abandons it.
    """
    kept: list[str] = []
    controls: list[str] = []
    n = len(text)
    j = i + 2
    while j < n:
        c = text[j]
        if "0" <= c <= "?" or " " <= c <= "/":
            kept.append(c)
        elif "@" <= c <= "~":
            break
        elif c in "\x18\x1a":
            return _drawn(controls), "", j + 1
        elif c == "\x1b" or c > "\x7f":
            return _drawn(controls), "", j
        elif c != "\x7f":
            controls.append(c)
        j += 1
    else:
        return None
    return _drawn(controls), "\x1b[" + "".join(kept) + text[j], j + 1


def _drawn(controls: list[str]) -> str:
    return "".join(c for c in controls if "\x07" <= c <= "\x0f")
