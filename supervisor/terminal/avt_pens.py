"""avt's pens as tether's cell styles and as the SGR that sets them again.

The view paints styles; the scroll-region repair writes a pen back as SGR.
"""

from __future__ import annotations

from functools import lru_cache

import avt

from supervisor.terminal.emulator import DEFAULT_STYLE, CellStyle
from supervisor.terminal.style_sgr import style_sgr


def colour(c) -> str | None:
    if c is None:
        return None
    if type(c) is avt.Color.RGB:
        return f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"
    return f"color{c[0]}"


def pen_style(pen) -> CellStyle:
    if pen.is_default():
        return DEFAULT_STYLE
    return _style(
        colour(pen.foreground),
        colour(pen.background),
        pen.bold,
        pen.faint,
        pen.italic,
        pen.underline,
        pen.inverse,
        pen.strikethrough,
        pen.blink,
    )


@lru_cache(maxsize=1024)
def _style(*key) -> CellStyle:
    style = CellStyle(*key)
    return DEFAULT_STYLE if style == DEFAULT_STYLE else style


def pen_sgr(pen) -> str:
    """The SGR that sets ``pen`` from scratch."""
    return style_sgr(pen_style(pen))


def colour_sgr(colour, base: str) -> str:
    if type(colour) is avt.Color.RGB:
        return f"{base};2;{colour[0]};{colour[1]};{colour[2]}"
    return f"{base};5;{colour[0]}"


def bg_only(pen) -> bool:
    return pen.foreground is None and not (
        pen.bold
        or pen.faint
        or pen.italic
        or pen.underline
        or pen.blink
        or pen.inverse
        or pen.strikethrough
    )
