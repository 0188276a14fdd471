"""tether's answers to a child's colour queries: OSC 10/11 (foreground, background) and
OSC 4 (the palette), with the user's terminal's own colours where it gave them at start
(:mod:`~supervisor.terminal.outer_terminal`), else tether's configured pair."""

from __future__ import annotations

import re

__all__ = ["ColourAnswers", "rgb_spec"]


def rgb_spec(colour: str) -> str:
    """``#rrggbb`` -> the X11 ``rgb:rrrr/gggg/bbbb`` form OSC 10/11 replies use."""
    h = colour.lstrip("#")
    if not re.fullmatch(r"[0-9a-fA-F]{6}", h):
        raise ValueError(f"colour must be #rrggbb, got {colour!r}")
    return "rgb:" + "/".join(h[i : i + 2].lower() * 2 for i in (0, 2, 4))


class ColourAnswers:
    """The replies (bytes) to one OSC colour query, ended as the query was (BEL or ST)."""

    def __init__(self, foreground: str, background: str) -> None:
        self._fg = rgb_spec(foreground)
        self._bg = rgb_spec(background)
        self._palette: dict[int, str] = {}  # OSC 4: only what the user's terminal said

    def follow(
        self, foreground: str | None, background: str | None, palette: dict[int, str]
    ) -> None:
        """The user's terminal's colours (``#rrggbb``); None keeps the configured one."""
        if foreground:
            self._fg = rgb_spec(foreground)
        if background:
            self._bg = rgb_spec(background)
        self._palette = {index: rgb_spec(colour) for index, colour in palette.items()}

    def answer(self, code: str, arg: str, term: str) -> list[bytes]:
        """Replies to OSC ``code;arg`` (none when it is no query this answers)."""
        if code in ("10", "11") and arg == "?":
            spec = self._fg if code == "10" else self._bg
            return [f"\x1b]{code};{spec}{term}".encode()]
        if code != "4" or not self._palette:
            return []
        replies = []
        pairs = arg.split(";")
        for index, spec in zip(pairs[::2], pairs[1::2], strict=False):
            if spec == "?" and index.isdigit() and int(index) in self._palette:
                replies.append(f"\x1b]4;{int(index)};{self._palette[int(index)]}{term}".encode())
        return replies
