"""The context meter: how full the agent's context window is, from its own figures.

The freshest reading wins, by when it was observed: usage from a transcript or
a hook (tokens used of the window) and a percentage the agent prints on its
screen ("21% context used", "Context low (30% remaining)") take turns as each
is newer. A screen row is news only when its percentage changes: the same row
read again (a redraw, a scan after a restart, a row that left the screen and
came back) says nothing new and never overrides a fresher report. A compaction
or a wipe (/clear) makes the figures stale until a reading observed after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_LOW,
    CONTEXT_USED,
    SCREEN,
    USAGE,
    WIPE,
    Observation,
)


@dataclass
class ContextMeter:
    """The freshest of the agent's usage figures (used / window) and its screen percentage.

    ``used`` / ``window`` and ``percent`` keep the last of each kind; ``at`` is when the
    reading shown was observed and ``by_usage`` whether it is the usage one.
    """

    used: int | None = None
    window: int | None = None
    percent: int | None = None
    stale: bool = False
    at: float | None = None
    by_usage: bool = False
    _screen: dict[str, int] = field(default_factory=dict, repr=False)  # last row per kind
    _compacted_at: float | None = field(default=None, repr=False)  # the last loss
    _lost_by: str = field(default="compaction", repr=False)  # which: "compaction" or "clear"

    def used_percent(self) -> float | None:
        """How full the window is by the freshest reading, in percent; None before any."""
        if self.by_usage and self.used is not None and self.window:
            return 100 * self.used / self.window
        if self.percent is not None:
            return float(self.percent)
        if self.used is not None and self.window:
            return 100 * self.used / self.window
        return None

    def describe(self) -> str:
        if self.by_usage and self.used is not None and self.window:
            percent = round(100 * self.used / self.window)
            text = f"{self.used:,}/{self.window:,} ({percent}%)"
        elif self.percent is not None:
            text = f"{self.percent}% used"
        else:
            return ""
        return text + (f", stale since the {self._lost_by}" if self.stale else "")

    def update(self, observation: Observation) -> bool:
        """Take what ``observation`` says about the context; whether the meter may have changed."""
        details = observation.details
        kind = observation.kind
        if kind in (COMPACTION, WIPE):
            at = observation.source_time
            if self._compacted_at is None or at > self._compacted_at:
                self._compacted_at = at
                self._lost_by = "compaction" if kind == COMPACTION else "clear"
            if kind == WIPE and (self.at is None or at >= self.at) and self.describe():
                self.stale = True  # (a compaction's incident makes it stale: supervision)
            return True
        if kind == USAGE and isinstance(details.get("used"), int):
            window = details.get("window")
            if isinstance(window, int) and window:
                self.window = window  # the window holds whatever the reading's age
            if self._older(observation):
                return False
            self.used = details["used"]
            self.by_usage = True
        elif kind in (CONTEXT_USED, CONTEXT_LOW) and "percent" in details:
            reported = int(details["percent"])
            if observation.source == SCREEN:
                if self._screen.get(kind) == reported:
                    return False  # the same row read again: not a new reading
                self._screen[kind] = reported
            if self._older(observation):
                return False
            self.percent = reported if kind == CONTEXT_USED else 100 - reported
            self.by_usage = False
        else:
            return False
        self.at = observation.source_time
        if self._compacted_at is None or self.at >= self._compacted_at:
            self.stale = False
        return True

    def _older(self, observation: Observation) -> bool:
        """Whether ``observation`` was made before the reading shown now."""
        return self.at is not None and observation.source_time < self.at
