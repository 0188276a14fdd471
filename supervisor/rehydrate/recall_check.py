"""The recall check: after a recovery, which pinned decisions did the agent take back?

Delivering a payload is not the same as the model keeping it. So the recovery
preamble asks the agent to restate the pinned decisions and send that with
`tether ack`; this module compares the restatement with the pins the payload
carried, with the judge the loss audit uses (:mod:`supervisor.recognize.judge`): each
numbered item of the restatement against its own decision (the whole text when the
agent did not number), its values in any notation, its rule's direction. A decision
whose value or direction came back different is *changed*, one whose specifics are
missing is not restated; one event is recorded per recovery::

    {"kind": "recall_check", "incident": N, "injection_at": ..., "pinned": k,
     "restated": [decision numbers],
     "missing": [{"decision": i, "terms": [...], "changed": [{"pinned", "now"}]}],
     "result": "complete" | "partial" | "none"}

A recovery is an ``injection`` event that asked for a restatement (it carries
``restate``, the numbers of the decisions it asked for) or an ``auto_rehydrate``
event of the SessionStart hook. The acknowledgement belongs to that one
recovery: the first check recorded after it is its check, and a later ack (or
the supervisor's ``none`` at the profile's timeout) finds it already checked.

A recovery replaced before any ack (a second loss came first) still ends with a
recorded outcome. Its payload's pins went out again in the replacing one, so the
replacing recovery's check covers the union of the decisions both asked for, and
the one replaced gets a check of its own with result ``superseded``, naming the
recovery that covered it (``superseded_by``) and that one's result (``covered``).
Both are written together, under the folder's lock, by whoever records the
newer recovery's check (`tether ack`, or the supervisor's ``none``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from supervisor.errors import TetherError
from supervisor.store import checkpoints, fsio, notes
from supervisor.store.tether_dir import TetherDir

KIND = "recall_check"
ACK = "ack"
COMPLETE = "complete"
PARTIAL = "partial"
NONE = "none"
SUPERSEDED = "superseded"  # replaced by a newer recovery before any ack; that one covers it
RESEND_REASON = "resend-missing"
ACK_TEXT_LIMIT = 16_000  # characters of the restatement kept in the ack event
SEARCH_EVENTS = 20_000  # how far back from the end `tether ack` looks for its recovery


@dataclass(frozen=True, slots=True)
class Recovery:
    """One payload that asked the agent for a restatement: its event and what it asked."""

    at: str  # the injection's event time: the identity of the recovery
    incident: Any
    reason: str
    checkpoint: int | None
    restate: tuple[int, ...] | None  # decision numbers asked for; None: every pin
    event: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, event: dict[str, Any]) -> Recovery | None:
        """The recovery an event records, or None when it is none (e.g. the initial brief)."""
        kind = event.get("kind")
        if kind == "injection" and "restate" not in event:
            return None
        if kind not in ("injection", "auto_rehydrate") or not isinstance(event.get("at"), str):
            return None
        restate = event.get("restate")
        numbers = None
        if isinstance(restate, list):
            numbers = tuple(n for n in restate if isinstance(n, int) and not isinstance(n, bool))
        seq = event.get("checkpoint")
        return cls(
            at=event["at"],
            incident=event.get("incident"),
            reason=str(event.get("reason") or kind),
            checkpoint=seq if isinstance(seq, int) and not isinstance(seq, bool) else None,
            restate=numbers,
            event=dict(event),
        )


Changes = tuple[tuple[str, str], ...]  # (as pinned, as restated)


@dataclass(frozen=True, slots=True)
class RecallCheck:
    """The outcome for one recovery, as recorded."""

    incident: Any
    injection_at: str
    pinned: int
    restated: tuple[int, ...]
    missing: tuple[tuple[int, tuple[str, ...]], ...]  # (decision number, missing terms)
    result: str
    changed: tuple[tuple[int, Changes], ...] = ()  # (decision number, its changed facts)

    def changes_of(self, number: int) -> Changes:
        return next((pairs for n, pairs in self.changed if n == number), ())

    def to_event(self) -> dict[str, Any]:
        rows = []
        for number, terms in self.missing:
            row: dict[str, Any] = {"decision": number, "terms": list(terms)}
            pairs = self.changes_of(number)
            if pairs:
                row["changed"] = [{"pinned": p, "now": n} for p, n in pairs]
            rows.append(row)
        return {
            "incident": self.incident,
            "injection_at": self.injection_at,
            "pinned": self.pinned,
            "restated": list(self.restated),
            "missing": rows,
            "result": self.result,
        }

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> RecallCheck:
        missing = []
        changed = []
        for row in event.get("missing") or []:
            if isinstance(row, dict) and isinstance(row.get("decision"), int):
                missing.append((row["decision"], tuple(str(t) for t in row.get("terms") or [])))
                pairs = tuple(
                    (str(c.get("pinned")), str(c.get("now")))
                    for c in row.get("changed") or []
                    if isinstance(c, dict)
                )
                if pairs:
                    changed.append((row["decision"], pairs))
        return cls(
            incident=event.get("incident"),
            injection_at=str(event.get("injection_at") or ""),
            pinned=int(event.get("pinned") or 0),
            restated=tuple(n for n in event.get("restated") or [] if isinstance(n, int)),
            missing=tuple(missing),
            result=str(event.get("result") or NONE),
            changed=tuple(changed),
        )

    def describe(self) -> str:
        """The banner's words: "recovered: 4 of 4 decisions restated", or what changed (first)
        and what is missing."""
        if self.result == SUPERSEDED:
            return "replaced by a newer recovery before any `tether ack`; its check covers this"
        asked = len(self.restated) + len(self.missing)
        if self.result == COMPLETE:
            return f"recovered: {len(self.restated)} of {asked} decisions restated"
        if self.result == NONE:
            plural = "s" * (asked != 1)
            return f"no `tether ack` from the agent: {asked} decision{plural} not restated"
        parts = [
            "changed: " + "; ".join(f"{p} → {n}" for p, n in pairs) for _n, pairs in self.changed
        ]
        gone = [(n, t) for n, t in self.missing if not self.changes_of(n)]
        if gone:
            count = len(gone)
            terms = [", ".join(sorted(t, key=_telling)[:2]) for _n, t in gone if t]
            which = f" ({'; '.join(terms)})" if terms else ""
            plural = "s" * (count != 1)
            parts.append(f"{count} decision{plural} not restated{which}")
        return ", ".join(parts)


def _telling(term: str) -> int:
    """Sort key: a value (15 minute) says more than a name (Redis), a name more than words."""
    if any(char.isdigit() for char in term):
        return 0
    return 1 if any(char.isupper() for char in term) else 2


Missing = tuple[tuple[int, tuple[str, ...]], ...]  # (decision number, its missing terms)


def compare(
    pins: list[str], restatement: str, asked: tuple[int, ...] | None = None
) -> tuple[tuple[int, ...], Missing, tuple[tuple[int, Changes], ...]]:
    """``(restated, missing, changed)``: decision numbers (1-based) kept whole, ``(number,
    missing terms)`` for the rest, and ``(number, (pinned, now) pairs)`` for those that
    came back changed, over the decisions ``asked`` for."""
    from supervisor.recognize.judge.restatement import judge_restatement

    numbers = asked if asked is not None else tuple(range(1, len(pins) + 1))
    verdicts = judge_restatement(pins, restatement, [n for n in numbers if 1 <= n <= len(pins)])
    restated: list[int] = []
    missing: list[tuple[int, tuple[str, ...]]] = []
    changed: list[tuple[int, Changes]] = []
    for number, verdict in sorted(verdicts.items()):
        if verdict.status == "kept":
            restated.append(number)
            continue
        missing.append((number, verdict.missing))
        if verdict.changed:
            changed.append((number, tuple((c.pinned, c.now) for c in verdict.changed)))
    return tuple(restated), tuple(missing), tuple(changed)


def pins_of(tether: TetherDir, recovery: Recovery, live: list[str] | None = None) -> list[str]:
    """The pinned decisions as the recovery sent them: from its checkpoint, else live
    (``live``: the pins as the supervisor parsed them; None: read from notes.md)."""
    if recovery.checkpoint is None and live is not None:
        return live
    if recovery.checkpoint is not None:
        try:
            return notes.pinned_decisions(checkpoints.load(tether, recovery.checkpoint).notes)
        except TetherError:
            pass
    try:
        return notes.pinned_decisions(tether.read_notes())
    except TetherError:
        return []


def latest_recovery(tether: TetherDir) -> tuple[Recovery | None, dict[str, Any] | None]:
    """The newest recovery and its recall check if one was recorded, from the end of the file."""
    recovery, checked, _replaced = open_recoveries(tether)
    return recovery, checked


def open_recoveries(
    tether: TetherDir,
) -> tuple[Recovery | None, dict[str, Any] | None, list[Recovery]]:
    """The newest recovery, its recall check if recorded, and the recoveries before it
    that never got one (newest first), back to the last that did."""
    checks: dict[str, dict[str, Any]] = {}
    newest: Recovery | None = None
    replaced: list[Recovery] = []
    for seen, event in enumerate(fsio.iter_jsonl_reversed(tether.events)):
        if seen >= SEARCH_EVENTS:  # a recovery that far back is no recovery of this session
            break
        kind = event.get("kind")
        if kind == KIND and isinstance(event.get("injection_at"), str):
            checks.setdefault(event["injection_at"], event)
            continue
        recovery = Recovery.of(event)
        if recovery is None:
            continue
        if newest is None:
            newest = recovery
            continue
        if recovery.at in checks or recovery.at == newest.at:
            break
        replaced.append(recovery)
    if newest is None:
        return None, None, []
    return newest, checks.get(newest.at), replaced


def _asked(recovery: Recovery, count: int) -> set[int]:
    """The decision numbers ``recovery`` asked for, of ``count`` pins."""
    numbers = recovery.restate if recovery.restate is not None else range(1, count + 1)
    return {n for n in numbers if 1 <= n <= count}


def _check(
    tether: TetherDir,
    recovery: Recovery,
    restatement: str | None,
    replaced: Sequence[Recovery] = (),
    live: list[str] | None = None,
) -> RecallCheck:
    """``recovery``'s check, over what it and the recoveries it ``replaced`` asked for."""
    pins = pins_of(tether, recovery, live)
    asked = _asked(recovery, len(pins))
    for older in replaced:
        asked |= _asked(older, len(pins))
    numbers = tuple(sorted(asked))
    restated: tuple[int, ...]
    missing: Missing
    changed: tuple[tuple[int, Changes], ...] = ()
    if restatement is None:
        restated, missing = (), tuple((n, ()) for n in numbers)
        result = NONE
    else:
        restated, missing, changed = compare(pins, restatement, numbers)
        result = PARTIAL if missing else COMPLETE
    return RecallCheck(
        recovery.incident, recovery.at, len(numbers), restated, missing, result, changed
    )


def acknowledge(
    tether: TetherDir, restatement: str, *, source: str = "cli"
) -> tuple[RecallCheck, bool]:
    """Record the agent's restatement for the newest recovery and check it.

    Returns the check and whether it is new; a recovery already checked keeps
    its check (one per recovery), and the restatement is still recorded.
    """
    with tether.updating():
        recovery, checked, replaced = open_recoveries(tether)
        if recovery is None:
            raise TetherError(
                "no recovery payload was sent here yet, so there is nothing to check; "
                "`tether ack` answers a payload that asks for it",
                exit_code=1,
            )
        tether.record_event(
            ACK,
            source,
            incident=recovery.incident,
            injection_at=recovery.at,
            text=restatement[:ACK_TEXT_LIMIT],
            chars=len(restatement),
        )
        if checked is not None:
            return RecallCheck.from_event(checked), False
        check = _check(tether, recovery, restatement, replaced)
        _record_superseded(tether, replaced, check, source)
        tether.record_event(KIND, source, **check.to_event())
        return check, True


def _record_superseded(
    tether: TetherDir, replaced: Sequence[Recovery], check: RecallCheck, source: str
) -> None:
    """The outcome of each recovery ``check``'s one replaced before any ack (oldest first)."""
    for older in reversed(replaced):
        tether.record_event(
            KIND,
            source,
            incident=older.incident,
            injection_at=older.at,
            pinned=check.pinned,
            restated=[],
            missing=[],
            result=SUPERSEDED,
            superseded_by=check.injection_at,
            covered=check.result,
        )


def record_none(
    tether: TetherDir,
    recovery: Recovery,
    *,
    source: str = "supervisor",
    live: list[str] | None = None,
) -> dict:
    """No `tether ack` came in time: record ``none`` unless a check arrived meanwhile.
    ``live``: the pins as the supervisor parsed them (see :func:`pins_of`).

    Returns the recall check event that holds for the recovery (the one found or
    the one written).
    """
    with tether.updating():
        latest, checked, replaced = open_recoveries(tether)
        if checked is not None and checked.get("injection_at") == recovery.at:
            return checked
        if latest is not None and latest.at != recovery.at:
            for event in fsio.iter_jsonl_reversed(tether.events, containing=KIND.encode()):
                if event.get("kind") == KIND and event.get("injection_at") == recovery.at:
                    return event
            replaced = []  # a newer recovery than this one: its own check will cover them
        check = _check(tether, recovery, None, replaced, live)
        _record_superseded(tether, replaced, check, source)
        return tether.record_event(KIND, source, **check.to_event())


RESTATE_ASK = (
    "Restate each of these pinned decisions under its number (1. ..., 2. ...): copy its "
    "values exactly as written here (numbers with their units, names, paths, versions) "
    "and keep its direction (must, never, only); say the rest in your own words. Send "
    'the restatement with `tether ack "..."` (or on its stdin).'
)


def resend_text(pins: list[str], check: RecallCheck) -> str:
    """The short payload F6 sends after a partial recall: only the decisions not restated,
    as pinned; a changed one says what the restatement said instead."""
    lines = [
        "Recall check from tether: your restatement after the recovery changed or left out "
        "part of these pinned decisions. They hold exactly as written here:",
        "",
    ]
    for number, terms in check.missing:
        if 1 <= number <= len(pins):
            lines.append(f"{number}. {pins[number - 1]}")
            pairs = check.changes_of(number)
            if pairs:
                said = "; ".join(f'you said "{now}", the pin says "{p}"' for p, now in pairs)
                lines.append(f"   (changed in your restatement: {said})")
            gone = [t for t in terms if not any(t == p for p, _n in pairs)]
            if gone:
                lines.append(f"   (not in your restatement: {', '.join(gone)})")
    lines += ["", RESTATE_ASK + " Then continue."]
    return "\n".join(lines)
