"""What `tether run` decided before anything runs: the command, the folder, the profile."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from supervisor.config.keymap import Keymap
from supervisor.config.notify import NotifySettings
from supervisor.config.profiles import Profile
from supervisor.store.tether_dir import TetherDir


@dataclass
class RunConfig:
    """What `tether run` decided: the command, the folder, the profile."""

    argv: list[str]
    workdir: Path
    profile_name: str = "shell"
    title: str = "tether"
    env: dict[str, str] | None = None
    shift_enter: str = "\x1b\r"
    keymap: Keymap = field(default_factory=Keymap)
    notify: NotifySettings = field(default_factory=NotifySettings)
    side_pane: bool = True
    record: bool = True
    checkpoint_every: float = 300.0  # seconds between timer checkpoints when state changed
    extra_args: list[str] = field(default_factory=list)
    resume: bool = False  # started with the profile's resume command


def agent_argv(profile: Profile, extra: list[str], tether: TetherDir, *, resume: bool) -> list[str]:
    """The agent's command line: the profile's (or resume) command, hook settings, extras."""
    argv = profile.argv(extra, resume=resume)
    if "claude_hooks" in profile.integrations:
        from supervisor.agents.claude_settings import write_settings

        settings = write_settings(tether.root)
        argv[1:1] = ["--settings", str(settings)]
    if "copilot_hooks" in profile.integrations:
        from supervisor.agents.copilot_plugin import plugin_args

        argv[1:1] = plugin_args(tether.root)
    if "aider_history" in profile.integrations:
        from supervisor.agents.aider_history_follower import llm_history_args, trim_llm_history

        # aider logs every request to it: the summary it swapped in, for the loss audit.
        added = llm_history_args(tether.root, extra)
        if added:
            trim_llm_history(Path(added[1]))
        argv[1:1] = added
    if "codex_hooks" in profile.integrations:
        from supervisor.agents.codex_hooks import config_overrides

        # After the command's own words (`codex resume --last` takes -c too), before extras.
        at = len(argv) - len(extra)
        argv[at:at] = config_overrides(tether.work_dir)
    return argv


def agent_env(profile: Profile, tether: TetherDir) -> dict[str, str]:
    """Variables the agent needs from tether beside its command line: Gemini CLI's hooks
    come through its system-defaults layer (:mod:`supervisor.agents.gemini_settings`)."""
    if "gemini_hooks" in profile.integrations:
        from supervisor.agents.gemini_settings import defaults_env

        env, problem = defaults_env(tether.root)
        if problem is not None:  # the Events tab says it; the run goes on without hooks
            tether.record_event("agent_hooks_warning", "supervisor", agent="gemini", why=problem)
        return env
    return {}
