"""What the detectors saw (observations) and what fusion made of it (incidents).

Plain dataclasses at the edge between the detectors and everything above
them (fusion, the store, the widgets), so each side can be tested alone.
Times are float epoch seconds, injected by the caller, never read here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from supervisor.times import iso

# Observation kinds. The first four are losses; the rest inform the meter and state.
COMPACTION_STARTED = "compaction_started"
COMPACTION = "compaction"
COMPACTION_FAILED = "compaction_failed"  # refused or failed: ends its compaction_started
WIPE = "wipe"
CRASH = "crash"
UNCLEAN_EXIT = "unclean_exit"
CLEAN_EXIT = "clean_exit"
CONTEXT_LOW = "context_low"
CONTEXT_USED = "context_used"
AGENT_STATE = "agent_state"
USAGE = "usage"
HOOKS_REVIEW = "hooks_review"  # the agent did not trust the hooks tether passed it
SESSION = "session"  # a (new) agent session began: startup, resume, clear

# Sources, most trusted first: hook, transcript, process, lock, stream, screen, typed.
HOOK = "hook"
TRANSCRIPT = "transcript"
PROCESS = "process"
LOCK = "lock"
STREAM = "stream"
SCREEN = "screen"
TYPED = "typed"  # what the user submitted to the agent (a /clear typed while it waited)

# Incident kinds, and which observation kind opens each.
INCIDENT_KINDS = {
    COMPACTION: "compaction",
    WIPE: "wipe",
    CRASH: "crash",
    UNCLEAN_EXIT: "unclean-exit",
}

MANUAL = "manual"
AUTO = "auto"
# Claude Code (2.1.286 and later) folds on its own schedule: while the user is idle, before
# the prompt cache expires, with no prompt in flight ("idle"), or at the next prompt with a
# summary it wrote in the background while the user was away ("precomputed"; its transcript's
# boundary says `"precomputed": true`). More specific than "auto", which its hooks say.
IDLE = "idle"
PRECOMPUTED = "precomputed"
SCHEDULED_TRIGGERS = (IDLE, PRECOMPUTED)

# A detail (True) on a sighting the agent reports only when the next turn starts, however
# long after the loss (Codex's SessionStart compact/clear): fusion lets it join the newest
# incident of its kind that lacks its channel, outside the usual window.
AT_NEXT_TURN = "at_next_turn"


@dataclass(frozen=True, slots=True)
class Observation:
    """One sighting of something by one source.

    ``trigger`` is "manual"/"auto" when the source knows; ``summary`` is the
    compaction summary text when the source carries it (transcript, PostCompact
    hook); ``details`` holds the rest (percent, tokens, state, exit code...).
    ``folded`` is what the transcript says was in the window the summary
    replaced (the user's messages, the agent's decisions); it is not recorded.
    """

    kind: str
    source: str
    at: float
    trigger: str | None = None
    summary: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    folded: tuple[str, ...] = field(default=(), compare=False)

    def to_event(self) -> dict[str, Any]:
        """The fields for ``store.record_event(kind, source, **fields)``."""
        fields: dict[str, Any] = {"observed_at": iso(self.at)}
        if self.trigger:
            fields["trigger"] = self.trigger
        if self.summary:
            fields["summary"] = self.summary
        fields.update(self.details)
        return fields

    @property
    def source_time(self) -> float:
        """When the source says it happened: a transcript entry's own time (``entry_at``),
        else when it was read. A line read a tick late is not newer than what came between."""
        entry_at = self.details.get("entry_at")
        if isinstance(entry_at, int | float) and not isinstance(entry_at, bool):
            return float(entry_at)
        return self.at


@dataclass(frozen=True, slots=True)
class DecisionLoss:
    """One pinned decision and the key terms a summary dropped or changed in it."""

    decision: str
    terms: tuple[str, ...]
    missing: tuple[str, ...]
    status: str  # "kept", "degraded", "lost" or "changed"
    changed: tuple[tuple[str, str], ...] = ()  # (pinned, what the summary says now)

    def changes(self) -> str:
        """The changed facts as text, pinned first: "15 minute → 30 minute; never → may"."""
        return "; ".join(f"{pinned} → {now}" for pinned, now in self.changed)


@dataclass(frozen=True, slots=True)
class Dropped:
    """A specific of the folded conversation that the summary dropped and nobody pinned."""

    term: str
    said: str  # the sentence it was said in: what pinning it would pin

    def to_dict(self) -> dict[str, str]:
        return {"term": self.term, "said": self.said}


@dataclass(frozen=True, slots=True)
class LossAudit:
    """Which pinned decisions a compaction summary lost, degraded or changed."""

    decisions: tuple[DecisionLoss, ...]

    @property
    def changed(self) -> tuple[DecisionLoss, ...]:
        return tuple(d for d in self.decisions if d.status == "changed")

    @property
    def lost(self) -> tuple[DecisionLoss, ...]:
        return tuple(d for d in self.decisions if d.status == "lost")

    @property
    def degraded(self) -> tuple[DecisionLoss, ...]:
        return tuple(d for d in self.decisions if d.status == "degraded")

    def headline(self) -> str:
        """A short phrase for the banner, e.g. "2 pinned decisions missing from the summary"."""
        lost, degraded = len(self.lost), len(self.degraded)
        parts = [f"changed: {d.changes()}" for d in self.changed]  # changed facts first
        if not lost and not degraded and not parts:
            return "pinned decisions intact in the summary"
        if lost:
            parts.append(f"{lost} pinned decision{'s' * (lost != 1)} missing from the summary")
        if degraded:
            parts.append(f"{degraded} degraded")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "changed": [
                {
                    "decision": d.decision,
                    "changed": [{"pinned": p, "now": n} for p, n in d.changed],
                    "missing": list(d.missing),
                }
                for d in self.changed
            ],
            "lost": [{"decision": d.decision, "missing": list(d.missing)} for d in self.lost],
            "degraded": [
                {"decision": d.decision, "missing": list(d.missing)} for d in self.degraded
            ],
        }


# What a shell's exit status says (bash, sh): the command could not be found or run.
SHELL_STATUS = {126: "command not executable", 127: "command not found"}


def ended_words(exit_code: object, signal: object) -> str:
    """How the agent ended, truly: a signal is a crash; an exit status is an exit."""
    if signal or not isinstance(exit_code, int) or isinstance(exit_code, bool):
        return "Agent crashed"
    said = SHELL_STATUS.get(exit_code)
    return f"Agent exited with code {exit_code}" + (f", {said}" if said else "")


@dataclass(slots=True)
class Incident:
    """One context loss, seen by one or more sources; grows as late sources report it."""

    number: int
    kind: str  # "compaction", "wipe", "crash", "unclean-exit"
    trigger: str | None
    sources: list[str]
    at: float
    summary: str | None = None
    audit: LossAudit | None = None
    dropped: tuple[Dropped, ...] = ()  # "dropped, not pinned"
    fold_audited: bool = False  # the folded window was read and held against the summary
    acknowledged: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def title(self) -> str:
        """The banner's words, e.g. "Context compacted (#3, auto)"."""
        words = {
            "compaction": "Context compacted",
            "wipe": "Context wiped",
            "crash": ended_words(self.details.get("exit_code"), self.details.get("signal")),
            "unclean-exit": "tether was stopped uncleanly",
        }[self.kind]
        extra = f", {self.trigger}" if self.trigger else ""
        return f"{words} (#{self.number}{extra})"

    def to_event(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "trigger": self.trigger,
            "sources": list(self.sources),
            "observed_at": iso(self.at),
            "summary": self.summary,
        }
        if self.audit is not None:
            fields["audit"] = self.audit.to_dict()
        if self.dropped:
            fields["dropped_unpinned"] = [d.to_dict() for d in self.dropped]
        fields.update(self.details)
        return fields
