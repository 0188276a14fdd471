"""The agent's command line, from its profile: what `tether run` spawns and a restart resumes.

A module of its own, light to import, because `tether run` builds it before the
engine is imported (run/early_spawn.py) as well as from the supervision.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from supervisor.config.profiles import Profile
    from supervisor.store.tether_dir import TetherDir


def agent_argv(profile: Profile, extra: list[str], tether: TetherDir, *, resume: bool) -> list[str]:
    """The agent's command line: the profile's (or resume) command, hook settings, extras."""
    argv = profile.argv(extra, resume=resume)
    if "claude_hooks" in profile.integrations:
        from supervisor.agents.claude_settings import write_settings

        settings = write_settings(tether.root)
        argv[1:1] = ["--settings", str(settings)]
    return argv
