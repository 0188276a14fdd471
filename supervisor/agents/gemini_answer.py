"""What `tether hook BeforeAgent` answers Gemini CLI: the payload with the first prompt after a
compression.

Gemini CLI (0.61.0) fires ``PreCompress`` before it compresses (advisory: its answer
changes nothing) and no hook after it, and its ``SessionStart`` has no ``compact``
source. ``BeforeAgent`` fires when a prompt is submitted, and its
``hookSpecificOutput.additionalContext`` is appended to that prompt for that turn: the
first one after the compression carries the payload. A ``/clear`` is Claude Code's
shape (``SessionStart`` source ``clear``), but Gemini's model never saw that hook's
answer in the e2e run, so the first BeforeAgent after a clear carries it too.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from supervisor.agents.pending_loss import SOURCES, pending_loss, run_started
from supervisor.agents.session_start_answer import PROFILE_ENV, session_start_answer
from supervisor.store.tether_dir import TetherDir

if TYPE_CHECKING:
    from supervisor.rehydrate.live_notes import LiveNotes

DEFAULT_PROFILE = "gemini"


def gemini_answer(
    hook_input: dict[str, Any] | None, work_dir: str, *, live: LiveNotes | None = None
) -> str | None:
    """The stdout of ``tether hook BeforeAgent``, or None to print nothing."""
    if not isinstance(hook_input, dict):
        return None
    tether = TetherDir.at(work_dir)
    started = run_started(tether)
    if started is None:
        return None
    with tether.updating():  # one answer, whatever else fires at this prompt
        kind = pending_loss(tether, started)
        if kind is None:
            return None
        profile = os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
        claude_shaped = {"source": SOURCES[kind], "session_id": hook_input.get("session_id")}
        answer = session_start_answer(
            work_dir, claude_shaped, profile_name=profile, from_next_prompt=True, live=live
        )
    if answer is None:
        return None
    try:
        context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return None
    output = {"hookEventName": "BeforeAgent", "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)
