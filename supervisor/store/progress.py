"""``progress.json`` as a dataclass, and the bounds every count tether reads must keep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from supervisor.errors import TetherError

#: The largest cursor or artifact index tether accepts: far beyond any real count, and
#: small enough to print (Python refuses to turn an int of over 4,300 digits into text).
MAX_COUNT = 10**15


def is_count(value: object) -> bool:
    """A whole number >= 0 and <= :data:`MAX_COUNT` (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def describe_value(value: object, width: int = 60) -> str:
    """A found value for a message: huge numbers by their size, long text cut."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except ValueError:  # a structure holding an int too long to print
        return "a value too large to show"
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(slots=True)
class Progress:
    """``progress.json``: where the agent says it is. Unknown keys are kept as written."""

    cursor: int = 0
    phase: str = ""
    updated_at: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {"cursor": self.cursor, "phase": self.phase, "updated_at": self.updated_at}
        return {**data, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str = "progress.json") -> Progress:
        cursor = data.get("cursor", 0)
        if not is_count(cursor):
            raise TetherError(
                f'{where}: "cursor" must be a whole number from 0 to {MAX_COUNT:,}, not '
                f"{describe_value(cursor)}; fix the file or run `tether check --fix`"
            )
        phase = data.get("phase", "")
        updated_at = data.get("updated_at")
        extra = {k: v for k, v in data.items() if k not in ("cursor", "phase", "updated_at")}
        return cls(
            cursor=cursor,
            phase=phase if isinstance(phase, str) else str(phase),
            updated_at=updated_at if isinstance(updated_at, str) else None,
            extra=extra,
        )
