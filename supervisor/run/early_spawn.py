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

from supervisor import environment
from supervisor.agents.hook_client import SOCKET_ENV
from supervisor.errors import TetherError

# What build_config names the profile of a plain `tether run -- CMD`.
PLAIN_PROFILE = "shell"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from supervisor.agents.hook_server import HookServer
    from supervisor.config.profiles import Profile
    from supervisor.store.lock import SupervisorLock
    from supervisor.terminal.session import AgentSession


@dataclass
class SpawnedAhead:
    """A command spawned before its supervision: the session, the lock, the hook socket."""

    session: AgentSession
    lock: SupervisorLock
    socket_path: str  # in the agent's environment; its server is made by complete()
    profile_name: str
    templates_due: bool = False  # `.tether/` was made for the lock alone
    abandoned: bool = False
    _hook_server: HookServer | None = None

    @property
    def hook_server(self) -> HookServer:
        """The server that is to listen at :attr:`socket_path` (not listening yet)."""
        if self._hook_server is None:
            from supervisor.agents.hook_server import HookServer

            server = HookServer(self.session.cwd or ".")
            server.reserve(self.socket_path)
            self._hook_server = server
        return self._hook_server

    def complete(self) -> None:
        """What the agent's start did not wait for, once the early painter has started:
        the hook server's module, and the templates of a new `.tether/` (``init`` keeps
        what exists), which take ~50 ms of fsyncs."""
        self.hook_server  # noqa: B018 (made now, off the first frame's path)
        if self.templates_due:
            from supervisor.store.tether_dir import TetherDir, init, trust_what_we_made

            init(self.session.cwd or ".")
            # spawn_ahead made the folder (for the lock), so init found it there and
            # did not trust it: the next run would ask if it came from someone else.
            trust_what_we_made(TetherDir.at(self.session.cwd or "."))
            self.templates_due = False

    def abandon(self, reason: str | None = None) -> None:
        """No supervision took it over: hang up on the command, release the folder.
        ``reason``: the signal that ended `tether run` (events.jsonl says so)."""
        if self.abandoned:
            return
        self.abandoned = True
        self.session.stop()
        if reason is not None:
            try:
                self.lock.tether.record_event("tether_ended", "supervisor", reason=reason)
            except Exception:  # the lock is released all the same
                pass
        if self._hook_server is not None:
            self._hook_server.stop()
        else:  # never made: the folder reserved for its socket goes all the same
            shutil.rmtree(os.path.dirname(self.socket_path), ignore_errors=True)
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
    from supervisor.terminal.pty_host import resolve_command

    words = list(words)
    try:  # what build_config checks, in its order
        profile = _profile(profile_name)
        named = profile if profile_name is not None else None  # never None then
        if named is not None and not named.command and not words:
            words = [os.environ.get("SHELL") or "sh"]
        resolve_command(words if named is None else named.argv(words))
        _check_settings()
    except TetherError:
        return None
    name = PLAIN_PROFILE if profile is None else profile.name
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
        if named is None:
            argv = words
        else:  # the hook settings file is written here, as build_config writes it
            from supervisor.run.run_config import agent_argv

            argv = agent_argv(named, words, tether, resume=False)
        env = dict(os.environ)
        env[environment.PROFILE] = name  # as launch.new_supervision sets it
        if named is not None:
            from supervisor.run.run_config import agent_env

            env.update(agent_env(named, tether))
        socket_path = env[SOCKET_ENV] = reserve_socket_path()  # listened on once opened
        cols, rows = view_cols_rows
        host = PtyHost(argv, cols=cols, rows=rows, cwd=str(workdir), env=env)
        # Only now what the agent's own start does not need: the emulator (the hook
        # server comes with complete(), once the early painter is up).
        from supervisor.terminal.session import AgentSession

        session = AgentSession(argv, cols=cols, rows=rows, cwd=str(workdir), env=env)
        session.adopt(host)
    except BaseException:
        if host is not None:
            host.terminate()
        if socket_path is not None:
            shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)
        lock.release()
        raise
    return SpawnedAhead(session, lock, socket_path, name, templates_due=fresh)


def _profile(profile_name: str | None) -> Profile | None:
    """The profile to check before the spawn; None for a plain command under the bundled
    shell profile, which names nothing to spawn and is held valid by its tests: loading
    it would import the TOML parser and RE2 ahead of the agent."""
    from supervisor.config.config_dir import user_profiles_dir

    if profile_name is None and not (user_profiles_dir() / f"{PLAIN_PROFILE}.toml").exists():
        return None
    from supervisor.config.profiles import load_profile

    return load_profile(profile_name or PLAIN_PROFILE)


def _check_settings() -> None:
    """A broken keys.toml or notify.toml is refused before anything runs; with neither
    file there, the defaults hold and their parsers are not even imported."""
    from supervisor.config.config_dir import config_dir

    folder = config_dir()
    if (folder / "keys.toml").exists():
        from supervisor.config.keymap import load_keymap
        from supervisor.terminal.keys import refuse_unsendable

        refuse_unsendable(load_keymap())
    if (folder / "notify.toml").exists():
        from supervisor.config.notify import load_notify_settings

        load_notify_settings()
