"""A wipe the user typed: the agent's own command for it, submitted while the agent waited.

Codex says nothing of a ``/clear`` until the next prompt is submitted (its
``SessionStart(clear)`` hook and its new rollout file come with that turn), so a
rehydrate key pressed in between would name the previous loss and a recovery
sent then would look like none to the wipe that the hook records afterwards.
The command itself, seen as it is sent, is the wipe's first sighting; the hook
and the rollout join it (fusion: ``at_next_turn``). A command typed while the
agent is busy may be refused ("disabled while a task is in progress"): it is
not taken for a wipe.
"""

from __future__ import annotations

from supervisor.recognize.observations import TYPED, WIPE, Observation


def wipe_command(
    line: str, commands: tuple[str, ...], at: float, *, waiting: bool
) -> Observation | None:
    """A wipe observation when ``line`` (a submitted line) is one of the profile's
    ``wipe_commands`` alone on it and the agent was waiting for input."""
    words = line.split()
    if not waiting or len(words) != 1 or words[0] not in commands:
        return None
    return Observation(WIPE, TYPED, at, details={"channel": "command", "command": words[0]})
