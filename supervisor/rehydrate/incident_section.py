"""The payload's incident section: what was lost, by whom it was seen, and its audit.

An incident reaches the payload as a live ``Incident`` or as its events on disk;
both become one :class:`IncidentView`, rendered in words with the loss audit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class IncidentView:
    """An incident as the payload needs it, from an ``Incident`` or an incident event."""

    number: Any
    kind: str
    trigger: str | None
    sources: list[str]
    at: str | None
    summary: str | None
    lost: list[tuple[str, list[str]]]
    degraded: list[tuple[str, list[str]]]
    audited: bool
    # (decision, ["15 minute → 30 minute", ...]): facts the summary changed, shown first
    changed: list[tuple[str, list[str]]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # "dropped, not pinned" terms
    message: str | None = None  # what tether says about it (an unclean exit's lifetime)


def incident_view(incident: Any, decisions: list[str]) -> IncidentView | None:
    if incident is None:
        return None
    if isinstance(incident, dict):
        data = incident
        sources = data.get("sources") or ([data["source"]] if data.get("source") else [])
        view = IncidentView(
            number=data.get("number"),
            kind=str(data.get("type") or data.get("incident_kind") or "incident"),
            trigger=data.get("trigger"),
            sources=[str(s) for s in sources],
            at=data.get("observed_at") or data.get("at"),
            summary=data.get("summary"),
            lost=[],
            degraded=[],
            audited=False,
            message=data.get("message") if isinstance(data.get("message"), str) else None,
        )
        rows = data.get("dropped_unpinned")
        if isinstance(rows, list):
            view.dropped = [str(r["term"]) for r in rows if isinstance(r, dict) and "term" in r]
        audit = data.get("audit")
        if isinstance(audit, dict):
            view.lost = _audit_rows(audit.get("lost"))
            view.degraded = _audit_rows(audit.get("degraded"))
            view.changed = _changed_rows(audit.get("changed"))
            view.audited = True
    else:
        from supervisor.times import iso

        view = IncidentView(
            number=incident.number,
            kind=incident.kind,
            trigger=incident.trigger,
            sources=list(incident.sources),
            at=iso(incident.at) if isinstance(incident.at, int | float) else None,
            summary=incident.summary,
            lost=[],
            degraded=[],
            audited=False,
            message=incident.details.get("message"),
        )
        view.dropped = [d.term for d in getattr(incident, "dropped", ())]
        audit = incident.audit
        if audit is not None:
            _take_audit(view, audit)
    if view.kind != "compaction":  # only a compaction summary the agent gave is audited
        view.lost, view.degraded, view.changed, view.audited = [], [], [], False
    elif not view.audited and view.summary and decisions:
        _audit_now(view, decisions)
    return view


def _take_audit(view: IncidentView, audit: Any) -> None:
    view.lost = [(d.decision, list(d.missing)) for d in audit.lost]
    view.degraded = [(d.decision, list(d.missing)) for d in audit.degraded]
    view.changed = [
        (d.decision, [f"{p} → {n}" for p, n in d.changed]) for d in getattr(audit, "changed", ())
    ]
    view.audited = True


def _changed_rows(rows: Any) -> list[tuple[str, list[str]]]:
    found = []
    for row in rows or []:
        if isinstance(row, dict) and isinstance(row.get("decision"), str):
            pairs = [
                f"{c.get('pinned')} → {c.get('now')}"
                for c in row.get("changed") or []
                if isinstance(c, dict)
            ]
            found.append((row["decision"], pairs))
    return found


def _audit_rows(rows: Any) -> list[tuple[str, list[str]]]:
    found = []
    for row in rows or []:
        if isinstance(row, dict) and isinstance(row.get("decision"), str):
            found.append((row["decision"], [str(term) for term in row.get("missing") or []]))
    return found


def _audit_now(view: IncidentView, decisions: list[str]) -> None:
    """The incident carried a summary but no audit: run the loss audit here."""
    from supervisor.recognize import loss_audit

    try:
        audit = loss_audit.audit_summary(decisions, view.summary or "")
    except Exception:  # an audit we cannot run is left out, never a failed payload
        return
    _take_audit(view, audit)


_KIND_WORDS = {
    "compaction": "Context compacted",
    "wipe": "Context wiped",
    "crash": "Agent crashed",
    "unclean-exit": "tether was stopped uncleanly",
}


def incident_lines(view: IncidentView, decisions: list[str]) -> list[str]:
    words = _KIND_WORDS.get(view.kind, view.kind)
    label = f"#{view.number}" if view.number is not None else "#?"
    trigger = f", {view.trigger}" if view.trigger else ""
    head = f"{words} ({label}{trigger})"
    if view.sources:
        head += f", seen by {', '.join(view.sources)}"
    if view.at:
        head += f", at {view.at}"
    lines = ["## Incident", "", head + "."]
    if view.message:
        lines.append(view.message[:1].upper() + view.message[1:] + ".")
    if not view.audited:
        if view.kind == "compaction":
            lines.append("No compaction summary was available to audit; trust the decisions above.")
        return lines
    total = len(decisions)
    for decision, pairs in view.changed:  # a changed fact first: the summary says otherwise
        where = (
            f"decision {decisions.index(decision) + 1}"
            if decision in decisions
            else f'"{decision}"'
        )
        lines.append(
            f"Loss audit: CHANGED in the summary: {where}: changed: {'; '.join(pairs)} "
            "(the pin holds as written)."
        )
    if not view.lost and not view.degraded:
        if view.changed:
            return lines
        lines.append(
            f"Loss audit: all {total} pinned decisions kept their key terms in the summary."
        )
        return lines
    lines.append(
        f"Loss audit: the summary you were given lost key terms of "
        f"{len(view.lost) + len(view.degraded)} of {total} pinned decisions:"
    )
    for status, rows in (("LOST", view.lost), ("degraded", view.degraded)):
        for decision, missing in rows:
            where = (
                f"decision {decisions.index(decision) + 1}"
                if decision in decisions
                else f'"{decision}"'
            )
            terms = ", ".join(missing) if missing else "its key terms"
            lines.append(f"- {status}: {where} (missing: {terms})")
    lines.append(
        "The pinned decisions above are the truth; where the summary differs, it is wrong."
    )
    return lines


DROPPED_SHOWN = 12


def dropped_lines(view: IncidentView) -> list[str]:
    """What the summary dropped that nobody pinned: the agent should look it up, not guess."""
    if not view.dropped:
        return []
    shown = view.dropped[:DROPPED_SHOWN]
    more = len(view.dropped) - len(shown)
    tail = f" (and {more} more)" if more > 0 else ""
    return [
        "Dropped by the summary and pinned by nobody (look them up in the files or ask; "
        f"do not guess): {'; '.join(shown)}{tail}."
    ]


# ------------------------------------------------------------------ rendering
