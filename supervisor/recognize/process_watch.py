"""The process source: how the agent ended.

An agent killed by a signal or exiting non-zero lost its context as surely as
one that compacted (a ``crash`` incident, whose title says which: "Agent crashed"
for a signal, "Agent exited with code 127, command not found" for a shell whose
last command was not found); a clean exit is recorded but is no loss.
Whether tether itself died last time is the lock's business (`lock.py`:
``SupervisorLock.previous``), which Supervision turns into ``unclean_exit``.
"""

from __future__ import annotations

import signal as signals

from supervisor.recognize.observations import (
    CLEAN_EXIT,
    CRASH,
    PROCESS,
    SHELL_STATUS,
    Observation,
)


def exit_observation(
    exit_code: int | None, signal: int | None, at: float, *, requested: bool = False
) -> Observation:
    """Classify an ended agent. ``requested``: tether itself asked it to stop (quit)."""
    details: dict[str, object] = {"exit_code": exit_code, "signal": signal}
    if signal:
        try:
            details["signal_name"] = signals.Signals(signal).name
        except ValueError:
            pass
    if requested or (not signal and exit_code == 0):
        return Observation(CLEAN_EXIT, PROCESS, at, details=details)
    if signal:
        how = f"killed by {details.get('signal_name', signal)}"
    else:
        said = SHELL_STATUS.get(exit_code) if isinstance(exit_code, int) else None
        how = f"exit code {exit_code}" + (f" ({said})" if said else "")
    return Observation(CRASH, PROCESS, at, details={**details, "how": how})
