"""keys.toml and notify.toml: read into their settings, every mistake named by file and line."""

from __future__ import annotations

import pytest

from supervisor.config.keymap import Keymap, load_keymap
from supervisor.config.notify import NotifySettings, load_notify_settings
from supervisor.config.toml_file import line_of
from supervisor.errors import TetherError

LOADERS = {"keys.toml": load_keymap, "notify.toml": load_notify_settings}


def test_a_missing_file_gives_the_defaults_and_a_written_one_its_values(tmp_path):
    assert load_keymap(tmp_path / "keys.toml") == Keymap()
    assert load_notify_settings(tmp_path / "notify.toml") == NotifySettings()
    (tmp_path / "keys.toml").write_text('# mine\nrehydrate = "f11"\n"quit" = "ctrl+q"\n')
    assert load_keymap(tmp_path / "keys.toml") == Keymap(rehydrate="f11", quit="ctrl+q")
    (tmp_path / "notify.toml").write_text("desktop = false\nafter_busy_seconds = 0\n")
    expected = NotifySettings(desktop=False, after_busy_seconds=0)
    assert load_notify_settings(tmp_path / "notify.toml") == expected


# What a person may write in each file, and the start of what tether says about it.
MISTAKES = {
    "keys.toml": {
        'rehydrate = "f11"\n\nquit = 10\n': r"keys\.toml:3: quit must be a key name",
        'preview = ""\n': r"keys\.toml:1: preview must be a key name",
        'rehydrate = "f11"\nrehydrat = "f2"\n': r"keys\.toml:2: unknown key 'rehydrat'; known:",
        'rehydrate = "f11\n': r"keys\.toml:1: not valid TOML: .*fix or remove the file",
    },
    "notify.toml": {
        "bell = true\ndesktop = 1\n": r"notify\.toml:2: desktop must be true or false",
        "after_busy_seconds = -5\n": r"notify\.toml:1: after_busy_seconds must be a number",
        "after_busy_seconds = true\n": r"notify\.toml:1: after_busy_seconds must be a number",
        "[bell]\nx = 1\n": r"notify\.toml:1: bell must be true or false",
        b"bell = \xff\n": r"notify\.toml: not UTF-8 text \(byte 7\)",
    },
}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [(name, text, message) for name, cases in MISTAKES.items() for text, message in cases.items()],
)
def test_a_mistake_is_named_by_file_and_line_never_a_traceback(tmp_path, name, text, message):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(TetherError, match=message):
        LOADERS[name](path)


def test_a_folder_where_the_file_should_be_is_a_clear_error(tmp_path):
    (tmp_path / "keys.toml").mkdir()
    with pytest.raises(TetherError, match=r"keys\.toml: cannot read it: Is a directory"):
        load_keymap(tmp_path / "keys.toml")


def test_the_line_of_a_key_is_found_inside_its_table_and_quoted():
    text = "a = 1\n[markers]\nbusy = [\"x\"]\n'wipe' = []\n[other]\nbusy = 2\n"
    assert line_of(text, None, "a") == 1
    assert line_of(text, "markers", "busy") == 3
    assert line_of(text, "markers", "wipe") == 4
    assert line_of(text, "other", "busy") == 6
    assert line_of(text, None, "markers") == 2  # a table: its header
    assert line_of(text, None, "busy") is None
