"""What the loss banner and the status bar say, in words, from the engine's facts.

Pure functions, so every sentence a user reads is in one place and testable
without an app; the attention model (:mod:`supervisor.run.attention_model`)
decides when to show them. Each banner comes as a :class:`Notice` with a long
form (the sentence as it reads on a wide screen) and a short one that puts the
action first, for a narrow one.
"""

from __future__ import annotations

from dataclasses import dataclass

from supervisor.config.keymap import Keymap
from supervisor.recognize.observations import Incident
from supervisor.rehydrate.injector_status import InjectorStatus
from supervisor.store.lock import LockInfo

TONES = ("warning", "info", "error", "success", "idle")


@dataclass(frozen=True, slots=True)
class Notice:
    """One banner: ``text`` in full, ``short`` with the action first, and its tone.

    ``source`` says whose it is (an incident, an injection, the compaction offer...),
    so that a later notice of the same source may replace it and another may not.
    """

    text: str
    tone: str = "warning"
    source: str = "message"
    short: str = ""

    def fitted(self, width: int | None = None) -> str:
        """The form that fits ``width`` cells (the long one when it fits or ``width`` is
        None; else the short one, action first; the banner ellipsizes what is left)."""
        if width is None or len(self.text) <= width or not self.short:
            return self.text
        return self.short


def checkpoint_age(last: tuple[int, float | None] | None, now: float) -> str:
    """ "#7, 3 min ago": the last checkpoint and how old it is (from its file's time)."""
    if last is None:
        return ""
    seq, written = last
    if not written:
        return f"#{seq}"
    age = now - written
    if age < 60:
        return f"#{seq}, {int(age)} s ago"
    if age < 3600:
        return f"#{seq}, {int(age // 60)} min ago"
    return f"#{seq}, {age / 3600:.1f} h ago"


def incident_notice(
    incident: Incident, keys: Keymap, *, orphan: LockInfo | None, at_next_prompt: bool
) -> Notice:
    """The banner for an incident: what was lost, its audit, and the key that recovers."""
    parts = [incident.title()]
    actions: list[str] = []
    if incident.kind == "unclean-exit" and incident.details.get("ran"):
        parts[0] += f": {incident.details['ran']}"  # short: the keys must fit the row
        if orphan is not None:
            parts.append(
                f"its agent (pid {orphan.agent_pid}) still runs: {keys.end_orphan.upper()} end it"
            )
            actions.append(f"{keys.end_orphan.upper()} end its agent")
    if incident.audit is not None:
        parts.append(incident.audit.headline())
    if incident.dropped:
        count = len(incident.dropped)
        parts.append(
            f"{count} specific{'s' * (count != 1)} dropped, not pinned "
            f"({keys.pin_dropped.upper()} pins)"
        )
    if incident.kind == "crash":
        action = f"{keys.rehydrate.upper()} restart and rehydrate"
    elif at_next_prompt:
        action = f"rehydrated with your next prompt · {keys.rehydrate.upper()} now"
    else:
        action = f"{keys.rehydrate.upper()} rehydrate · {keys.preview.upper()} preview"
    said = list(parts)
    parts.append(action)
    actions.insert(0, action)
    tone = "error" if incident.kind == "crash" else "warning"
    short = " — ".join([" · ".join(actions), *said])  # the keys first, then all it said
    return Notice(" — ".join(parts), tone, "incident", short)


def compact_offer(meter: str, keys: Keymap, told: bool = True) -> str:
    """``told``: whether the agent's summarizer hears the pins (Codex's does not)."""
    keeping = "keeping the pinned decisions" if told else "tether re-sends the pins after"
    return (
        f"Context {meter}: {keys.compact.upper()} compacts now, at this break, {keeping} "
        "(before the agent compacts by itself mid-task)"
    )


def compact_offer_notice(meter: str, keys: Keymap, told: bool = True) -> Notice:
    short = f"{keys.compact.upper()} compact now — context {meter}"
    return Notice(compact_offer(meter, keys, told), "info", "compact-offer", short)


def compact_sent(result: str, told: bool) -> str:
    """What F3 did: whether the summarizer is told the pins, or (Codex) re-sent after."""
    when = "queued: sent when the agent waits for input" if result == "queued" else "sent"
    if told:
        return f"Compaction {when}; the summarizer is told the pinned decisions"
    return (
        f"Compaction {when}. The summarizer is not told the pins (/compact takes none): "
        "re-sent after the fold"
    )


def injection(status: InjectorStatus, keys: Keymap) -> tuple[str, str]:
    """The banner for a payload on its way, and its tone; a recall short of complete warns."""
    notice = injection_notice(status, keys)
    return notice.text, notice.tone


def injection_notice(status: InjectorStatus, keys: Keymap) -> Notice:
    tone = {"acknowledged": "success", "unacknowledged": "warning"}.get(status.state, "info")
    said = text = status.describe()
    recall = status.recall
    action = ""
    if status.stage == "held":  # Claude's SessionStart payload: F6 prompts the agent now
        action = f"{keys.rehydrate.upper()} prompts it now"
        text += f" · {action}"
    if recall is not None and recall.result != "complete":
        tone = "warning"
        again = "re-sends them" if recall.result == "partial" else "sends the payload again"
        action = f"{keys.rehydrate.upper()} {again}"
        text += f": {action}"
    if not action and status.state == "queued" and " · " in said:
        waits, action = said.rsplit(" · ", 1)  # "... · F6 again: send anyway"
        said = waits
    short = f"{action} — {said}" if action else ""
    return Notice(text, tone, "injection", short)


def agent_ended(described: str, keys: Keymap) -> str:
    return f"The agent {described} — {keys.rehydrate.upper()} restart · {keys.quit.upper()} quit"


def agent_ended_notice(described: str, keys: Keymap) -> Notice:
    short = f"{keys.rehydrate.upper()} restart · {keys.quit.upper()} quit — agent {described}"
    return Notice(agent_ended(described, keys), "info", "agent-ended", short)
