"""The rehydrate payload: what tether sends an agent that may have lost its context.

Three parts (DESIGN.md, "Rehydrate: the payload"): the profile's recovery
preamble; a checkpoint summary built from disk (goal, success criteria,
constraints, pinned decisions verbatim, rejected approaches, done, unproven,
next step, progress with the invariant in words, the incident and its loss
audit); pointers to the files for whatever the token budget left out.

The budget is counted with :mod:`supervisor.rehydrate.tokens` on the final, sanitized
text. Each text tether did not write is sanitized once, where it enters (the notes and
task as they are parsed, the preamble, the incident, progress, repairs and evidence); a
render of those clean pieces and tether's own words then only has its long lines cut
(:func:`~supervisor.rehydrate.sanitize.cut_long_lines`), however often the budget
renders it. Under the budget we drop, one item at a time: older Done items first,
then Unproven (older first), then older Rejected approaches. The goal, the
pinned decisions and the next step are never dropped; nor are the preamble,
criteria, constraints, progress and incident, which are short and which a
rehydrated agent cannot do without. If what cannot be dropped alone exceeds
the budget, it is all kept and the payload says the budget was exceeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from supervisor.config.profiles import Profile
from supervisor.rehydrate import budget
from supervisor.rehydrate.evidence_section import HEADING as EVIDENCE_HEADING
from supervisor.rehydrate.evidence_section import PREAMBLE_LINE as EVIDENCE_PREAMBLE
from supervisor.rehydrate.evidence_section import evidence
from supervisor.rehydrate.incident_section import (
    IncidentView,
    dropped_lines,
    incident_lines,
    incident_view,
)
from supervisor.rehydrate.live_notes import LiveNotes, ParsedNotes
from supervisor.rehydrate.repairs import repairs_since_last_payload
from supervisor.rehydrate.sanitize import cut_long_lines, sanitize
from supervisor.rehydrate.tokens import TokenCount
from supervisor.store import checkpoints, fsio, notes
from supervisor.store.checkpoints import Checkpoint
from supervisor.store.tether_dir import INCIDENT_KIND, TetherDir

# Sections that may be dropped, in the order they are given up.
DROP_ORDER = ("Done", "Unproven", "Rejected approaches")
FILES_LINE = (
    "Files: .tether/task.md, .tether/notes.md, .tether/progress.json, "
    "and the last lines of .tether/artifacts.jsonl. "
    "The whole session so far, as plain text: run `tether transcript`."
)

Counter = Callable[[str], TokenCount]


@dataclass(slots=True)
class Payload:
    """The text to send, its token count, and what the budget cost."""

    text: str
    tokens: int
    exact: bool
    dropped: list[str] = field(default_factory=list)  # "Done: <item>" per dropped item
    cut: list[str] = field(default_factory=list)  # titles of the never-dropped parts cut short
    over_budget: bool = False
    encoding: str = ""
    budget: int = 0  # 0: no budget
    source: str = ""  # "live files" or "checkpoint #N"

    def describe(self) -> str:
        """One line for a status bar or stderr: tokens, budget, what was left out."""
        approx = "" if self.exact else "~"
        parts = [f"{approx}{self.tokens} tokens ({self.encoding})"]
        if self.budget:
            parts.append(f"budget {self.budget}")
        if self.dropped:
            parts.append(f"{len(self.dropped)} items left out")
        if self.cut:
            parts.append(f"cut to fit: {', '.join(self.cut)}")
        if self.over_budget:
            parts.append("OVER BUDGET (the preamble, progress and incident alone do not fit)")
        return f"payload from {self.source}: " + ", ".join(parts)


@dataclass(slots=True)
class _State:
    source: str
    where: str  # the file that holds what the budget drops
    task_where: str  # the file that holds the task's parts
    goal: str
    criteria: list[str]
    constraints: list[str]
    phase: str
    decisions: list[str]
    sections: dict[str, list[str]]  # the droppable sections, oldest item first
    next_step: str
    progress: dict[str, Any]
    invariant: dict[str, Any]
    repairs: list[str] = field(default_factory=list)  # what tether fixed since the last payload
    evidence: list[str] = field(default_factory=list)  # the ledger's record, most important first


MARKED_DONE = 1000  # Done items checked for unbacked claims; a payload never holds more


def build_payload(
    tether: TetherDir,
    profile: Profile,
    *,
    checkpoint: int | Checkpoint | None = None,
    incident: Any = None,
    budget: int | None = None,
    count: Counter | None = None,
    live: LiveNotes | None = None,
) -> Payload:
    """Build the payload from checkpoint ``checkpoint`` (a number or one loaded) or the live files.

    ``live``: the supervisor's parsed notes and task, read again only if they changed
    (None: parsed from disk here); with ``checkpoint``, its parse when the checkpoint
    holds the live files' very texts.

    ``incident`` is an :class:`supervisor.recognize.observations.Incident`, an incident
    event from ``events.jsonl`` (see :func:`latest_incident`), or ``None``.
    ``budget`` defaults to the profile's ``payload_budget``; 0 or less means none.
    """
    if count is None:
        from supervisor.rehydrate.tokens import count_tokens as count
    if isinstance(checkpoint, int):
        checkpoint = checkpoints.load(tether, checkpoint)
    if checkpoint is not None:
        if live is not None:  # the checkpoint just taken of the live files: their parse
            parsed = live.of_texts(checkpoint.task, checkpoint.notes)
        else:
            parsed = ParsedNotes.of_texts(checkpoint.task, checkpoint.notes)
        state = _state_of(checkpoint, parsed.task, parsed.notes)
    else:
        parsed = live.current() if live is not None else ParsedNotes.read(tether)
        if parsed.error is not None:
            raise parsed.error
        state = _state_of(checkpoints.live(tether, texts=False), parsed.task, parsed.notes)
    state.repairs = _clean(repairs_since_last_payload(tether))
    proof = evidence(tether.root, tether.work_dir)
    state.evidence = _clean(proof.items)
    done = state.sections["Done"]  # the budget drops older Done items first: mark the newest
    marked = [proof.mark(item) for item in done[-MARKED_DONE:]]
    state.sections["Done"] = done[:-MARKED_DONE] + marked
    view = _clean_view(incident_view(incident, state.decisions))
    summaries = [("The phase (your summary)", state.phase)]
    if view is not None and view.summary:
        summaries.append(("The compaction summary", view.summary))
    state.evidence[1:1] = proof.claim_lines(summaries)  # right after the checkout
    limit = profile.payload_budget if budget is None else budget
    preamble = sanitize(profile.preamble.strip())
    if state.evidence:
        preamble += "\n" + EVIDENCE_PREAMBLE
    if limit > 0:
        fitted, text, tokens, over = _fit(preamble, state, view, limit, count)
    else:
        fitted = _Fitted.whole(state)
        text = cut_long_lines(_render(preamble, state, fitted, view))
        tokens, over = count(text), False
    dropped = [
        f"{title}: {item}"
        for title in DROP_ORDER
        for item in state.sections.get(title, [])[: fitted.left_out.get(title, 0)]
    ]
    if over:  # say so in the payload itself, then count again
        text = cut_long_lines(text + "\n\n" + _over_budget_note(limit))
        tokens = count(text)
    return Payload(
        text=text,
        tokens=tokens.n,
        exact=tokens.exact,
        dropped=dropped,
        cut=fitted.cut_titles(),
        over_budget=over,
        encoding=tokens.encoding,
        budget=max(limit, 0),
        source=state.source,
    )


def latest_incident(tether: TetherDir) -> dict[str, Any] | None:
    """The last incident in ``events.jsonl``, with what later sources added to it."""
    return incident_record(tether)


def incident_record(tether: TetherDir, number: int | None = None) -> dict[str, Any] | None:
    """Incident ``number`` (None: the last one) as recorded, its updates merged in.

    An incident is opened by its first sighting; the summary, the audit, the
    trigger and more sources often come seconds later as ``incident_update``
    events, and a payload about the incident must carry them. Reads backwards
    from the end, as far as the incident's own event.
    """
    updates: list[dict[str, Any]] = []
    for event in fsio.iter_jsonl_reversed(tether.events, containing=b"incident"):
        kind = event.get("kind")
        if kind == "incident_update":
            updates.append(event)
        elif kind == INCIDENT_KIND and (number is None or event.get("number") == number):
            merged = dict(event)
            for update in reversed(updates):  # oldest first
                if update.get("number") != merged.get("number"):
                    continue
                for key, value in update.items():
                    if key not in ("at", "kind", "source", "number") and value is not None:
                        merged[key] = value
            return merged
    return None


# ------------------------------------------------------------------ reading the state


def _state_of(snapshot: Checkpoint, task: notes.Document, document: notes.Document) -> _State:
    """``snapshot``'s state, its task and notes parsed (sanitized first); what else it
    holds that tether did not write (its reason, progress, verdict) sanitized here."""
    if snapshot.seq is None:
        source, where, task_where = "live files", ".tether/notes.md", ".tether/task.md"
    else:
        source = _clean(f"checkpoint #{snapshot.seq} ({snapshot.at}, {snapshot.reason})")
        where = f".tether/checkpoints/{snapshot.seq:06d}.json (its notes)"
        task_where = f".tether/checkpoints/{snapshot.seq:06d}.json (its task)"
    sections = {title: _items(document, title) for title in DROP_ORDER}
    progress = _clean(dict(snapshot.progress or {}))
    phase = _body(document, "Phase") or str(progress.get("phase") or "")
    return _State(
        source=source,
        where=where,
        task_where=task_where,
        goal=_body(task, "Goal"),
        criteria=_items(task, "Success criteria"),
        constraints=_items(task, "Constraints"),
        phase=phase,
        decisions=notes.decisions_of(document),
        sections=sections,
        next_step=_body(document, "Next step"),
        progress=progress,
        invariant=_clean(dict(snapshot.invariant or {})),
    )


def _clean(value: Any) -> Any:
    """``value`` (JSON-shaped: text, numbers, lists, dicts) with each text in it sanitized,
    its lines left whole: the render they join cuts its long lines."""
    if isinstance(value, str):
        return sanitize(value, max_line=0)
    if isinstance(value, list | tuple):
        return type(value)(_clean(item) for item in value)
    if isinstance(value, dict):
        return {_clean(key): _clean(item) for key, item in value.items()}
    return value


def _clean_view(view: IncidentView | None) -> IncidentView | None:
    """The incident as told by its sources (a summary, an audit, a message): sanitized."""
    if view is None:
        return None
    return replace(view, **{f.name: _clean(getattr(view, f.name)) for f in fields(view)})


def _body(document: notes.Document, title: str) -> str:
    section = document.find(title)
    if section is None:
        return ""
    return notes.strip_comments(section.body).strip()


def _items(document: notes.Document, title: str) -> list[str]:
    section = document.find(title)
    return notes.section_items(section.body) if section is not None else []


#: Parts never dropped, only cut, when they do not fit: (name, title, holds it).
PINNED_PARTS = ("goal", "criteria", "constraints", "decisions", "next")
_PART_TITLES = {
    "goal": "Goal",
    "criteria": "Success criteria",
    "constraints": "Constraints",
    "decisions": "Decisions",
    "next": "Next step",
}


@dataclass(slots=True)
class _Fitted:
    """The parts of the summary as they fit the budget, and what each left out."""

    goal: str
    criteria: list[str]
    constraints: list[str]
    decisions: list[str]
    next_step: str
    sections: dict[str, list[str]]  # the droppable sections, what is kept of each
    left_out: dict[str, int] = field(default_factory=dict)  # title or part -> items left out
    evidence: list[str] = field(default_factory=list)  # the ledger's lines that fit

    @classmethod
    def whole(cls, state: _State) -> _Fitted:
        return cls(
            state.goal,
            state.criteria,
            state.constraints,
            state.decisions,
            state.next_step,
            dict(state.sections),
            evidence=list(state.evidence),
        )

    @classmethod
    def bare(cls, state: _State) -> _Fitted:
        """Nothing of the notes but their headings: what the rest of the payload costs."""
        return cls("", [], [], [], "", {title: [] for title in DROP_ORDER})

    def cut_titles(self) -> list[str]:
        return [_PART_TITLES[part] for part in PINNED_PARTS if self.left_out.get(part)]


def _fit(
    preamble: str, state: _State, view: IncidentView | None, limit: int, count: Counter
) -> tuple[_Fitted, str, TokenCount, bool]:
    """The summary cut to ``limit`` tokens, counting no more text than could fit.

    What the preamble, progress and incident cost is counted first; the goal,
    criteria, constraints, decisions and next step then share what is left
    (small ones whole, large ones cut to an even share, with a pointer to the
    file), and the droppable sections get the rest, newest items first. The
    render is counted exactly and the allowance narrowed until it fits.
    """
    fixed = count(cut_long_lines(_render(preamble, state, _Fitted.bare(state), view))).n
    reserve = 0
    fitted, text, tokens = _Fitted.whole(state), "", TokenCount(0, True, "")
    for _attempt in range(8):
        available = max(limit - fixed - reserve, 0)
        fitted = _allocate(state, available, count)
        text = cut_long_lines(_render(preamble, state, fitted, view))
        tokens = count(text)
        if tokens.n <= limit:
            return fitted, text, tokens, False
        if available == 0:
            break  # the fixed parts alone do not fit
        reserve += tokens.n - limit + 8
    return fitted, text, tokens, True


def _allocate(state: _State, available: int, count: Counter) -> _Fitted:
    def bullet(item: str) -> str:
        return _bullet(item) + "\n"

    def numbered(item: str) -> str:
        return f"1. {_indent(item, 3)}\n"

    lists = {
        "criteria": (state.criteria, bullet),
        "constraints": (state.constraints, bullet),
        "decisions": (state.decisions, numbered),
    }
    demands = {
        "goal": budget.demand_of_text(state.goal, available, count),
        "next": budget.demand_of_text(state.next_step, available, count),
    }
    for part, (items, render) in lists.items():
        whole = budget.keep_items(items, available, count, render, newest=False)
        demands[part] = whole.tokens if not whole.left_out else available + 1
    shares = budget.water_fill(demands, available)
    left_out: dict[str, int] = {}
    goal = budget.cut_text(state.goal, shares["goal"], count)
    next_step = budget.cut_text(state.next_step, shares["next"], count)
    left_out["goal"], left_out["next"] = goal.left_out, next_step.left_out
    spent = goal.tokens + next_step.tokens
    kept: dict[str, list[str]] = {}
    for part, (items, render) in lists.items():
        cut = budget.keep_items(items, shares[part], count, render, newest=False)
        kept[part], left_out[part] = cut.items or [], cut.left_out
        spent += cut.tokens
    # Droppable items only once nothing pinned was cut: they go first, whatever is left over.
    remaining = 0 if any(left_out.values()) else available - spent
    # The evidence next, before the droppable notes: what was done outranks what was said.
    proof = budget.keep_items(state.evidence, remaining, count, bullet, newest=False)
    left_out["evidence"] = proof.left_out
    remaining = remaining - proof.tokens if not proof.left_out else 0
    sections: dict[str, list[str]] = {}
    for title in reversed(DROP_ORDER):  # Done is given up first, so it is filled last
        cut = budget.keep_items(
            state.sections.get(title, []), remaining, count, bullet, newest=True
        )
        sections[title] = cut.items or []
        left_out[title] = cut.left_out
        remaining = remaining - cut.tokens if not cut.left_out else 0  # keep drops in order
    return _Fitted(
        goal.text,
        kept["criteria"],
        kept["constraints"],
        kept["decisions"],
        next_step.text,
        sections,
        left_out,
        proof.items or [],
    )


# ------------------------------------------------------------------ the incident


def _render(
    preamble: str,
    state: _State,
    fitted: _Fitted,
    incident: IncidentView | None,
) -> str:
    out: list[str] = [preamble, "", f"# Checkpoint summary (from {_the(state.source)})", ""]
    out += ["## Goal", "", fitted.goal or _missing(fitted, "goal", state.task_where), ""]
    for title, items in (
        ("Success criteria", fitted.criteria),
        ("Constraints", fitted.constraints),
    ):
        if items:
            out += [f"## {title}", "", *(_bullet(item) for item in items), ""]
    out += ["## Pinned decisions (verbatim; they hold whatever your memory says)", ""]
    if fitted.decisions:
        out += [f"{n}. {_indent(d, 3)}" for n, d in enumerate(fitted.decisions, start=1)]
    elif fitted.left_out.get("decisions"):  # pinned, all cut: the pointers below say where
        out.append("(all cut for the token budget: see below)")
    else:
        out.append("(none pinned)")
    out.append("")
    if state.evidence:
        out += [EVIDENCE_HEADING, ""]
        out += [_bullet(item) for item in fitted.evidence] or [
            "(left out for the token budget: run `tether ledger`)"
        ]
        out.append("")
    headings = {
        "Rejected approaches": "Rejected approaches (do not retry them)",
        "Done": "Done",
        "Unproven": "Unproven (claimed, not yet verified)",
    }
    for title in ("Rejected approaches", "Done", "Unproven"):
        items = fitted.sections.get(title, [])
        if items:
            out += [f"## {headings[title]}", "", *(_bullet(item) for item in items), ""]
    out += ["## Next step", "", fitted.next_step or _missing(fitted, "next", state.where), ""]
    out += ["## Progress", "", _progress_words(state), ""]
    if state.repairs:
        out += ["Repairs tether made on disk since the last recovery (disk won):"]
        out += [_bullet(repair) for repair in state.repairs] + [""]
    if incident is not None:
        out += [*incident_lines(incident, state.decisions), *dropped_lines(incident), ""]
    out += _pointers(state, fitted)
    return "\n".join(out).rstrip("\n")


def _missing(fitted: _Fitted, part: str, where: str) -> str:
    if fitted.left_out.get(part):
        return f"(left out for the token budget: read {where})"
    return f"(not written: see {where.split(' ')[0]})"


def _the(source: str) -> str:
    return "the live files" if source == "live files" else source


def _bullet(item: str) -> str:
    return "- " + _indent(item, 2)


def _indent(text: str, width: int) -> str:
    return text.replace("\n", "\n" + " " * width)


def _progress_words(state: _State) -> str:
    progress, verdict = state.progress, state.invariant
    cursor = progress.get("cursor", "?")
    phase = state.phase.split("\n")[0] if state.phase else ""
    words = f"Cursor {cursor}" + (f', phase "{phase}"' if phase else "") + ". "
    message = verdict.get("message") or "not checked"
    if not verdict:
        return words + "Invariant: not checked; run `tether check`."
    if verdict.get("ok"):
        return words + f"Invariant OK: {message}."
    return (
        words + f"Invariant VIOLATED ({verdict.get('kind', '?')}): {message}. "
        "Disk wins: the artifacts file is what was done; run `tether check --fix` "
        "and continue from the cursor it sets."
    )


def _pointers(state: _State, fitted: _Fitted) -> list[str]:
    lines = []
    left_out = fitted.left_out
    if any(left_out.values()):
        lines += ["## Left out for the token budget (read them there)", ""]
        if left_out.get("goal"):
            lines.append(f"- the Goal was cut: read it whole in {state.task_where} § Goal")
        for part, total in (
            ("criteria", len(state.criteria)),
            ("constraints", len(state.constraints)),
        ):
            if left_out.get(part):
                title = _PART_TITLES[part]
                lines.append(f"- {left_out[part]} of {total} {title}: {state.task_where} § {title}")
        if left_out.get("decisions"):
            lines.append(
                f"- {left_out['decisions']} of {len(state.decisions)} pinned decisions did not "
                f"fit; they hold all the same: read them in {state.where} § Decisions"
            )
        if left_out.get("next"):
            lines.append(f"- the Next step was cut: read it whole in {state.where} § Next step")
        if left_out.get("evidence"):
            lines.append(
                f"- {left_out['evidence']} of {len(state.evidence)} Evidence lines: "
                "run `tether ledger` (and `tether ledger --verifications`)"
            )
        for title in DROP_ORDER:
            n = left_out.get(title, 0)
            if n:
                total = len(state.sections.get(title, []))
                which = "all" if n == total else f"the {n} oldest of"
                lines.append(f"- {which} {total} {title} items: {state.where} § {title}")
        lines.append("")
    lines.append(FILES_LINE)
    return lines


def _over_budget_note(limit: int) -> str:
    return (
        f"(Note: this exceeds the payload budget of {limit} tokens even cut to the bone; "
        "read the files named above.)"
    )
