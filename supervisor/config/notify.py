"""When tether calls the user back: the settings in ``<config dir>/notify.toml``.

Someone who leaves an agent running for hours is in another window. tether rings
the terminal bell and sends the desktop notification most terminals show (OSC 9,
OSC 777) on an incident, and when the agent waits for input after working for a
while; a short wait between two quick turns says nothing. For example::

    bell = true
    desktop = true
    on_incident = true
    after_busy_seconds = 60    # 0: never for a wait
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from supervisor.config.toml_file import load_settings


@dataclass(frozen=True, slots=True)
class NotifySettings:
    bell: bool = True
    desktop: bool = True
    on_incident: bool = True
    after_busy_seconds: float = 60.0


def load_notify_settings(path: Path | None = None) -> NotifySettings:
    """The settings from ``notify.toml`` in the config folder, or the defaults."""
    if path is None:
        from supervisor.config.config_dir import config_dir

        path = config_dir() / "notify.toml"
    return load_settings(NotifySettings, path, _setting_problem)


def _setting_problem(key: str, value: object) -> str | None:
    if key == "after_busy_seconds":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            return "must be a number of seconds (0: never)"
    elif not isinstance(value, bool):
        return "must be true or false"
    return None
