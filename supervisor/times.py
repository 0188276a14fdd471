"""Times as `.tether/` files and the agents' transcripts write them: UTC ISO-8601 text.

One format everywhere (``2026-05-01T12:00:00.123Z``), so that events,
checkpoints and notes sort and compare as text and read back the same. Shared
by every layer, like :mod:`supervisor.errors`.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime


def iso(at: float) -> str:
    """Epoch seconds as UTC ISO-8601 with milliseconds, e.g. ``2026-05-01T12:00:00.123Z``."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def utc_now() -> str:
    """The current time as :func:`iso` writes it."""
    return iso(time.time())


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time (``Z`` or an offset; naive means UTC) as an aware datetime, else None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def epoch(value: object) -> float | None:
    """An ISO-8601 time as epoch seconds; None if it is not one."""
    parsed = parse_time(value)
    return parsed.timestamp() if parsed is not None else None
