"""The landmarks of a recording: incidents, injections and recall checks, as asciicast markers.

A session runs for hours; a player (``asciinema play``) jumps between markers, so
each event a person would look for later ("compaction #3", the payload sent after
it, the agent's recall check) becomes one ``[t, "m", label]`` line in the `.cast`.
"""

from __future__ import annotations

from typing import Any

from supervisor.store.tether_dir import INCIDENT_KIND


def landmark(event: dict[str, Any]) -> str | None:
    """The marker label for ``event``, or None if it is not a landmark."""
    kind = event.get("kind")
    incident = event.get("incident")
    about = f" (incident #{incident})" if incident not in (None, "") else ""
    if kind == INCIDENT_KIND:
        trigger = f", {event['trigger']}" if event.get("trigger") else ""
        return f"{event.get('type', 'incident')} #{event.get('number', '?')}{trigger}"
    if kind == "injection":
        return f"injection: {event.get('reason') or 'payload'}{about}"
    if kind == "auto_rehydrate":
        return f"injection: payload from the {event.get('hook_source') or ''} hook{about}".replace(
            "the  hook", "the hook"
        )
    if kind == "recall_check":
        result = event.get("result") or event.get("status") or "?"
        return f"recall check: {result}{about}"
    return None
