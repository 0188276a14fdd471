"""Bring up the engine of one `tether run`, and start the agent before the UI has loaded.

Importing Textual and laying out the screen takes a few hundred milliseconds,
and an agent such as Claude Code takes a second or more to draw its first
screen: `tether run` therefore takes the folder's lock and spawns the agent
first, at the size its view is going to have, and only then loads the UI, so
that both start at once. Until the view reads it, the agent's output waits in
the PTY (a full PTY makes the agent wait), so the first frame shows all of it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from supervisor import environment
from supervisor.config.layout import view_size
from supervisor.errors import TetherError
from supervisor.run.early_spawn import SpawnedAhead
from supervisor.run.run_config import agent_env
from supervisor.run.supervision import RunConfig, Scheduler, Supervision
from supervisor.terminal.session import AgentSession


def new_supervision(
    config: RunConfig, size: tuple[int, int] = (80, 24), session: AgentSession | None = None
) -> Supervision:
    """The session for ``config``'s command at ``size`` (or ``session``, spawned already)
    and the supervision around it."""
    if session is None:
        env = dict(config.env) if config.env is not None else None
        cols, rows = size
        session = AgentSession(config.argv, cols=cols, rows=rows, cwd=str(config.workdir), env=env)
    supervision = Supervision(config, session)
    if session.base_env is None:
        session.base_env = dict(os.environ)
    session.base_env[environment.PROFILE] = supervision.profile.name
    session.base_env.update(agent_env(supervision.profile, supervision.tether))
    return supervision


class LateScheduler:
    """The injector's timers, for an engine opened before the app whose timers run them.

    The app sets :attr:`target` when it takes the engine over; nothing is injected
    before then (the agent has not been seen waiting), so the fallback to the running
    loop only guards against surprises.
    """

    def __init__(self) -> None:
        self.target: Scheduler | None = None

    def __call__(self, delay: float, callback: Callable[[], None]) -> Any:
        if self.target is not None:
            return self.target(delay, callback)
        return asyncio.get_running_loop().call_later(delay, callback)


@dataclass
class EarlyStart:
    """An agent spawned (not yet read) under an opened supervision, waiting for its app."""

    supervision: Supervision
    scheduler: LateScheduler

    @property
    def session(self) -> AgentSession:
        return self.supervision.session

    def abandon(self) -> None:
        """The app never took over (or has finished): hang up on the agent, release the lock.

        Safe after the app's own clean-up, which does the same.
        """
        self.supervision.finish()


def start_early(config: RunConfig, ahead: SpawnedAhead | None = None) -> EarlyStart | None:
    """Lock the folder and spawn the agent now, at its view's size in this terminal, or
    put the supervision around the agent ``ahead`` that `tether run` spawned already.

    None when the terminal is too small to know that size; the app then starts the
    agent itself once its view is laid out. Raises TetherError (with nothing left
    running and the lock released) if the folder is locked or the agent cannot start.
    """
    if ahead is not None:
        return _adopt(config, ahead)
    size = agent_size(config.side_pane)
    if size is None:
        return None
    supervision = new_supervision(config, size)
    scheduler = LateScheduler()
    try:
        supervision.open(scheduler=scheduler)
        supervision.session.spawn()
    except BaseException:  # what opening took goes too: the lock, the hook socket
        supervision.stop_agent()
        supervision.close()
        raise
    supervision.start_recording()
    return EarlyStart(supervision, scheduler)


def agent_size(side_pane: bool) -> tuple[int, int] | None:
    """The agent view's size in this terminal (what Textual's driver asks too)."""
    columns, lines = shutil.get_terminal_size()
    return view_size(columns, lines, side_pane=side_pane)


def _adopt(config: RunConfig, ahead: SpawnedAhead) -> EarlyStart:
    """The supervision around an agent spawned before the engine was imported."""
    session = ahead.session
    if session.argv != config.argv or ahead.profile_name != config.profile_name:
        ahead.abandon()
        raise TetherError("tether run: the command spawned ahead is not the one configured")
    supervision = new_supervision(config, session=session)
    supervision.hook_server = ahead.hook_server  # its socket is in the agent's environment
    scheduler = LateScheduler()
    try:
        ahead.complete()  # `tether run` did, unless the caller is not `tether run`
        supervision.open(scheduler=scheduler, lock=ahead.lock)
    except BaseException:
        ahead.abandon()
        raise
    supervision.start_recording()
    return EarlyStart(supervision, scheduler)
