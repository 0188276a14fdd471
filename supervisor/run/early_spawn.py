"""`tether run`: spawn the agent before the engine and the UI are imported.

The engine (supervision and everything under it) takes 100-200 ms to import and
Textual as long again; the first frame waits for neither if the agent is
already running and the early painter shows it. So this module, which imports
only the store's lock, the profiles, the keymap, the agent's command line and
the PTY, checks whatever ``build_config`` would refuse, takes the folder's lock
and spawns the agent (a plain command, or a profile's with its hook settings);
``launch.start_early`` then puts the supervision around it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from supervisor.agents.hook_client import SOCKET_ENV
from supervisor.errors import TetherError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from supervisor.agents.hook_server import HookServer
    from supervisor.store.lock import SupervisorLock
    from supervisor.terminal.session import AgentSession


@dataclass
class SpawnedAhead:
    """A command spawned before its supervision: the session, the lock, the hook socket."""

    session: AgentSession
    lock: SupervisorLock
    hook_server: HookServer
    profile_name: str
    templates_due: bool = False  # `.tether/` was made for the lock alone
    abandoned: bool = False

    def complete(self) -> None:
        """Write the templates of a new `.tether/` (``init`` keeps what exists): after the
        early painter has started, as they take ~50 ms of fsyncs."""
        if self.templates_due:
            from supervisor.store.tether_dir import init

            init(self.session.cwd or ".")
            self.templates_due = False

    def abandon(self) -> None:
        """No supervision took it over: hang up on the command, release the folder."""
        if self.abandoned:
            return
        self.abandoned = True
        self.session.stop()
        self.hook_server.stop()
        self.lock.release()


def spawn_ahead(
    profile_name: str | None,
    words: list[str],
    workdir: Path,
    view_cols_rows: tuple[int, int] | None,
) -> SpawnedAhead | None:
    """Lock ``workdir`` and spawn what `tether run [PROFILE] [-- WORDS]` runs, at
    ``view_cols_rows``, or None when anything is amiss (``build_config`` then says
    what, with nothing spawned).

    Raises TetherError only for a folder another tether holds, as opening would.
    """
    if view_cols_rows is None or not workdir.is_dir():
        return None
    if profile_name is None and not words:
        return None
    from supervisor.config.keymap import load_keymap
    from supervisor.config.notify import load_notify_settings
    from supervisor.config.profiles import load_profile
    from supervisor.terminal.pty_host import resolve_command

    words = list(words)
    try:  # what build_config checks, in its order
        profile = load_profile(profile_name or "shell")
        if profile_name is not None and not profile.command and not words:
            words = [os.environ.get("SHELL") or "sh"]
        resolve_command(words if profile_name is None else profile.argv(words))
        load_keymap()  # a broken keys.toml is refused before anything runs
        load_notify_settings()  # and a broken notify.toml
    except TetherError:
        return None
    from supervisor.agents.hook_client import reserve_socket_path
    from supervisor.store import lock as supervisor_lock
    from supervisor.store.tether_dir import TetherDir
    from supervisor.terminal.pty_host import PtyHost

    tether = TetherDir.at(workdir)
    fresh = not tether.exists()
    if fresh:  # the lock's folder now; the templates (~50 ms of fsyncs) once the agent runs
        try:
            tether.root.mkdir(mode=0o700, exist_ok=True)  # private, as init makes it
        except OSError:
            return None  # build_config and open say why, with nothing spawned
    lock = supervisor_lock.acquire(tether)
    socket_path = host = None
    try:
        if profile_name is None:
            argv = words
        else:  # the hook settings file is written here, as build_config writes it
            from supervisor.run.run_config import agent_argv

            argv = agent_argv(profile, words, tether, resume=False)
        env = dict(os.environ)
        env["TETHER_PROFILE"] = profile.name  # as launch.new_supervision sets it
        socket_path = env[SOCKET_ENV] = reserve_socket_path()  # listened on once opened
        cols, rows = view_cols_rows
        host = PtyHost(argv, cols=cols, rows=rows, cwd=str(workdir), env=env)
        # Only now what the agent's own start does not need: the emulator, the server.
        from supervisor.agents.hook_server import HookServer
        from supervisor.terminal.session import AgentSession

        session = AgentSession(argv, cols=cols, rows=rows, cwd=str(workdir), env=env)
        session.adopt(host)
        server = HookServer(workdir)
        server.reserve(socket_path)
    except BaseException:
        if host is not None:
            host.terminate()
        if socket_path is not None:
            shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)
        lock.release()
        raise
    return SpawnedAhead(session, lock, server, profile.name, templates_due=fresh)
