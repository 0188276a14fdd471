"""The context meter: how full the agent's context window is, from its own figures.

Usage observations (transcripts: tokens used of the window) win over the
percentage the agent prints on its screen; a compaction makes the figures stale
until the agent reports new ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_LOW,
    CONTEXT_USED,
    USAGE,
    Observation,
)


@dataclass
class ContextMeter:
    """Used / window from the agent's own usage figures, or a percentage from its screen."""

    used: int | None = None
    window: int | None = None
    percent: int | None = None
    stale: bool = False

    def describe(self) -> str:
        if self.used is not None and self.window:
            percent = round(100 * self.used / self.window)
            text = f"{self.used:,}/{self.window:,} ({percent}%)"
        elif self.percent is not None:
            text = f"{self.percent}% used"
        else:
            return ""
        return text + (", stale since the compaction" if self.stale else "")

    def update(self, observation: Observation) -> bool:
        """Take what ``observation`` says about the context; whether the meter may have changed."""
        details = observation.details
        if observation.kind == USAGE and isinstance(details.get("used"), int):
            self.used = details["used"]
            if isinstance(details.get("window"), int):
                self.window = details["window"]
            self.stale = False
        elif observation.kind in (CONTEXT_USED, CONTEXT_LOW) and "percent" in details:
            percent = int(details["percent"])
            self.percent = percent if observation.kind == CONTEXT_USED else 100 - percent
            if self.used is None:
                self.stale = False
        elif observation.kind != COMPACTION:
            return False
        return True
