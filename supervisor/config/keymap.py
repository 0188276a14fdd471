"""tether's own keys: few, shown in the footer, configurable.

None of the defaults is bound by a bundled agent: Codex binds F2, Claude Code
binds many ctrl and alt keys, so tether keeps to F3 and F5–F10, F12 (and F4, bound only
while a dead tether's orphaned agent is left to end). A user changes them in
``<config dir>/keys.toml``, e.g. ``rehydrate = "f11"``; a key given to two actions is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path

from supervisor.config.toml_file import load_settings
from supervisor.errors import TetherError


@dataclass(frozen=True, slots=True)
class Keymap:
    pin_dropped: str = "f12"  # pin what the last compaction dropped and nobody pinned
    compact: str = "f3"  # compact the agent now, with the pins as its instructions
    rehydrate: str = "f6"
    preview: str = "f7"
    checkpoint: str = "f8"
    switch_focus: str = "f9"
    quit: str = "f10"
    side_pane: str = "f5"
    # Bound only while a dead tether's agent still runs (orphaned): ends it.
    end_orphan: str = "f4"


def load_keymap(path: Path | None = None) -> Keymap:
    """The keymap from ``keys.toml`` in the config folder, or the defaults."""
    if path is None:
        from supervisor.config.config_dir import config_dir

        path = config_dir() / "keys.toml"
    keymap = load_settings(Keymap, path, _key_problem)
    keymap = replace(
        keymap, **{f.name: _textual_name(getattr(keymap, f.name)) for f in fields(keymap)}
    )
    taken: dict[str, str] = {}
    for field in fields(Keymap):
        key = getattr(keymap, field.name)
        if key in taken:
            raise TetherError(
                f"{path}: {field.name} and {taken[key]} are both {key!r}; give one another key"
            )
        taken[key] = field.name
    return keymap


def _textual_name(key: str) -> str:
    """``"F11"`` -> ``"f11"``, ``"Ctrl+G"`` -> ``"ctrl+g"``: Textual names keys in lowercase
    (a lone character stays as written: ``"X"`` is shift+x)."""
    return key if len(key) == 1 else key.lower()


def _key_problem(_action: str, value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return 'must be a key name like "f6" or "ctrl+g"'
    return None
