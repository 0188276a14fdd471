"""Which emulator backend a session uses: libghostty-vt where pyghostty installs, else avt.

``TETHER_EMULATOR=avt|ghostty`` chooses; pyghostty ships wheels for Linux only, so
elsewhere (and wherever it fails to load) avt is the default.
"""

from __future__ import annotations

from functools import lru_cache

from supervisor import environment
from supervisor.terminal.avt_emulator import AvtEmulator
from supervisor.terminal.emulator import Emulator

__all__ = ["default_emulator", "emulator_class", "ghostty_class"]


@lru_cache(maxsize=1)
def ghostty_class() -> type | None:
    """The libghostty-vt backend, or None where pyghostty is not installed or will not load."""
    try:
        from supervisor.terminal.ghostty_emulator import GhosttyEmulator
    except Exception:  # not installed, no library, a cache it cannot load: avt serves
        return None
    return GhosttyEmulator


def emulator_class() -> type:
    """The backend class ``TETHER_EMULATOR`` names, else ghostty where it loads, else avt."""
    choice = environment.current().emulator.strip().lower()
    if choice == "avt":
        return AvtEmulator
    ghostty = ghostty_class()
    return ghostty if ghostty is not None else AvtEmulator


def default_emulator(cols: int, rows: int) -> Emulator:
    """A new screen of the chosen backend."""
    return emulator_class()(cols, rows)
