"""Event fusion: observations of one loss from several sources become one incident.

A loss is usually seen two or three times — the PostCompact hook, the
transcript's compact_boundary, the "Conversation compacted" line — within a
few seconds, in any order. Fusion opens an incident on the first sighting (so
the banner is immediate) and adds later sightings to it as sources:

* an observation of kind compaction / wipe / crash / unclean_exit joins the
  open incident of that kind nearest in time, within ``window`` seconds of the
  incident's first sighting, that has not yet heard from the same (source,
  channel) — a second screen sighting is a second compaction, while a hook's
  PostCompact and SessionStart(compact) are two channels of one. A sighting's
  time is the one its source wrote (a transcript entry's ``entry_at``) when it
  has one, else when it was read: a transcript line read late, after a second
  compaction, still joins the first;
* a sighting that names its compaction (``compaction_id``: Claude's
  compact_boundary uuid, and for its summary entry the boundary before it; the Codex
  turn of a rollout ``compacted`` entry and of its PostCompact hook) joins the
  incident that holds that id and lacks its channel (a turn may compact twice),
  and never one that holds another id;
* a sighting marked ``AT_NEXT_TURN`` (Codex fires SessionStart compact/clear only
  when the next turn starts, minutes later perhaps) joins the newest incident of
  its kind that lacks its channel, outside the window, if no other incident was
  opened since; otherwise it opens one, as for a /clear nothing else saw;
* compaction_failed (a /compact refused: "Not enough messages to compact")
  ends the compaction_started before it: its trigger is not kept for the next;
* compaction_started opens nothing; its trigger (PreCompact's manual/auto) is
  kept for a compaction that follows within the window, or given to the recent
  compaction it was read after (hooks are read a tick after the screen);
* a sighting of a loss that happened before this run, or before the agent's
  current process started (``agent_started``: a crash restart with ``claude
  --continue`` replays its session file, old ``compact_boundary`` and ``/clear``
  entries with their old times and ids), is history: so is a sighting naming a
  loss id an incident already holds for its channel (the same entry read
  twice). Both are told by identity (the entry's own time, its id), recorded as
  events with ``history`` set, and open nothing;
* the trigger and the summary are filled in by whichever source knows them;
  with a summary and pinned decisions, the loss audit is computed; with the
  window the transcript saw folded, the specifics the summary dropped that no
  pin holds ("dropped, not pinned").

Every observation is appended to events.jsonl (except hook events, which
`tether hook` already wrote, and the high-rate usage/state reports); each new
incident is recorded with the store's numbering, each change as
``incident_update``. Time comes from the observations, so tests inject it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from supervisor.recognize.loss_audit import audit_summary, dropped_specifics
from supervisor.recognize.observations import (
    AGENT_STATE,
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_FAILED,
    COMPACTION_STARTED,
    CONTEXT_USED,
    HOOK,
    INCIDENT_KINDS,
    SCHEDULED_TRIGGERS,
    USAGE,
    Incident,
    Observation,
)

DEFAULT_WINDOW = 10.0
# The agent may be spawned a moment before tether notes the time (tether run spawns it
# while the app loads); its own entries are never older than that.
START_SLACK = 2.0
# Ids that name one loss only (Claude Code's entry uuids); a Codex turn id may name two.
UNIQUE_ID = "uuid:"
# The meter and the agent's state change constantly: the status bar shows them, the
# event log would drown in them.
_NOT_RECORDED = frozenset({USAGE, AGENT_STATE, CONTEXT_USED})
# Observation details about the sighting, not the incident.
_NOT_DETAILS = frozenset({"channel", AT_NEXT_TURN, "entry_at", "compaction_id"})


@dataclass(frozen=True, slots=True)
class IncidentChange:
    """What an observation did: opened an incident (``new``) or added to one."""

    incident: Incident
    new: bool


@dataclass(frozen=True, slots=True)
class Claimed:
    """A drafted incident and what claiming its number found: the incident's event
    (None: it could not be recorded) and whether the claim recorded it (else another
    process, `tether hook`, had recorded this loss)."""

    draft: Incident
    event: dict[str, Any] | None
    new: bool


class IncidentLog(Protocol):
    """Where fusion records its incidents and sightings (the store is a layer below)."""

    def claim_incident(
        self, type_: str, source: str, **how: Any
    ) -> tuple[dict[str, Any], bool]: ...

    def record_event(self, kind: str, source: str, **details: Any) -> dict[str, Any]: ...


class Fusion:
    """Stateful fuser for one supervised session. Not thread-safe: feed it from one place."""

    def __init__(
        self,
        tether: IncidentLog | None = None,
        *,
        window: float = DEFAULT_WINDOW,
        decisions: Callable[[], list[str]] | None = None,
        agent_started: float | None = None,
    ) -> None:
        """``tether``: where incidents and sightings are recorded (a
        :class:`~supervisor.store.tether_dir.TetherDir`, or the supervisor's event recorder
        that writes them off the loop; None: no recording);
        ``decisions`` returns the pinned decisions for the loss audit when a summary arrives;
        ``agent_started``: when this run started its agent (see :meth:`agent_started`)."""
        # a restart's time is taken just before the spawn: exact; the first spawn may come
        # a moment before the run notes its start
        self._agent_started = agent_started - START_SLACK if agent_started is not None else None
        self._entries: set[tuple[str, str, str, float]] = set()  # (id, source, channel, time)
        self._tether = tether
        self._window = window
        self._decisions = decisions
        self._incidents: list[Incident] = []
        self._channels: dict[int, set[tuple[str, str]]] = {}
        self._ids: dict[int, set[str]] = {}  # incident -> the compaction ids its sightings named
        self._pending_trigger: tuple[float, str, str] | None = None  # at, trigger, source
        self._started: dict[int, set[str]] = {}  # compaction -> sources of its "started"
        self._next_number = 1

    @property
    def incidents(self) -> list[Incident]:
        return list(self._incidents)

    def compaction_count(self) -> int:
        return sum(1 for incident in self._incidents if incident.kind == "compaction")

    def agent_started(self, at: float) -> None:
        """The agent's process (re)started at ``at``: a sighting its source dates before
        that (a transcript entry's own time) is history, however late it is read."""
        self._agent_started = at

    def history(self, observation: Observation) -> str | None:
        """Why a loss sighting is history rather than a loss of this run, or None."""
        if observation.kind not in INCIDENT_KINDS:
            return None
        entry_at = observation.details.get("entry_at")
        since = self._agent_started
        if (
            since is not None
            and isinstance(entry_at, int | float)
            and not isinstance(entry_at, bool)
            and entry_at < since
        ):
            return "written before the agent's process started"
        entry = _entry(observation)
        if entry is not None and entry in self._entries:
            return "the same entry, read again"
        ident = _compaction_id(observation)
        if ident is not None and ident.startswith(UNIQUE_ID):  # a Codex turn may compact twice
            channel = (observation.source, str(observation.details.get("channel", "")))
            for incident in self._incidents:
                number = incident.number
                if ident in self._ids.get(number, ()) and channel in self._channels[number]:
                    return f"already seen in incident #{number}"
        return None

    def acknowledge(self, number: int) -> Incident | None:
        """Mark an incident acknowledged (the agent wrote its rehydration summary)."""
        for incident in self._incidents:
            if incident.number == number and not incident.acknowledged:
                incident.acknowledged = True
                self._record("incident_update", number=number, acknowledged=True)
                return incident
        return None

    def draft(self, observation: Observation) -> Incident | None:
        """The incident ``observation`` would open, not yet numbered; None when it would
        open none (it joins one, is history, or is no loss). Changes nothing: the
        supervisor claims the draft's number off the loop, then observes with it."""
        kind = INCIDENT_KINDS.get(observation.kind)
        if kind is None or self.history(observation) is not None:
            return None
        channel = (observation.source, str(observation.details.get("channel", "")))
        if self._target(kind, observation, channel) is not None:
            return None
        return self._new_incident(kind, observation)

    def observe(
        self, observation: Observation, claimed: Claimed | None = None
    ) -> IncidentChange | None:
        """Record one observation; return the incident it opened or joined, if any.

        ``claimed``: the number already claimed for the incident it opens (see :meth:`draft`).
        """
        history = self.history(observation)
        if observation.source != HOOK and observation.kind not in _NOT_RECORDED:
            fields = observation.to_event()
            if history is not None:
                fields["history"] = history
            self._record(observation.kind, source=observation.source, **fields)
        if history is not None:
            return None
        if observation.kind == COMPACTION_FAILED:  # it ends the start: no trigger carries on
            self._pending_trigger = None
            return None
        if observation.kind == COMPACTION_STARTED:
            if not observation.trigger:
                return None
            incident = self._started_late(observation)
            if incident is None:
                self._pending_trigger = (observation.at, observation.trigger, observation.source)
                return None
            if incident.trigger:
                return None
            incident.trigger = observation.trigger
            self._record("incident_update", number=incident.number, trigger=incident.trigger)
            return IncidentChange(incident, new=False)
        kind = INCIDENT_KINDS.get(observation.kind)
        if kind is None:
            return None
        channel = (observation.source, str(observation.details.get("channel", "")))
        incident = self._target(kind, observation, channel)
        if incident is None:
            return IncidentChange(self._open(kind, observation, channel, claimed), new=True)
        changed = self._merge(incident, observation, channel)
        if changed:
            found: dict[str, Any] = {}
            if incident.audit:
                found["audit"] = incident.audit.to_dict()
            if incident.dropped:
                found["dropped_unpinned"] = [d.to_dict() for d in incident.dropped]
            self._record(
                "incident_update",
                number=incident.number,
                trigger=incident.trigger,
                sources=list(incident.sources),
                summary=incident.summary,
                **found,
            )
        return IncidentChange(incident, new=False)

    # ------------------------------------------------------------------ internals

    def _target(
        self, kind: str, observation: Observation, channel: tuple[str, str]
    ) -> Incident | None:
        """The open incident this loss sighting joins, or None: it opens one."""
        if observation.details.get(AT_NEXT_TURN):
            return self._joinable_late(kind, channel)
        return self._joinable(kind, observation, channel)

    def _joinable(
        self, kind: str, observation: Observation, channel: tuple[str, str]
    ) -> Incident | None:
        """The incident this sighting is another view of: the one holding its compaction id,
        else, of those within the window (of when it was read or of its source's own time)
        that lack its channel and hold no other id, the nearest to its source's time."""
        ident = _compaction_id(observation)
        if ident is not None:  # one Codex turn may compact twice: the id's channel is taken
            for incident in reversed(self._incidents):
                number = incident.number
                if ident in self._ids.get(number, ()) and channel not in self._channels[number]:
                    return incident
        at = observation.source_time
        window = self._window
        best: Incident | None = None
        for incident in reversed(self._incidents):
            if incident.kind != kind:
                continue
            if incident.at < min(at, observation.at) - window:
                break  # older ones are further away still
            if abs(at - incident.at) > window and abs(observation.at - incident.at) > window:
                continue
            if channel in self._channels[incident.number]:
                continue
            ids = self._ids.get(incident.number)
            if ident is not None and ids and ident not in ids:
                continue  # it is another compaction, named otherwise
            if best is None or abs(at - incident.at) < abs(at - best.at):
                best = incident
        return best

    def _note_id(self, incident: Incident, observation: Observation) -> None:
        entry = _entry(observation)
        if entry is not None:
            self._entries.add(entry)
        ident = _compaction_id(observation)
        if ident is not None:
            self._ids.setdefault(incident.number, set()).add(ident)

    def _joinable_late(self, kind: str, channel: tuple[str, str]) -> Incident | None:
        newest = self._incidents[-1] if self._incidents else None
        if newest is None or newest.kind != kind or channel in self._channels[newest.number]:
            return None
        return newest

    def _started_late(self, observation: Observation) -> Incident | None:
        """The compaction this "started" sighting belongs to, if it came after the incident.

        Hooks are read a tick later than the screen: a PreCompact may be read after the
        screen opened its compaction. It belongs to that incident when the incident is
        recent and has not heard a start from that source; otherwise it announces the
        next compaction (a stale one would give the next its trigger).
        """
        for incident in reversed(self._incidents):
            if incident.kind != "compaction":
                continue
            if abs(observation.at - incident.at) > self._window:
                return None
            started = self._started.setdefault(incident.number, set())
            if observation.source in started:
                return None
            started.add(observation.source)
            return incident
        return None

    def _pending(self, at: float) -> tuple[float, str, str] | None:
        pending = self._pending_trigger
        if pending is not None and abs(at - pending[0]) <= self._window:
            return pending
        return None

    def _trigger_for(self, observation: Observation) -> str | None:
        if observation.trigger:
            return observation.trigger
        pending = self._pending(observation.at) if observation.kind == COMPACTION else None
        return pending[1] if pending else None

    def _new_incident(self, kind: str, observation: Observation) -> Incident:
        incident = Incident(
            number=0,
            kind=kind,
            trigger=self._trigger_for(observation),
            sources=[observation.source],
            at=observation.at,
            summary=observation.summary,
            details={k: v for k, v in observation.details.items() if k not in _NOT_DETAILS},
        )
        self._audit(incident)
        self._audit_folded(incident, observation)
        return incident

    def _open(
        self,
        kind: str,
        observation: Observation,
        channel: tuple[str, str],
        claimed: Claimed | None,
    ) -> Incident:
        if claimed is None:
            incident = self._new_incident(kind, observation)
            incident.number = self._record_incident(incident)
        else:  # drafted and numbered off the loop
            incident = claimed.draft
            incident.number = self._claimed_number(claimed)
        self._channels[incident.number] = {channel}
        self._note_id(incident, observation)
        self._incidents.append(incident)
        if kind == "compaction":
            pending = self._pending(observation.at)
            self._started[incident.number] = {pending[2]} if pending else set()
            self._pending_trigger = None
        return incident

    def _merge(
        self, incident: Incident, observation: Observation, channel: tuple[str, str]
    ) -> bool:
        self._channels[incident.number].add(channel)
        self._note_id(incident, observation)
        changed = False
        if observation.source not in incident.sources:
            incident.sources.append(observation.source)
            changed = True
        trigger = self._trigger_for(observation)
        # Claude's idle and precomputed folds: its hook and transcript say "auto", the screen
        # says which; the more specific word wins, whichever came first.
        scheduled = incident.trigger == AUTO and trigger in SCHEDULED_TRIGGERS
        if trigger and (not incident.trigger or scheduled):
            incident.trigger = trigger
            changed = True
        if observation.summary and not incident.summary:
            incident.summary = observation.summary
            self._audit(incident)
            changed = True
        if self._audit_folded(incident, observation):
            changed = True
        for key, value in observation.details.items():
            if key not in _NOT_DETAILS and key not in incident.details:
                incident.details[key] = value
        return changed

    def _audit(self, incident: Incident) -> None:
        if incident.kind == "compaction" and incident.summary and self._decisions:
            decisions = self._decisions()
            if decisions:
                incident.audit = audit_summary(decisions, incident.summary)

    def _audit_folded(self, incident: Incident, observation: Observation) -> bool:
        """The folded window arrived: list what its summary dropped that no pin holds."""
        if incident.kind != "compaction" or incident.dropped or not observation.folded:
            return False
        summary = observation.summary or incident.summary
        if not summary:
            return False
        pins = self._decisions() if self._decisions else []
        incident.dropped = tuple(dropped_specifics(observation.folded, summary, pins))
        incident.fold_audited = True
        return bool(incident.dropped)

    def _record_incident(self, incident: Incident) -> int:
        """The store's number for a new incident, or the one `tether hook` just recorded.

        Claude's ``SessionStart(compact)`` hook records the compaction itself when it
        comes first (its payload must name it); then this is the same loss, and the
        incident gets that number with an update, not a second incident.
        """
        if self._tether is None:
            number = self._next_number
            self._next_number += 1
            return number
        event, new = self._tether.claim_incident(**self.claim_of(incident))
        return self._claimed_number(Claimed(incident, event, new))

    def claim_of(self, draft: Incident) -> dict[str, Any]:
        """What :meth:`IncidentLog.claim_incident` is asked for ``draft``: its type, source,
        and how another process's record of the same loss is told (see _record_incident)."""
        return {
            "type_": draft.kind,
            "source": "fusion",
            "at": draft.at,
            "within": self._window,
            "taken": {known.number for known in self._incidents},
            "recorded_by": ("hook",),  # a previous run's incident is never this one
            **draft.to_event(),
        }

    def _claimed_number(self, claimed: Claimed) -> int:
        if claimed.event is None:  # not recorded (the problem was told): numbered in memory
            known = [incident.number for incident in self._incidents]
            return max([self._next_number - 1, *known]) + 1
        if not claimed.new:
            self._record(
                "incident_update", number=claimed.event["number"], **claimed.draft.to_event()
            )
        return int(claimed.event["number"])

    def _record(self, kind: str, source: str = "fusion", **fields: Any) -> None:
        if self._tether is not None:
            self._tether.record_event(kind, source, **fields)


def _entry(observation: Observation) -> tuple[str, str, str, float] | None:
    """What names one entry of a session file: its loss id, source, channel and own time."""
    ident, entry_at = _compaction_id(observation), observation.details.get("entry_at")
    if ident is None or not isinstance(entry_at, int | float) or isinstance(entry_at, bool):
        return None
    channel = str(observation.details.get("channel", ""))
    return (ident, observation.source, channel, float(entry_at))


def _compaction_id(observation: Observation) -> str | None:
    ident = observation.details.get("compaction_id")
    return ident if isinstance(ident, str) and ident else None
