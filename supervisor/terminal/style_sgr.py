"""The SGR sequence that sets a cell style from scratch: what tether writes (sgr.py reads).

Two writers need it: the early painter draws the agent's rows before the app runs, and
the avt backend writes a pen back after it repairs a scroll region. Both say it this way.
"""

from __future__ import annotations

from supervisor.terminal.emulator import DEFAULT_STYLE, CellStyle


def style_sgr(style: CellStyle) -> str:
    """``ESC [ 0 ; ... m``: reset, then the style's attributes and colours."""
    if style == DEFAULT_STYLE:
        return "\x1b[0m"
    params = ["0"]
    flags = (
        (style.bold, "1"),
        (style.dim, "2"),
        (style.italic, "3"),
        (style.underline, "4"),
        (style.blink, "5"),
        (style.reverse, "7"),
        (style.strike, "9"),
        (style.conceal, "8"),
        (style.overline, "53"),
    )
    params += [code for on, code in flags if on]
    if style.underline_style > 1:  # double, curly, dotted, dashed
        params[params.index("4")] = f"4:{style.underline_style}"
    for colour, base in ((style.fg, "38"), (style.bg, "48"), (style.underline_color, "58")):
        if colour is None:
            continue
        if colour.startswith("#"):
            r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
            params.append(f"{base};2;{r};{g};{b}")
        elif colour.startswith("color"):
            params.append(f"{base};5;{int(colour[5:])}")
    return f"\x1b[{';'.join(params)}m"
