"""Every ``TETHER_*`` environment variable tether reads or sets, in one typed place.

Shared by every layer and belonging to none (like :mod:`supervisor.errors`); it
imports nothing of tether's, so `tether hook` and the demo agent load it for free.
Some are how tether talks to its own children (the agent's hooks find the socket
and the profile), some are the user's (a config folder), and some are switches
for tests and benchmarks (which emulator, which PTY reader, a screen dump).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping

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


class TetherEnvironment:
    """The ``TETHER_*`` variables as read at one moment ("" when unset); read-only.

    A plain class, not a dataclass: `tether hook`'s client imports this module, and
    ``dataclasses`` (with ``inspect``, ``re`` and ``enum``) would cost it ~13 ms a call.
    """

    __slots__ = (
        "config_dir",
        "demo_auto_compact",
        "demo_delay",
        "demo_folder",
        "demo_forget",
        "early_start",
        "emulator",
        "hook_socket",
        "probe_terminal",
        "profile",
        "pty_reader",
        "screen_dump",
    )
    profile: str
    hook_socket: str
    demo_folder: str
    config_dir: str
    early_start: str
    probe_terminal: str
    emulator: str
    pty_reader: str
    screen_dump: str
    demo_forget: str
    demo_delay: str
    demo_auto_compact: str

    def __init__(
        self,
        *,
        profile: str = "",
        hook_socket: str = "",
        demo_folder: str = "",
        config_dir: str = "",
        early_start: str = "",
        probe_terminal: str = "",
        emulator: str = "",
        pty_reader: str = "",
        screen_dump: str = "",
        demo_forget: str = "",
        demo_delay: str = "",
        demo_auto_compact: str = "",
    ) -> None:
        set_ = object.__setattr__
        set_(self, "profile", profile)
        set_(self, "hook_socket", hook_socket)
        set_(self, "demo_folder", demo_folder)
        set_(self, "config_dir", config_dir)
        set_(self, "early_start", early_start)
        set_(self, "probe_terminal", probe_terminal)
        set_(self, "emulator", emulator)
        set_(self, "pty_reader", pty_reader)
        set_(self, "screen_dump", screen_dump)
        set_(self, "demo_forget", demo_forget)
        set_(self, "demo_delay", demo_delay)
        set_(self, "demo_auto_compact", demo_auto_compact)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"TetherEnvironment is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TetherEnvironment):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in self.__slots__))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"TetherEnvironment({shown})"

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
