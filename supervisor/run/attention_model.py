"""What the user is told: the one owner of the banner and the status texts.

The engine tells this model what happened (an incident, the injector's state,
the context meter, the agent's state, a message for the user); the model
decides what the banner shows (one notice at a time, and which may replace
which) and what the status bar says, and hands each new :class:`AttentionState`
to its listeners. The app only renders the states it is given, so every
sentence the user reads is decided here, testable without Textual.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from supervisor.config.keymap import Keymap
from supervisor.recognize.observations import Incident
from supervisor.rehydrate.injector_status import InjectorStatus
from supervisor.run import banner_text
from supervisor.run.banner_text import Notice
from supervisor.store.lock import LockInfo
from supervisor.terminal.pty_host import ExitStatus

BRIEF_REASON = "initial brief"
BRIEF_QUEUED = "The initial brief waits until the agent is ready for input"
# States of a payload whose banner says how long ago (refreshed as time passes).
_AGEING = ("sent", "unacknowledged", "queued")


@dataclass(frozen=True, slots=True)
class StatusTexts:
    """The status bar's facts, in the words it shows them."""

    profile: str = ""
    agent_state: str = "starting"
    context: str = ""
    compactions: int = 0  # this run's (fusion counts from 0 at every start)
    incidents: int = 0  # in all: the last incident's number (numbered across runs)
    last_incident: str = ""  # the last incident in a few words, for a hidden side pane
    checkpoint_age: str = ""


@dataclass(frozen=True, slots=True)
class AttentionState:
    """What the user is told now: the banner's notice (None: the quiet idle line) and the
    status bar's texts."""

    notice: Notice | None = None
    idle_text: str = "tether is watching: no loss of context seen"
    status: StatusTexts = field(default_factory=StatusTexts)

    def banner_line(self, width: int | None = None) -> str:
        """The banner's row: the notice in the form that fits ``width``, or the idle line."""
        return self.notice.fitted(width) if self.notice is not None else self.idle_text


class AttentionModel:
    """Decides what the banner and the status bar say; the app renders :attr:`state`."""

    def __init__(
        self,
        *,
        keymap: Keymap,
        profile_name: str,
        at_next_prompt: bool,
        orphan: Callable[[], LockInfo | None],
        compact_told: bool,
    ) -> None:
        """``at_next_prompt``: the agent's hooks rehydrate it with the user's next prompt
        (Codex); ``orphan``: a dead tether's agent still running, if any; ``compact_told``:
        the agent's summarizer is told the pins when tether compacts it."""
        self.keymap = keymap
        self._at_next_prompt = at_next_prompt
        self._orphan = orphan
        self._compact_told = compact_told
        self.state = AttentionState(
            idle_text=f"tether is watching {profile_name}: no loss seen yet",
            status=StatusTexts(profile=profile_name),
        )
        self._offer_shown = False  # the compaction offer was shown for this crossing
        self._recovering: InjectorStatus | None = None  # the last payload sent, and its state
        self.listeners: list[Callable[[AttentionState], None]] = []

    @property
    def source(self) -> str:
        """Whose notice the banner shows ("" for the idle line)."""
        notice = self.state.notice
        return notice.source if notice is not None else ""

    # -- what the engine tells -------------------------------------------------------

    def incident(self, incident: Incident, *, compactions: int, new: bool = True) -> None:
        """A new incident, or more facts for the current one: the banner names it, unless
        the recovery of that incident is already under way or done (a late sighting, such as
        Codex's next-turn hook after F6 sent the payload, must not offer F6 again)."""
        orphan = self._orphan() if incident.kind == "unclean-exit" else None
        notice: Notice | None = banner_text.incident_notice(
            incident, self.keymap, orphan=orphan, at_next_prompt=self._at_next_prompt
        )
        recovering = self._recovering
        if not new and recovering is not None and _same(recovering.incident, incident.number):
            notice = self.state.notice  # the payload's own banner goes on
            title = "" if recovering.state == "acknowledged" else incident.title()
        else:
            title = incident.title()
            if new:
                self._recovering = None
        self._set(
            notice,
            compactions=compactions,
            incidents=incident.number,
            last_incident=title,
        )

    def agent_state(self, state: str) -> None:
        # "unknown": the agent gives no cue (a plain command); it is running, that is all.
        self._set(self.state.notice, agent_state="running" if state == "unknown" else state)

    def agent_exited(self, status: ExitStatus) -> None:
        """The agent's process ended; a clean end offers a restart (a crash has its incident)."""
        described = status.describe()
        notice = self.state.notice
        if status.clean:
            notice = banner_text.agent_ended_notice(described, self.keymap)
        self._set(notice, agent_state=described)

    def meter(self, described: str, *, offered: bool) -> None:
        """The context meter changed; past the profile's threshold it offers a compaction
        (once per crossing, and never over an incident's banner)."""
        notice = self.state.notice
        if offered and not self._offer_shown and self.source != "incident":
            notice = banner_text.compact_offer_notice(described, self.keymap, self._compact_told)
        self._offer_shown = offered
        self._set(notice, context=described)

    def injection(self, status: InjectorStatus) -> None:
        """The injector's state: a payload queued (and why), sent, acknowledged..."""
        if status.state == "idle":
            return
        if status.reason != BRIEF_REASON and status.state != "queued":
            self._recovering = status  # a payload on its way to (or in) the model
        if status.reason == BRIEF_REASON:
            if status.state == "queued":
                self._set(Notice(BRIEF_QUEUED, "info", "injection"))
            elif self.source == "injection":
                self._set(None)
            return
        recovered = status.state == "acknowledged" and (
            status.recall is None or status.recall.result == "complete"
        )
        if recovered:  # the incident is over: the status bar's mark of it goes too
            self._set(banner_text.injection_notice(status, self.keymap), last_incident="")
            return
        self._set(banner_text.injection_notice(status, self.keymap))

    def time_passed(self, checkpoint_age: str, injection: InjectorStatus | None) -> None:
        """A tick: what shows an age ("sent N s ago", a queued payload's changing reason)."""
        self._set(self.state.notice, checkpoint_age=checkpoint_age)
        if injection is not None and self.source == "injection" and injection.state in _AGEING:
            self.injection(injection)

    def compaction_sent(self, result: str) -> None:
        """The compact key's request went (or was queued)."""
        if result == "queued":
            text = banner_text.compact_sent(result, self._compact_told)
            self._set(Notice(text, "info", "compact"))

    def drift_alarm(self, text: str) -> None:
        """A drift alarm from the ledger (a rejected approach retried, a command failing again
        and again, a verification regressed): shown unless an incident's banner is up."""
        if self.source == "incident":
            return
        self._set(Notice(f"⚠ {text}", "warning", "drift", short=f"⚠ Drift: {text}"))

    def say(self, text: str, tone: str = "info", source: str = "message") -> None:
        """Something the user asked for, or an error: shown until the next notice."""
        self._set(Notice(text, tone if tone in banner_text.TONES else "warning", source))

    # -- the state -----------------------------------------------------------------------

    def _set(self, notice: Notice | None, **status: str | int) -> None:
        state = self.state
        new = AttentionState(
            notice,
            state.idle_text,
            dataclasses.replace(state.status, **status),  # type: ignore[arg-type]
        )
        if new == state:
            return
        self.state = new
        for listener in self.listeners:
            listener(new)


def _same(recovered: int | str | None, number: int) -> bool:
    """Whether an injection's incident (a number, or text naming one) is incident ``number``."""
    if isinstance(recovered, int) and not isinstance(recovered, bool):
        return recovered == number
    return isinstance(recovered, str) and recovered.strip().lstrip("#") == str(number)
