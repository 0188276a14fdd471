"""Files a clone can ship, broken on purpose: each command names the file, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.tether_process import TETHER


def tether_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TETHER, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )


@pytest.fixture
def two_checkpoints(tmp_path) -> TetherDir:
    tether = init(tmp_path, goal="ship it").tether
    for reason in ("first", "second"):
        checkpoints.take(tether, reason, with_git=False)
    return tether


def _rewrite(tether: TetherDir, seq: int, raw: str) -> None:
    (tether.checkpoints / f"{seq:06d}.json").write_text(raw)


def _with(tether: TetherDir, seq: int, key: str, raw_value: str) -> str:
    data = json.loads((tether.checkpoints / f"{seq:06d}.json").read_text())
    data[key] = "PLACEHOLDER"
    return json.dumps(data).replace('"PLACEHOLDER"', raw_value)


COMMANDS = [
    ("status",),
    ("status", "--json"),
    ("history",),
    ("history", "--json"),
    ("show", "1"),
    ("show", "1", "--json"),
    ("diff", "1", "2"),
    ("diff", "1"),
    ("restore", "1"),
]


@pytest.mark.parametrize("seq", ["Infinity", "NaN", "1e400", "[1]"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_checkpoint_whose_seq_is_not_a_number_is_named(two_checkpoints, seq, command):
    _rewrite(two_checkpoints, 1, _with(two_checkpoints, 1, "seq", seq))
    done = tether_cli(command[0], "--dir", str(two_checkpoints.work_dir), *command[1:])
    assert "Traceback" not in done.stderr, done.stderr
    if command[0] in ("show", "diff", "restore"):
        assert done.returncode != 0 and "000001.json" in done.stderr


@pytest.mark.parametrize("git", ['"main"', '["main", true]'])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_checkpoint_whose_git_is_not_an_object_is_named(two_checkpoints, git, command):
    _rewrite(two_checkpoints, 1, _with(two_checkpoints, 1, "git", git))
    done = tether_cli(command[0], "--dir", str(two_checkpoints.work_dir), *command[1:])
    assert "Traceback" not in done.stderr, done.stderr
    if command[0] in ("show", "diff", "restore"):
        assert done.returncode != 0 and "000001.json" in done.stderr


def test_the_checkpoints_pane_previews_a_git_that_is_not_an_object():
    from widgets.side_pane.checkpoint_list import render_preview

    point = checkpoints.Checkpoint(1, "2026-05-01T09:00:00Z", "x", "", "", {}, {})
    point.git = ["main"]  # type: ignore[assignment]  # as a file could hold, past the loader
    assert "git" not in render_preview(point).plain


def _nested(kind: str, depth: int) -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    return "{a=" * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [100, 1_000, 50_000])
@pytest.mark.parametrize("kind", ["array", "table"])
def test_a_deeply_nested_profile_is_named_by_tether_profiles_and_run(tmp_path, kind, depth):
    config = tmp_path / "config"
    (config / "profiles").mkdir(parents=True)
    (config / "profiles" / "deep.toml").write_text(f'command = ["x"]\nx = {_nested(kind, depth)}\n')
    env = dict(os.environ, TETHER_CONFIG_DIR=str(config))
    listed = tether_cli("profiles", env=env)
    assert "Traceback" not in listed.stderr, listed.stderr[-500:]
    assert listed.returncode == 1 and "deep.toml" in listed.stdout and "BROKEN" in listed.stdout
    ran = tether_cli("run", "--dir", str(tmp_path), "deep", "--", "x", env=env)
    assert "Traceback" not in ran.stderr and "deep.toml" in ran.stderr


@pytest.mark.parametrize("name", ["keys.toml", "notify.toml"])
def test_a_deeply_nested_settings_file_is_named(tmp_path, name):
    config = tmp_path / "config"
    config.mkdir()
    (config / name).write_text(f"x = {_nested('array', 50_000)}\n")
    from supervisor.config.keymap import load_keymap
    from supervisor.config.notify import load_notify_settings
    from supervisor.errors import TetherError

    load_path = config / name
    load = load_keymap if name == "keys.toml" else load_notify_settings
    with pytest.raises(TetherError, match=name):
        load(load_path)
