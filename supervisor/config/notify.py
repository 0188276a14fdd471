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

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from supervisor.errors import TetherError


@dataclass(frozen=True, slots=True)
class NotifySettings:
    bell: bool = True
    desktop: bool = True
    on_incident: bool = True
    after_busy_seconds: float = 60.0


def load_notify_settings(path: Path | None = None) -> NotifySettings:
    """The settings from ``notify.toml`` in the config folder, or the defaults."""
    if path is None:
        from supervisor.config.profiles import config_dir

        path = config_dir() / "notify.toml"
    if not path.exists():
        return NotifySettings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as error:
        raise TetherError(f"{path}: {error}; fix or remove the file") from error
    known = {field.name: field.type for field in fields(NotifySettings)}
    for key, value in data.items():
        if key not in known:
            raise TetherError(f"{path}: unknown key {key!r}; known: {', '.join(sorted(known))}")
        if key == "after_busy_seconds":
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise TetherError(f"{path}: {key} must be a number of seconds (0: never)")
        elif not isinstance(value, bool):
            raise TetherError(f"{path}: {key} must be true or false")
    return NotifySettings(**data)
