"""Every ``TETHER_*`` environment variable tether reads or sets, in one typed place.

Shared by every layer and belonging to none (like :mod:`supervisor.errors`); it
imports nothing of tether's, so `tether hook` and the demo agent load it for free.
Some are how tether talks to its own children (the agent's hooks find the socket
and the profile), some are the user's (a config folder), and some are switches
for tests and benchmarks (which emulator, which PTY reader, a screen dump).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

# Set by tether for the agent and its hooks.
PROFILE = "TETHER_PROFILE"  # the profile the agent runs under (the hook's answer uses it)
HOOK_SOCKET = "TETHER_HOOK_SOCKET"  # the supervisor's hook server (the fast path)
DEMO_FOLDER = "TETHER_DEMO_FOLDER"  # `tether demo`: the folder the demo agent runs in
# The user's.
CONFIG_DIR = "TETHER_CONFIG_DIR"  # instead of the platform's config folder
EARLY_START = "TETHER_EARLY_START"  # "0": no agent spawned before the UI loads
PROBE_TERMINAL = "TETHER_PROBE_TERMINAL"  # "0": assume grapheme widths and tether's colours
# Switches for tests, benchmarks and the demo agent.
EMULATOR = "TETHER_EMULATOR"  # "ghostty" or "avt"
PTY_READER = "TETHER_PTY_READER"  # "direct": no reader process
SCREEN_DUMP = "TETHER_SCREEN_DUMP"  # a file to write the agent's screen to every tick
DEMO_FORGET = "TETHER_DEMO_FORGET"  # the demo agent's lossy summary: which items it drops
DEMO_DELAY = "TETHER_DEMO_DELAY"  # the demo agent's seconds per step
DEMO_AUTO_COMPACT = "TETHER_DEMO_AUTO_COMPACT"  # the demo agent compacts every N turns

NAMES = (
    PROFILE,
    HOOK_SOCKET,
    DEMO_FOLDER,
    CONFIG_DIR,
    EARLY_START,
    PROBE_TERMINAL,
    EMULATOR,
    PTY_READER,
    SCREEN_DUMP,
    DEMO_FORGET,
    DEMO_DELAY,
    DEMO_AUTO_COMPACT,
)


@dataclass(frozen=True, slots=True)
class TetherEnvironment:
    """The ``TETHER_*`` variables as read at one moment ("" when unset)."""

    profile: str = ""
    hook_socket: str = ""
    demo_folder: str = ""
    config_dir: str = ""
    early_start: str = ""
    probe_terminal: str = ""
    emulator: str = ""
    pty_reader: str = ""
    screen_dump: str = ""
    demo_forget: str = ""
    demo_delay: str = ""
    demo_auto_compact: str = ""

    @property
    def early_start_off(self) -> bool:
        return self.early_start == "0"


def current(env: Mapping[str, str] | None = None) -> TetherEnvironment:
    """The variables now (read each time: tests and `tether demo` set them as they go)."""
    env = os.environ if env is None else env
    return TetherEnvironment(
        profile=env.get(PROFILE, ""),
        hook_socket=env.get(HOOK_SOCKET, ""),
        demo_folder=env.get(DEMO_FOLDER, ""),
        config_dir=env.get(CONFIG_DIR, ""),
        early_start=env.get(EARLY_START, ""),
        probe_terminal=env.get(PROBE_TERMINAL, ""),
        emulator=env.get(EMULATOR, ""),
        pty_reader=env.get(PTY_READER, ""),
        screen_dump=env.get(SCREEN_DUMP, ""),
        demo_forget=env.get(DEMO_FORGET, ""),
        demo_delay=env.get(DEMO_DELAY, ""),
        demo_auto_compact=env.get(DEMO_AUTO_COMPACT, ""),
    )
