"""Whether the user is needed now, and the bytes that tell their terminal.

The policy is plain: every incident calls (if ``on_incident``); a wait for input
calls only after the agent was busy for ``after_busy_seconds`` on end, so the
quick back-and-forth of a conversation stays silent. The bytes are a bell and
the two desktop-notification sequences terminals understand (OSC 9: iTerm2,
WezTerm, kitty, Windows Terminal; OSC 777: VTE terminals, foot, Ghostty); a
terminal that knows neither ignores them.
"""

from __future__ import annotations

from collections.abc import Callable

from supervisor.config.notify import NotifySettings

TITLE = "tether"


class Attention:
    """Fed the agent's states and incidents; says what to tell the user, if anything."""

    def __init__(self, settings: NotifySettings, clock: Callable[[], float]) -> None:
        self.settings = settings
        self.clock = clock
        self._busy_since: float | None = None

    def state(self, state: str) -> str | None:
        """The agent's state changed (``busy``, ``waiting``, ...): a message, or None."""
        now = self.clock()
        if state == "busy":
            if self._busy_since is None:
                self._busy_since = now
            return None
        busy_since, self._busy_since = self._busy_since, None
        after = self.settings.after_busy_seconds
        if state != "waiting" or busy_since is None or after <= 0:
            return None
        worked = now - busy_since
        if worked < after:
            return None
        return f"the agent waits for input after {_duration(worked)} of work"

    def incident(self, title: str) -> str | None:
        return title if self.settings.on_incident else None

    def sequence(self, message: str) -> str:
        """What to write to the user's terminal for ``message`` (empty if both are off)."""
        body = "".join(c for c in message if c.isprintable() and c != ";")
        out = ""
        if self.settings.desktop:
            out += f"\x1b]9;{TITLE}: {body}\x07\x1b]777;notify;{TITLE};{body}\x07"
        if self.settings.bell:
            out += "\x07"
        return out


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
