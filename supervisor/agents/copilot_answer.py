"""What `tether hook` answers GitHub Copilot CLI: the payload with the next prompt after a loss.

Copilot (1.0.102) fires no hook after a fold, and its ``sessionStart`` fires
lazily, at the first prompt of a session. What reaches its model (see
tests/fixtures/captures/cp102-hooks.jsonl and the e2e test):

* ``userPromptSubmitted`` answering ``{"additionalContext": X}``: X is appended to
  that prompt's user message as a ``<system_reminder>``, in the one request that
  carries the prompt. This is the way after a fold.
* ``sessionStart`` answering the same: X becomes a message of its own after the
  system message. This is the way after ``/clear`` (``sessionEnd``, then
  ``sessionStart`` "new" at the next prompt) and after a resume.

Both fire at the same prompt after a clear, at the same moment (two processes);
answering both would hand the model two copies, so whichever takes the folder's
update lock first answers the last loss of this run that no
hook answered yet (and no whole recovery paste of F6 or a restart carries
already), and the other finds it answered. The payload itself is built and
recorded as for Claude Code's SessionStart (:mod:`.session_start_answer`).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from supervisor.agents.pending_loss import SOURCES, pending_loss, run_started
from supervisor.agents.session_start_answer import PROFILE_ENV, session_start_answer
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir

if TYPE_CHECKING:
    from supervisor.rehydrate.live_notes import LiveNotes

ANSWERING_EVENTS = frozenset({"sessionStart", "userPromptSubmitted"})
DEFAULT_PROFILE = "copilot"
_ENDS = ("agent_exit", "agent_restart")
SCAN_LIMIT = 5000  # events looked at, newest first


def copilot_answer(
    event: str,
    hook_input: dict[str, Any] | None,
    work_dir: str,
    *,
    live: LiveNotes | None = None,
) -> str | None:
    """The stdout of ``tether hook EVENT`` for Copilot, or None to print nothing."""
    if event not in ANSWERING_EVENTS or not isinstance(hook_input, dict):
        return None
    tether = TetherDir.at(work_dir)
    started = run_started(tether)
    if started is None:
        return None  # no supervisor: nothing says which losses are this run's
    # Copilot starts the sessionStart and userPromptSubmitted hooks of one prompt together:
    # the update lock makes one of them answer and the other find the answer recorded.
    with tether.updating():
        return _answer(tether, started, event, hook_input, work_dir, live)


def _answer(
    tether: TetherDir,
    started: str,
    event: str,
    hook_input: dict[str, Any],
    work_dir: str,
    live: LiveNotes | None,
) -> str | None:
    kind = pending_loss(tether, started)
    if kind is None and event == "sessionStart" and _cleared(tether, started, hook_input):
        kind = "wipe"  # /clear seen by the hooks alone: the screen's sighting may be missing
    if kind is None:
        return None
    profile = os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    claude_shaped = {"source": SOURCES[kind], "session_id": hook_input.get("sessionId")}
    answer = session_start_answer(work_dir, claude_shaped, profile_name=profile, live=live)
    if answer is None:
        return None
    try:
        context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return None
    return json.dumps({"additionalContext": context}, ensure_ascii=False)


def _cleared(tether: TetherDir, started: str, hook_input: dict[str, Any]) -> bool:
    """A ``sessionStart`` "new" after a ``sessionEnd`` of another session in the agent that
    still runs: Copilot's /clear, unless a wipe was recorded since that ``sessionEnd`` (the
    screen saw the clear, and :func:`pending_loss` says whether it is answered: the prompt's
    hook, started together with this one, may have answered it first)."""
    if hook_input.get("source") != "new":
        return False
    session = hook_input.get("sessionId")
    for seen, record in enumerate(fsio.iter_jsonl_reversed(tether.events)):
        if seen >= SCAN_LIMIT or str(record.get("at", "")) < started:
            return False
        if record.get("kind") in _ENDS:
            return False
        if record.get("kind") == "incident" and record.get("type") == "wipe":
            return False
        if record.get("kind") != "hook":
            continue
        raw = record.get("payload")
        payload: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if record.get("event") == "sessionEnd":
            return payload.get("sessionId") != session
        if record.get("event") == "sessionStart" and payload.get("sessionId") != session:
            return False
    return False
