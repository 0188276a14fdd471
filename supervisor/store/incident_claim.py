"""One loss, one incident, across two processes: the hook's and the supervisor's.

Claude's ``SessionStart(compact|clear)`` hook (``tether hook``, its own process)
must name in its payload the incident it answers, and the supervisor's fusion
opens incidents from its own sightings. Whichever comes first records the
incident; the other finds it here instead of recording a second one. The
store's update lock serialises the two, as it does the numbering.

Below :mod:`supervisor.store.tether_dir`, which offers it as
``TetherDir.claim_incident``: what it needs of the folder is the :class:`IncidentStore`
protocol, so that the two never import each other.
"""

from __future__ import annotations

from collections.abc import Container
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from supervisor.store import fsio
from supervisor.times import parse_time

INCIDENT_KIND = "incident"


class IncidentStore(Protocol):
    """What claiming an incident needs of `.tether/` (a TetherDir)."""

    @property
    def events(self) -> Path: ...

    def updating(self) -> AbstractContextManager[object]: ...

    def record_incident(self, type_: str, source: str, **details: Any) -> dict[str, Any]: ...


def claim_incident(
    tether: IncidentStore,
    type_: str,
    source: str,
    *,
    at: float,
    within: float,
    taken: Container[Any] = (),
    recorded_by: Container[str] | None = None,
    **details: Any,
) -> tuple[dict[str, Any], bool]:
    """The incident another process just recorded for this loss, or a new one; and whether new.

    The last incident is this loss when it is of the same type, recorded within
    ``within`` seconds of ``at`` (epoch seconds), its number not in ``taken``
    (those the caller already has) and, given ``recorded_by``, recorded by one of
    those sources.
    """
    with tether.updating():
        last = last_incident(tether)
        if (
            last is not None
            and last.get("type") == type_
            and last.get("number") not in taken
            and (recorded_by is None or last.get("source") in recorded_by)
        ):
            when = parse_time(last.get("at"))
            if when is not None and abs(at - when.timestamp()) <= within:
                return last, False
        return tether.record_incident(type_, source, **details), True


def last_incident(tether: IncidentStore) -> dict[str, Any] | None:
    """The last incident event (as first recorded, without its updates)."""
    marker = INCIDENT_KIND.encode()
    for event in fsio.iter_jsonl_reversed(tether.events, containing=marker):
        if event.get("kind") == INCIDENT_KIND:
            return event
    return None
