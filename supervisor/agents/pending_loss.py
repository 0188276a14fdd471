"""The loss a hook at the next prompt still has to answer, for agents with no hook after a fold.

GitHub Copilot CLI and Gemini CLI fire nothing once a compaction is done: the payload
goes with the next prompt's hook (Copilot's ``userPromptSubmitted``, Gemini's
``BeforeAgent``). That hook answers this run's last incident when it is a compaction
or a wipe that no hook answered yet and no whole recovery paste (F6, a restart's)
carried already.
"""

from __future__ import annotations

from supervisor.agents.turn_recovery import ANSWERED_KINDS
from supervisor.store import fsio
from supervisor.store import lock as supervisor_lock
from supervisor.store.incident_claim import last_incident
from supervisor.store.tether_dir import INCIDENT_KIND, TetherDir

# Incident types answered at the next prompt, and the SessionStart source each stands for.
SOURCES = {"compaction": "compact", "wipe": "clear"}
_ENDS = ("agent_exit", "agent_restart")
SCAN_LIMIT = 5000  # events looked at, newest first


def run_started(tether: TetherDir) -> str | None:
    """When the supervisor that holds the folder's lock started (None: no supervisor)."""
    state, info = supervisor_lock.inspect(tether)
    return info.started_at if state == "held" and info is not None and info.started_at else None


def pending_loss(tether: TetherDir, started: str) -> str | None:
    """The type of this run's last incident when it is a compaction or a wipe that no hook
    answered and no whole recovery paste followed; else None."""
    last = last_incident(tether)
    if last is None or last.get("type") not in SOURCES or str(last.get("at", "")) < started:
        return None
    number = last.get("number")
    for seen, record in enumerate(fsio.iter_jsonl_reversed(tether.events)):
        if seen >= SCAN_LIMIT:
            return None
        kind = record.get("kind")
        if kind == INCIDENT_KIND and record.get("number") == number:
            return str(last["type"])
        if kind in ANSWERED_KINDS and record.get("incident") == number:
            return None
        if kind == "injection" and record.get("restate") == "all":
            return None  # F6 or a restart pasted the whole payload after this loss
        if kind in _ENDS:
            return None
    return None
