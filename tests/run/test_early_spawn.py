"""`tether run -- CMD` spawns CMD before the engine: refused cleanly, then adopted whole."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from supervisor.agents.hook_client import SOCKET_ENV
from supervisor.cli.run import build_config
from supervisor.errors import TetherError
from supervisor.run.early_spawn import spawn_ahead
from supervisor.run.launch import start_early
from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import screen_text, until
from tests.locations import REPO
from tests.store_records import recent_events

SLEEPER = [sys.executable, "-c", "import time; time.sleep(30)"]
SHOW_ENV = [
    sys.executable,
    "-c",
    "import os; print('profile=' + os.environ['TETHER_PROFILE']);"
    f" print('socket=' + os.environ['{SOCKET_ENV}']); import time; time.sleep(30)",
]


@pytest.mark.parametrize(
    "words",
    [[], ["no-such-program-anywhere"]],
    ids=["nothing to run", "missing program"],
)
def test_anything_build_config_refuses_spawns_nothing_and_touches_nothing(tmp_path, words):
    assert spawn_ahead(None, words, tmp_path, (80, 24)) is None
    assert not (tmp_path / ".tether").exists()


@pytest.mark.parametrize("name", ["keys.toml", "notify.toml"])
def test_a_broken_config_file_is_refused_before_anything_runs(tmp_path, monkeypatch, name):
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    (config_dir / name).write_text("this is [not toml")
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(config_dir))
    marker = tmp_path / "ran"
    assert spawn_ahead(None, ["sh", "-c", f"touch {marker}"], tmp_path, (80, 24)) is None
    with pytest.raises(TetherError):  # build_config then says what is wrong
        build_config(None, ["sh", "-c", f"touch {marker}"], tmp_path)
    assert not marker.exists() and not (tmp_path / ".tether").exists()


@pytest.mark.parametrize("key", ["banana", "f13"])
def test_a_key_no_terminal_sends_by_that_name_is_refused_before_anything_runs(
    tmp_path, monkeypatch, key
):
    """A typo (or a key tether cannot tell in the input) never reached tether: refused,
    naming the file and the action, instead of a footer key that does nothing."""
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    (config_dir / "keys.toml").write_text(f'rehydrate = "{key}"\n')
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(config_dir))
    marker = tmp_path / "ran"
    assert spawn_ahead(None, ["sh", "-c", f"touch {marker}"], tmp_path, (80, 24)) is None
    with pytest.raises(TetherError, match=rf"keys.toml: rehydrate = '{key}'"):
        build_config(None, ["sh", "-c", f"touch {marker}"], tmp_path)
    assert not marker.exists() and not (tmp_path / ".tether").exists()


def test_a_broken_user_shell_profile_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """A plain command skips the bundled shell profile's parse, not the user's own."""
    config_dir = tmp_path / "config"
    (config_dir / "profiles").mkdir(parents=True)
    (config_dir / "profiles" / "shell.toml").write_text("command = [")
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(config_dir))
    marker = tmp_path / "ran"
    assert spawn_ahead(None, ["sh", "-c", f"touch {marker}"], tmp_path, (80, 24)) is None
    with pytest.raises(TetherError):
        build_config(None, ["sh", "-c", f"touch {marker}"], tmp_path)
    assert not marker.exists() and not (tmp_path / ".tether").exists()


def test_no_known_size_or_no_folder_leaves_it_to_the_usual_start(tmp_path):
    assert spawn_ahead(None, ["true"], tmp_path, None) is None
    assert spawn_ahead(None, ["true"], tmp_path / "missing", (80, 24)) is None


def test_a_folder_another_tether_holds_is_refused_before_anything_runs(tmp_path):
    marker = tmp_path / "ran"
    init(tmp_path)
    held = supervisor_lock.acquire(TetherDir.at(tmp_path))
    try:
        with pytest.raises(TetherError):
            spawn_ahead(None, ["sh", "-c", f"touch {marker}"], tmp_path, (80, 24))
    finally:
        held.release()
    assert not marker.exists()


def test_a_new_folder_gets_its_templates_once_the_command_runs(tmp_path):
    ahead = spawn_ahead(None, SLEEPER, tmp_path, (80, 24))
    try:
        assert (tmp_path / ".tether" / "lock").exists()
        assert oct((tmp_path / ".tether").stat().st_mode & 0o777) == "0o700"
        assert not (tmp_path / ".tether" / "notes.md").exists()  # not before the spawn
        ahead.complete()
        assert (tmp_path / ".tether" / "notes.md").exists()
        assert (tmp_path / ".tether" / "checkpoints").is_dir()
        kinds = [e["kind"] for e in recent_events(TetherDir.at(tmp_path), 10)[0]]
        assert "made_private" not in kinds  # it was private from the start
    finally:
        ahead.abandon()


def test_a_folder_the_first_run_made_is_trusted_so_the_next_run_does_not_ask(tmp_path):
    """`tether run` in a folder without `.tether/` makes it (the user's own, as with
    `tether init`): the next `tether run` there must not warn that it may have come from
    someone else."""
    from supervisor.store import trust

    ahead = spawn_ahead(None, SLEEPER, tmp_path, (80, 24))
    try:
        ahead.complete()
    finally:
        ahead.abandon()
    assert trust.warning(TetherDir.at(tmp_path)) is None


async def test_the_supervision_adopts_the_agent_its_lock_and_its_hook_socket(tmp_path):
    ahead = spawn_ahead(None, SHOW_ENV, tmp_path, (70, 20))
    assert ahead is not None
    host = ahead.session.host
    config = build_config(None, SHOW_ENV, tmp_path)
    early = start_early(config, ahead)
    try:
        supervision = early.supervision
        assert early.session is ahead.session and early.session.host is host
        assert (early.session.emulator.cols, early.session.emulator.rows) == (70, 20)
        socket_path = supervision.hook_server.path
        assert os.path.exists(socket_path)  # listening now, at the path the agent was given
        with pytest.raises(TetherError):  # the lock taken ahead is the supervision's
            supervisor_lock.acquire(TetherDir.at(tmp_path))
        early.session.read_on(asyncio.get_running_loop())
        await until(lambda: "socket=" in screen_text(early.session), "the agent's line")
        shown = screen_text(early.session)
        assert "profile=shell" in shown and f"socket={socket_path}" in shown
    finally:
        early.abandon()
    assert not os.path.exists(socket_path)
    supervisor_lock.acquire(TetherDir.at(tmp_path)).release()  # released


def test_abandoned_ahead_the_agent_is_hung_up_on_and_the_folder_released(tmp_path):
    ahead = spawn_ahead(None, SLEEPER, tmp_path, (80, 24))
    socket_folder = Path(ahead.hook_server.path).parent
    assert socket_folder.is_dir() and oct(socket_folder.stat().st_mode & 0o777) == "0o700"
    ahead.abandon()
    ahead.abandon()  # twice is harmless
    assert ahead.session.exit_status is not None
    assert not socket_folder.exists()
    supervisor_lock.acquire(TetherDir.at(tmp_path)).release()


async def test_a_profile_agent_is_spawned_ahead_with_its_hook_settings(tmp_path, monkeypatch):
    """`tether run claude`: the profile's command line, --settings and all, as build_config
    makes it, so the supervision adopts exactly the agent it would have spawned."""
    agent = tmp_path / "fake-claude"
    agent.write_text('#!/bin/sh\necho "args: $*"\nsleep 30\n')
    agent.chmod(0o755)
    config_dir = tmp_path / "config"
    (config_dir / "profiles").mkdir(parents=True)
    claude = (REPO / "profiles" / "claude.toml").read_text()
    claude = claude.replace('command = ["claude"]', f'command = ["{agent}"]', 1)
    (config_dir / "profiles" / "claude.toml").write_text(claude)
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(config_dir))
    work = tmp_path / "work"
    work.mkdir()

    ahead = spawn_ahead("claude", [], work, (200, 24))
    assert ahead is not None and ahead.profile_name == "claude"
    ahead.complete()
    config = build_config("claude", [], work)
    settings = work / ".tether" / "agent" / "claude-settings.json"
    assert ahead.session.argv == config.argv == [str(agent), "--settings", str(settings)]
    early = start_early(config, ahead)
    try:
        early.session.read_on(asyncio.get_running_loop())
        await until(lambda: "args:" in screen_text(early.session), "the agent's line")
        assert f"args: --settings {settings}" in screen_text(early.session)
        assert settings.exists()
    finally:
        early.abandon()
