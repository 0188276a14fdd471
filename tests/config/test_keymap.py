"""tether's keys from keys.toml: a key given to two actions is refused, naming both."""

from __future__ import annotations

import pytest

from supervisor.config.keymap import Keymap, load_keymap
from supervisor.errors import TetherError


def test_the_defaults_are_all_different_function_keys() -> None:
    keys = [getattr(Keymap(), name) for name in Keymap.__dataclass_fields__]
    assert len(set(keys)) == len(keys) and all(key.startswith("f") for key in keys)


def test_a_key_given_to_an_action_that_has_it_by_default_is_refused(tmp_path) -> None:
    path = tmp_path / "keys.toml"
    path.write_text('checkpoint = "f3"\n')
    with pytest.raises(TetherError, match=r"keys.toml: checkpoint and compact are both 'f3'"):
        load_keymap(path)
    path.write_text('checkpoint = "f3"\ncompact = "f11"\n')
    assert load_keymap(path).checkpoint == "f3"


def test_a_key_written_as_the_readme_writes_it_is_read_in_textuals_lowercase(tmp_path) -> None:
    """ "F11" (as the README's key table writes keys) bound nothing: Textual's names are
    lowercase, so the key went to the agent and the footer showed a dead "F11"."""
    path = tmp_path / "keys.toml"
    path.write_text('rehydrate = "F11"\nquit = "Ctrl+G"\npreview = "alt+X"\n')
    keymap = load_keymap(path)
    assert (keymap.rehydrate, keymap.quit, keymap.preview) == ("f11", "ctrl+g", "alt+x")
