"""The initial brief: sent once at start so the agent externalizes as it works.

Rehydration can only restore what is on disk. The brief tells the agent, in
a few lines, where its state lives and which commands write it, so that its
decisions, progress and next step are in `.tether/` before any loss happens.
It is sent like a payload (sanitized, bracketed paste, submit key) when the
profile's ``initial_brief`` is on.
"""

from __future__ import annotations

BRIEF = """\
tether is supervising this session. Keep your working state on disk in .tether/ as you go, \
so that you can pick up exactly where you were if this conversation loses detail:
- .tether/task.md holds the goal, success criteria and constraints; read it now.
- `tether note decision "..."` pins a decision (say why); pinned decisions are sent back to \
you verbatim after every context loss.
- `tether note done "..."`, `tether note unproven "..."`, `tether note rejected "..."` and \
`tether note next "..."` record what is finished, what is not yet verified, what you tried \
and dropped, and the one next step.
- `tether note phase "..."` says where you are now.
- After each finished unit of work, append it to .tether/artifacts.jsonl (one JSON object \
with "index") and set "cursor" in .tether/progress.json to that index + 1; \
`tether check` confirms the two agree.
- `tether checkpoint -m "why"` snapshots the state before anything risky.
If you are ever told your context was lost, trust these files over your memory, and \
restate the pinned decisions with `tether ack "..."` as that message asks."""


def brief_text() -> str:
    """The brief as sent (already free of control characters)."""
    return BRIEF
