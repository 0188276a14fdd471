"""What the loss banner and the status bar say, in words, from the engine's facts.

Pure functions, so every sentence a user reads is in one place and testable
without an app; the app decides when to show them.
"""

from __future__ import annotations

from typing import Any

from supervisor.config.keymap import Keymap
from supervisor.rehydrate.injector import InjectorStatus


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


def incident_text(incident: Any, keys: Keymap, *, orphan: Any, at_next_prompt: bool) -> str:
    """The banner for an incident: what was lost, its audit, and the key that recovers."""
    parts = [incident.title()]
    if incident.kind == "unclean-exit" and incident.details.get("ran"):
        parts[0] += f": {incident.details['ran']}"  # short: the keys must fit the row
        if orphan is not None:
            parts.append(
                f"its agent (pid {orphan.agent_pid}) still runs: {keys.end_orphan.upper()} end it"
            )
    if incident.audit is not None:
        parts.append(incident.audit.headline())
    if incident.dropped:
        count = len(incident.dropped)
        parts.append(
            f"{count} specific{'s' * (count != 1)} dropped, not pinned "
            f"({keys.pin_dropped.upper()} pins)"
        )
    if incident.kind == "crash":
        parts.append(f"{keys.rehydrate.upper()} restart and rehydrate")
    elif at_next_prompt:
        parts.append(f"rehydrated with your next prompt · {keys.rehydrate.upper()} now")
    else:
        parts.append(f"{keys.rehydrate.upper()} rehydrate · {keys.preview.upper()} preview")
    return " — ".join(parts)


def compact_offer(meter: str, keys: Keymap, told: bool = True) -> str:
    """``told``: whether the agent's summarizer hears the pins (Codex's does not)."""
    keeping = "keeping the pinned decisions" if told else "tether re-sends the pins after"
    return (
        f"Context {meter}: {keys.compact.upper()} compacts now, at this break, {keeping} "
        "(before the agent compacts by itself mid-task)"
    )


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
    tone = {"acknowledged": "success", "unacknowledged": "warning"}.get(status.state, "info")
    text = status.describe()
    recall = status.recall
    if status.stage == "held":  # Claude's SessionStart payload: F6 prompts the agent now
        text += f" · {keys.rehydrate.upper()} prompts it now"
    if recall is not None and recall.result != "complete":
        tone = "warning"
        again = "re-sends them" if recall.result == "partial" else "sends the payload again"
        text += f": {keys.rehydrate.upper()} {again}"
    return text, tone


def agent_ended(described: str, keys: Keymap) -> str:
    return f"The agent {described} — {keys.rehydrate.upper()} restart · {keys.quit.upper()} quit"
