"""Where the user's own settings live: ``TETHER_CONFIG_DIR``, else the platform's config dir.

Apart from the profiles, keymap and notify modules so that `tether run` can ask
whether a settings file exists at all before it imports the TOML parser and the
dataclasses that read one: with none, the defaults hold and nothing can be wrong.
"""

from __future__ import annotations

from pathlib import Path

from supervisor import environment


def config_dir() -> Path:
    override = environment.current().config_dir
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("tether"))


def user_profiles_dir() -> Path:
    return config_dir() / "profiles"
