"""The emulator interface: bytes in, a screen of styled rows out.

Everything above the emulator (the terminal view, the screen detectors, the
recorder's plain text) talks to this interface only, so that a faster backend
can replace avt where the benchmarks demand it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from supervisor.terminal.outer_terminal import OuterTerminal


@dataclass(frozen=True, slots=True)
class CellStyle:
    """How a run of cells is drawn.

    Colours are ``None`` (the terminal default), ``"#rrggbb"`` for 24-bit
    colour, or ``"colorN"`` (N in 0..255) for the indexed palette, so that the
    view can map the 16 basic colours to its theme.
    """

    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strike: bool = False
    blink: bool = False
    conceal: bool = False  # SGR 8: drawn blank
    overline: bool = False  # SGR 53
    underline_style: int = 0  # SGR 4:n: 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
    underline_color: str | None = None  # SGR 58, as fg and bg


DEFAULT_STYLE = CellStyle()


@dataclass(frozen=True, slots=True)
class Span:
    """A run of text in one style. Wide characters count as two cells."""

    text: str
    style: CellStyle = DEFAULT_STYLE


Row = tuple[Span, ...]


@dataclass(slots=True)
class TerminalModes:
    """Modes the child switched on that the key encoder and injector honour."""

    bracketed_paste: bool = False
    focus_events: bool = False
    mouse_tracking: int = 0  # 0 off, else 1000, 1002 or 1003
    mouse_sgr: bool = False
    alt_screen: bool = False
    synchronized_output: bool = False
    cursor_visible: bool = True
    app_cursor_keys: bool = False
    app_keypad: bool = False
    cursor_shape: int = 0  # DECSCUSR: 0 the terminal's default, 1-6 block/underline/bar


@dataclass(slots=True)
class Cursor:
    x: int = 0
    y: int = 0
    visible: bool = True


@dataclass(slots=True)
class FeedResult:
    """What one call to :meth:`Emulator.feed` produced.

    ``replies`` are bytes to write back to the child (answers to terminal
    queries). ``scrolled_off`` are plain-text lines (trailing blanks stripped) that left
    the top of the main screen, oldest first, for the recorder and the scrollback. ``dirty``
    is filled by the session, which alone calls ``take_dirty()``, so that the
    view and the screen detectors both see every changed row.
    """

    replies: bytes = b""
    scrolled_off: list[str] = field(default_factory=list)
    bell: bool = False
    dirty: set[int] = field(default_factory=set)


class Emulator(Protocol):
    """A terminal screen fed with the child's raw output."""

    cols: int
    rows: int
    modes: TerminalModes

    @property
    def title(self) -> str: ...

    @property
    def agent_status(self) -> str:
        """The last OSC 7501 state report (Codex), "" before any."""
        ...

    outer: OuterTerminal  # the user's terminal as probed at start (see follow)

    def follow(self, outer: OuterTerminal) -> None:
        """Count emoji as the user's terminal draws them and answer colour queries with its
        colours (asked at start, :mod:`~supervisor.terminal.outer_terminal`)."""
        ...

    def feed(self, data: bytes, *, more: bool = False) -> FeedResult:
        """Parse a chunk of output (any split: sequences and UTF-8 carry over).

        ``more``: another feed follows before anyone looks (the reads of one turn), so
        the lines that scrolled off may be left for a later result; the next feed
        without it reports them all.
        """

    def resize(self, cols: int, rows: int) -> None: ...

    def process_ended(self) -> None:
        """The child is gone: its modes are reset, its last screen stays in view."""

    def new_page(self) -> None:
        """A new child starts: the screen goes into scrollback, the cursor home."""

    def take_dirty(self) -> set[int]:
        """Rows changed since the last call; empty while synchronized output holds."""

    @property
    def cursor(self) -> Cursor: ...

    def row(self, y: int) -> Row:
        """Styled spans of screen row ``y`` (0 = top of the visible screen)."""

    def row_text(self, y: int) -> str:
        """Plain text of screen row ``y``, wide characters once, trailing spaces kept."""

    def display(self) -> list[str]:
        """Plain text of every screen row, trailing spaces stripped."""

    @property
    def history_size(self) -> int:
        """How many scrolled-off rows the capped scrollback holds."""

    def history_row(self, index: int) -> Row:
        """Scrollback row ``index`` (0 = oldest kept)."""
