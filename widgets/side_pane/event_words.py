"""Each `events.jsonl` record in words: its time, what happened, and the incident it is about.

The Events tab shows one row per event and every field of the selected one, so
this module turns a record into a short sentence a person reads at a glance
(``recovery payload sent: 1,240 tokens``), not a dump of its keys. Anything it
does not know is still named by its kind, with its fields one selection away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from supervisor.agents.resume_figures import resume_figures
from supervisor.shown import shown, shown_line
from supervisor.store.tether_dir import INCIDENT_KIND

INCIDENT_WORDS = {
    "compaction": "context compacted",
    "wipe": "context wiped",
    "crash": "agent crashed",
    "unclean-exit": "tether was stopped uncleanly",
}
SOURCE_WORDS = {
    "screen": "on screen",
    "hook": "by a hook",
    "transcript": "in the transcript",
    "process": "by the process",
    "stream": "in the output",
    "lock": "from the lock",
    "typed": "in what the user typed",
}
# An incident's sources, listed after "seen by": the names, but a person for "typed".
VIA_WORDS = {"typed": "what the user typed"}


@dataclass(frozen=True, slots=True)
class EventRow:
    """One event as the tab shows it; ``tone`` is ``incident``, ``warning``, ``good``,
    ``quiet`` or ``""``."""

    time: str
    what: str
    incident: str
    tone: str


def _int(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _seconds(value: Any) -> str:
    if not isinstance(value, int | float):
        return "?"
    return f"{value:.1f} s" if value < 60 else f"{value / 60:.1f} min"


def _via(event: dict[str, Any]) -> str:
    sources = event.get("sources")
    if not isinstance(sources, list) or not sources:
        sources = [event.get("source", "?")]
    return ", ".join(VIA_WORDS.get(str(source), str(source)) for source in sources)


def _observed(what: str, event: dict[str, Any]) -> str:
    source = str(event.get("source", ""))
    where = SOURCE_WORDS.get(source, f"by {source}" if source else "")
    trigger = f" ({event['trigger']})" if event.get("trigger") else ""
    marker = event.get("marker")
    text = f"{what}{trigger} seen {where}".rstrip()
    return f"{text}: “{marker}”" if isinstance(marker, str) and marker else text


def describe(event: dict[str, Any]) -> EventRow:
    """``event`` in words (an unknown kind is named as it is, never dropped)."""
    at = str(event.get("at", ""))
    when = at[11:19] if len(at) >= 19 else at or "--:--:--"
    kind = str(event.get("kind", "?"))
    number = event.get("number") if kind in (INCIDENT_KIND, "incident_update") else None
    if number is None:
        number = event.get("incident")
    incident = f"#{number}" if number not in (None, "") else ""
    what, tone = _what(kind, event)
    # Every word of an event may come from the file (a clone ships events.jsonl).
    return EventRow(shown_line(when), shown_line(what), shown_line(incident), tone)


def _what(kind: str, event: dict[str, Any]) -> tuple[str, str]:
    get = event.get
    if kind == INCIDENT_KIND:
        words = INCIDENT_WORDS.get(str(get("type")), str(get("type", "?")))
        trigger = f" ({get('trigger')})" if get("trigger") else ""
        head = f"⚠ {words}{trigger}, seen by {_via(event)}"
        return head + _changed_words(event) + _dropped_words(event), "incident"
    if kind == "incident_update":
        if get("acknowledged"):
            return f"incident #{get('number', '?')}: the agent acknowledged the recovery", "good"
        dropped = _dropped_words(event)
        if dropped:
            return f"incident #{get('number', '?')}{dropped}", "warning"
        return f"incident #{get('number', '?')} updated", ""
    if kind == "decision":
        how = {"typed": " (typed)", "screen": " (from the screen)"}.get(str(get("source")), "")
        return f"decision pinned{how}: {get('text', '')}", "note"
    if kind == "injection" and get("payload_by"):  # the payload itself came another way
        return f"prompt to act on the {get('payload_by')}'s payload sent (not a second copy)", ""
    if kind == "auto_rehydrate_skipped":
        return (
            f"{get('hook_source', '')} hook: payload not sent again, this turn's prompt is "
            f"tether's {get('injection_reason') or 'rehydrate'} payload"
        ).strip(), "quiet"
    if kind == "injection_withdrawn":
        return f"queued {get('reason') or 'rehydrate'} payload withdrawn: {get('why', '')}", ""
    if kind == "injection":
        reason = str(get("reason") or "payload")
        what = "initial brief" if reason == "initial brief" else f"{reason} payload"
        text = f"{what} sent: {_int(get('tokens', '?'))} tokens"
        if isinstance(get("queued_for_seconds"), int | float) and get("queued_for_seconds") >= 1:
            text += f", after waiting {_seconds(get('queued_for_seconds'))} for the agent"
        return text, ""
    if kind == "auto_rehydrate":
        return f"payload given by the agent's {get('hook_source', '')} hook".replace(
            "  ", " "
        ) + f": {_int(get('tokens', '?'))} tokens", ""
    if kind == "acknowledged":
        by = {"tether ack": "restated the pins"}.get(str(get("by")), "")
        after = f" after {_seconds(get('seconds'))}" if get("seconds") is not None else ""
        return f"agent acknowledged the recovery ({by}){after}".replace(" ()", ""), "good"
    if kind == "recall_check":
        return _recall_words(event)
    if kind == "ack":
        return f"ack: {get('text', '')}", "quiet"
    if kind == "compact_request":
        return "compaction asked for (tether compact)", ""
    if kind == "invariant-fix":
        return (
            f"cursor fixed: {get('from_cursor')} → {get('to_cursor')} "
            f"({str(get('violation', '?')).replace('-', ' ')})",
            "warning",
        )
    if kind == "artifacts-warning":  # a gap in the indexes or a bad line, with its line number
        return f"artifacts: {get('warning', '?')}", "warning"
    if kind == "hook":
        figures = resume_figures(get("payload")) if get("event") == "SessionStart" else None
        if figures:  # Claude Code's resume/fork: what going on costs, where the user decides
            source = shown_line(str(get("payload").get("source") or "resume"))
            return f"hook: SessionStart ({source}): {figures}", "warning"
        return f"hook: {get('event') or get('name') or '?'}", "quiet"
    if kind == "drift_alarm":  # from the ledger: see supervisor/recognize/drift.py
        return f"⚠ drift: {get('message') or get('alarm') or '?'}", "warning"
    if kind == "agent_exit":
        return f"agent {get('description') or 'exited'}", "warning"
    if kind == "agent_restart":
        argv = get("argv")
        command = " ".join(map(str, argv)) if isinstance(argv, list) else ""
        return f"agent restarted: {command}".rstrip(": "), ""
    if kind == "init":
        return ".tether/ created", "quiet"
    if kind == "restore":
        return (
            f"checkpoint #{get('checkpoint')} restored "
            f"(the state before it is #{get('safety_checkpoint')})",
            "warning",
        )
    if kind in INCIDENT_WORDS or kind in ("unclean_exit", "compaction_started"):
        words = {"unclean_exit": "tether stopped uncleanly", "compaction_started": "compaction"}
        return _observed(INCIDENT_WORDS.get(kind, words.get(kind, kind)), event), "quiet"
    if kind == "compaction_failed":  # ends the compaction_started before it
        said = get("marker") or get("said") or ""
        return f"compaction refused or failed: {said}".rstrip(": "), "warning"
    if kind in ("context_low", "context_used", "context_full", "usage"):
        return f"{kind.replace('_', ' ')} seen {SOURCE_WORDS.get(str(get('source')), '')}", "quiet"
    return kind.replace("_", " ").replace("-", " "), ""


def _changed_words(event: dict[str, Any]) -> str:
    """ "  changed: 15 minute → 30 minute": facts the summary changed, before anything else."""
    audit = event.get("audit")
    rows = audit.get("changed") if isinstance(audit, dict) else None
    pairs = [
        f"{c.get('pinned')} → {c.get('now')}"
        for row in rows or []
        if isinstance(row, dict)
        for c in row.get("changed") or []
        if isinstance(c, dict)
    ]
    return f"  changed: {'; '.join(pairs)}" if pairs else ""


def _dropped_words(event: dict[str, Any]) -> str:
    """ "  dropped, not pinned: a, b": what the summary lost that no pin holds."""
    dropped = event.get("dropped_unpinned")
    if not isinstance(dropped, list) or not dropped:
        return ""
    terms = [str(d.get("term")) for d in dropped if isinstance(d, dict)]
    return f"  dropped, not pinned: {', '.join(terms)}"


def _recall_words(event: dict[str, Any]) -> tuple[str, str]:
    """ "recall check: complete, 3 of 3 decisions restated", or the missing ones and terms."""
    restated = event.get("restated") if isinstance(event.get("restated"), list) else []
    missing = [row for row in event.get("missing") or [] if isinstance(row, dict)]
    result = str(event.get("result", "?"))
    asked = len(restated) + len(missing)
    if result == "none":
        plural = "s" * (asked != 1)
        return f"recall check: none, no `tether ack` in time ({asked} decision{plural})", "warning"
    if result == "superseded":  # a newer recovery came before any ack; its check covers this
        covered = event.get("covered") or "?"
        return f"recall check: superseded by a newer recovery (its check: {covered})", "quiet"
    head = f"recall check: {result}, {len(restated)} of {asked} decisions restated"
    for row in sorted(missing, key=lambda r: not r.get("changed")):  # changed facts first
        pairs = [c for c in row.get("changed") or [] if isinstance(c, dict)]
        if pairs:
            said = "; ".join(f"{c.get('pinned')} → {c.get('now')}" for c in pairs)
            head += f"; decision {row.get('decision', '?')} changed: {said}"
            continue
        terms = ", ".join(map(str, row.get("terms") or [])) or "no ack"
        head += f"; decision {row.get('decision', '?')} missing: {terms}"
    return head, "good" if result == "complete" else "warning"


def fields_text(event: dict[str, Any]) -> str:
    """Every field of ``event``, one per line, values whole (long text wraps, never cut),
    control characters shown visibly."""
    lines = []
    for key, value in event.items():
        value_text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{shown_line(key)}: {shown(value_text)}")
    return "\n".join(lines)
