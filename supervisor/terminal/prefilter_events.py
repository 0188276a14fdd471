"""What the pre-filter hands a backend besides text: events that must happen at their
exact point of the stream (a reply, a cursor report, a screen switch, a reset)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AltScreen", "CursorQuery", "Event", "HardReset", "Reply", "SoftReset"]


@dataclass(frozen=True, slots=True)
class Reply:
    """Bytes to write back to the child, in query order."""

    data: bytes


@dataclass(frozen=True, slots=True)
class CursorQuery:
    """CPR: the emulator answers with its cursor where the query sat in the stream."""

    private: bool = False


@dataclass(frozen=True, slots=True)
class AltScreen:
    """Switch to (``on``) or back from the alternate screen; ``mode`` 1049 saves the cursor."""

    on: bool
    mode: int = 1049


@dataclass(frozen=True, slots=True)
class HardReset:
    """RIS ``ESC c``: the emulator leaves the alternate screen and resets."""


@dataclass(frozen=True, slots=True)
class SoftReset:
    """DECSTR ``CSI ! p``: modes, pen and margins reset, the cursor left where it is
    (:data:`SOFT_RESET` then a move back to where the cursor was)."""


Event = Reply | CursorQuery | AltScreen | HardReset | SoftReset
